#pragma once
#include <string>

namespace fvproxy {
/// "1.10.8 (parallel)" or "disabled".
std::string hdf5_library_version();
} // namespace fvproxy
