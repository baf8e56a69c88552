#!/usr/bin/env bash
# A real RDP client's throughput limit against latlab's RDP server (issue #39): FreeRDP's
# xfreerdp (software decoding, under Xvfb) is shown the slide show flat out (frames back to
# back as fast as it takes them) once per bulk compressor it can ask for, then at real time
# (50 fps asked) with its default; latlab's own RDP client watches the same flat-out slide
# show beside it (`display ops --rdp … --rdp-ops idle`). The server's figures come from the
# runs it stored; each client's CPU from /proc (utime + stime over the session).
#
# Usage: scripts/rdp-client-bench.sh [SECONDS]   (needs xvfb, freerdp2-x11; builds latlab)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
for p in Xvfb xfreerdp python3; do
    command -v "$p" >/dev/null || { echo "needs $p (apt-get install xvfb freerdp2-x11 python3)" >&2; exit 2; }
done
cargo build --release --quiet
latlab=$PWD/target/release/latlab
work=$(mktemp -d)
n=$(for i in $(seq 90 400); do [ -e /tmp/.X11-unix/X$i ] || [ -e /tmp/.X$i-lock ] || { echo $i; break; }; done)
Xvfb ":$n" -screen 0 1280x1024x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null; rm -rf "$work"' EXIT
sleep 1
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
# server_figures DB: fps, MB/s and drop share of the slide show in the last run stored
server_figures() {
    "$latlab" --db "$1" export latest --format json | python3 -c '
import json, sys
r = json.load(sys.stdin)
m = {x["name"]: x["value"] for x in r["metrics"]}
acked = " acked %5.1f fps (ack p50 %.1f ms)" % (m["serve.slideshow.acked_fps"], m["serve.gfx.ack_latency.p50"] / 1e6) if "serve.slideshow.acked_fps" in m else ""
print("%-6s %6.1f fps %7.2f MB/s  dropped %2.0f%%  server CPU %.2f%s" % (r["config"]["codec"], m["serve.slideshow.fps"],
      m["serve.slideshow.update_bytes_per_s"] / 1e6, 100 * m["serve.slideshow.drop_share"], m["serve.slideshow.server_cpu_fraction"], acked))'
}
hz=$(getconf CLK_TCK)
run_xfreerdp() { # label, server flags, client flags…
    local label=$1 sflags=$2; shift 2
    local p db=$work/$label.db
    p=$(port)
    # shellcheck disable=SC2086
    "$latlab" --db "$db" display serve --rdp --once --listen "127.0.0.1:$p" --cert-dir "$work/cert" \
        --script slideshow --phase "${secs}s" $sflags 2>"$work/$label.log" &
    local srv=$!
    sleep 0.5
    DISPLAY=":$n" xfreerdp "/v:127.0.0.1:$p" /u:bench /p:bench /cert:ignore /sec:tls "$@" >/dev/null 2>&1 &
    local cli=$!
    local t0 c0
    t0=$(date +%s.%N); c0=$(cpu_ticks $cli)
    local last=$c0
    # The last sample of a live process (an exited one reads 0, or is gone).
    local now
    while kill -0 $cli 2>/dev/null; do
        now=$(cpu_ticks $cli)
        if [ "$now" -gt "$last" ]; then last=$now; fi
        sleep 0.2
    done
    wait $srv || true
    local t1; t1=$(date +%s.%N)
    local rates
    rates=$("$latlab" --db "$db" export latest --format json | python3 -c '
import json, sys
m = {x["name"]: x["value"] for x in json.load(sys.stdin)["metrics"]}
print(m["serve.slideshow.update_bytes_per_s"] / 1e6, m["serve.slideshow.fps"])')
    python3 - "$label" "$last" "$c0" "$hz" "$t0" "$t1" "$rates" "$(server_figures "$db")" <<'EOF'
import sys
label, last, c0, hz, t0, t1, rates, server = sys.argv[1:9]
mbs, fps = (float(x) for x in rates.split())
cpu = (float(last) - float(c0)) / float(hz)
wall = float(t1) - float(t0)
frac = cpu / wall
print(f"{label:<22} {server}   xfreerdp CPU {frac:.2f} of a core, {frac / max(mbs, 1e-9) * 1e3:4.0f} ms/MB, {frac / max(fps, 1e-9) * 1e3:.2f} ms/frame")
EOF
}
echo "xfreerdp $(DISPLAY=":$n" xfreerdp /version 2>&1 | sed -n 's/.*FreeRDP version \([^ ]*\).*/\1/p' | head -1), slide show ${secs} s, 1024x768x16, $(nproc) CPUs, $(date -u +%F)"
echo "== flat out (the client's throughput limit), per bulk compressor the client offers"
run_xfreerdp "none" "--flat-out" -compression
run_xfreerdp "mppc8" "--flat-out" /compression-level:0
run_xfreerdp "mppc64" "--flat-out" /compression-level:1
run_xfreerdp "ncrush" "--flat-out" /compression-level:2
run_xfreerdp "xcrush (its default)" "--flat-out"
run_xfreerdp "none, 24 bpp" "--flat-out --bpp 24" -compression
echo "== graphics pipeline (--gfx: uncompressed surface regions; the client acknowledges each frame)"
run_xfreerdp "gfx, flat out" "--flat-out --gfx" /gfx
run_xfreerdp "gfx zgfx, flat out" "--flat-out --gfx zgfx" /gfx
run_xfreerdp "gfx, real time" "--gfx" /gfx
echo "== real time (50 fps asked)"
run_xfreerdp "xcrush, real time" ""
run_xfreerdp "none, real time" "" -compression
echo "== latlab's own RDP client on the same server, flat out (its default: xcrush)"
p=$(port)
# The server's phase outlasts the client's operation (it connects, waits for a first picture
# and settles first); the session ends when the client leaves.
"$latlab" --db "$work/own.db" display serve --rdp --once --listen "127.0.0.1:$p" --cert-dir "$work/cert" \
    --script slideshow --phase "$((secs * 3))s" --flat-out 2>"$work/own.log" &
srv=$!
sleep 0.5
LATLAB_RDP_USER=bench LATLAB_RDP_PASSWORD=bench "$latlab" --db "$work/client.db" display ops --rdp "127.0.0.1:$p" \
    --insecure --rdp-ops idle --op-duration "${secs}s" >"$work/client.log" 2>&1 || { echo "latlab's client failed:"; tail -5 "$work/client.log"; }
wait $srv || true
"$latlab" --db "$work/client.db" export latest --format json | python3 -c '
import json, sys
m = {x["name"]: x["value"] for x in json.load(sys.stdin)["metrics"]}
print("%.2f %.0f" % (m["rdp.ops.idle.client_cpu"], m["rdp.ops.idle.client_cpu_per_mb"] / 1e6))' > "$work/own.cpu"
read -r frac per_mb < "$work/own.cpu"
fps=$("$latlab" --db "$work/own.db" export latest --format json | python3 -c '
import json, sys
print({x["name"]: x["value"] for x in json.load(sys.stdin)["metrics"]}["serve.slideshow.fps"])')
echo "latlab's client       $(server_figures "$work/own.db")   latlab CPU $frac of a core, $per_mb ms/MB, $(python3 -c "print('%.2f' % ($frac / $fps * 1e3))") ms/frame"
