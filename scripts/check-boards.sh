#!/usr/bin/env bash
# Builds latlab's static binaries for the boards (aarch64 and armv7, musl, SQLite inside), checks
# that they are static ARM executables, runs the logic crates' tests under qemu-user, and runs
# the binaries' smoke test under qemu: `selftest`, a codec round trip (corpus → compress →
# decompress → the same bytes) per algorithm, `boot analyze` of the seed's own trace, and a
# `report` of the database the emulated run wrote, read by this machine's latlab.
#
# Timing under qemu is meaningless: this checks that the code runs, not how fast.
#
# Each target is compiled once: the binaries of both targets in one cargo invocation, then the
# test binaries in the same (release) profile, so they reuse every dependency the binaries
# compiled; only the crates under test are compiled again, with debug assertions and overflow
# checks on as `cargo test` has them (a 32-bit overflow on armv7 panics, as it would in a debug
# build). The binaries are in ${CARGO_TARGET_DIR:-target}/TARGET/release/.
#
# Usage: scripts/check-boards.sh [--targets "aarch64-unknown-linux-musl armv7-unknown-linux-musleabihf"]
#                                [--binaries "T1 …"] [--no-tests] [--build-only] [--profile NAME]
# --build-only: compile the binaries and test binaries, run nothing (CI compiles first, then
# runs what needs the machine's time). --profile: the cargo profile (default release).
# --binaries: the targets whose latlab binary is built, checked static and smoke-tested
# (default: every target); the others get their logic crates' tests only (CI builds the aarch64
# binary and tests both: a second full binary was a third of CI's CPU).
# Needs: gcc-aarch64-linux-gnu, gcc-arm-linux-gnueabihf, qemu-user-static (Debian), and zig (see
# scripts/cross.sh, which installs PyPI's ziglang where none is found).
# Exit: 0 passed, 1 failed, 77 a tool is missing (said which).
set -euo pipefail
cd "$(dirname "$0")/.."
targets="aarch64-unknown-linux-musl armv7-unknown-linux-musleabihf"
binaries=""
tests=1
build_only=0
profile=release
while [ $# -gt 0 ]; do
    case "$1" in
        --targets) targets="$2"; shift 2 ;;
        --binaries) binaries="$2"; shift 2 ;;
        --no-tests) tests=0; shift ;;
        --build-only) build_only=1; shift ;;
        --profile) profile="$2"; shift 2 ;;
        *) echo "usage: $0 [--targets \"T1 T2\"] [--binaries \"T1\"] [--no-tests] [--build-only] [--profile NAME]" >&2; exit 2 ;;
    esac
done
[ -n "$binaries" ] || binaries=$targets
for b in $binaries; do
    case " $targets " in *" $b "*) ;; *) echo "check-boards: --binaries names $b, which is not among --targets" >&2; exit 2 ;; esac
done
# The crates whose tests run under qemu, and why these (the rest are the same code on every
# architecture, and their tests run natively in `cargo test --workspace`):
# - latlab-sys: system calls, clocks, scheduling, memory locking and /proc parsing: the kernel
#   interface, whose types and numbers differ by architecture and word size (armv7 is 32-bit);
# - latlab-startup (its system-call table only, `syscalls::`): the ptrace tracer's table is
#   written per architecture;
# - latlab-rdp: the bit-level codecs (MPPC, NCRUSH, XCRUSH, RLE) on a 32-bit usize, which a
#   board decodes as the seed-000 thin client does;
# - latlab-udp-probe: the probe's wire format and timestamps, which a board sends and reflects
#   (seed 002's phone); latlab-udp: the reflector and the analysis of what came back.
# Not latlab-model: its statistics are the same arithmetic on fixed-width types everywhere, and
# its tests (tail fits over many simulated runs) took 285 s under qemu-user for one target,
# measured; the records a board writes are checked by the smoke test below (selftest's record,
# reported by this machine's latlab).
crates=(-p latlab-sys -p latlab-startup -p latlab-rdp -p latlab-udp-probe -p latlab-udp)
# Debug assertions and overflow checks in the crates under test, as `cargo test` builds them
# (the same flags at build and at run, so the run compiles nothing).
checks=()
for c in latlab-sys latlab-startup latlab-rdp latlab-udp-probe latlab-udp; do
    checks+=(--config "profile.$profile.package.$c.debug-assertions=true" --config "profile.$profile.package.$c.overflow-checks=true")
done
# Tests left out under qemu-user, by name, and why (the store's tests are not among the logic
# crates' and are not run here):
# - the UDP peer test asks for kernel receive timestamps (SO_TIMESTAMPNS), which qemu-user does
#   not emulate (ENOPROTOOPT); on a board the option is there.
# - the TCP_INFO test reads the connection's byte counters, which read zero under qemu-user
#   (seen on aarch64 in CI); a board's own kernel fills them.
# - the page-out of another process calls process_madvise, which qemu-user does not implement
#   (ENOSYS, seen on aarch64); a board's kernel (5.10 or later) has it.
skips=(--skip reflector::tests::requests_to_a_reflector_come_back_with_their_sequence_numbers_and_junk_is_refused
    --skip tcpinfo::tests::counts_what_crossed_loopback
    --skip pageout::tests::another_process_is_paged_out_and_its_children_found)
# - on armv7 only, the prefault test reads its buffer's resident size from /proc/self/smaps,
#   which qemu-user shows a 32-bit guest with no resident pages (it passes under aarch64).
skips_armv7=(--skip platform::tests::prefaulting_makes_a_lazy_buffer_resident_and_keeps_it)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tdir="${CARGO_TARGET_DIR:-target}"
# This machine's latlab reads the database the emulated run wrote: $LATLAB when set, else the
# static x86-64 build when there is one (scripts/release.sh makes it), else the native release
# build; with none of them that check is skipped and said (under CI=true, a failure).
dir=$profile
[ "$profile" = dev ] && dir=debug
native="${LATLAB:-$tdir/x86_64-unknown-linux-musl/$dir/latlab}"
[ -x "$native" ] || native="$tdir/release/latlab"
for t in $targets; do
    case "$t" in
        aarch64-*) qemu=qemu-aarch64-static ;;
        armv7-*) qemu=qemu-arm-static ;;
        *) echo "check-boards: not a board target: $t" >&2; exit 2 ;;
    esac
    command -v "$qemu" >/dev/null 2>&1 || { echo "check-boards: $qemu is missing (Debian: qemu-user-static)" >&2; exit 77; }
done
# One toolchain for every build below (scripts/cross.sh): the test binaries then reuse the
# dependencies the binaries compiled.
export CROSS_ALL_TARGETS="$targets"
echo "== static binaries: $binaries"
scripts/cross.sh "$binaries" build --profile "$profile" --locked -p latlab
if [ "$tests" = 1 ]; then
    echo "== test binaries: $(printf '%s ' "${crates[@]}" | sed 's/-p //g')($profile profile, with debug assertions and overflow checks)"
    # Run below straight from the list cargo gives (target, crate, executable): a cargo test per
    # target with another set of crates would resolve features anew and compile again.
    scripts/cross.sh "$targets" test --profile "$profile" --locked --no-run --message-format=json-render-diagnostics \
        "${checks[@]}" "${crates[@]}" --lib > "$work/tests.json"
    python3 - "$work/tests.json" $targets > "$work/tests.tsv" <<'EOF'
import json, sys
targets = set(sys.argv[2:])
for line in open(sys.argv[1]):
    if not line.startswith("{"):
        continue
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        t = next(p for p in m["executable"].split("/") if p in targets)
        print(t, m["target"]["name"].replace("_", "-"), m["executable"], sep="\t")
EOF
    cat "$work/tests.tsv"
fi
if [ "$build_only" = 1 ]; then
    echo "check-boards: built ($targets, $profile profile); nothing run (--build-only)"
    exit 0
fi
# The crate's tests of `target` whose name is `crate`, under qemu, from the crate's directory
# as cargo runs them; the rest of the arguments go to the test binary. The codecs' property
# tests draw 64 cases each here, not proptest's 256 (PROPTEST_CASES overrides): under qemu
# they check the word size and the architecture, and the 256 run natively in `cargo test`
# (at the boards' opt-level 0 for dependencies, NCRUSH's 256 round trips took 75 s on armv7).
run_tests() {
    local target=$1 crate=$2 runner=$3 exe
    shift 3
    exe=$(awk -F'\t' -v t="$target" -v c="$crate" '$1 == t && $2 == c { print $3 }' "$work/tests.tsv")
    [ -n "$exe" ] || { echo "check-boards: FAILED — no test binary of $crate for $target" >&2; return 1; }
    (cd "crates/$crate" && PROPTEST_CASES="${PROPTEST_CASES:-64}" "$runner" "$exe" "$@")
}
for t in $targets; do
    case "$t" in
        aarch64-*) qemu=qemu-aarch64-static; want="ARM aarch64" ;;
        armv7-*) qemu=qemu-arm-static; want="ARM, EABI5" ;;
    esac
    bin="$tdir/$t/$dir/latlab"
    case " $binaries " in
        *" $t "*)
            desc=$(file -b "$bin")
            echo "$bin: $desc"
            case "$desc" in *"statically linked"* | *"static-pie linked"*) ;; *) echo "check-boards: FAILED — $bin is not statically linked" >&2; exit 1 ;; esac
            case "$desc" in *"$want"*) ;; *) echo "check-boards: FAILED — $bin is not $want" >&2; exit 1 ;; esac
            ;;
    esac
    if [ "$tests" = 1 ]; then
        these=("${skips[@]}")
        case "$t" in armv7-*) these+=("${skips_armv7[@]}") ;; esac
        echo "== $t: the logic crates' tests under $qemu (left out: ${these[*]/--skip/})"
        for c in latlab-rdp latlab-sys latlab-udp-probe latlab-udp; do
            echo "-- $c"
            run_tests "$t" "$c" "$qemu" "${these[@]}"
        done
        echo "== $t: the ptrace tracer's system-call table against this architecture's C library"
        run_tests "$t" latlab-startup "$qemu" syscalls::
    fi
    case " $binaries " in
        *" $t "*) ;;
        *)
            echo "== $t: passed (logic tests only: no binary built for it here, --binaries)"
            continue
            ;;
    esac
    echo "== $t: smoke test under $qemu"
    db="$work/$t.db"
    "$qemu" "$bin" --version
    "$qemu" "$bin" --db "$db" selftest > "$work/selftest.md"
    grep -q "^# latlab selftest" "$work/selftest.md" || { echo "check-boards: FAILED — selftest printed no record" >&2; exit 1; }
    "$qemu" "$bin" --db "$db" codec corpus --packets 300 --out "$work/corpus.pkt"
    for algo in mppc8 mppc64 ncrush xcrush; do
        "$qemu" "$bin" --db "$db" codec compress --algo "$algo" --in "$work/corpus.pkt" --out "$work/c.pkt" 2>/dev/null
        "$qemu" "$bin" --db "$db" codec decompress --algo "$algo" --in "$work/c.pkt" --out "$work/d.pkt" 2>/dev/null
        cmp -s "$work/corpus.pkt" "$work/d.pkt" || { echo "check-boards: FAILED — $algo round trip differs on $t" >&2; exit 1; }
        echo "codec $algo: round trip identical ($(stat -c %s "$work/corpus.pkt") → $(stat -c %s "$work/c.pkt") bytes)"
    done
    "$qemu" "$bin" --db "$db" boot analyze --verbose crates/latlab-startup/samples/xperf-boot-excerpt.xml > "$work/boot.md"
    grep -q "boot.autostart_ms\` | 4614" "$work/boot.md" || { echo "check-boards: FAILED — boot analyze did not read the seed's 4614 ms" >&2; exit 1; }
    echo "boot analyze: the seed's autoStartDuration 4614 ms read back"
    # The database written on the "board", reported on this machine.
    if [ -x "$native" ]; then
        "$native" --db "$db" report -o "$work/report.html" 2>&1 | tail -1
        test -s "$work/report.html"
    elif [ "${CI:-}" = true ]; then
        echo "check-boards: FAILED — no latlab runs here to read the board's database (set LATLAB)" >&2
        exit 1
    else
        echo "check-boards: SKIPPED — the board's database read here: no latlab runs here (set LATLAB or build --release)"
    fi
    echo "== $t: passed"
done
echo "check-boards: ok — $binaries built static and smoke-tested, the logic tests of $targets passed under qemu"
