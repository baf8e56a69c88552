#!/usr/bin/env bash
# Opens a latlab HTML report in headless Chromium and fails if the page logs anything to the
# console (errors, failed loads) or shows no plots. Writes a screenshot beside the report.
# Usage: scripts/check-report-in-chromium.sh REPORT.html
# Exit: 0 ok, 1 check failed, 77 Chromium not installed (the check did not run).
set -euo pipefail
report="${1:?usage: $0 REPORT.html}"
[ -f "$report" ] || { echo "check-report: no such file '$report'" >&2; exit 1; }
chrome=""
for c in chromium chromium-browser google-chrome; do
    if command -v "$c" >/dev/null 2>&1; then chrome="$c"; break; fi
done
if [ -z "$chrome" ]; then
    echo "check-report: SKIPPED — no Chromium found (Debian: apt-get install chromium)" >&2
    exit 77
fi
abs="$(cd "$(dirname "$report")" && pwd)/$(basename "$report")"
profile="$(mktemp -d)"
log="$(mktemp)"
dom="$(mktemp)"
trap 'rm -rf "$profile" "$log" "$dom"' EXIT
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
       --disable-background-networking --disable-component-update --disable-sync
       --user-data-dir="$profile" --enable-logging=stderr --v=0)
timeout 120 "$chrome" "${flags[@]}" --dump-dom "file://$abs" >"$dom" 2>"$log"
timeout 120 "$chrome" "${flags[@]}" --window-size=1400,2400 --screenshot="${abs%.html}.png" "file://$abs" >/dev/null 2>>"$log"
if grep -q ':CONSOLE' "$log"; then
    echo "check-report: FAILED — the page logged to the console:" >&2
    grep ':CONSOLE' "$log" >&2
    exit 1
fi
svgs=$(grep -o '<svg' "$dom" | wc -l)
if [ "$svgs" -eq 0 ]; then
    echo "check-report: FAILED — no plots (<svg>) in the rendered page" >&2
    exit 1
fi
shot="${abs%.html}.png"
if [ ! -s "$shot" ]; then
    echo "check-report: FAILED — no screenshot was taken" >&2
    exit 1
fi
echo "check-report: ok — $svgs plots rendered, no console messages, screenshot $shot"
