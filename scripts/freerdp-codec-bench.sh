#!/usr/bin/env bash
# latlab's RDP bulk codecs side by side with FreeRDP's, on the same packet file: builds the C
# harness scripts/freerdp-codec-bench.c against Debian's freerdp2-dev, writes latlab's session
# corpus, and prints compress and decompress MB/s of both, their ratio, and the bytes each
# compressor put on the wire. Decompression is timed on the same stream for both (latlab's,
# at the level benched), which FreeRDP must also decode correctly. Nothing in latlab's Rust
# build depends on FreeRDP. See docs/codec.md.
#
#   scripts/freerdp-codec-bench.sh [--level fast|balanced|best] [--packets 2000]
#                                  [--passes 5] [--rounds 3] [--corpus session|synthetic]
#
# LATLAB names the latlab binary (default: target/release/latlab, built if missing).
# Rounds alternate latlab and FreeRDP so that both see the same machine; the best is kept.
set -euo pipefail

level=fast packets=2000 passes=5 rounds=3 corpus=session
while [ $# -gt 0 ]; do
    case "$1" in
        --level) level=$2; shift 2 ;;
        --packets) packets=$2; shift 2 ;;
        --passes) passes=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --corpus) corpus=$2; shift 2 ;;
        -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "freerdp-codec-bench: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
if ! command -v pkg-config >/dev/null || ! pkg-config --exists freerdp2 winpr2; then
    echo "freerdp-codec-bench: FreeRDP 2's headers are missing: apt-get install freerdp2-dev pkg-config" >&2
    exit 2
fi
cc=${CC:-cc}
if ! command -v "$cc" >/dev/null; then
    echo "freerdp-codec-bench: no C compiler ('$cc'): apt-get install gcc" >&2
    exit 2
fi
latlab=${LATLAB:-$root/target/release/latlab}
if [ ! -x "$latlab" ]; then
    echo "freerdp-codec-bench: building latlab (release)..." >&2
    (cd "$root" && cargo build --release -q -p latlab)
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$cc" -O2 -o "$tmp/harness" "$here/freerdp-codec-bench.c" $(pkg-config --cflags --libs freerdp2 winpr2)
"$latlab" codec corpus --corpus "$corpus" --packets "$packets" --out "$tmp/corpus.pkt" 2>/dev/null
streams=()
for a in mppc8 mppc64 ncrush xcrush; do
    "$latlab" codec compress --level "$level" --algo "$a" --in "$tmp/corpus.pkt" --out "$tmp/$a.pkt" 2>/dev/null
    streams+=("$a=$tmp/$a.pkt")
done
: >"$tmp/latlab.tsv"
: >"$tmp/freerdp.tsv"
for r in $(seq 1 "$rounds"); do
    echo "freerdp-codec-bench: round $r of $rounds" >&2
    "$latlab" codec bench --in "$tmp/corpus.pkt" --level "$level" --passes "$passes" --tsv | tail -n +2 >>"$tmp/latlab.tsv"
    # FreeRDP logs every failed packet of its own RDP 4.0 round trip: counted, not printed.
    WLOG_LEVEL=OFF "$tmp/harness" "$tmp/corpus.pkt" "$passes" "${streams[@]}" >>"$tmp/freerdp.tsv" 2>/dev/null
done

echo "latlab level '$level' vs FreeRDP 2 ($(pkg-config --modversion freerdp2)), corpus '$corpus', $packets PDUs; best of $rounds rounds × $passes passes"
awk -F'\t' '
    FILENAME ~ /latlab.tsv$/ {
        a = $2; lin[a] = $4; lout[a] = $5
        if ($8 > lc[a]) lc[a] = $8
        if ($9 > ld[a]) ld[a] = $9
        next
    }
    $1 == "own" {
        a = $2; fout[a] = $6; fbad[a] = $7
        if ($3 > fc[a]) fc[a] = $3
    }
    $1 == "latlab-stream" {
        a = $2; sbad[a] = $4
        if ($3 > fd[a]) fd[a] = $3
    }
    END {
        printf "%-7s %12s %12s %6s   %12s %12s %6s   %11s %11s %6s  %s\n", "codec", "decomp", "FreeRDP", "ratio", "compress", "FreeRDP", "ratio", "bytes", "FreeRDP", "ratio", "notes"
        n = split("mppc8 mppc64 ncrush xcrush", order, " ")
        for (i = 1; i <= n; i++) {
            a = order[i]
            note = ""
            if (sbad[a] > 0) note = note sprintf("FreeRDP failed %d of latlab'"'"'s packets; ", sbad[a])
            if (fbad[a] > 0) note = note sprintf("FreeRDP'"'"'s own round trip failed %d packets; ", fbad[a])
            printf "%-7s %7.1f MB/s %7.1f MB/s %5.2fx   %7.1f MB/s %7.1f MB/s %5.2fx   %11d %11d %6.2f  %s\n", a, ld[a], fd[a], ld[a] / fd[a], lc[a], fc[a], lc[a] / fc[a], lout[a], fout[a], lout[a] / fout[a], note
        }
        print "(decomp: both decode latlab'"'"'s stream; compress: each its own compressor; bytes: on the wire, packets that would not shrink sent as is)"
    }
' "$tmp/latlab.tsv" "$tmp/freerdp.tsv"
