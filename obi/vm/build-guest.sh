#!/usr/bin/env bash
# Builds the OBI guest: a Debian kernel and an initramfs holding busybox, the OBI binary,
# exactly the shared libraries it loads, the virtio network modules and /init
# (obi/vm/init). run-guest.sh boots it with qemu.
#
#   obi/vm/build-guest.sh [--obi PATH] [--out DIR] [-q]
#
#   --obi PATH   the OBI binary (default $OBI, else build/obi/obi)
#   --out DIR    where the guest goes (default $OBI_VM_DIR, else build/vm)
#   -q           print only the image directory
#
# Output in DIR: vmlinuz (the package's kernel), vmlinux (the same kernel unpacked, booted
# at its PVH entry when the kernel has one: no decompression at boot), initramfs.img
# (gzip'd cpio), manifest (what is inside and from where). The kernel comes from the
# Debian package linux-image-amd64 depends on, fetched once with `apt-get download` into
# DIR/debs and unpacked there (nothing is installed on the host); delete DIR/debs to take
# a newer one. The image is rebuilt only when one of its inputs changes (OBI binary, its
# libraries, busybox, kernel package, init and the scripts in obi/vm): their hashes are
# kept in DIR/inputs. The same inputs give the same bytes.
# Installs busybox-static and xz-utils when they are missing.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
OBI="${OBI:-$ROOT/build/obi/obi}"
OUT="${OBI_VM_DIR:-$ROOT/build/vm}"
QUIET=0
MODULES=(virtio_pci virtio_net)   # and what they depend on

die() { printf 'build-guest: %s\n' "$*" >&2; exit 2; }
say() { [ "$QUIET" = 1 ] || printf 'build-guest: %s\n' "$*" >&2; }

while (($#)); do
  case "$1" in
    --obi) OBI=${2:?--obi needs a path}; shift 2 ;;
    --out) OUT=${2:?--out needs a directory}; shift 2 ;;
    -q) QUIET=1; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
[ -x "$OBI" ] || die "no OBI binary at $OBI (build it with ./openbox build, or give --obi PATH)"
OBI="$(readlink -f "$OBI")"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"

install_missing() { # package...
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  say "installing ${missing[*]}"
  local sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
      --no-install-recommends "${missing[@]}"; } >&2 || die "cannot install ${missing[*]}"
}
install_missing busybox-static xz-utils
BUSYBOX=/bin/busybox
command -v python3 >/dev/null || die "python3 is needed"

# ---- the kernel package: fetched once, kept in $OUT/debs
deb=$(ls "$OUT"/debs/linux-image-*-amd64_*_amd64.deb 2>/dev/null | sort | tail -1 || true)
if [ -z "$deb" ]; then
  pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-/ {print $2; exit}')
  if [ -z "$pkg" ]; then
    say "apt knows no linux-image-amd64: updating the package lists"
    apt-get update -qq >&2 || true
    pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-/ {print $2; exit}')
  fi
  [ -n "$pkg" ] || die "cannot find the Debian kernel package (apt-cache depends linux-image-amd64)"
  say "downloading $pkg"
  mkdir -p "$OUT/debs"
  (cd "$OUT/debs" && apt-get download -q "$pkg" >&2 2>/dev/null) || die "apt-get download $pkg failed"
  deb=$(ls "$OUT"/debs/linux-image-*-amd64_*_amd64.deb | sort | tail -1)
fi

# ---- inputs and their hashes: nothing to do when they did not change
libs=$(ldd "$OBI" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' | sort -u) || true
[ -n "$libs" ] || die "ldd found no libraries of $OBI (not a dynamic executable?)"
digest() { printf '%s  %s\n' "$(sha256sum < "$1" | cut -d' ' -f1)" "$2"; }  # file label
inputs=$( { digest "$OBI" "obi $OBI"; digest "$BUSYBOX" busybox; digest "$HERE/init" init
            digest "$HERE/mkcpio.py" mkcpio.py; digest "$HERE/build-guest.sh" build-guest.sh
            digest "$HERE/unpack-kernel.py" unpack-kernel.py
            for l in $libs; do digest "$(readlink -f "$l")" "$l"; done
            printf '%s  %s\n' "$(stat -c %s "$deb")" "$(basename "$deb")"; } )
if [ -f "$OUT/inputs" ] && [ "$(cat "$OUT/inputs")" = "$inputs" ] \
   && [ -f "$OUT/vmlinuz" ] && [ -f "$OUT/initramfs.img" ]; then
  say "guest up to date in $OUT"
  [ "$QUIET" = 0 ] || echo "$OUT"
  exit 0
fi

say "building the guest from $(basename "$deb") and $OBI"
kdir="$OUT/kernel"      # the unpacked package, removed again at the end
rm -rf "$kdir"; mkdir -p "$kdir"
dpkg-deb -x "$deb" "$kdir"
kver=$(ls "$kdir/lib/modules" | head -1)
[ -n "$kver" ] && [ -f "$kdir/boot/vmlinuz-$kver" ] || die "$deb holds no kernel"

stage="$OUT/root"
rm -rf "$stage"
mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,var,etc/obi/files,lib/modules}
ln -s ../run "$stage/var/run"
install -m 0755 "$HERE/init" "$stage/init"
install -m 0755 "$BUSYBOX" "$stage/bin/busybox"
install -m 0755 "$OBI" "$stage/usr/bin/obi"
for l in $libs; do
  mkdir -p "$stage$(dirname "$l")"
  install -m 0755 "$(readlink -f "$l")" "$stage$l"
done

# modules in load order: a module after everything it depends on (from .modinfo)
declare -A seen=()
order=()
add_module() { # name
  local m=$1 f dep
  [ -z "${seen[$m]:-}" ] || return 0
  seen[$m]=1
  f=$(find "$kdir/lib/modules/$kver" -name "$m.ko" -print -quit)
  [ -n "$f" ] || die "module $m not in $(basename "$deb")"
  for dep in $(tr '\0' '\n' < "$f" | grep -a -m1 '^depends=' | cut -d= -f2 | tr ',' ' '); do
    add_module "$dep"
  done
  install -m 0644 "$f" "$stage/lib/modules/$m.ko"
  order+=("$m")
}
for m in "${MODULES[@]}"; do add_module "$m"; done
printf '%s\n' "${order[@]}" > "$stage/etc/obi/modules"

find "$stage" -exec touch -h -d @0 {} +
python3 "$HERE/mkcpio.py" "$stage" "$OUT/initramfs.img" --gzip
install -m 0644 "$kdir/boot/vmlinuz-$kver" "$OUT/vmlinuz"
rm -f "$OUT/vmlinux"
if grep -q '^CONFIG_PVH=y' "$kdir/boot/config-$kver"; then
  python3 "$HERE/unpack-kernel.py" "$OUT/vmlinuz" "$OUT/vmlinux"
fi
{
  echo "kernel $kver from $(basename "$deb")"
  echo "modules ${order[*]}"
  echo "obi $OBI"
  echo "libraries $(echo $libs)"
  echo "initramfs $(stat -c %s "$OUT/initramfs.img") bytes, $(find "$stage" -type f | wc -l) files, sha256 $(sha256sum < "$OUT/initramfs.img" | cut -d' ' -f1)"
  echo "vmlinuz $(stat -c %s "$OUT/vmlinuz") bytes"
  [ ! -f "$OUT/vmlinux" ] || echo "vmlinux $(stat -c %s "$OUT/vmlinux") bytes (PVH entry)"
} > "$OUT/manifest"
rm -rf "$stage" "$kdir"
printf '%s\n' "$inputs" > "$OUT/inputs"
say "guest built in $OUT: $(sed -n 's/^initramfs \([0-9]*\) bytes.*/initramfs \1 bytes/p' "$OUT/manifest"), kernel $kver"
[ "$QUIET" = 0 ] || echo "$OUT"
