#!/usr/bin/env bash
# Coloured faces (issue 39 item 1: the accumulations tried), the H200 re-measure of the step, and the
# GPU A/B of 13c564b (the scalar stage update zeroing the rate). From an unpacked device bundle's root:
#   bash perf/results/2026-12-07-coloured-faces/gpu.sh OUT
# The bundle carries bin/fvproxy (the revision under test), bin/fvproxy-9a47209 (before 00fba60 and
# 13c564b) and bin/fvproxy-exp (coloured-faces.patch on ed2ade0: the face pass's interior faces
# greedily coloured so that no two faces of one colour share a cell, one launch per colour, plain
# adds instead of atomics; FVPROXY_EXPERIMENT_COLOURED_FACES=plain, or =atomic for the same colour
# order with atomics, which separates the order's cost from the atomics'). Runs, each ROUNDS [2]
# times in turn, ../2026-12-07-state-layout/gpu.sh's `ab` (the step with the defaults, scalar N = 1
# and 5, euler, navier-stokes, 8.43M tets and 8.49M hexes) and then its `profile` (fenced
# per-kernel timers) of the head, the coloured plain and the coloured atomic runs. expoff: the
# experiment's binary without the variable (its own control: the default path).
set -u
out=${1:?usage: gpu.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
for mode in plain atomic; do
  cat >"bin/fvproxy-col-$mode" <<EOF
#!/usr/bin/env bash
export FVPROXY_EXPERIMENT_COLOURED_FACES=$mode
exec "\$(dirname "\$0")/fvproxy-exp" "\$@"
EOF
  chmod +x "bin/fvproxy-col-$mode"
done
bash "$here/../2026-12-07-state-layout/gpu.sh" "$out" ab head=bin/fvproxy old=bin/fvproxy-9a47209 \
  expoff=bin/fvproxy-exp plain=bin/fvproxy-col-plain atomic=bin/fvproxy-col-atomic
bash "$here/../2026-12-07-state-layout/gpu.sh" "$out" profile head=bin/fvproxy plain=bin/fvproxy-col-plain \
  atomic=bin/fvproxy-col-atomic
