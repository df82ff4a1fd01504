#!/usr/bin/env bash
# Installs everything fvproxy needs on Debian bookworm, idempotently:
#   1. apt packages (compiler, CMake, Ninja, OpenMPI, parallel HDF5, yaml-cpp, GoogleTest, METIS, PT-Scotch,
#      Slurm and munge for the batch-job test, universal-ctags for the function-length check, ccache for
#      the compiler cache, ...)
#   2. Kokkos 3.4.01 (Serial + OpenMP), built from Debian's `trilinos` source package and installed
#      into a cache outside the repository, keyed by its configuration; or, with
#      FVPROXY_KOKKOS_ARCHIVE=/path/to/kokkos-X.Y.Z.tar.gz, that Kokkos release, built the same way
#      (docs/development.md#another-kokkos).
# Prints, as its last line, `KOKKOS_ROOT=<prefix>` so callers (Makefile, CI) can pick it up.
# A user's own Kokkos is used instead when Kokkos_ROOT is set in the environment.
# `setup-deps.sh --packages-only` installs the packages (step 1) and builds no Kokkos.
#
# Environment: FVPROXY_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/fvproxy),
#              FVPROXY_SKIP_APT=1 to skip the package step (e.g. without root),
#              FVPROXY_KOKKOS_ARCHIVE (above).
set -euo pipefail
packages_only=0
case "${1:-}" in
  --packages-only) packages_only=1 ;;
  "") ;;
  *) echo "usage: setup-deps.sh [--packages-only]" >&2; exit 2 ;;
esac
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=scripts/kokkos-common.sh
source "$here/kokkos-common.sh"

APT_PACKAGES=(
  cmake ninja-build g++ make pkg-config ca-certificates xz-utils dpkg-dev
  openmpi-bin libopenmpi-dev
  libhdf5-openmpi-dev hdf5-tools
  libyaml-cpp-dev nlohmann-json3-dev
  googletest libgtest-dev
  libmetis-dev libptscotch-dev libscotch-dev
  clang-format-14
  python3 python3-h5py python3-meshio python3-matplotlib python3-numpy
  slurm-wlm munge
  universal-ctags
  ccache
)

need_apt=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need_apt+=("$p")
done
if [[ ${#need_apt[@]} -gt 0 && "${FVPROXY_SKIP_APT:-0}" != 1 ]]; then
  log "installing apt packages: ${need_apt[*]}"
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

[[ $packages_only == 1 ]] && exit 0

if [[ -n "${Kokkos_ROOT:-}" && -n "${FVPROXY_KOKKOS_ARCHIVE:-}" ]]; then
  die "both Kokkos_ROOT ($Kokkos_ROOT) and FVPROXY_KOKKOS_ARCHIVE ($FVPROXY_KOKKOS_ARCHIVE) are set: unset one"
fi
if [[ -n "${Kokkos_ROOT:-}" ]]; then
  log "using the user's Kokkos at Kokkos_ROOT=$Kokkos_ROOT"
  echo "KOKKOS_ROOT=$Kokkos_ROOT"
  exit 0
fi

build_kokkos host \
  -DCMAKE_CXX_COMPILER=g++ \
  -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_OPENMP=ON \
  -DCMAKE_CXX_STANDARD=17 -DCMAKE_BUILD_TYPE=Release
