#!/usr/bin/env bash
# scripts/build.sh PRESET [cmake --build args...]
# Installs what is missing (setup-deps.sh, or setup-cuda.sh for the cuda preset), configures the
# preset into build/PRESET when needed, and builds it. Idempotent; safe to run from a fresh clone.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
preset="${1:-host}"; shift || true
cd "$root"
case "$preset" in
  cuda|cuda-float)
    # A user's own CUDA-enabled Kokkos: FVPROXY_KOKKOS_CUDA=<its install prefix>.
    if [[ -n "${FVPROXY_KOKKOS_CUDA:-}" ]]; then
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
if [[ ! -f "build/$preset/build.ninja" ]]; then
  cmake --preset "$preset" >/dev/null
fi
cmake --build --preset "$preset" "$@"
