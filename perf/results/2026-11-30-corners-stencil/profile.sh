#!/usr/bin/env bash
# The corners stencil's cost by kernel (issue 38 item 2): the Taylor-Green case of `perf/gpu_halo.sh
# OUT corners` (navier-stokes on 64^3 x 6 = 1.57M jittered tets, periodic in x, slip walls on y and
# z) with the face and the corners stencil on one GPU, 200 steps, `--profile` (fenced per-kernel
# timers), two rounds in the order face, corners, face, corners. Run from an unpacked device bundle:
#   bash profile.sh OUT [BINARY]
set -euo pipefail
out=$1
bin=${2:-bin/fvproxy}
mkdir -p "$out"
for round in 1 2; do
  for st in face corners; do
    ./run.sh "$bin" run inputs/taylor_green.yaml --set "mesh.generate.cells=[64,64,64]" \
      --set mesh.generate.element=tet --set mesh.generate.perturb=0.15 --set "mesh.generate.periodic=[x]" \
      --set "boundary={ymin: {type: slip-wall}, ymax: {type: slip-wall}, zmin: {type: slip-wall}, zmax: {type: slip-wall}}" \
      --set operators.muscl.stencil=$st --set "time={integrator: ssprk3, steps: 200, dt: 0.0002}" \
      --set 'output={}' --output-dir "/tmp/corners_profile_${st}_$round" --profile >"$out/${st}_$round.txt" 2>&1
    cp "/tmp/corners_profile_${st}_$round/summary.json" "$out/${st}_$round.summary.json"
    grep -E "^done|fvproxy::(muscl|face_pass|flow)" "$out/${st}_$round.txt" | head -8
  done
done
