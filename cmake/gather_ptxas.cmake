# Concatenates the per-object ptxas reports of DIR into OUT (cuda preset; see FvproxyOptions.cmake).
file(GLOB logs "${DIR}/*.log")
list(SORT logs)
set(text "# ptxas resource usage (-Xptxas -v), one block per object file\n")
foreach(f IN LISTS logs)
  file(READ "${f}" part)
  string(APPEND text "${part}")
endforeach()
file(WRITE "${OUT}" "${text}")
