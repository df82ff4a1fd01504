# Compile options shared by every fvproxy target: fvproxy_options (INTERFACE library).
add_library(fvproxy_options INTERFACE)
target_compile_options(fvproxy_options INTERFACE -Wall -Wextra)
if(FVPROXY_WERROR)
  target_compile_options(fvproxy_options INTERFACE -Werror)
endif()
# g++ 12 at -O2/-O3 in C++20 mode (constexpr std::string and std::vector) reports two warnings
# inside libstdc++ itself: -Wrestrict in std::string concatenation (`"u" + std::to_string(k)`; GCC
# bug 105329) and -Wfree-nonheap-object in std::vector's deallocation. Both are false positives in
# the standard library's code; they are silenced for that compiler and standard only (the C++17
# presets keep both warnings, and the float preset's C++20 build keeps every other one).
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 12
   AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13 AND CMAKE_CXX_STANDARD GREATER_EQUAL 20)
  target_compile_options(fvproxy_options INTERFACE -Wno-restrict -Wno-free-nonheap-object)
endif()
target_compile_definitions(fvproxy_options INTERFACE FVPROXY_REAL=${FVPROXY_REAL})
string(REPLACE ";" "," _fvproxy_components "${FVPROXY_COMPONENTS}")
target_compile_definitions(fvproxy_options INTERFACE "FVPROXY_COMPONENT_LIST=${_fvproxy_components}")
if(FVPROXY_ENABLE_MPI)
  # C API only: keep Open MPI / MPICH from pulling in their deprecated C++ bindings.
  target_compile_definitions(fvproxy_options INTERFACE FVPROXY_HAVE_MPI OMPI_SKIP_MPICXX=1 MPICH_SKIP_MPICXX=1)
endif()
if(FVPROXY_ENABLE_HDF5)
  target_compile_definitions(fvproxy_options INTERFACE FVPROXY_HAVE_HDF5)
endif()

# CUDA builds: ptxas' per-kernel resource report (registers, stack frame, spills, -Xptxas -v) is
# kept per object under FVPROXY_PTXAS_DIR by the compiler launcher scripts/ptxas-log.sh, and
# gathered into ptxas.log in the build folder after every build (target ptxas_log).
# Compiler cache (docs/development.md#compiler-cache): every compilation goes through ccache when it
# is installed (scripts/setup-deps.sh installs it) and FVPROXY_CCACHE is ON. Paths under the source
# tree are hashed relative to it (CCACHE_BASEDIR) and the working folder is left out of the hash
# (CCACHE_NOHASHDIR), so a fresh clone elsewhere, or another preset's folder, reuses the objects
# of an earlier build; the cache itself is ccache's own (CCACHE_DIR, default ~/.cache/ccache),
# outside the checkout. A user's CMAKE_CXX_COMPILER_LAUNCHER is kept.
option(FVPROXY_CCACHE "Compile through ccache when it is installed" ON)
set(FVPROXY_LAUNCHER "")
if(FVPROXY_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  find_program(FVPROXY_CCACHE_PROGRAM ccache)
  find_program(FVPROXY_ENV_PROGRAM env)
  if(FVPROXY_CCACHE_PROGRAM AND FVPROXY_ENV_PROGRAM)
    set(FVPROXY_LAUNCHER ${FVPROXY_ENV_PROGRAM} CCACHE_BASEDIR=${PROJECT_SOURCE_DIR} CCACHE_NOHASHDIR=1
                         CCACHE_COMPILERCHECK=content ${FVPROXY_CCACHE_PROGRAM})
    message(STATUS "Compiler cache: ${FVPROXY_CCACHE_PROGRAM} (FVPROXY_CCACHE=OFF builds without it)")
  endif()
endif()
if(Kokkos_DEVICES MATCHES "CUDA")
  set(FVPROXY_CUDA ON)
  set(FVPROXY_PTXAS_DIR ${CMAKE_BINARY_DIR}/ptxas)
  target_compile_options(fvproxy_options INTERFACE -Xptxas=-v)
  # ptxas-log.sh keeps ptxas' report per object; under ccache a cached object's report is replayed.
  set(CMAKE_CXX_COMPILER_LAUNCHER bash ${PROJECT_SOURCE_DIR}/scripts/ptxas-log.sh ${FVPROXY_PTXAS_DIR}
                                  ${FVPROXY_LAUNCHER})
else()
  set(FVPROXY_CUDA OFF)
  if(FVPROXY_LAUNCHER)
    set(CMAKE_CXX_COMPILER_LAUNCHER ${FVPROXY_LAUNCHER})
  endif()
endif()

# Version header, regenerated at every build so the git revision is never stale.
set(FVPROXY_GENERATED_DIR ${CMAKE_BINARY_DIR}/generated)
add_custom_target(fvproxy_version_header
  COMMAND ${CMAKE_COMMAND} -DSRC=${PROJECT_SOURCE_DIR} -DOUT=${FVPROXY_GENERATED_DIR}/fvproxy_version.hpp
          -DVERSION=${PROJECT_VERSION} -DBUILD_TYPE=${CMAKE_BUILD_TYPE} -P ${PROJECT_SOURCE_DIR}/cmake/write_version.cmake
  BYPRODUCTS ${FVPROXY_GENERATED_DIR}/fvproxy_version.hpp
  COMMENT "fvproxy: version header")
