#!/usr/bin/env bash
# Makes build/bundle: a self-contained folder for the GPU machine (docs/gpu.md#the-toolchain-step-by-step, item 6):
#   bin/fvproxy, bin/fvproxy_tests (cuda preset), bin/fvproxy-float (cuda-float preset, if built), lib/ with the shared libraries the GPU machine
#   lacks (CUDA 11.8 runtime, parallel HDF5, yaml-cpp, szip/aec, ...) but not Open MPI's (that
#   machine's Open MPI 4.1.6 is ABI-compatible and its plugins match it), inputs/, mesh/, tests/
#   data, perf/ (the benchmark harness and its specs; lib/libfvproxy_stage_tool.so, perf/stage_tool.cpp), ptxas.log, and run.sh which sets LD_LIBRARY_PATH and runs a command.
# Usage: make bundle   (then carry build/bundle to the GPU machine and run bundle/run.sh ...)
#
# The default build is build/cuda (Debian's Kokkos 3.4.01) unless --default names another:
#   bundle-device.sh --default build/cuda-kokkos-4.6.01 --also build/cuda
# (what `FVPROXY_KOKKOS_ARCHIVE=... make bundle` does: Kokkos 4.6.01 is the GPU default,
# docs/gpu.md#which-kokkos). Each --also build's executables go to bin/kokkos-X.Y.ZZ/ (its Kokkos,
# from its CMake cache), its ptxas.log to ptxas-kokkos-X.Y.ZZ.log. --also may repeat. KOKKOS.txt in
# the bundle says which Kokkos bin/fvproxy is, and whether that is a fall-back.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
also=()
b=build/cuda
while [[ $# -gt 0 ]]; do
  case "$1" in
    --also) [[ $# -ge 2 ]] || { echo "bundle-device.sh: --also needs a build folder" >&2; exit 2; }
      also+=("${2%/}"); shift 2 ;;
    --default) [[ $# -ge 2 ]] || { echo "bundle-device.sh: --default needs a build folder" >&2; exit 2; }
      b="${2%/}"; shift 2 ;;
    *) echo "usage: bundle-device.sh [--default BUILD_DIR] [--also BUILD_DIR]..." >&2; exit 2 ;;
  esac
done
[[ -x $b/fvproxy ]] || { echo "bundle-device.sh: build the cuda preset first (make cuda): no $b/fvproxy" >&2; exit 1; }
# The Kokkos a build folder was configured with (its CMake cache: Kokkos_DIR .../lib/cmake/Kokkos
# under an install prefix named kokkos-X.Y.ZZ-...), e.g. 4.6.01.
kokkos_of() {
  local dir
  dir=$(sed -n 's/^Kokkos_DIR:[A-Z]*=//p' "$1/CMakeCache.txt" 2>/dev/null)
  [[ $dir =~ kokkos-([0-9]+\.[0-9]+\.[0-9]+) ]] && echo "${BASH_REMATCH[1]}" || echo unknown
}
for a in "${also[@]}"; do
  [[ -x $a/fvproxy ]] || { echo "bundle-device.sh: --also $a: no fvproxy there (build it first)" >&2; exit 1; }
  [[ -f $a/ptxas.log ]] || echo "bundle-device.sh: warning: $a has no ptxas.log: is it a cuda build?" >&2
done
out=build/bundle
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/tests"
# copy_executables BUILD_DIR DEST: fvproxy and the test executables that were built.
copy_executables() {
  local exe
  for exe in fvproxy fvproxy_tests fvproxy_mpi_io_test fvproxy_mpi_tests; do
    if [[ -x $1/$exe ]]; then cp "$1/$exe" "$2/"; fi
  done
}
copy_executables $b "$out/bin"
for a in "${also[@]}"; do
  name=kokkos-$(kokkos_of "$a")
  mkdir -p "$out/bin/$name"
  copy_executables "$a" "$out/bin/$name"
  if [[ -f $a/ptxas.log ]]; then cp "$a/ptxas.log" "$out/ptxas-$name.log"; fi
done
# The single-precision build for the benchmark harness (make cuda-float), when built.
[[ -x build/cuda-float/fvproxy ]] && cp build/cuda-float/fvproxy "$out/bin/fvproxy-float"
# The host build (OpenMP), for CPU runs on the GPU machine's cores (make build), when built.
[[ -x build/host/fvproxy ]] && cp build/host/fvproxy "$out/bin/fvproxy-host"
[[ -f $b/ptxas.log ]] && cp "$b/ptxas.log" "$out/"
default_kokkos=$(kokkos_of "$b")
{
  echo "bin/fvproxy and the GPU tests in bin/: Kokkos $default_kokkos ($b)"
  for a in "${also[@]}"; do echo "bin/kokkos-$(kokkos_of "$a")/: Kokkos $(kokkos_of "$a") ($a)"; done
  if [[ $default_kokkos != 4.* ]]; then
    echo "FELL BACK to Kokkos $default_kokkos: FVPROXY_KOKKOS_ARCHIVE was not given; the recommended GPU build is Kokkos 4.6.01 (docs/gpu.md#which-kokkos)"
  fi
} >"$out/KOKKOS.txt"
if [[ $default_kokkos != 4.* ]]; then
  echo "bundle-device.sh: bin/fvproxy is the Kokkos $default_kokkos build: FVPROXY_KOKKOS_ARCHIVE was not given, so the bundle fell back from the recommended Kokkos 4.6.01 (docs/gpu.md#which-kokkos)" >&2
fi
cp -r inputs mesh "$out/"
mkdir -p "$out/perf" "$out/scripts"
cp perf/*.sh perf/*.yaml perf/*.py perf/*.cpp perf/ptxas_exceptions.txt "$out/perf/"
# The host-time Kokkos tool of perf/fixed_cost.sh (no Kokkos in it: any C++17 compiler)
g++ -O2 -std=c++17 -shared -fPIC perf/stage_tool.cpp -o "$out/lib/libfvproxy_stage_tool.so"
cp scripts/device-run.sh scripts/gpu-bind.sh "$out/scripts/" 2>/dev/null || true
cp -r tests/data tests/cli tests/reference "$out/tests/"
# Shared libraries: every non-system library the binaries need, except Open MPI's and the C/C++
# runtime (present there): verified set of docs/gpu.md#the-toolchain-step-by-step, plus libmetis.so.5
# (Debian ships METIS shared only) and PT-Scotch's libptscotch-7.0.so and libptscotcherr-7.0.so
# (libscotch* too, should a binary ever need the sequential library). CUDA's runtime must be the 11.8 one
# we built with; Open MPI and its hwloc/libevent come from that machine.
keep='libcudart|libhdf5|libyaml-cpp|libsz|libaec|libmetis|libptscotch|libscotch|libgomp'
find "$out/bin" -type f -perm -u+x | while read -r exe; do
  ldd "$exe" | awk '/=> \//{print $1" "$3}' | while read -r name path; do
    if [[ "$name" =~ $keep ]]; then
      cp -L "$path" "$out/lib/$name"
    fi
  done
done
cat >"$out/run.sh" <<'RUN'
#!/usr/bin/env bash
# run.sh COMMAND... : runs a bundle command with the bundle's libraries (e.g. run.sh bin/fvproxy info)
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export FVPROXY_SOURCE_DIR="$here"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_PROC_BIND=false
cd "$here"
exec "$@"
RUN
chmod +x "$out/run.sh"
du -sh "$out"
ls "$out/lib"
