#!/usr/bin/env bash
# mpi_refused.sh MPIEXEC FVPROXY INPUTS TESTDATA OUT: bench, perf and mesh --write are not decomposed
# yet and refuse more than one MPI rank: every rank exits 2, only rank 0 prints the error, no
# MPI_Abort; mesh (without --write) runs (fvproxy run on N ranks: mpi_run.sh).
set -u
mpiexec="$1"; fv="$2"; in="$3"; td="$4"; out="$5"
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$out"; mkdir -p "$out"
small=(--set mesh.generate.cells=[4,4,4])

refused() { # WHAT ARGS...: 2 ranks refused with exit 2, one message naming WHAT
  local what=$1 log code n; shift
  log="$out/$(echo "$what" | tr ' -' '__').log"
  timeout 120 "$mpiexec" -np 2 --oversubscribe --bind-to none "$@" >"$log" 2>&1; code=$?
  head -n 3 "$log"
  [[ $code == 2 ]] || fail "$what on 2 ranks: exit $code, expected 2"
  n=$(grep -c "^$what: error: runs on one MPI rank in this version (fvproxy run is decomposed); this job has 2 ranks" "$log")
  [[ $n == 1 ]] || fail "$what: the error was printed $n times, expected once (rank 0)"
  ! grep -q "MPI_ABORT" "$log" || fail "$what: MPI_Abort was called"
}
refused "fvproxy bench" "$fv" bench "$in/bench.yaml" "${small[@]}" --repeat 1
refused "fvproxy perf" "$fv" perf "$td/perf_tiny.yaml" --output-dir "$out/perf"
refused "fvproxy mesh --write" "$fv" mesh "$in/default.yaml" "${small[@]}" --write "$out/m.h5"
timeout 120 "$mpiexec" -np 2 --oversubscribe --bind-to none "$fv" mesh "$in/default.yaml" "${small[@]}" \
  >"$out/mesh.log" 2>&1 || fail "fvproxy mesh on 2 ranks failed: $(tail -n 5 "$out/mesh.log")"
echo "OK: 2 ranks refused by bench, perf and mesh --write (exit 2, one message); mesh runs"
