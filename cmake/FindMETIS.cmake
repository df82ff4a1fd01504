# FindMETIS: METIS 5 (Debian's libmetis-dev ships no CMake config or pkg-config file, and only the
# shared library). Defines METIS::METIS. The libmetis_static.a that Debian's CUDA toolkit package
# (nvidia-cuda-dev) puts beside it is another build, with 64-bit idx_t against the 32-bit metis.h:
# it is never picked (linked with this header it crashes in SetupGraph). The GPU bundle carries
# libmetis.so.5 (scripts/bundle-device.sh).
# Result variables: METIS_FOUND, METIS_INCLUDE_DIR, METIS_LIBRARY, METIS_IDXTYPEWIDTH.
find_path(METIS_INCLUDE_DIR metis.h)
find_library(METIS_LIBRARY NAMES metis)
if(METIS_INCLUDE_DIR AND EXISTS "${METIS_INCLUDE_DIR}/metis.h")
  file(STRINGS "${METIS_INCLUDE_DIR}/metis.h" _metis_width REGEX "^#define IDXTYPEWIDTH[ \t]+[0-9]+")
  string(REGEX MATCH "[0-9]+$" METIS_IDXTYPEWIDTH "${_metis_width}")
  file(STRINGS "${METIS_INCLUDE_DIR}/metis.h" _metis_major REGEX "^#define METIS_VER_MAJOR[ \t]+[0-9]+")
  string(REGEX MATCH "[0-9]+$" METIS_VERSION_MAJOR "${_metis_major}")
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(METIS REQUIRED_VARS METIS_LIBRARY METIS_INCLUDE_DIR METIS_VERSION_MAJOR)
if(METIS_FOUND AND NOT METIS_VERSION_MAJOR EQUAL 5)
  message(FATAL_ERROR "METIS 5 is needed, found version ${METIS_VERSION_MAJOR} in ${METIS_INCLUDE_DIR}/metis.h")
endif()
if(METIS_FOUND AND NOT TARGET METIS::METIS)
  add_library(METIS::METIS UNKNOWN IMPORTED)
  set_target_properties(METIS::METIS PROPERTIES IMPORTED_LOCATION "${METIS_LIBRARY}"
                                                INTERFACE_INCLUDE_DIRECTORIES "${METIS_INCLUDE_DIR}")
endif()
mark_as_advanced(METIS_INCLUDE_DIR METIS_LIBRARY)
