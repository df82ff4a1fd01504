# perf/gpu_common.sh: what the GPU scripts of perf/ share (sourced; they run from the bundle's root,
# scripts/bundle-device.sh, whose run.sh sets the library path). Each script sets `out`, the folder
# its results go to, before calling these.

# gpu_step NAME SECONDS COMMAND...: runs COMMAND through ./run.sh with a time limit, its output in
# $out/NAME.log, and appends "NAME: exit CODE in S s" to $out/steps.txt (and prints it), so that what
# finished comes back even when a later step does not.
gpu_step() {
  local name=$1 limit=$2
  shift 2
  local start=$SECONDS
  timeout "$limit" ./run.sh "$@" >"$out/$name.log" 2>&1
  echo "$name: exit $? in $((SECONDS - start)) s" | tee -a "$out/steps.txt"
}

# gpu_machine_header [LABEL] [BIN...]: the date, the GPU and its driver, the host CPU, and
# `BIN info --json` (Kokkos, git revision) for each executable given [bin/fvproxy].
gpu_machine_header() {
  echo "date: $(date -u +%FT%TZ) ${1:-}"
  shift || true
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv 2>&1
  echo "host: $(hostname); $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'); $(nproc) CPUs"
  local bins=("$@")
  [[ ${#bins[@]} -gt 0 ]] || bins=(bin/fvproxy)
  for b in "${bins[@]}"; do
    [[ -x $b ]] || continue
    echo "== $b"
    ./run.sh "$b" info --json
  done
}

# bundle_fvproxy VERSION: the bundle's fvproxy built against Kokkos VERSION (3.4.01, 4.6.01):
# bin/kokkos-VERSION/fvproxy when the bundle carries it there, else bin/fvproxy when KOKKOS.txt
# says bin/fvproxy is that build (bundles before 2026-11-27 have no KOKKOS.txt: bin/fvproxy is
# 3.4.01 there); nothing (status 1) when the bundle has no such build.
bundle_fvproxy() {
  if [[ -x bin/kokkos-$1/fvproxy ]]; then
    echo "bin/kokkos-$1/fvproxy"
  elif [[ -f KOKKOS.txt ]] && head -n 1 KOKKOS.txt | grep -q "Kokkos $1 "; then
    echo bin/fvproxy
  elif [[ ! -f KOKKOS.txt && $1 == 3.4.01 ]]; then
    echo bin/fvproxy
  else
    return 1
  fi
}
