#!/usr/bin/env bash
# The rotated HLLC's cost on a GPU (issue 38 item 4; the flow steps of issue 39), from an unpacked
# device bundle's root with the new binary as bin/fvproxy and the one before (16b0c83) as
# bin/fvproxy-old:
#   [ROUNDS=2] bash perf/results/2026-12-07-rotated-flux/gpu.sh OUT [ab|profile|sod]...
# Parts (default: ab and profile):
#   ab       the step with the defaults (../2026-11-29-h200-ab/step-ab.yaml: scalar N = 1 and 5,
#            euler, navier-stokes on 8.43M tets and 8.49M hexes), new and old in turn
#            (../2026-12-07-state-layout/gpu.sh ab);
#   profile  `fvproxy run --profile`, 20 steps of the Taylor-Green case (../2026-12-07-state-layout/
#            tg-profile.yaml, Venkatakrishnan) on 8.43M Z-ordered tets, navier-stokes and euler, with
#            operators.convection.rotated true and false in turn, ROUNDS rounds: the gate's cost where
#            it does not rotate (a smooth flow, no pressure jump above 10 %).
#   sod      where faces do turn: inputs/sod_tet.yaml (160 cells along x, to t = 0.2) and Sod on
#            100 x 2 x 2 hexes as tets (perf/shocks.py's set-up, sod-tet-100.sets) with rotated true
#            and false, each compared (`fvproxy compare`) with the host build's output of the same
#            run, carried in the bundle as hostref/NAME/ (make-hostref.sh).
set -u
out=${1:?usage: gpu.sh OUT [ab|profile|sod]...}
shift
parts=("$@")
[[ ${#parts[@]} -gt 0 ]] || parts=(ab profile)
mkdir -p "$out"
out=$(cd "$out" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../../.." && pwd)
source perf/gpu_common.sh
tg=$here/../2026-12-07-state-layout/tg-profile.yaml
tets=(--set "mesh.generate.cells=[112,112,112]" --set mesh.generate.element=tet --set mesh.reorder=zorder
  --set operators.muscl.limiter=venkatakrishnan)
euler=(--set "physics={model: euler, gamma: 1.4, gas_constant: 1}")
for part in "${parts[@]}"; do
  case $part in
    ab) bash "$here/../2026-12-07-state-layout/gpu.sh" "$out/ab" ab new=bin/fvproxy old=bin/fvproxy-old ;;
    profile)
      gpu_machine_header "rotated-flux gpu.sh profile" bin/fvproxy >"$out/machine-profile.txt" 2>&1
      for round in $(seq "${ROUNDS:-2}"); do
        for rot in true false; do
          gpu_step "ns-rotated-$rot-$round" 200 bin/fvproxy run "$tg" "${tets[@]}" \
            --set operators.convection.rotated=$rot --profile --output-dir "$out/ns-rotated-$rot-$round"
          gpu_step "euler-rotated-$rot-$round" 200 bin/fvproxy run "$tg" "${tets[@]}" "${euler[@]}" \
            --set operators.convection.rotated=$rot --profile --output-dir "$out/euler-rotated-$rot-$round"
        done
      done
      ;;
    sod)
      gpu_machine_header "rotated-flux gpu.sh sod" bin/fvproxy >"$out/machine-sod.txt" 2>&1
      sod100=()
      while read -r kv; do sod100+=(--set "$kv"); done <"$here/sod-tet-100.sets"
      for rot in true false; do
        gpu_step "sod_tet-rotated-$rot" 120 bin/fvproxy run "$repo/inputs/sod_tet.yaml" \
          --set operators.convection.rotated=$rot --output-dir "$out/sod_tet-rotated-$rot"
        gpu_step "sod100-rotated-$rot" 120 bin/fvproxy run "$repo/inputs/sod_tet.yaml" "${sod100[@]}" \
          --set operators.convection.rotated=$rot --output-dir "$out/sod100-rotated-$rot"
        for name in sod_tet sod100; do
          gpu_step "compare-$name-rotated-$rot" 60 bin/fvproxy compare "$out/$name-rotated-$rot" \
            "hostref/$name-rotated-$rot" --json
        done
      done
      ;;
    *) echo "gpu.sh: unknown part $part" >&2; exit 2 ;;
  esac
done
