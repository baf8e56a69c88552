#!/usr/bin/env bash
# Run latlab's fuzz targets for a bounded time each, from the corpus kept in the repository
# (fuzz/seeds/TARGET/: hand-written examples; fuzz/seeds/TARGET.tar.gz: what earlier runs
# found), failing on the first crash, hang or leak; CI runs this. Needs a nightly toolchain
# cargo-fuzz (`cargo install cargo-fuzz`) and a C++ compiler for libFuzzer (Debian: g++).
#
#   scripts/fuzz.sh [--seconds 20] [--jobs 1] [--merge] [--build-only] [--asan] [TARGET ...]
#
# Without a sanitizer by default: the parsers fuzzed (latlab-rdp, latlab-udp-probe, and the
# stream, hello and trace readers) are safe Rust (the first two forbid unsafe code), where an
# overrun is a bounds-check panic libFuzzer catches without AddressSanitizer, and memory without
# bound is caught by -rss_limit_mb. Measured here: the build takes 5.0 CPU-minutes against 7.2
# with ASan, and each input runs faster. --asan builds and runs with AddressSanitizer (and its
# leak check) for a deeper local run.
#
# Every target by default, --jobs of them at once (each fuzzer is one process: CI gives one a
# core). Inputs found are written to fuzz/corpus/TARGET (not in git); with
# --merge, fuzz/seeds/TARGET.tar.gz becomes the smallest set of kept and found inputs that
# covers what they all cover, to be committed; --build-only builds the targets and runs nothing
# (CI builds them while other work runs). A crash leaves its input in fuzz/artifacts/TARGET and
# the command to replay it is printed.
set -euo pipefail

seconds=20 merge=0 jobs=1 build_only=0 sanitizer=none targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds=$2; shift 2 ;;
        --merge) merge=1; shift ;;
        --build-only) build_only=1; shift ;;
        --asan) sanitizer=address; shift ;;
        --jobs) jobs=$2; shift 2 ;;
        -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "fuzz.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
        *) targets+=("$1"); shift ;;
    esac
done
cd "$(dirname "$0")/../fuzz"
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo +nightly fuzz list)
fi
cargo +nightly fuzz build -s "$sanitizer" >/dev/null
if [ $build_only -eq 1 ]; then
    echo "fuzz.sh: built ${#targets[@]} targets: ${targets[*]}"
    exit 0
fi
bin="target/$(rustc +nightly -vV | sed -n 's/^host: //p')/release"
# One target: its run, then (with --merge) its corpus merged; corpus/TARGET.status says how it
# went (no status: the run itself broke, a failure too).
run_one() {
    local t=$1
    mkdir -p "corpus/$t" "seeds/$t"
    if [ -f "seeds/$t.tar.gz" ]; then
        tar xzf "seeds/$t.tar.gz" -C "corpus/$t"
    fi
    echo "fuzz.sh: $t for ${seconds}s ($(ls "corpus/$t" | wc -l) inputs from the repository's corpus, $(ls "seeds/$t" | wc -l) examples)"
    # -rss_limit_mb: a decoder that allocates without bound is a failure, not a slow run.
    if ! cargo +nightly fuzz run -s "$sanitizer" "$t" "corpus/$t" "seeds/$t" -- \
        -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
        > "corpus/$t.log" 2>&1; then
        tail -40 "corpus/$t.log"
        echo "fuzz.sh: FAILED $t" > "corpus/$t.status"
        return
    fi
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "corpus/$t.log" | tr '\n' ' ' | sed "s/^/fuzz.sh: $t: /"
    echo
    if [ $merge -eq 1 ]; then
        # The smallest set of inputs (kept and found) that covers what they all cover.
        rm -rf "corpus/$t.min" && mkdir -p "corpus/$t.min"
        "$bin/$t" -merge=1 "corpus/$t.min" "seeds/$t" "corpus/$t" > "corpus/$t.merge.log" 2>&1
        tar czf "seeds/$t.tar.gz" --sort=name --mtime=@0 --owner=0 --group=0 -C "corpus/$t.min" .
        echo "fuzz.sh: $t: $(ls "corpus/$t.min" | wc -l) inputs kept in seeds/$t.tar.gz"
        rm -rf "corpus/$t.min"
    fi
    echo "fuzz.sh: passed $t" > "corpus/$t.status"
}
# Up to --jobs targets at once (each fuzzer is one process on one core); each one's lines are
# printed together when it ends.
running=0
for t in "${targets[@]}"; do
    mkdir -p corpus
    rm -f "corpus/$t.status"
    run_one "$t" > "corpus/$t.out" 2>&1 &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
done
wait
failed=()
for t in "${targets[@]}"; do
    cat "corpus/$t.out"
    grep -q "^fuzz.sh: passed" "corpus/$t.status" 2>/dev/null || failed+=("$t")
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz.sh: FAILED: ${failed[*]} (inputs in fuzz/artifacts/; replay with cargo +nightly fuzz run -s $sanitizer TARGET FILE)" >&2
    exit 1
fi
echo "fuzz.sh: every target ran ${seconds}s without a crash"
