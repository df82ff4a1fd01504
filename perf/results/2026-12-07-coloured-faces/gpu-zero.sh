#!/usr/bin/env bash
# Where the scalar stage update writes the rate's zero (section 3 of the README). From an unpacked
# device bundle's root: bash perf/results/2026-12-07-coloured-faces/gpu-zero.sh OUT
# bin/fvproxy: ed2ade0 (the zero stored as the rate is read); bin/fvproxy-9a47209 (a fill kernel
# before each stage's operators); bin/fvproxy-z: zero-position.patch on ed2ade0, run without the
# variable (as ed2ade0), with FVPROXY_EXPERIMENT_ZERO=end (the zero stored after the state) and
# =fill (no zero in the update, a fill kernel right after it). ROUNDS [2] rounds of
# ../2026-12-07-state-layout/gpu.sh's `ab`, then its `profile` of the three modes of bin/fvproxy-z.
set -u
out=${1:?usage: gpu-zero.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
for mode in end fill; do
  cat >"bin/fvproxy-z-$mode" <<EOS
#!/usr/bin/env bash
export FVPROXY_EXPERIMENT_ZERO=$mode
exec "\$(dirname "\$0")/fvproxy-z" "\$@"
EOS
  chmod +x "bin/fvproxy-z-$mode"
done
bash "$here/../2026-12-07-state-layout/gpu.sh" "$out" ab head=bin/fvproxy old=bin/fvproxy-9a47209 \
  zread=bin/fvproxy-z zend=bin/fvproxy-z-end zfill=bin/fvproxy-z-fill
bash "$here/../2026-12-07-state-layout/gpu.sh" "$out" profile zread=bin/fvproxy-z zend=bin/fvproxy-z-end \
  zfill=bin/fvproxy-z-fill
