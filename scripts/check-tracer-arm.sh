#!/usr/bin/env bash
# The ptrace tracer on aarch64 against x86-64: records the built-in launch with
# `startup record --builtin --tracer ptrace` on this machine (x86-64: the static musl build, or
# the latlab given with --x86) and
# inside an emulated aarch64 machine (qemu-system-aarch64 booting Debian's arm64 kernel with a
# busybox initramfs; the static aarch64 build runs from an ext4 disk, where files can be evicted
# as on a board), then checks that both plans hold the same files in the same order.
#
# qemu-user cannot do this: it does not emulate ptrace. Timing under emulation is meaningless:
# this compares which files were opened, not how fast.
#
# Usage: scripts/check-tracer-arm.sh [--keep DIR] [--profile NAME] [--x86 PATH] [--arm PATH]
#   --keep: leave the plans and logs in DIR; --profile: the cargo profile to build (default release);
#   --arm: the static aarch64 latlab to run in the emulated machine, already built (CI: the
#   boards' build; building it again here for aarch64 alone would resolve features anew and
#   compile it again);
#   --x86: record this machine's side with this latlab (CI: the main job's release build) instead
#   of building the static x86-64 one. A dynamically linked latlab also opens its dynamic
#   loader's files (ld.so.cache, the shared C libraries), which a static binary never opens:
#   those are left out of both plans before they are compared.
# Needs: qemu-system-arm (qemu-system-aarch64), e2fsprogs (mkfs.ext4, debugfs), cpio, apt-get
# (Debian's linux-image-*-cloud-arm64 and busybox-static for arm64 are downloaded into a private
# apt state: the machine's own package setup is not changed), and what scripts/cross.sh needs.
# Exit: 0 the same plan, 1 different or the emulated run failed, 77 a tool is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
keep=""
profile=release
x86=""
arm=""
while [ $# -gt 0 ]; do
    case "$1" in
        --keep) keep="$2"; shift 2 ;;
        --profile) profile="$2"; shift 2 ;;
        --x86) x86="$2"; shift 2 ;;
        --arm) arm="$2"; shift 2 ;;
        *) echo "usage: $0 [--keep DIR] [--profile NAME] [--x86 PATH] [--arm PATH]" >&2; exit 2 ;;
    esac
done
dir=$profile
[ "$profile" = dev ] && dir=debug
for t in qemu-system-aarch64 mkfs.ext4 debugfs cpio apt-get apt-cache; do
    command -v "$t" >/dev/null 2>&1 || { echo "check-tracer-arm: $t is missing (Debian: qemu-system-arm e2fsprogs cpio)" >&2; exit 77; }
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The builds this check needs: the static ones not given.
build=()
[ -n "$arm" ] || build+=(aarch64-unknown-linux-musl)
[ -n "$x86" ] || build+=(x86_64-unknown-linux-musl)
if [ ${#build[@]} -gt 0 ]; then
    echo "== the static builds: ${build[*]}"
    scripts/cross.sh "${build[*]}" build --profile "$profile" --locked -p latlab
fi
arm=${arm:-${CARGO_TARGET_DIR:-target}/aarch64-unknown-linux-musl/$dir/latlab}
x86=${x86:-${CARGO_TARGET_DIR:-target}/x86_64-unknown-linux-musl/$dir/latlab}
for b in "$arm" "$x86"; do
    [ -x "$b" ] || { echo "check-tracer-arm: $b is not an executable" >&2; exit 2; }
done
echo "aarch64: $arm; x86-64: $x86"

echo "== x86-64: startup record --builtin --tracer ptrace"
"$x86" --db "$work/x86.db" startup record --builtin --tracer ptrace -o "$work/plan-x86_64.json" > "$work/record-x86_64.md"

echo "== aarch64: Debian's arm64 kernel and busybox"
apt=(-o Dir::State::Lists="$work/apt/lists" -o Dir::Cache="$work/apt/cache" -o Dir::State::status=/dev/null
     -o APT::Architecture=arm64 -o APT::Architectures::=arm64)
mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/debs"
apt-get "${apt[@]}" -qq update
kpkg=$(apt-cache "${apt[@]}" depends linux-image-cloud-arm64 | sed -n 's/^ *Depends: \(linux-image-[^ ]*\).*/\1/p' | head -1)
[ -n "$kpkg" ] || { echo "check-tracer-arm: no arm64 kernel package found" >&2; exit 77; }
(cd "$work/debs" && apt-get "${apt[@]}" -qq download "$kpkg" busybox-static 2>/dev/null)
for d in "$work"/debs/*.deb; do dpkg-deb -x "$d" "$work/x"; done
kernel=$(ls "$work"/x/boot/vmlinuz-*)
kver=$(basename "$kernel" | sed 's/^vmlinuz-//')
echo "kernel: $kpkg ($kver)"

# The initramfs: busybox, the virtio disk's modules in dependency order (this kernel builds them
# as modules; ext4
# built in), and an init that mounts the disk on /var/tmp, records there and powers off.
root="$work/initramfs"
mkdir -p "$root"/{bin,dev,proc,sys,var/tmp,lib/modules}
cp "$work/x/bin/busybox" "$root/bin/busybox"
for m in virtio_ring virtio virtio_mmio virtio_blk; do
    f=$(find "$work/x/lib/modules/$kver" -name "$m.ko*" | head -1)
    [ -n "$f" ] || { echo "check-tracer-arm: module $m not in $kpkg" >&2; exit 1; }
    case "$f" in
        *.xz) xz -dc "$f" > "$root/lib/modules/$m.ko" ;;
        *.zst) zstd -qdc "$f" > "$root/lib/modules/$m.ko" ;;
        *) cp "$f" "$root/lib/modules/$m.ko" ;;
    esac
done
cat > "$root/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in virtio_ring virtio virtio_mmio virtio_blk; do insmod /lib/modules/$m.ko; done
for i in 1 2 3 4 5 6 7 8 9 10; do [ -b /dev/vda ] && break; sleep 1; done
mount -t ext4 /dev/vda /var/tmp
cd /var/tmp
echo "latlab-vm: $(uname -m) $(uname -r)"
./latlab --db /var/tmp/arm.db startup record --builtin --tracer ptrace -o /var/tmp/plan.json > /var/tmp/record.md 2> /var/tmp/record.err
echo "$?" > /var/tmp/rc
echo "latlab-vm: record exited $(cat /var/tmp/rc)"
cd /
sync
umount /var/tmp
poweroff -f
EOF
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1 > "$work/initrd.gz")

# The disk: the binary, room for the data set (48 files of 512 KiB) and the database.
mkdir -p "$work/disk"
cp "$arm" "$work/disk/latlab"
mkfs.ext4 -q -F -L latlab -d "$work/disk" "$work/disk.img" 256M

echo "== aarch64: qemu-system-aarch64 (TCG, one CPU): startup record --builtin --tracer ptrace"
timeout 900 qemu-system-aarch64 -M virt -cpu cortex-a57 -smp 1 -m 1024 -nographic -no-reboot \
    -kernel "$kernel" -initrd "$work/initrd.gz" -append "console=ttyAMA0 quiet panic=-1" \
    -drive file="$work/disk.img",format=raw,if=none,id=d -device virtio-blk-device,drive=d \
    > "$work/console.log" 2>&1 || true
grep -a "latlab-vm:" "$work/console.log" || true
get() { debugfs -R "dump /$1 $work/$2" "$work/disk.img" >/dev/null 2>&1; }
get rc rc-aarch64 && get plan.json plan-aarch64.json && get record.md record-aarch64.md && get record.err record-aarch64.err \
    && get arm.db aarch64.db || true
if [ -n "$keep" ]; then mkdir -p "$keep" && cp "$work"/*.json "$work"/*.md "$work"/*.err "$work/console.log" "$keep/" 2>/dev/null || true; fi
if [ "$(cat "$work/rc-aarch64" 2>/dev/null)" != 0 ]; then
    echo "check-tracer-arm: FAILED — the emulated record did not finish (console and stderr below)" >&2
    tail -30 "$work/console.log" >&2
    cat "$work/record-aarch64.err" >&2 2>/dev/null || true
    exit 1
fi

echo "== the two plans"
# Both records say which tracer ran: ptrace, as asked (fanotify would not test the tables).
for a in x86 aarch64; do
    tracer=$("$x86" --db "$work/$a.db" export latest --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["config"]["tracer"])')
    echo "$a: tracer $tracer"
    [ "$tracer" = ptrace ] || { echo "check-tracer-arm: FAILED — the $a record used $tracer, not ptrace" >&2; exit 1; }
done
# Paths differ only by where each binary and data set lived: name them alike, keep the order.
# The dynamic loader's files are left out (see --x86).
files() {
    python3 - "$1" <<'EOF'
import json, re, sys
plan = json.load(open(sys.argv[1]))
exe = plan["command"][0]
loader = re.compile(r"^/etc/ld\.so\.(cache|preload)$|^(/usr)?/lib(32|64|x32)?/.*\.so(\.[0-9.]+)?$")
for f in plan["files"]:
    if loader.match(f["path"]):
        continue
    p = "LATLAB" if f["path"] == exe else re.sub(r"/latlab-launch-\d+-\d+/", "/DATA/", f["path"])
    print(p)
EOF
}
files "$work/plan-x86_64.json" > "$work/x86_64.txt"
files "$work/plan-aarch64.json" > "$work/aarch64.txt"
echo "x86-64: $(wc -l < "$work/x86_64.txt") files; aarch64: $(wc -l < "$work/aarch64.txt") files"
if ! diff -u "$work/x86_64.txt" "$work/aarch64.txt"; then
    echo "check-tracer-arm: FAILED — the aarch64 tracer's plan differs from the x86-64 one (diff above)" >&2
    exit 1
fi
echo "check-tracer-arm: ok — the aarch64 ptrace tracer recorded the same $(wc -l < "$work/x86_64.txt") files in the same order as x86-64"
