#!/usr/bin/env bash
# PT-Scotch on a generated box's hexes against its cells (docs/decomposition.md#pt-scotch-and-the-distributed-graph),
# on the 2-core VM: bash vm.sh OLD_FVPROXY NEW_FVPROXY OUT
#   partition-P-{old,new}.txt  `fvproxy mesh inputs/bench.yaml --partition P --compare-partitions`, 48^3 x 6 tets,
#                              one process, one thread, P = 2 4 7 16; default-{old,new}.txt the default case at 4
#   parts-R-{old,new}.txt      `mpirun -np 2 fvproxy mesh --in-parts`, 80^3 x 6 = 3.07M tets, ptscotch, one thread
#                              per rank, rounds R = 1 2 alternated
set -u
old=${1:?usage: vm.sh OLD NEW OUT} new=${2:?} out=${3:?}
mkdir -p "$out"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
export OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for p in 2 4 7 16; do
  for b in old new; do
    exe=$old; [[ $b == new ]] && exe=$new
    "$exe" mesh "$root/inputs/bench.yaml" --set "mesh.generate.cells=[48,48,48]" --partition $p --compare-partitions \
      >"$out/partition-$p-$b.txt" 2>&1
  done
done
for b in old new; do
  exe=$old; [[ $b == new ]] && exe=$new
  "$exe" mesh "$root/inputs/default.yaml" --partition 4 --compare-partitions >"$out/default-$b.txt" 2>&1
done
for r in 1 2; do
  for b in old new; do
    exe=$old; [[ $b == new ]] && exe=$new
    mpirun -np 2 --oversubscribe --bind-to none "$exe" mesh "$root/inputs/bench.yaml" --in-parts \
      --set "mesh.generate.cells=[80,80,80]" --set mesh.partition=ptscotch >"$out/parts-$r-$b.txt" 2>&1
  done
done
"$new" info >"$out/info-new.txt" 2>&1
"$old" info >"$out/info-old.txt" 2>&1
