#!/usr/bin/env bash
# Every stored reference with every variant combination CTest runs (tests/reference/combinations.txt:
# the reference.<case>.<combo> tests), with a GPU bundle's fvproxy. From an unpacked bundle's root:
#   bash perf/regress_gpu.sh OUT [CASE...]
# OUT/regress.txt: one line per run, "<case> <combo>: <regress.sh's last line>" (OK, or how many fields
# differ), then "OK lines: K of N"; each run's output in /tmp/regress/<case>/<combo> (not kept). Exits 1
# unless every line is OK. CASE...: only those cases (default: every line of the file).
set -u
out=${1:?usage: regress_gpu.sh OUT [CASE...]}
shift
mkdir -p "$out"
out=$(cd "$out" && pwd)
here=$(pwd)
[[ -x run.sh && -x bin/fvproxy ]] || { echo "regress_gpu.sh: run it from an unpacked device bundle's root" >&2; exit 2; }
fv=$(mktemp)
printf '#!/usr/bin/env bash\nexec %s/run.sh bin/fvproxy "$@"\n' "$here" >"$fv" && chmod +x "$fv"
: >"$out/regress.txt"
while read -r c combos; do
  [[ -z $c || $c == \#* ]] && continue
  if [[ $# -gt 0 && " $* " != *" $c "* ]]; then continue; fi
  for combo in $combos; do
    r=$(bash tests/cli/regress.sh "$fv" "$here" "$c" "$combo" "/tmp/regress/$c/$combo" 2>&1 | tail -1)
    echo "$c $combo: $r" | tee -a "$out/regress.txt"
  done
done <tests/reference/combinations.txt
rm -f "$fv"
ok=$(grep -c ': OK' "$out/regress.txt") n=$(wc -l <"$out/regress.txt")
echo "OK lines: $ok of $n" | tee -a "$out/regress.txt"
[[ $ok == "$n" ]]
