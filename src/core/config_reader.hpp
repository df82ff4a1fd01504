#pragma once
// Private to the configuration: typed access to YAML nodes with located errors (config.cpp,
// case_config.cpp).
#include <array>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/config.hpp"
#include "core/error.hpp"

namespace fvproxy::detail {

class Reader {
public:
  explicit Reader(const ConfigSource& src) : src_(src) {}

  [[noreturn]] void fail(const YAML::Node& node, const std::string& path, const std::string& msg,
                         const std::string& detail = {}) const {
    throw InputError(src_.locate(node, path), path.empty() ? msg : path + ": " + msg, detail);
  }

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  void require_map(const YAML::Node& n, const std::string& path) const {
    if (!n.IsMap()) fail(n, path, "expected a mapping (key: value pairs)", "got " + describe(n));
  }

  /// Every key of the mapping must be one of `allowed`.
  void check_keys(const YAML::Node& map, const std::string& path, const std::vector<std::string>& allowed) const {
    require_map(map, path);
    for (const auto& kv : map) {
      const std::string key = kv.first.as<std::string>();
      if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
      const std::string best = closest_key(key, allowed);
      std::string valid;
      for (const auto& a : allowed) valid += (valid.empty() ? "" : ", ") + a;
      throw InputError(src_.locate(kv.first, join(path, key)),
                       "unknown key '" + join(path, key) + "'" +
                           (best.empty() ? std::string{} : "; did you mean '" + join(path, best) + "'?"),
                       "valid keys" + std::string(path.empty() ? "" : " of '" + path + "'") + ": " + valid);
    }
  }

  static std::string describe(const YAML::Node& n) {
    if (n.IsNull()) return "an empty value";
    if (n.IsSequence()) return "a list";
    if (n.IsMap()) return "a mapping";
    return "'" + n.Scalar() + "'";
  }

  double real_value(const YAML::Node& n, const std::string& path) const {
    double v = 0;
    if (!n.IsScalar() || !YAML::convert<double>::decode(n, v) || !std::isfinite(v))
      fail(n, path, "expected a number", "got " + describe(n));
    return v;
  }

  long long int_value(const YAML::Node& n, const std::string& path) const {
    long long v = 0;
    if (!n.IsScalar() || !YAML::convert<long long>::decode(n, v)) {
      double d = 0;
      if (n.IsScalar() && YAML::convert<double>::decode(n, d))
        fail(n, path, "expected an integer", "got " + describe(n) + " (not a whole number)");
      fail(n, path, "expected an integer", "got " + describe(n));
    }
    return v;
  }

  bool bool_value(const YAML::Node& n, const std::string& path) const {
    bool v = false;
    if (!n.IsScalar() || !YAML::convert<bool>::decode(n, v))
      fail(n, path, "expected true or false", "got " + describe(n));
    return v;
  }

  /// A number that must be > 0 (or >= 0 when `allow_zero`).
  double positive(const YAML::Node& n, const std::string& path, bool allow_zero = false) const {
    const double v = real_value(n, path);
    if (allow_zero ? v < 0 : v <= 0) fail(n, path, allow_zero ? "must be >= 0" : "must be > 0");
    return v;
  }

  std::string string_value(const YAML::Node& n, const std::string& path) const {
    if (!n.IsScalar()) fail(n, path, "expected a string", "got " + describe(n));
    return n.Scalar();
  }

  template <class E> E enum_value(const YAML::Node& n, const std::string& path, const std::vector<E>& values) const {
    const std::string s = string_value(n, path);
    std::vector<std::string> names;
    for (E e : values) {
      if (s == to_string(e)) return e;
      names.emplace_back(to_string(e));
    }
    std::string list;
    for (const auto& x : names) list += (list.empty() ? "" : " | ") + x;
    const std::string best = closest_key(s, names);
    fail(n, path, "invalid value '" + s + "'" + (best.empty() ? "" : "; did you mean '" + best + "'?"),
         "valid values: " + list);
  }

  std::array<double, 3> vec3(const YAML::Node& n, const std::string& path) const {
    if (!n.IsSequence() || n.size() != 3) fail(n, path, "expected a list of 3 numbers [x, y, z]", "got " + describe(n));
    std::array<double, 3> v{};
    for (std::size_t i = 0; i < 3; ++i) v[i] = real_value(n[i], path + "[" + std::to_string(i) + "]");
    return v;
  }

  void range(const YAML::Node& n, const std::string& path, double v, double lo, double hi,
             const std::string& what) const {
    if (!(v >= lo && v <= hi)) {
      std::ostringstream os;
      os << "value " << v << " out of range: " << what;
      fail(n, path, os.str());
    }
  }

  /// "KEY = VALUE at WHERE" for a value another key is checked against (so that a conflict names
  /// both places: the file:line or the --set of each); "KEY = VALUE (the default)" when absent.
  std::string given_at(const YAML::Node& n, const std::string& path, const std::string& value) const {
    if (!n.IsDefined()) return path + " = " + value + " (the default)";
    return path + " = " + value + " at " + src_.locate(n, path);
  }

  const ConfigSource& src() const { return src_; }

private:
  const ConfigSource& src_;
};

/// "a, b, c" (lists in messages).
inline std::string join_list(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

/// A number as a stream prints it (messages).
inline std::string format_number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

/// A sequence in YAML's flow style ([a, b, c]) for the resolved configuration.
template <class A> YAML::Node flow_style(const A& a) {
  YAML::Node n;
  for (const auto& x : a) n.push_back(x);
  n.SetStyle(YAML::EmitterStyle::Flow);
  return n;
}

} // namespace fvproxy::detail
