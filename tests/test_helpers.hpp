#pragma once
// Helpers shared by the tests.
#include <cstdlib>
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "core/error.hpp"

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
inline std::string source_path(const std::string& rel) {
  const char* env = std::getenv("FVPROXY_SOURCE_DIR");
  return std::string(env && *env ? env : FVPROXY_SOURCE_DIR) + "/" + rel;
}

} // namespace fvproxy::test
