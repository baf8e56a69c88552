#!/usr/bin/env bash
# latlab monitor against a real Prometheus: a short monitor run serves /metrics on loopback,
# Prometheus (Debian's `prometheus`) scrapes it every second, and every scrape is then checked
# through Prometheus's HTTP API against the windows latlab stored: the histogram's count, sum
# and every cumulative bucket, the missed-pulse and window counters, and the last window's
# maximum and p99 gauges. Fails unless at least two scrapes with closed windows were compared.
# Prometheus is stopped and its data removed at the end, whatever happens.
#
#   scripts/check-prometheus.sh [--seconds 24] [--window 2s]
#
# LATLAB (default target/release/latlab) and PROMETHEUS (default prometheus) name the binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=24
window=2s
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds="$2"; shift 2 ;;
        --window) window="$2"; shift 2 ;;
        *) echo "usage: $0 [--seconds N] [--window DUR]" >&2; exit 2 ;;
    esac
done
latlab=${LATLAB:-target/release/latlab}
prometheus=${PROMETHEUS:-prometheus}
command -v "$prometheus" >/dev/null || { echo "no '$prometheus' here: apt-get install prometheus" >&2; exit 2; }
[ -x "$latlab" ] || { echo "no latlab at '$latlab': cargo build --release first, or set LATLAB" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/latlab-prometheus-XXXXXX")
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
mport=$(free_port)
pport=$(free_port)

cat > "$work/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: latlab
    static_configs:
      - targets: ['127.0.0.1:$mport']
EOF

"$prometheus" --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/data" \
    --web.listen-address="127.0.0.1:$pport" >"$work/prometheus.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 60); do
    curl -fsS "http://127.0.0.1:$pport/-/ready" >/dev/null 2>&1 && break
    sleep 0.5
done
curl -fsS "http://127.0.0.1:$pport/-/ready" >/dev/null || { cat "$work/prometheus.log"; echo "Prometheus did not start" >&2; exit 1; }

echo "monitor: ${seconds}s in windows of $window, /metrics on 127.0.0.1:$mport; Prometheus on 127.0.0.1:$pport"
"$latlab" --db "$work/m.db" monitor --window "$window" --duration "${seconds}s" \
    --metrics-listen "127.0.0.1:$mport" >"$work/monitor.out" 2>"$work/monitor.err" &
mpid=$!
pids+=("$mpid")
if ! wait "$mpid"; then
    cat "$work/monitor.err" >&2
    echo "latlab monitor failed" >&2
    exit 1
fi
# Prometheus keeps what it scraped while it runs: read it now.
"$latlab" --db "$work/m.db" export monitor --format windows >"$work/windows.csv"
curl -fsS "http://127.0.0.1:$pport/api/v1/targets" >"$work/targets.json"
curl -fsS --get "http://127.0.0.1:$pport/api/v1/query" \
    --data-urlencode "query={__name__=~\"latlab_monitor_.+\",job=\"latlab\"}[10m]" >"$work/samples.json"

python3 - "$work/windows.csv" "$work/samples.json" "$work/targets.json" <<'EOF'
import csv, json, sys
from collections import defaultdict

windows = list(csv.DictReader(open(sys.argv[1])))
resp = json.load(open(sys.argv[2]))
targets = json.load(open(sys.argv[3]))
assert resp["status"] == "success", resp
health = [t.get("health") for t in targets["data"]["activeTargets"]]
print(f"prometheus targets: {health}")
rt = [w for w in windows if w["probe"] == "rt"]
rt.sort(key=lambda w: int(w["start_ns"]))
le_cols = [c for c in windows[0].keys() if c.startswith("le_")] if windows else []

def le_value(s):
    return float("inf") if s in ("+Inf", "Inf") else float(s)

# Every sample by scrape time: {t: {(name, le): value}}
scrapes = defaultdict(dict)
for series in resp["data"]["result"]:
    m = series["metric"]
    if m.get("probe") != "rt":
        continue
    key = (m["__name__"], le_value(m["le"]) if "le" in m else None)
    for t, v in series["values"]:
        scrapes[t][key] = float(v)

def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)

checked = set()
failures = []
for t, s in sorted(scrapes.items()):
    n = s.get(("latlab_monitor_windows_total", None))
    if not n:
        continue
    n = int(n)
    if n > len(rt):
        failures.append(f"scrape at {t}: {n} windows, but only {len(rt)} stored")
        continue
    first = rt[:n]
    count = sum(int(w["count"]) for w in first)
    want = {
        ("latlab_monitor_latency_seconds_count", None): count,
        ("latlab_monitor_latency_seconds_sum", None): sum(int(w["sum_ns"]) for w in first) / 1e9,
        ("latlab_monitor_missed_pulses_total", None): sum(int(w["missed"]) for w in first),
        ("latlab_monitor_lost_packets_total", None): sum(int(w["lost"]) for w in first),
        ("latlab_monitor_window_max_seconds", None): int(first[-1]["max_ns"]) / 1e9,
        ("latlab_monitor_window_p99_seconds", None): int(first[-1]["p99_ns"]) / 1e9,
    }
    cum = 0
    for c in le_cols:
        cum += sum(int(w[c]) for w in first)
        want[("latlab_monitor_latency_seconds_bucket", le_value(c[3:]))] = cum
    for key, v in want.items():
        got = s.get(key)
        if got is None:
            failures.append(f"scrape at {t}: {key} missing")
        elif not close(got, v):
            failures.append(f"scrape at {t} ({n} windows): {key} is {got} in Prometheus, {v} in latlab's database")
    checked.add(n)

print(f"{len(rt)} windows stored; {len(scrapes)} scrapes in Prometheus; compared the scrapes after windows "
      f"{sorted(checked)} ({len(le_cols)} buckets each)")
for f in failures[:20]:
    print("MISMATCH:", f)
if failures:
    sys.exit(1)
if len(checked) < 2:
    print("fewer than two scrapes with closed windows were compared")
    sys.exit(1)
print("prometheus check: passed")
EOF
