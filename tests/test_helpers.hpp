#pragma once
// Helpers shared by the tests.
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
    for (const auto& frag : fragments) EXPECT_NE(msg.find(frag), std::string::npos) << "'" << frag << "' not in:\n" << msg;
  }
}

inline std::string source_path(const std::string& rel) { return std::string(FVPROXY_SOURCE_DIR) + "/" + rel; }

} // namespace fvproxy::test
