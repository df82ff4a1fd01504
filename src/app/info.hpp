#pragma once
// What `fvproxy info` prints, as JSON (also stored in summary.json as "build").
#include <nlohmann/json.hpp>

namespace fvproxy {

/// build_info() plus the MPI and HDF5 library versions. Requires Kokkos to be initialized.
nlohmann::json info_json();

} // namespace fvproxy
