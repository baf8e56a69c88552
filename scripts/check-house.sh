#!/usr/bin/env bash
# The house's rules, in seconds. From the source, read as text (scripts/house.py): no circle
# of files inside a crate; no experiment crate depending on another; every module in its
# crate's file map; a file over 600 lines or a shared file name only with a reason in
# scripts/house-exceptions.txt; no issue numbers in comments. From cargo's dependency tree:
# no crate but the binary builds SQLite, plotters, minijinja or indicatif (latlab-output's),
# and latlab-model makes no system calls of its own (no nix, libc or latlab-sys).
# Usage: scripts/check-house.sh            the whole house (CI)
#        scripts/check-house.sh --source DIR   the source rules alone on the tree at DIR (its tests)
# Exits 1 naming each break.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" = "--source" ]; then
    exec python3 "$here/house.py" "${2:?--source needs a directory}"
fi
cd "$here/.."
command -v python3 >/dev/null || { echo "check-house: python3 (3.11 or later) is needed for the source rules" >&2; exit 1; }
bad=0
python3 scripts/house.py || bad=1
output_only='^(rusqlite|libsqlite3-sys|plotters|minijinja|indicatif|latlab-output) '
for c in $(cargo metadata --no-deps --format-version 1 --locked | python3 -c 'import json,sys; print(" ".join(p["name"] for p in json.load(sys.stdin)["packages"] if p["name"] not in ("latlab", "latlab-output")))'); do
    found=$(cargo tree --locked -e normal -p "$c" --prefix none | sort -u | grep -E "$output_only" || true)
    if [ -n "$found" ]; then
        echo "check-house: $c depends on what only the output side may: $(echo "$found" | tr '\n' ' ')" >&2
        bad=1
    fi
done
echo "every crate but the binary and latlab-output: no store, plots, templates or progress bars in its tree"
# Its own dependencies, not theirs (rand reaches libc for its entropy).
found=$(cargo tree --locked -e normal -p latlab-model --depth 1 --prefix none | sort -u | grep -E '^(nix|libc|latlab-sys) ' || true)
if [ -n "$found" ]; then
    echo "check-house: latlab-model reaches the system through $(echo "$found" | tr '\n' ' ')" >&2
    bad=1
else
    echo "latlab-model: no nix, libc or latlab-sys"
fi
# The crate of `latlab type` builds without IronRDP.
found=$(cargo tree --locked -e normal -p latlab-type --prefix none | sort -u | grep -E '^ironrdp' || true)
if [ -n "$found" ]; then
    echo "check-house: latlab-type builds IronRDP: $(echo "$found" | tr '\n' ' ')" >&2
    bad=1
else
    echo "latlab-type: no IronRDP in its tree"
fi
exit $bad
