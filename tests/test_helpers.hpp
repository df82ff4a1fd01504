#pragma once
// Helpers shared by the tests.
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/types.hpp"

namespace fvproxy::test {

/// Runs `f`, expects an InputError whose message contains every fragment.
inline void expect_input_error(const std::function<void()>& f, std::initializer_list<std::string> fragments) {
  try {
    f();
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    for (const auto& frag : fragments)
      EXPECT_NE(msg.find(frag), std::string::npos) << "'" << frag << "' not in:\n" << msg;
  }
}

/// A file of the source tree (mesh/, tests/data/). The environment variable FVPROXY_SOURCE_DIR
/// overrides the configure-time path, so the tests also run from the GPU bundle.
/// A double-precision tolerance for this build's `real` (INTERFACE.md: in single precision,
/// 1e-12 becomes 1e-5): unchanged in double builds, scaled by 1e7 but at least 1e-5 in float ones.
inline double tol(double t) {
  return sizeof(real) == sizeof(double) ? t : std::max(t * 1e7, 1e-5);
}

inline std::string source_path(const std::string& rel) {
  const char* env = std::getenv("FVPROXY_SOURCE_DIR");
  return std::string(env && *env ? env : FVPROXY_SOURCE_DIR) + "/" + rel;
}

} // namespace fvproxy::test
