#!/bin/bash
# The isentropic vortex (inputs/vortex.yaml) on jittered tets at N = 20, 40, 80 (cells [N, N, 3],
# lengths [10, 10, 30/N]): the L1 density error per N. Run from the repository root; extra
# arguments are passed to fvproxy run (e.g. --set operators.muscl.venkatakrishnan_threshold=0.015).
fv=${FVPROXY:-build/host/fvproxy}
for N in 20 40 80; do
  dz=$(python3 -c "print(10*3/$N)")
  d=$(mktemp -d)
  OMP_NUM_THREADS=1 OMP_PROC_BIND=false $fv run inputs/vortex.yaml --quiet --output-dir "$d" \
    --set "mesh.generate.cells=[$N,$N,3]" --set "mesh.generate.lengths=[10,10,$dz]" \
    --set mesh.generate.element=tet --set "operators.muscl={gradient: least-squares}" \
    --set "output.every={time: 100}" "$@" >/dev/null 2>&1
  python3 -c "import json;j=json.load(open('$d/summary.json'));print($N, j['errors']['density']['l1'])"
  rm -rf "$d"
done
