#!/usr/bin/env bash
# Runs cargo for static Linux targets: aarch64-unknown-linux-musl, armv7-unknown-linux-musleabihf
# or x86_64-unknown-linux-musl (static musl, SQLite included), armv7-unknown-linux-gnueabihf
# (static glibc, the fallback where no musl standard library is to be had).
#
#   scripts/cross.sh TARGET build --release -p latlab
#   scripts/cross.sh "TARGET1 TARGET2" build --release -p latlab   # one cargo for both
#   scripts/cross.sh TARGET test -p latlab-sys --lib         # runs the tests under qemu-user
#   scripts/cross.sh "TARGET1 TARGET2"                         # only install what they need
#
# Several targets (space-separated, one argument) go to one cargo invocation: the build
# scripts and proc macros they share are built once, and the targets' compiles fill each
# other's idle cores.
#
# What it needs, found or installed (and said which):
# - the targets' Rust standard libraries: `rustup target add` on the default toolchain, else on
#   the minimum supported version (Cargo.toml's rust-version), whose mirror may serve targets
#   the newest does not; the toolchain used is printed;
# - a C compiler for each target, for SQLite: zig (`zig` on PATH, $ZIG, or PyPI's `ziglang`
#   installed into target/zig-venv), which carries musl's headers for every target;
# - a linker: Debian's gcc-aarch64-linux-gnu / gcc-arm-linux-gnueabihf (the Rust target's
#   own musl start files and libc are linked, statically);
# - for `test` and `run`: qemu-user-static (qemu-aarch64-static, qemu-arm-static).
# Exit: cargo's status; 2 bad usage; 77 a required tool is missing (said which).
set -euo pipefail
cd "$(dirname "$0")/.."
targets="${1:?usage: $0 TARGET[ TARGET...] CARGO-ARGS...}"
shift
missing() { echo "cross: $1 is missing: $2" >&2; exit 77; }
for target in $targets; do
    case "$target" in
        aarch64-unknown-linux-musl | armv7-unknown-linux-musleabihf | armv7-unknown-linux-gnueabihf | x86_64-unknown-linux-musl) ;;
        *) echo "cross: unknown target '$target' (aarch64-unknown-linux-musl, armv7-unknown-linux-musleabihf, armv7-unknown-linux-gnueabihf, x86_64-unknown-linux-musl)" >&2; exit 2 ;;
    esac
done

# The toolchain that has every target's standard library: of these targets, and of
# $CROSS_ALL_TARGETS when set (scripts/check-boards.sh sets it to all of its targets, so the
# binaries and the test binaries are built by one toolchain and share their dependencies'
# builds; the default toolchain's mirror may serve aarch64's standard library and not armv7's).
msrv=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml)
has_all() {
    local t
    for t in $targets ${CROSS_ALL_TARGETS:-}; do
        rustup target list --installed "$@" 2>/dev/null | grep -qx "$t" \
            || RUST_BACKTRACE=0 timeout 300 rustup target add "$t" "$@" >/dev/null 2>&1 || return 1
    done
}
toolchain=""
found=0
for tc in "" "$msrv"; do
    args=(); [ -n "$tc" ] && args=(--toolchain "$tc")
    if [ -n "$tc" ] && ! rustup toolchain list | grep -q "^$tc"; then
        timeout 300 rustup toolchain install "$tc" --profile minimal >/dev/null 2>&1 || continue
    fi
    if has_all "${args[@]}"; then
        toolchain="$tc"
        found=1
        break
    fi
done
[ "$found" = 1 ] || missing "the Rust standard library for $targets" "rustup could not install it for the default toolchain nor for $msrv"
plus=(); [ -n "$toolchain" ] && plus=("+$toolchain")
echo "cross: $targets with the ${toolchain:-default} toolchain ($(cargo "${plus[@]}" --version))" >&2

# With no cargo arguments: only make sure of the toolchain and (below) the C compilers.
bin="$PWD/target/cross-bin"
mkdir -p "$bin"
zig=""
target_args=()
for target in $targets; do
    case "$target" in
        aarch64-unknown-linux-musl) zigt=aarch64-linux-musl; linker=aarch64-linux-gnu-gcc; runner=qemu-aarch64-static; cpu="" ;;
        armv7-unknown-linux-musleabihf) zigt=arm-linux-musleabihf; linker=arm-linux-gnueabihf-gcc; runner=qemu-arm-static; cpu="-mcpu=generic+v7a+vfp3d16" ;;
        armv7-unknown-linux-gnueabihf) zigt=""; linker=arm-linux-gnueabihf-gcc; runner=qemu-arm-static; cpu="" ;;
        x86_64-unknown-linux-musl) zigt=x86_64-linux-musl; linker=""; runner=""; cpu="" ;;
    esac
    target_args+=(--target "$target")
    upper=$(echo "$target" | tr 'a-z-' 'A-Z_')
    lower=$(echo "$target" | tr '-' '_')
    if [ -n "$zigt" ]; then
        if [ -z "$zig" ]; then
            zig="${ZIG:-}"
            if [ -z "$zig" ] && command -v zig >/dev/null 2>&1; then zig=zig; fi
            if [ -z "$zig" ]; then
                venv="$PWD/target/zig-venv"
                if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -m ziglang version >/dev/null 2>&1; then
                    echo "cross: installing zig (PyPI's ziglang) into $venv for SQLite's C code" >&2
                    python3 -m venv "$venv" >/dev/null 2>&1 || missing "python3 -m venv" "needed to install zig from PyPI (Debian: python3-venv)"
                    "$venv/bin/pip" install -q "ziglang==0.13.0" || missing zig "pip could not install ziglang"
                fi
                zig="$venv/bin/python -m ziglang"
            fi
        fi
        # cc-rs passes clang's --target=<rust triple>, which zig does not parse: the wrapper drops it.
        # zig cc writes debug information unless told not to (cc-rs asks for it with -g only
        # where the profile wants it, which comes later and wins): SQLite without it compiles
        # in less time, and the release profile would strip it anyway.
        cat > "$bin/cc-$target" <<EOF
#!/bin/sh
for a in "\$@"; do
    shift
    case "\$a" in --target=*) ;; *) set -- "\$@" "\$a" ;; esac
done
exec $zig cc -target $zigt $cpu -g0 "\$@"
EOF
        printf '#!/bin/sh\nexec %s ar "$@"\n' "$zig" > "$bin/ar-$target"
        chmod +x "$bin/cc-$target" "$bin/ar-$target"
        export "CC_$lower=$bin/cc-$target" "AR_$lower=$bin/ar-$target"
    else
        command -v "$linker" >/dev/null 2>&1 || missing "$linker" "Debian: gcc-arm-linux-gnueabihf"
        export "CC_$lower=$linker"
        # glibc linked statically: one file to copy, like the musl builds.
        export "CARGO_TARGET_${upper}_RUSTFLAGS=-C target-feature=+crt-static"
    fi
    if [ -n "$linker" ]; then
        command -v "$linker" >/dev/null 2>&1 || missing "$linker" "Debian: gcc-aarch64-linux-gnu / gcc-arm-linux-gnueabihf"
        export "CARGO_TARGET_${upper}_LINKER=$linker"
    fi
    if [ -n "$runner" ]; then
        if command -v "$runner" >/dev/null 2>&1; then
            export "CARGO_TARGET_${upper}_RUNNER=$runner"
        elif [ "${1:-}" = test ] || [ "${1:-}" = run ]; then
            missing "$runner" "Debian: qemu-user-static"
        fi
    fi
done
[ $# -gt 0 ] || exit 0
# --target goes before a `--` that passes arguments on to the test binaries.
cargo_args=()
rest=()
seen_dashes=0
for a in "$@"; do
    if [ "$seen_dashes" = 0 ] && [ "$a" = "--" ]; then seen_dashes=1; continue; fi
    if [ "$seen_dashes" = 0 ]; then cargo_args+=("$a"); else rest+=("$a"); fi
done
if [ "$seen_dashes" = 1 ]; then
    exec cargo "${plus[@]}" "${cargo_args[@]}" "${target_args[@]}" -- "${rest[@]}"
fi
exec cargo "${plus[@]}" "${cargo_args[@]}" "${target_args[@]}"
