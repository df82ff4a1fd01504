#include "io/hdf5_info.hpp"

#ifdef FVPROXY_HAVE_HDF5
#include <hdf5.h>
#endif

namespace fvproxy {

std::string hdf5_library_version() {
#ifdef FVPROXY_HAVE_HDF5
  unsigned maj = 0, min = 0, rel = 0;
  if (H5get_libversion(&maj, &min, &rel) < 0) return "unknown";
  std::string s = std::to_string(maj) + "." + std::to_string(min) + "." + std::to_string(rel);
#ifdef H5_HAVE_PARALLEL
  s += " (parallel)";
#endif
  return s;
#else
  return "disabled";
#endif
}

} // namespace fvproxy
