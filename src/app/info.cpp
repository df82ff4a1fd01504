#include "app/info.hpp"

#include "core/build_info.hpp"
#include "io/hdf5_info.hpp"
#include "parallel/mpi_environment.hpp"

namespace fvproxy {

nlohmann::json info_json() {
  nlohmann::json j = to_json(build_info());
  j["mpi"] = mpi_library_version();
  j["hdf5"] = hdf5_library_version();
  return j;
}

} // namespace fvproxy
