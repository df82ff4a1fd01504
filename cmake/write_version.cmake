# Writes OUT (fvproxy_version.hpp) with the git revision of SRC; rewrites it only when it changes.
execute_process(COMMAND git -C "${SRC}" describe --always --dirty --abbrev=12
                OUTPUT_VARIABLE rev OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR rev STREQUAL "")
  set(rev "unknown")
endif()
set(text "#pragma once\n#define FVPROXY_VERSION \"${VERSION}\"\n#define FVPROXY_GIT_REVISION \"${rev}\"\n#define FVPROXY_BUILD_TYPE \"${BUILD_TYPE}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
  if(old STREQUAL text)
    return()
  endif()
endif()
file(WRITE "${OUT}" "${text}")
