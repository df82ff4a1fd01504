#!/usr/bin/env bash
# scripts/format.sh --check | --fix : clang-format (pinned: version 14) over the C++ sources.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
mode="${1:---check}"
cf=$(command -v clang-format-14 || true)
if [[ -z "$cf" ]]; then
  if [[ $(id -u) -eq 0 ]]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends clang-format-14 >/dev/null
  else
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends clang-format-14 >/dev/null
  fi
  cf=$(command -v clang-format-14)
fi
"$cf" --version | grep -q "version 14\." || { echo "format.sh: clang-format 14 required, found: $("$cf" --version)" >&2; exit 2; }
mapfile -t files < <(git ls-files -- '*.cpp' '*.hpp' '*.h' '*.cc')
[[ ${#files[@]} -gt 0 ]] || { echo "format.sh: no C++ sources tracked"; exit 0; }
if [[ "$mode" == --fix ]]; then
  "$cf" -i "${files[@]}"
  echo "formatted ${#files[@]} files"
else
  if ! "$cf" --dry-run --Werror "${files[@]}"; then
    echo "format check failed: run 'make format' (clang-format 14)" >&2
    exit 1
  fi
  echo "format check passed (${#files[@]} files, $("$cf" --version | head -1))"
fi
