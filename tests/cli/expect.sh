#!/usr/bin/env bash
# expect.sh CODE REGEX COMMAND... : runs COMMAND, fails unless it exits with CODE and its combined
# stdout+stderr matches the extended regular expression REGEX.
set -u
want="$1"; pattern="$2"; shift 2
# Open MPI's session folders of this test alone: isolated singletons (tests/CMakeLists.txt) share one
# job-family folder, which processes of two tests starting or ending together can fail to create
# (docs/development.md#mpi-start-up).
# Not for the tests that launch mpiexec jobs (FVPROXY_TEST_SHARED_MPI_SESSION=1, tests/CMakeLists.txt).
if [[ ${FVPROXY_TEST_SHARED_MPI_SESSION:-0} != 1 ]]; then
  ompi_tmp=$(mktemp -d "${TMPDIR:-/tmp}/fvproxy-ompi.XXXXXX")
  export OMPI_MCA_orte_tmpdir_base="$ompi_tmp"
  trap 'rm -rf "$ompi_tmp"' EXIT
fi
out=$("$@" 2>&1); got=$?
# The start and the end of a long output (a driver's failures come last).
lines=$(printf '%s\n' "$out" | wc -l)
if ((lines > 100)); then
  printf '%s\n' "$out" | head -n 40
  echo "... ($((lines - 100)) lines left out)"
  printf '%s\n' "$out" | tail -n 60
else
  printf '%s\n' "$out"
fi
if [[ "$got" != "$want" ]]; then
  echo "expect.sh: exit code $got, expected $want" >&2; exit 1
fi
if ! grep -Eq -- "$pattern" <<<"$out"; then
  echo "expect.sh: output does not match /$pattern/" >&2; exit 1
fi
echo "expect.sh: exit $got and /$pattern/ as expected"
