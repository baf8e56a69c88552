#!/usr/bin/env bash
# How `latlab import` and `latlab report` cope with a fleet: one real database (a short
# `monitor` run and a short `rt` run) is copied to N synthetic hosts (each with its own host
# name, machine id and start times, rewritten with Python's sqlite3), then all N are imported
# into one database and reported. Prints the time and peak memory of each step, the database's
# size and the report's size.
#
#   scripts/fleet-bench.sh [--hosts 1000]
#
# LATLAB (default target/release/latlab) names the binary. Everything is made in a temporary
# directory and removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
hosts=1000
while [ $# -gt 0 ]; do
    case "$1" in
        --hosts) hosts="$2"; shift 2 ;;
        *) echo "usage: $0 [--hosts N]" >&2; exit 2 ;;
    esac
done
latlab=$(realpath "${LATLAB:-target/release/latlab}")
[ -x "$latlab" ] || { echo "no latlab at '$latlab': cargo build --release first, or set LATLAB" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/latlab-fleet-XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

echo "seed database: monitor (10 s in 1 s windows) and rt (2 s)"
"$latlab" --db seed.db monitor --window 1s --duration 10s >/dev/null 2>&1
"$latlab" --db seed.db rt --duration 2s >/dev/null 2>&1
python3 - "$hosts" <<'EOF'
import shutil, sqlite3, sys
n = int(sys.argv[1])
for i in range(n):
    p = f"host-{i:04d}.db"
    shutil.copy("seed.db", p)
    c = sqlite3.connect(p)
    name, mid = f"board-{i:04d}", f"{i:032x}"
    c.execute("UPDATE runs SET hostname = ?, started_at_ns = started_at_ns + ?, "
              "machine = json_set(machine, '$.info.hostname', ?, '$.info.machine_id', ?)",
              (name, i * 1000, name, mid))
    c.commit()
    c.close()
print(f"{n} host databases made")
EOF

timed() {
    local label=$1; shift
    /usr/bin/time -f "%e %M" -o t.txt "$@" >/dev/null 2>err.txt || { cat err.txt; exit 1; }
    read -r secs kb < t.txt
    echo "$label: ${secs} s, peak RSS $((kb / 1024)) MiB"
}
timed "import of $hosts hosts" "$latlab" --db fleet.db import host-*.db
echo "fleet.db: $(du -h fleet.db | cut -f1), $("$latlab" --db fleet.db runs --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))') runs"
timed "report of $hosts hosts" "$latlab" --db fleet.db report -o fleet.html
echo "report: $(du -h fleet.html | cut -f1) ($(stat -c %s fleet.html) bytes), $(grep -o '<svg' fleet.html | wc -l) plots"
timed "import again (every run refused)" "$latlab" --db fleet.db import host-*.db
