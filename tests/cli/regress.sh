#!/usr/bin/env bash
# Regression test against a reference output (tests/reference/<case>/): runs the reference's
# command with one of the variant combinations below and compares the final fields with
# `fvproxy compare` (cells matched by global id, so the orderings may differ).
#   regress.sh FVPROXY SOURCE_DIR CASE COMBO OUT_DIR [EXPECTED_EXIT]
# The combinations cover every pair of (muscl, convection, diffusion) x (naive, optimized) and
# vary the optimized options, the ordering and run.deterministic; E and F (scalar and navier-stokes cases) the face
# pass (operators.step: separate, and fused with atomics; `recorded` runs the default, fused); G the stored face fluxes. Keys are set one by one (a
# mapping given to --set replaces the case's whole section, and with it its gradient or limiter). `perturbed` changes the physics
# slightly (the initial amplitude, by 1e-3: caught in double and in float builds): the comparison must then fail (exit 1), which shows the test can.
# `change:KEY=VALUE` changes one option the reference covers (its gradient, limiter, integrator, ...):
# the comparison must fail too, which shows the reference tells that option's values apart.
# Tolerance: docs/output.md#tolerances, 1e-10 (runs of <= 30 steps), 1e-4 in single-precision builds.
set -uo pipefail
fv="$1" src="$2" case="$3" combo="$4" out="$5" expect="${6:-0}"
ref="$src/tests/reference/$case"
mapfile -t args < <(grep -v '^#' "$ref/command")
for i in "${!args[@]}"; do [[ "${args[$i]}" == *.yaml ]] && args[$i]="$src/${args[$i]}"; done
case "$combo" in
  recorded) sets=() ;;
  A) sets=(--set operators.muscl.variant=naive --set operators.convection.variant=naive
           --set operators.diffusion.variant=naive --set mesh.reorder=none) ;;
  B) sets=(--set operators.muscl.variant=naive --set operators.convection.variant=optimized
           --set operators.convection.scatter=atomic --set operators.convection.policy=team
           --set operators.diffusion.variant=optimized --set operators.diffusion.scatter=atomic --set mesh.reorder=random) ;;
  C) sets=(--set operators.muscl.variant=optimized --set operators.muscl.policy=team --set operators.convection.variant=naive
           --set operators.diffusion.variant=optimized --set operators.diffusion.policy=team
           --set operators.diffusion.team_size=64 --set mesh.reorder=hilbert) ;;
  D) sets=(--set operators.muscl.variant=optimized --set operators.muscl.scatter=gather
           --set operators.convection.variant=optimized --set operators.convection.scatter=gather
           --set operators.diffusion.variant=naive --set mesh.reorder=rcm --set run.deterministic=true) ;;
  # One face pass (operators.step, scalar and navier-stokes cases): explicitly separate, deterministic; fused with
  # atomics and team launches on both face operators.
  E) sets=(--set operators.step=separate --set run.deterministic=true --set mesh.reorder=hilbert) ;;
  F) sets=(--set operators.step=fused --set operators.convection.scatter=atomic --set operators.convection.policy=team
           --set operators.diffusion.scatter=atomic --set operators.diffusion.policy=team --set mesh.reorder=random) ;;
  # Stored face fluxes (one face pass: scalar cases with convection and diffusion, navier-stokes; euler's
  # convection alone), each face once, deterministic without run.deterministic.
  G) sets=(--set operators.convection.scatter=stored --set operators.diffusion.scatter=stored --set mesh.reorder=zorder) ;;
  perturbed) sets=(--set "initial=[{type: gaussian, center: [0.5, 0.5, 0.5], width: 0.15, amplitude: 1.001}]") ;;
  change:*) sets=(--set "${combo#change:}") ;; # one option the reference covers, changed: must be caught
  *) echo "unknown combination '$combo'"; exit 2 ;;
esac
rm -rf "$out"
"$fv" run "${args[@]}" "${sets[@]}" --quiet --output-dir "$out" || { echo "FAIL: the run failed"; exit 1; }
rtol=1e-10
"$fv" info --json | grep -q '"real": "float"' && rtol=1e-4
reffile=$(ls "$ref"/fields_*.h5)
"$fv" compare "$out" "$reffile" --rtol "$rtol"
rc=$?
[[ $rc == "$expect" ]] || { echo "FAIL: compare exit code $rc, expected $expect"; exit 1; }
echo "OK"
