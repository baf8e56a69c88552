#!/usr/bin/env bash
# What watching costs: `latlab monitor` against cyclictest (Debian's rt-tests) at the same
# settings — one timer thread at SCHED_FIFO 80 waking every 1 ms on absolute deadlines — each
# run for the same time, alternately, in one run of this script. Prints each one's CPU time
# (user + system, from /usr/bin/time), its share of one CPU, the worst and typical wake-up each
# saw, and the CPU ratio.
#
#   scripts/monitor-vs-cyclictest.sh [--seconds 60] [--rounds 2]
#
# LATLAB (default target/release/latlab) names the binary. Needs root (or the RT privilege).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=60
rounds=2
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds="$2"; shift 2 ;;
        --rounds) rounds="$2"; shift 2 ;;
        *) echo "usage: $0 [--seconds N] [--rounds N]" >&2; exit 2 ;;
    esac
done
latlab=$(realpath "${LATLAB:-target/release/latlab}")
command -v cyclictest >/dev/null || { echo "no cyclictest here: apt-get install rt-tests" >&2; exit 2; }
[ -x "$latlab" ] || { echo "no latlab at '$latlab': cargo build --release first, or set LATLAB" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/latlab-cost-XXXXXX")
trap 'rm -rf "$work"' EXIT
loops=$((seconds * 1000))

cpu_of() { awk '{printf "%.3f", $1 + $2}' "$1"; }
for r in $(seq 1 "$rounds"); do
    /usr/bin/time -f "%U %S" -o "$work/m.time" "$latlab" --db "$work/m.db" monitor --interval 1ms \
        --window "${seconds}s" --duration "${seconds}s" --priority 80 >"$work/m.out" 2>"$work/m.err"
    m_cpu=$(cpu_of "$work/m.time")
    m_max=$(sed -n 's/.*max \([0-9.]*\) µs.*/\1/p' "$work/m.err" | sort -g | tail -1)
    m_p99=$(sed -n 's/.*p99 \([0-9.]*\) µs.*/\1/p' "$work/m.err" | sort -g | tail -1)
    # --laptop: leave /dev/cpu_dma_latency alone, as latlab monitor does (cyclictest would hold it
    # at 0, keeping every CPU out of deep idle states: a different setting).
    /usr/bin/time -f "%U %S" -o "$work/c.time" cyclictest -p 80 -i 1000 -l "$loops" -t 1 -q -h 2000 --laptop \
        >"$work/c.out" 2>&1
    c_cpu=$(cpu_of "$work/c.time")
    c_max=$(awk '/^# Max Latencies:/ {print $4 + 0}' "$work/c.out")
    # cyclictest's histogram: one line per µs, "000042 000017" (zero-padded).
    c_p99=$(awk '/^[0-9]/ {n[$1 + 0] = $2 + 0; tot += $2} END {c = 0; for (i = 0; i < 2000; i++) {c += n[i]; if (c >= 0.99 * tot) {print i; exit}}}' "$work/c.out")
    echo "round $r: latlab monitor ${m_cpu} s CPU in ${seconds} s ($(awk -v c="$m_cpu" -v s="$seconds" 'BEGIN {printf "%.2f", 100*c/s}') % of a CPU), max ${m_max} µs, p99 ${m_p99} µs"
    echo "round $r: cyclictest     ${c_cpu} s CPU in ${seconds} s ($(awk -v c="$c_cpu" -v s="$seconds" 'BEGIN {printf "%.2f", 100*c/s}') % of a CPU), max ${c_max} µs, p99 ${c_p99} µs"
    echo "round $r: CPU ratio latlab/cyclictest $(awk -v a="$m_cpu" -v b="$c_cpu" 'BEGIN {if (b > 0) printf "%.2f", a/b; else print "n/a"}')"
done
