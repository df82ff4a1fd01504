#!/usr/bin/env bash
# One GPU lease for three things (2026-12-07, the sixth stop), from an unpacked device bundle's root
# with main 16b0c83 as bin/fvproxy and bin/fvproxy_mpi_tests, and a5a8fb6 + launch bounds 256 x 3
# on FusedMuscl<5> (launch-bounds.patch) as bin/fvproxy-old:
#   bash perf/results/2026-12-07-hex-graph-gpu/gpu.sh OUT [PART...]
# Parts (default: all, in this order):
#   tests  the MPI tests of the decomposition and the halo at 2 and 3 ranks (issue 40 item 6: the
#          GPU test run of src/parallel/ after e5f654b, 16a6f78, 16b0c83; ../2026-12-07-piece-rows/gpu.sh tests;
#          its output of 16b0c83 is ../2026-12-07-h100-gpu-tests-16b0c83);
#   setup  a run's set-up, 16.9M tets, 1 rank whole and 4 ranks in parts, ptscotch and zorder, new
#          (PT-Scotch on the box's hexes) and old (on the cells: a5a8fb6), ROUNDS [2] rounds
#          (../2026-12-07-box-faces/gpu.sh; issue 40 item 5's <= 5 s target);
#   ab     the step with the defaults on 8.43M tets and 8.49M hexes (scalar N = 1 and 5, euler,
#          navier-stokes), head and launch-bounds in turn, ROUNDS [2] rounds
#          (../2026-12-07-state-layout/gpu.sh ab; issue 39's targets on this card).
set -u
out=${1:?usage: gpu.sh OUT [tests|setup|ab]...}
shift
parts=("$@")
[[ ${#parts[@]} -gt 0 ]] || parts=(tests setup ab)
mkdir -p "$out"
out=$(cd "$out" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
for part in "${parts[@]}"; do
  case $part in
    tests) bash "$here/../2026-12-07-piece-rows/gpu.sh" "$out/tests" tests ;;
    setup) bash "$here/../2026-12-07-box-faces/gpu.sh" "$out/setup" ;;
    ab) bash "$here/../2026-12-07-state-layout/gpu.sh" "$out/ab" ab head=bin/fvproxy lb=bin/fvproxy-old ;;
    *) echo "gpu.sh: unknown part $part" >&2; exit 2 ;;
  esac
done
