#!/usr/bin/env bash
# perf/ab_runs.sh OUT BIN_A BIN_B: two builds of fvproxy on whole runs, on the GPU machine from the
# bundle (carry the second build beside bin/fvproxy), alternating A, B, A, B so that a drift of the
# machine shows between rounds, not between builds. Three runs that stress different things:
#   cyl     inputs/cylinder.yaml, 3000 steps (3568 cells: launch-bound, ~0.4-0.8 ms a step)
#   tg      inputs/taylor_green.yaml at 128^3 hexes, 60 steps (the flow kernels, bandwidth-bound)
#   scalar  inputs/default.yaml at 96^3 x 6 tets, 200 steps (the scalar kernels)
# OUT/ab.txt: per run the loop's seconds (wall - output), per step, and the printed cell-updates/s.
# Used for the light-weight launch (perf/results/2026-11-26-h200-light-weight-launch/).
set -u
out=${1:?usage: perf/ab_runs.sh OUT BIN_A BIN_B} a=${2:?usage} b=${3:?usage}
mkdir -p "$out"
for r in 1 2; do
  for side in A B; do
    bin=$a
    [[ $side == B ]] && bin=$b
    for c in cyl tg scalar; do
      case $c in
        cyl) args=(inputs/cylinder.yaml --set "time={integrator: ssprk3, cfl: 0.8, steps: 3000}" --set 'output={}') ;;
        tg) args=(inputs/taylor_green.yaml --set 'mesh.generate.cells=[128,128,128]'
          --set "time={integrator: ssprk3, steps: 60, dt: 0.0005}" --set 'output={}') ;;
        scalar) args=(inputs/default.yaml --set 'mesh.generate.cells=[96,96,96]' --set "time={steps: 200, cfl: 0.4}"
          --set 'output={}') ;;
      esac
      ./run.sh "$bin" run "${args[@]}" --quiet --output-dir "/tmp/ab_$c" >/dev/null 2>&1
      python3 -c "import json; d=json.load(open('/tmp/ab_$c/summary.json')); l=d['wall_seconds']-d['io_seconds']; \
print('$side$r $c', d['steps'], 'loop %.4f s' % l, 'per step %.4f ms' % (1e3 * l / d['steps']), \
'rate %.4e' % d['cell_updates_per_second'])" | tee -a "$out/ab.txt"
    done
  done
done
