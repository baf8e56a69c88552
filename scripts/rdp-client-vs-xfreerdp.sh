#!/usr/bin/env bash
# latlab's RDP client beside Debian's xfreerdp (issue #38's target: latlab needs no more CPU
# per MB of display stream), on one real server and one workload, both connected at once:
# FreeRDP's shadow server shares an Xvfb display where an xterm scrolls text without pause;
# xfreerdp (software decoding, drawing into a second Xvfb) and `latlab display ops --rdp
# --rdp-ops idle` watch it for the same seconds, both at 16 bpp with NCRUSH (RDP 6.0) bulk
# compression and no graphics pipeline, so the server sends both the same bitmap updates.
# (FreeRDP 2's `-gfx` *enables* the pipeline, and with it 32 bpp and planar bitmaps: leaving it
# out is what keeps xfreerdp at 16 bpp. The script prints the two byte rates, and warns when they
# differ by more than a quarter.)
#
# CPU: xfreerdp's process (utime + stime from /proc, every thread: network, decoding,
# drawing into its X window, over latlab's whole run); latlab's session thread (rdp.ops.idle.client_cpu_per_mb: TLS, control PDUs,
# decompression, decoding, drawing). Bytes: each connection's TCP payload received, from the
# kernel (`ss -ti` for xfreerdp's, TCP_INFO for latlab's).
#
#   scripts/rdp-client-vs-xfreerdp.sh [--seconds 20]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=20
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds=$2; shift 2 ;;
        -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "rdp-client-vs-xfreerdp: unknown option '$1' (try --help)" >&2; exit 2 ;;
    esac
done
latlab=${LATLAB:-target/release/latlab}
for p in Xvfb xterm freerdp-shadow-cli xfreerdp ss "$latlab"; do
    command -v "$p" >/dev/null 2>&1 || [ -x "$p" ] || {
        echo "rdp-client-vs-xfreerdp: $p is missing (apt-get install xvfb xterm freerdp2-shadow-x11 freerdp2-x11 iproute2; cargo build --release)" >&2
        exit 77
    }
done
dir=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$dir"
}
trap cleanup EXIT
free_display() { for n in $(seq 420 520); do [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ] || { echo "$n"; return; }; done; }
wait_for() { for _ in $(seq 1 200); do eval "$1" && return 0; sleep 0.05; done; echo "rdp-client-vs-xfreerdp: $2 did not start" >&2; exit 1; }

server=$(free_display)
Xvfb ":$server" -screen 0 1024x768x24 -nolisten tcp >/dev/null 2>&1 & pids+=($!)
wait_for "[ -e /tmp/.X11-unix/X$server ]" Xvfb
DISPLAY=":$server" xterm -geometry 100x32+0+0 -fn fixed +sb -e sh -c \
    'i=0; while :; do i=$((i+1)); echo "$i  the quick brown fox jumps over the lazy dog  $i"; sleep 0.005; done' \
    >/dev/null 2>&1 & pids+=($!)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
DISPLAY=":$server" freerdp-shadow-cli "/port:$port" /bind-address:127.0.0.1 -auth /sec:tls >/dev/null 2>&1 & pids+=($!)
wait_for "(exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null" freerdp-shadow-cli

viewer=$(free_display)
[ "$viewer" = "$server" ] && viewer=$((viewer + 1))
Xvfb ":$viewer" -screen 0 1024x768x24 -nolisten tcp >/dev/null 2>&1 & pids+=($!)
wait_for "[ -e /tmp/.X11-unix/X$viewer ]" "the viewer's Xvfb"
DISPLAY=":$viewer" xfreerdp "/v:127.0.0.1:$port" /u:latlab /p:unused /cert:ignore /bpp:16 \
    +compression /compression-level:2 /size:1024x768 -wallpaper >/dev/null 2>&1 & xpid=$!
pids+=("$xpid")
sleep 4
kill -0 "$xpid" 2>/dev/null || { echo "rdp-client-vs-xfreerdp: xfreerdp did not stay connected" >&2; exit 1; }

ticks=$(getconf CLK_TCK)
cpu_of() { awk '{print $14 + $15}' "/proc/$1/stat"; }
bytes_of() {
    ss -tinpH "dst 127.0.0.1:$port" 2>/dev/null | awk -v pid="pid=$1," '
        index($0, pid) { want = 1; next }
        want { for (i = 1; i <= NF; i++) if ($i ~ /^bytes_received:/) { split($i, a, ":"); print a[2]; exit } }'
}
c0=$(cpu_of "$xpid"); b0=$(bytes_of "$xpid"); t0=$(date +%s%N)
LATLAB_RDP_USER=latlab LATLAB_RDP_PASSWORD=unused "$latlab" --db "$dir/l.db" display ops --rdp "127.0.0.1:$port" \
    --insecure --rdp-ops idle --op-duration "${seconds}s" --rdp-bpp 16 --rdp-compression ncrush >/dev/null
c1=$(cpu_of "$xpid"); b1=$(bytes_of "$xpid"); t1=$(date +%s%N)
"$latlab" --db "$dir/l.db" export 1 --format json > "$dir/l.json"
python3 - "$dir/l.json" "$c0" "$c1" "$b0" "$b1" "$ticks" "$t0" "$t1" <<'EOF'
import json, sys
rec = json.load(open(sys.argv[1]))
m = {x["name"]: x["value"] for x in rec["metrics"]}
c0, c1, b0, b1, ticks, t0, t1 = (float(v) for v in sys.argv[2:9])
x_cpu_ns = (c1 - c0) / ticks * 1e9
x_mb = (b1 - b0) / 1e6
l_per_mb = m.get("rdp.ops.idle.client_cpu_per_mb")
if x_mb <= 0 or l_per_mb is None:
    sys.exit("rdp-client-vs-xfreerdp: a client received nothing")
x_per_mb = x_cpu_ns / x_mb
print(f"xfreerdp: {x_cpu_ns / 1e6:.0f} ms CPU for {x_mb:.2f} MB = {x_per_mb / 1e6:.1f} ms per MB ({x_mb / ((t1 - t0) / 1e9) * 1e3:.0f} kB/s received, {100 * x_cpu_ns / (t1 - t0):.1f} % of a core)")
print(f"latlab:   {l_per_mb / 1e6:.1f} ms per MB (display {m['rdp.ops.idle.display_bytes_per_s'] / 1e3:.0f} kB/s, its session at {100 * m['rdp.ops.idle.client_cpu']:.1f} % of a core)")
print(f"latlab / xfreerdp CPU per MB: {l_per_mb / x_per_mb:.2f}; CPU watching the same screen: {m['rdp.ops.idle.client_cpu'] / (x_cpu_ns / (t1 - t0)):.2f}")
# The comparison holds only on equal streams: the server sends each client what it negotiated.
x_rate = x_mb * 1e6 / ((t1 - t0) / 1e9)
l_rate = m["rdp.ops.idle.down_bytes_per_s"]
print(f"bytes received, xfreerdp / latlab: {x_rate / l_rate:.2f}")
if not 0.8 <= x_rate / l_rate <= 1.25:
    print("rdp-client-vs-xfreerdp: the two streams differ by more than a quarter; the server sent the clients different encodings, so CPU per MB does not compare them")
EOF
