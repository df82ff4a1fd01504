#!/usr/bin/env bash
set -u
out=$1; shift
mkdir -p $out
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nvidia-smi -L > $out/gpus.txt
for bin in "$@"; do
  for np in 1 2; do
    for s in 10 40; do
      d=/tmp/s_${np}_$s
      rm -rf $d
      if [[ $np == 1 ]]; then
        ./run.sh $bin run inputs/taylor_green.yaml --set 'mesh.generate.cells=[192,192,192]' --set "time={integrator: ssprk3, steps: $s, dt: 0.0002}" --set 'output={}' --quiet --output-dir $d > $d.log 2>&1
      else
        ./run.sh mpirun -np 2 --bind-to none -x OMP_NUM_THREADS=4 -x LD_LIBRARY_PATH -x FVPROXY_SOURCE_DIR $bin run inputs/taylor_green.yaml --set 'mesh.generate.cells=[192,192,192]' --set "time={integrator: ssprk3, steps: $s, dt: 0.0002}" --set 'output={}' --quiet --output-dir $d > $d.log 2>&1
      fi
      python3 -c "
import json; d=json.load(open('$d/summary.json')); l=d['wall_seconds']-d['io_seconds']
h=d.get('halo',{})
print('$bin np $np steps $s loop %.4f s rate %.3e'%(l,d['cell_updates_per_second']), 'halo fraction_hidden', h.get('fraction_hidden'))" 2>&1 | tee -a $out/scale.txt || tail -3 $d.log | tee -a $out/scale.txt
    done
  done
done
