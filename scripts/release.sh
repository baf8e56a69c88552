#!/usr/bin/env bash
# Builds latlab's release artifacts into dist/: for each target one archive
# latlab-VERSION-TARGET.tar.gz holding the static binary, the man pages, the shell completions
# (bash, zsh, fish), the README and the licence note; SHA256SUMS over the archives; and, with
# --deb and cargo-deb installed, a Debian package of the x86-64 static build.
#
# Usage: scripts/release.sh [--targets "T1 T2 …"] [--deb] [--out DIR] [--profile NAME]
# --profile: the cargo profile to package (default release; CI packages what it built).
# Targets (default: all three): aarch64-unknown-linux-musl armv7-unknown-linux-musleabihf
#                               x86_64-unknown-linux-musl
# Each is built by scripts/cross.sh (static musl, SQLite inside); see it for what a build
# machine needs. The man pages and completions come from the static x86-64 build when it is
# among the targets, else from $LATLAB (a latlab that runs here) when set, else from a native
# release build. Exit: 0 built, 1 a build failed, 77 a tool is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
targets="aarch64-unknown-linux-musl armv7-unknown-linux-musleabihf x86_64-unknown-linux-musl"
deb=0
out=dist
profile=release
while [ $# -gt 0 ]; do
    case "$1" in
        --targets) targets="$2"; shift 2 ;;
        --deb) deb=1; shift ;;
        --out) out="$2"; shift 2 ;;
        --profile) profile="$2"; shift 2 ;;
        *) echo "usage: $0 [--targets \"T1 T2\"] [--deb] [--out DIR] [--profile NAME]" >&2; exit 2 ;;
    esac
done
dir=$profile
[ "$profile" = dev ] && dir=debug
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

tdir="${CARGO_TARGET_DIR:-target}"
echo "== the static builds: $targets"
scripts/cross.sh "$targets" build --profile "$profile" --locked -p latlab

# Man pages and completions come from the clap grammar, the same on every target: generate
# them once, with the static x86-64 build when it is among the targets (it runs here), else
# with $LATLAB, else with a native build.
echo "== man pages and completions"
native="$tdir/x86_64-unknown-linux-musl/$dir/latlab"
if ! [[ " $targets " == *" x86_64-unknown-linux-musl "* ]] || [ "$(uname -m)" != x86_64 ]; then
    if [ -n "${LATLAB:-}" ]; then
        native=$LATLAB
    else
        cargo build --release --locked -p latlab
        native="$tdir/release/latlab"
    fi
fi
gen="$stage/generated"
mkdir -p "$gen/man" "$gen/completions"
"$native" man --output "$gen/man" 2>/dev/null
"$native" completions bash > "$gen/completions/latlab.bash"
"$native" completions zsh > "$gen/completions/_latlab"
"$native" completions fish > "$gen/completions/latlab.fish"
# Kept for cargo-deb's assets (Cargo.toml's [package.metadata.deb] reads them from here).
rm -rf target/dist-generated
cp -r "$gen" target/dist-generated
gzip -9nf target/dist-generated/man/*.1

for t in $targets; do
    echo "== $t"
    bin="$tdir/$t/$dir/latlab"
    file -b "$bin" | grep -Eq "statically linked|static-pie linked" || { echo "release: $bin is not statically linked" >&2; exit 1; }
    name="latlab-$version-$t"
    d="$stage/$name"
    mkdir -p "$d"
    cp "$bin" "$d/latlab"
    # Symbols stay out of the shipped file (boards have little flash); the release profile has
    # no line tables to begin with (build --profile profiling for them).
    case "$t" in
        aarch64-*) strip=aarch64-linux-gnu-strip ;;
        armv7-*) strip=arm-linux-gnueabihf-strip ;;
        *) strip=strip ;;
    esac
    if command -v "$strip" >/dev/null 2>&1; then "$strip" "$d/latlab"; else echo "release: $strip missing, $name ships unstripped" >&2; fi
    cp -r "$gen/man" "$gen/completions" "$d/"
    cp README.md "$d/"
    printf 'latlab %s for %s: a static binary (musl, SQLite inside). Licence: MIT OR Apache-2.0.\nCopy it to the board and run ./latlab suite; read the report there or copy latlab.db back and run latlab report.\n' \
        "$version" "$t" > "$d/ABOUT"
    tar -C "$stage" -czf "$out/$name.tar.gz" "$name"
    echo "$out/$name.tar.gz: $(stat -c %s "$out/$name.tar.gz") bytes ($(stat -c %s "$d/latlab") bytes unpacked binary)"
done

if [ "$deb" = 1 ]; then
    echo "== Debian package (cargo deb, x86-64 static)"
    if ! command -v cargo-deb >/dev/null 2>&1; then
        echo "release: cargo-deb is missing (cargo install cargo-deb)" >&2
        exit 77
    fi
    scripts/cross.sh x86_64-unknown-linux-musl build --release --locked -p latlab
    cargo deb -p latlab --no-build --strip --target x86_64-unknown-linux-musl --output "$out"
fi

(
    cd "$out"
    shopt -s nullglob
    sha256sum -- *.tar.gz *.deb > SHA256SUMS
)
echo "== $out"
cat "$out/SHA256SUMS"
