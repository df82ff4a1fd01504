#!/usr/bin/env bash
# perf/fixed_cost.sh OUT: where the fixed cost of a Runge-Kutta stage goes on two GPUs (issue 40
# item 1; docs/performance.md#where-a-stages-fixed-cost-goes-on-two-gpus), from the bundle's root
# (scripts/bundle-device.sh) on a machine with two GPUs. For the scalar default case (tets) and the
# navier-stokes Taylor-Green vortex (hexes), each at a small and a mid size N:
#   one GPU with N/2 cells (what each GPU of the two-GPU run computes), one GPU with N, two GPUs
#   with N (the default transport, ipc, and staged; ipc with one ghost layer),
# each run for S1 and S2 steps at a fixed dt: the marginal ms per step is the difference of the two
# runs' time loop without output (summary.json phases.time_loop - io, slowest rank) over S2 - S1,
# so set-up and first steps cancel (OUT/steps.csv). The S2 run of every configuration loads
# perf/stage_tool.cpp's Kokkos tool (built by the bundle script as lib/libfvproxy_stage_tool.so, or
# here with g++): where each rank's host time goes per stage (OUT/<name>-tool.stage.<rank>;
# perf/stage_breakdown.py OUT tabulates). The tool times only host calls (nothing is fenced); the
# tool-free pair gives the times. FVPROXY_BIN picks the executable (default bin/fvproxy);
# FIXED_COST_ONLY=REGEX runs only the configurations whose names match (e.g. 'small-2gpu-ipc$');
# NAME_TAG is appended to every name (A/B runs of two executables into one OUT); SIZES picks among
# small (0.2M tets, 0.11M hexes), mid (1.08M, 0.88M) and large (16.9M, 7.1M) (default: small mid);
# FIXED_COST_TOOL=0 skips the tool runs.
set -u
out=$1
mkdir -p "$out"
source perf/gpu_common.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 FVPROXY_SOURCE_DIR=$PWD
gpu_machine_header "fixed_cost.sh" >"$out/machine.txt" 2>&1
tool=$PWD/lib/libfvproxy_stage_tool.so
if [[ ! -f $tool ]]; then
  tool=$out/libfvproxy_stage_tool.so
  g++ -O2 -std=c++17 -shared -fPIC perf/stage_tool.cpp -o "$tool" || exit 1
fi
S1=${S1:-200} S2=${S2:-600}
toolvar=${FVPROXY_TOOL_VAR:-KOKKOS_TOOLS_LIBS} # KOKKOS_PROFILE_LIBRARY for a Kokkos 3.4 build
mpi=(mpirun --bind-to none -x OMP_NUM_THREADS=4 -x LD_LIBRARY_PATH -x FVPROXY_SOURCE_DIR -x OMPI_ALLOW_RUN_AS_ROOT
     -x OMPI_ALLOW_RUN_AS_ROOT_CONFIRM -x "$toolvar" -x FVPROXY_STAGE_LOG)
[[ -f $out/steps.csv ]] || echo "name,case,cells,gpus,transport,steps,loop_s,stages" >"$out/steps.csv"

# run NAME CASE CELLS NP TRANSPORT STEPS TOOL [SET...]: one run, a line of steps.csv
run() {
  local name=$1 case=$2 cells=$3 np=$4 transport=$5 steps=$6 with_tool=$7
  shift 7
  local d=/tmp/fixed_cost_$name-$steps sets=()
  for s in "$@"; do sets+=(--set "$s"); done
  rm -rf "$d"
  local cmd=("${FVPROXY_BIN:-bin/fvproxy}" run "$case" --quiet --set "mesh.generate.cells=$cells"
             --set "parallel.halo.transport=$transport" --set "time={integrator: ssprk3, steps: $steps, dt: 0.0002}"
             --set 'output={}' "${sets[@]}" --output-dir "$d")
  export "$toolvar=" FVPROXY_STAGE_LOG=
  [[ $with_tool == 1 ]] && export "$toolvar=$tool" FVPROXY_STAGE_LOG=$out/$name.stage
  if [[ $np == 1 ]]; then
    gpu_step "$name-$steps" 300 "${cmd[@]}"
  else
    gpu_step "$name-$steps" 300 "${mpi[@]}" -np "$np" "${cmd[@]}"
  fi
  ./run.sh python3 - "$d/summary.json" "$name" "$case" "$cells" "$np" "$transport" "$steps" >>"$out/steps.csv" <<'PY'
import json, sys
path, name, case, cells, np, transport, steps = sys.argv[1:]
try:
    d = json.load(open(path))
    ph = d["phases"]
    loop = ph["time_loop"]["max"] - ph["io"]["max"]  # the time loop without output (halo waits included)
    stages = d.get("halo", {}).get("stages", {}).get("max", "")
    transport = d.get("halo", {}).get("transport", transport)
except Exception:
    loop, stages = "", ""
print("%s,%s,%s,%s,%s,%s,%s,%s" % (name, case, cells.replace(",", " "), np, transport, steps, loop, stages))
PY
  [[ -f $d/summary.json ]] && cp "$d/summary.json" "$out/$name-$steps.summary.json"
  rm -rf "$d"
}

# config NAME CASE CELLS NP TRANSPORT [SET...]: the two lengths, the longer one with the tool too
config() {
  [[ $1 =~ ${FIXED_COST_ONLY:-.} ]] || return 0
  local a=("$1${NAME_TAG:-}" "$2" "$3" "$4" "$5")
  shift 5
  run "${a[@]}" "$S1" 0 "$@"
  run "${a[@]}" "$S2" 0 "$@"
  [[ ${FIXED_COST_TOOL:-1} == 0 ]] || run "${a[0]}-tool" "${a[@]:1}" "$S2" 1 "$@"
}

ngpu=$(nvidia-smi -L | wc -l)
for size in ${SIZES:-small mid}; do
  case $size in
    small) sc=("[32,32,32]" "[32,32,16]") ns=("[48,48,48]" "[48,48,24]") ;;
    mid) sc=("[64,64,44]" "[64,64,22]") ns=("[96,96,96]" "[96,96,48]") ;;
    large) sc=("[112,112,224]" "[112,112,112]") ns=("[192,192,192]" "[192,192,96]") ;;
  esac
  for m in scalar ns; do
    if [[ $m == scalar ]]; then case=inputs/default.yaml cells=("${sc[@]}"); else case=inputs/taylor_green.yaml cells=("${ns[@]}"); fi
    config "$m-$size-1gpu-half" "$case" "${cells[1]}" 1 auto
    config "$m-$size-1gpu" "$case" "${cells[0]}" 1 auto
    if ((ngpu >= 2)); then
      config "$m-$size-2gpu-ipc" "$case" "${cells[0]}" 2 ipc
      config "$m-$size-2gpu-staged" "$case" "${cells[0]}" 2 staged
      # one ghost layer (the default of both cases is two since 2026-11-29: docs/halo.md#two-ghost-layers)
      config "$m-$size-2gpu-ipc-layers1" "$case" "${cells[0]}" 2 ipc "parallel.halo.layers=1"
    fi
  done
done
