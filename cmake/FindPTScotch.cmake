# FindPTScotch: PT-Scotch 7 (Debian's libptscotch-dev: MPI graph partitioning, mesh.partition:
# ptscotch). Debian ships no CMake config. Its libptscotch holds the whole sequential Scotch library
# as well (SCOTCH_graphPart beside SCOTCH_dgraphPart), so only libptscotch and its error handler
# libptscotcherr are linked, never libscotch beside it (two copies of the same symbols, built
# with different structure layouts). The default /usr/include/scotch/scotch.h and libptscotch.so
# are the 32-bit SCOTCH_Num build (int); the 64-bit ones live in scotch-int64/ subfolders and are
# not picked. src/mesh/ptscotch.cpp checks at run time that the library's SCOTCH_Num has the
# header's size (SCOTCH_numSizeof). The GPU bundle carries the shared libraries
# (scripts/bundle-device.sh). Defines PTScotch::PTScotch.
# Result variables: PTScotch_FOUND, PTSCOTCH_INCLUDE_DIR, PTSCOTCH_LIBRARY, PTSCOTCHERR_LIBRARY,
# PTSCOTCH_NUM_TYPE (the SCOTCH_Num typedef of the header).
find_path(PTSCOTCH_INCLUDE_DIR ptscotch.h PATH_SUFFIXES scotch)
find_library(PTSCOTCH_LIBRARY NAMES ptscotch)
find_library(PTSCOTCHERR_LIBRARY NAMES ptscotcherr)
if(PTSCOTCH_INCLUDE_DIR AND EXISTS "${PTSCOTCH_INCLUDE_DIR}/scotch.h")
  file(STRINGS "${PTSCOTCH_INCLUDE_DIR}/scotch.h" _scotch_num REGEX "^typedef[ \t]+[a-z0-9_]+[ \t]+SCOTCH_Num")
  string(REGEX MATCH "^typedef[ \t]+([a-z0-9_]+)" _scotch_num "${_scotch_num}")
  set(PTSCOTCH_NUM_TYPE "${CMAKE_MATCH_1}")
  file(STRINGS "${PTSCOTCH_INCLUDE_DIR}/scotch.h" _scotch_version REGEX "^#define SCOTCH_VERSION[ \t]+[0-9]+")
  string(REGEX MATCH "[0-9]+$" PTSCOTCH_VERSION_MAJOR "${_scotch_version}")
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(PTScotch REQUIRED_VARS PTSCOTCH_LIBRARY PTSCOTCHERR_LIBRARY PTSCOTCH_INCLUDE_DIR
                                                         PTSCOTCH_VERSION_MAJOR)
if(PTScotch_FOUND AND PTSCOTCH_VERSION_MAJOR LESS 7)
  message(FATAL_ERROR "PT-Scotch 7 is needed, found version ${PTSCOTCH_VERSION_MAJOR} in ${PTSCOTCH_INCLUDE_DIR}")
endif()
if(PTScotch_FOUND AND NOT TARGET PTScotch::PTScotch)
  add_library(PTScotch::PTScotch UNKNOWN IMPORTED)
  set_target_properties(PTScotch::PTScotch PROPERTIES IMPORTED_LOCATION "${PTSCOTCH_LIBRARY}"
                                                      INTERFACE_INCLUDE_DIRECTORIES "${PTSCOTCH_INCLUDE_DIR}"
                                                      INTERFACE_LINK_LIBRARIES "${PTSCOTCHERR_LIBRARY}")
endif()
mark_as_advanced(PTSCOTCH_INCLUDE_DIR PTSCOTCH_LIBRARY PTSCOTCHERR_LIBRARY)
