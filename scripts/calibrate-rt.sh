#!/usr/bin/env bash
# Calibrate `latlab rt` level 1 against Debian's cyclictest (rt-tests) on this machine:
# same rate (1 kHz), same policy (SCHED_FIFO 80), same single CPU, same sample count,
# run alternately, RUNS times each (default 20: on a virtual machine single runs of either
# tool scatter by several µs, so only many alternating runs compare them). Prints both medians and their ratio; our
# acceptance bound is latlab/cyclictest ≤ 1.1.
# Usage: [RUNS=20] scripts/calibrate-rt.sh [CPU] [SAMPLES]   (needs root or CAP_SYS_NICE, and cyclictest)
set -euo pipefail
cpu="${1:-$(( $(nproc) - 1 ))}"
n="${2:-5000}"
here="$(cd "$(dirname "$0")/.." && pwd)"
latlab="${LATLAB:-$here/target/release/latlab}"
command -v cyclictest >/dev/null || { echo "calibrate: cyclictest not found (Debian: apt-get install rt-tests)" >&2; exit 77; }
[ -x "$latlab" ] || (cd "$here" && cargo build --release -q)
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
secs=$(( n / 1000 ))

cyclic_median() {  # median in µs from cyclictest's histogram (1 µs buckets)
    cyclictest -m -p80 -i1000 -a"$cpu" -t1 -l"$n" -q -h 2000 > "$tmp/ct.txt"
    awk -v n="$n" '/^[0-9]/ { c += $2; if (!done && c >= n/2) { print $1; done=1 } }' "$tmp/ct.txt"
}
latlab_median() {  # median in µs of level 1, same settings, level 1 only, no load
    LATLAB_DB="$tmp/cal.db" "$latlab" rt --rate 1000 --duration "${secs}s" --signal none --load none \
        --cpu "$cpu" --l1-priority 80 > /dev/null 2>&1
    LATLAB_DB="$tmp/cal.db" "$latlab" export latest --format json |
        python3 -c 'import json,sys; r=json.load(sys.stdin); print([m["value"] for m in r["metrics"] if m["name"]=="unloaded.l1.latency.p50"][0]/1000)'
}
runs="${RUNS:-20}"
cs=(); ls=()
for _ in $(seq "$runs"); do cs+=("$(cyclic_median)"); ls+=("$(latlab_median)"); done
python3 - "$cpu" "$n" "${cs[*]}" "${ls[*]}" <<'PY'
import statistics, sys
cpu, n = sys.argv[1], sys.argv[2]
# cyclictest truncates to whole µs: bucket b holds [b, b+1) µs, so its midpoint is b + 0.5.
cs = [float(x) + 0.5 for x in sys.argv[3].split()]
ls = [float(x) for x in sys.argv[4].split()]
print(f"calibration on CPU {cpu}, 1 kHz, SCHED_FIFO 80, {n} samples per run, {len(cs)} interleaved runs each:")
print("  cyclictest medians (bucket midpoints): " + ", ".join(f"{c:.1f}" for c in cs) + " µs")
print("  latlab L1 medians:                     " + ", ".join(f"{l:.2f}" for l in ls) + " µs")
c, l = statistics.median(cs), statistics.median(ls)
ratio = l / max(c, 1e-9)
print(f"  median of medians: cyclictest {c:.2f} µs, latlab {l:.2f} µs")
print(f"  ratio latlab/cyclictest = {ratio:.3f} ({'within' if ratio <= 1.1 else 'OUTSIDE'} the 1.1 bound)")
PY
