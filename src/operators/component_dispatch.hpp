#pragma once
// From a run-time component count to a compile-time one (the optimized kernels keep their
// per-component values in registers: `real acc[N]`). The counts instantiated come from CMake
// (FVPROXY_COMPONENTS, default 1 2 3 4 5 8); any other count is refused with the list.
#include <string>
#include <utility>

#include "core/config.hpp"
#include "core/error.hpp"

#ifndef FVPROXY_COMPONENT_LIST
#define FVPROXY_COMPONENT_LIST 1, 2, 3, 4, 5, 8
#endif

namespace fvproxy {

template <int... Ns> struct ComponentList {};
using BuildComponents = ComponentList<FVPROXY_COMPONENT_LIST>;

namespace detail {
template <template <int> class Make, class... Args> [[noreturn]] auto dispatch(int n, ComponentList<>, Args&&...)
    -> decltype(Make<1>::make(std::declval<Args>()...)) {
  std::string list;
  for (int c : component_list()) list += (list.empty() ? "" : ", ") + std::to_string(c);
  throw InputError("physics.components",
                   std::to_string(n) + " is not among this build's component counts {" + list + "}");
}
template <template <int> class Make, int N, int... Rest, class... Args>
auto dispatch(int n, ComponentList<N, Rest...>, Args&&... args)
    -> decltype(Make<N>::make(std::forward<Args>(args)...)) {
  if (n == N) return Make<N>::make(std::forward<Args>(args)...);
  return dispatch<Make>(n, ComponentList<Rest...>{}, std::forward<Args>(args)...);
}
} // namespace detail

/// Make<N>::make(args...) for the N equal to `n` in this build's list; InputError otherwise.
template <template <int> class Make, class... Args> auto dispatch_components(int n, Args&&... args) {
  return detail::dispatch<Make>(n, BuildComponents{}, std::forward<Args>(args)...);
}

} // namespace fvproxy
