#include "core/error.hpp"

namespace fvproxy {

namespace {
std::string compose(const std::string& where, const std::string& what, const std::string& detail) {
  std::string s = where.empty() ? "error: " + what : where + ": error: " + what;
  if (!detail.empty()) s += "\n" + detail;
  return s;
}
} // namespace

InputError::InputError(const std::string& where, const std::string& what, const std::string& detail)
    : std::runtime_error(compose(where, what, detail)), where_(where) {}

InputError InputError::from_message(const std::string& message, const std::string& where) {
  return InputError(Composed{}, message, where);
}

} // namespace fvproxy
