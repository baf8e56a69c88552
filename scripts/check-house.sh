#!/usr/bin/env bash
# The house's rooms keep their jobs: no experiment crate (nor latlab-model or latlab-sys)
# builds SQLite, plotters, minijinja or indicatif into its normal dependency tree — those are
# latlab-output's, which only the binary depends on — and latlab-model makes no system calls
# through nix or libc of its own. Exits 1 naming each crate that breaks a rule.
set -euo pipefail
cd "$(dirname "$0")/.."
bad=0
output_only='^(rusqlite|libsqlite3-sys|plotters|minijinja|indicatif|latlab-output) '
for c in latlab-model latlab-sys latlab-selftest latlab-rt latlab-udp latlab-rdp latlab-display latlab-stall latlab-startup latlab-monitor; do
    found=$(cargo tree --locked -e normal -p "$c" --prefix none | sort -u | grep -E "$output_only" || true)
    if [ -n "$found" ]; then
        echo "check-house: $c depends on what only the output side may: $(echo "$found" | tr '\n' ' ')" >&2
        bad=1
    else
        echo "$c: no store, plots, templates or progress bars in its tree"
    fi
done
# Its own dependencies, not theirs (rand reaches libc for its entropy).
found=$(cargo tree --locked -e normal -p latlab-model --depth 1 --prefix none | sort -u | grep -E '^(nix|libc|latlab-sys) ' || true)
if [ -n "$found" ]; then
    echo "check-house: latlab-model reaches the system through $(echo "$found" | tr '\n' ' ')" >&2
    bad=1
else
    echo "latlab-model: no nix, libc or latlab-sys"
fi
exit $bad
