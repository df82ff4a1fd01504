#!/usr/bin/env bash
# Installs the GPU toolchain and builds Kokkos for CUDA, idempotently (docs/gpu.md#the-toolchain-step-by-step):
#   1. Debian non-free's nvidia-cuda-toolkit (CUDA 11.8) and g++-11 (its host compiler), through an
#      extra apt entry derived from the machine's own Debian entry (components main contrib non-free).
#   2. Kokkos 3.4.01 CUDA + Serial + OpenMP from Debian's trilinos source package, patched for
#      Hopper, for FVPROXY_CUDA_ARCH (HOPPER90 = sm_90, default; AMPERE80 = sm_80 for A100); or,
#      with FVPROXY_KOKKOS_ARCHIVE=/path/to/kokkos-X.Y.Z.tar.gz, that Kokkos release (e.g. 4.6.01),
#      same configuration (docs/development.md#another-kokkos).
# Prints, as its last line, KOKKOS_ROOT=<prefix>. No GPU is needed to build.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/kokkos-common.sh
source "$here/kokkos-common.sh"

arch="${FVPROXY_CUDA_ARCH:-HOPPER90}"
case "$arch" in
  HOPPER90) sm=sm_90 ;;
  AMPERE80) sm=sm_80 ;;
  AMPERE86) sm=sm_86 ;;
  VOLTA70) sm=sm_70 ;;
  *) die "FVPROXY_CUDA_ARCH=$arch: use HOPPER90 (H100/H200), AMPERE80 (A100), AMPERE86 or VOLTA70" ;;
esac

# Host dependencies first (cmake, MPI, HDF5, yaml-cpp, ...).
bash "$here/setup-deps.sh" --packages-only

sudo_cmd=()
[[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
if ! command -v g++-11 >/dev/null || [[ ! -x /usr/bin/nvcc ]]; then
  list=/etc/apt/sources.list.d/fvproxy-nonfree.list
  if [[ ! -f "$list" ]]; then
    tmp=$(mktemp)
    _write_deb_src_list "$tmp"
    # deb-src lines of the machine's Debian entries -> deb lines for contrib and non-free (main is
    # already configured).
    sed -E -e 's/^deb-src /deb /' -e 's/[[:space:]]+main([[:space:]].*)?$/ contrib non-free/' "$tmp" |
      grep -v -- '-security' | sort -u | "${sudo_cmd[@]}" tee "$list" >/dev/null
    rm -f "$tmp"
    log "added $list (Debian contrib/non-free, for nvidia-cuda-toolkit)"
  fi
  log "installing nvidia-cuda-toolkit (CUDA 11.8) and g++-11 (a few minutes)"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends nvidia-cuda-toolkit g++-11 >/dev/null
fi
/usr/bin/nvcc --version | grep -q "release 11" || die "expected CUDA 11.x from Debian at /usr/bin/nvcc: $(/usr/bin/nvcc --version | tail -n 1)"

# Debian's nvcc first (the machine may have another CUDA under /usr/local/cuda), g++-11 as host compiler.
export PATH="/usr/bin:$PATH"
export NVCC_WRAPPER_DEFAULT_COMPILER=g++-11
src=$(kokkos_source)
# Kokkos 4 always allows device lambdas (the option is deprecated there); 3.4 needs it.
lambda=()
[[ "${KOKKOS_VERSION%%.*}" -lt 4 ]] && lambda=(-DKokkos_ENABLE_CUDA_LAMBDA=ON)
CXX_KEY="nvcc=$(/usr/bin/nvcc --version | tail -n 1) host=$(g++-11 -dumpfullversion)" \
  build_kokkos "cuda-$arch" \
  -DCMAKE_CXX_COMPILER="$src/bin/nvcc_wrapper" -DCMAKE_CXX_FLAGS="-arch=$sm" \
  -DKokkos_ENABLE_CUDA=ON "${lambda[@]}" -DKokkos_ENABLE_CUDA_CONSTEXPR=ON \
  -DKokkos_ARCH_"$arch"=ON \
  -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_OPENMP=ON \
  -DCMAKE_CXX_STANDARD=17 -DCMAKE_BUILD_TYPE=Release
