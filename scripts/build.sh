#!/usr/bin/env bash
# scripts/build.sh PRESET [cmake --build args...]
# Installs what is missing (setup-deps.sh, or setup-cuda.sh for the cuda preset), configures the
# preset into its build folder when needed, and builds it. Idempotent; safe to run from a fresh clone.
#
# The build folder is build/PRESET, or build/PRESET-kokkos-X.Y.Z when FVPROXY_KOKKOS_ARCHIVE names
# a Kokkos release archive (that Kokkos is built by the setup scripts; docs/development.md#another-kokkos),
# so builds against two Kokkos versions sit side by side. `build.sh --build-dir PRESET` prints it.
# A folder configured against another Kokkos installation than the one the setup reports (e.g.
# Kokkos_ROOT changed) is configured afresh.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# The build folder of a preset, relative to the repository root.
build_dir() {
  if [[ -n "${FVPROXY_KOKKOS_ARCHIVE:-}" ]]; then
    # shellcheck source=scripts/kokkos-common.sh
    source scripts/kokkos-common.sh
    echo "build/$1-kokkos-$KOKKOS_VERSION"
  else
    echo "build/$1"
  fi
}

if [[ "${1:-}" == --build-dir ]]; then
  # Quiet (the setup scripts already logged the checksum check), but says why when it fails.
  err=$(mktemp)
  (build_dir "${2:-host}") 2>"$err" || { cat "$err" >&2; rm -f "$err"; exit 1; }
  rm -f "$err"
  exit 0
fi

preset="${1:-host}"; shift || true
case "$preset" in
  cuda|cuda-float)
    # A user's own CUDA-enabled Kokkos: FVPROXY_KOKKOS_CUDA=<its install prefix>.
    if [[ -n "${FVPROXY_KOKKOS_CUDA:-}" ]]; then
      [[ -z "${FVPROXY_KOKKOS_ARCHIVE:-}" ]] ||
        { echo "both FVPROXY_KOKKOS_CUDA and FVPROXY_KOKKOS_ARCHIVE are set: unset one" >&2; exit 2; }
      out="KOKKOS_ROOT=$FVPROXY_KOKKOS_CUDA"
    else
      out=$(bash scripts/setup-cuda.sh | tail -n 1)
    fi
    export FVPROXY_KOKKOS_CUDA="${out#KOKKOS_ROOT=}"
    export PATH="/usr/bin:$PATH" NVCC_WRAPPER_DEFAULT_COMPILER="${NVCC_WRAPPER_DEFAULT_COMPILER:-g++-11}"
    ;;
  host|float|debug|asan)
    out=$(bash scripts/setup-deps.sh | tail -n 1)
    export Kokkos_ROOT="${out#KOKKOS_ROOT=}"
    ;;
  *) echo "unknown preset '$preset' (host | float | debug | asan | cuda | cuda-float)" >&2; exit 2 ;;
esac
[[ "$out" == KOKKOS_ROOT=* ]] || { echo "setup did not report a Kokkos installation" >&2; exit 1; }
kokkos="${out#KOKKOS_ROOT=}"
dir=$(build_dir "$preset")
if [[ -f "$dir/build.ninja" && -f "$dir/CMakeCache.txt" ]]; then
  found=$(sed -n 's/^Kokkos_DIR:PATH=//p' "$dir/CMakeCache.txt")
  if [[ -n "$found" && "$(realpath -m "$found")/" != "$(realpath -m "$kokkos")"/* ]]; then
    echo "build.sh: $dir was configured with the Kokkos at $found; configuring it afresh for $kokkos" >&2
    cmake --preset "$preset" -B "$dir" --fresh >/dev/null
  fi
fi
if [[ ! -f "$dir/build.ninja" ]]; then
  cmake --preset "$preset" -B "$dir" >/dev/null
fi
cmake --build "$dir" "$@"
