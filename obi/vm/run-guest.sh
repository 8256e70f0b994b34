#!/usr/bin/env bash
# Boots the OBI guest (obi/vm/build-guest.sh; built or refreshed first) with qemu in the
# foreground: KVM with the host's CPU (TCG with a warning when KVM cannot run it),
# no display, the serial console written to a file, and virtio-net NICs on tap devices
# in a network namespace. The script ends by exec'ing qemu, so its process id is qemu's:
# stopping it (any signal, SIGKILL too) stops the guest.
#
#   obi/vm/run-guest.sh --dpid N --controller URL --ip ADDR/PREFIX [options]
#
#   --dpid N                 the OBI's datapath id (also picks the NICs' MAC addresses)
#   --controller URL         the controller, e.g. http://10.98.0.1:3637
#   --ip ADDR/PREFIX         the control NIC's address; the OBI listens on ADDR:PORT
#   --gw ADDR                default route of the guest (when the controller is routed)
#   --port N                 port of the OBI's REST server (default 3636)
#   --netns NS               network namespace of the taps and of qemu (default: the
#                            current one)
#   --control TAP[@BRIDGE]   tap of the control NIC (default obi<N>-ctl); with @BRIDGE the
#                            tap is made a port of that bridge (in the same namespace)
#   --data NAME=TAP[@BRIDGE] a data NIC; the guest calls it NAME and binds the graph
#                            device NAME to it (--device-map NAME=NAME); repeatable, in
#                            order, e.g. --data in=obi1-in@br-in --data out=obi1-out@br-out
#   --obi-args 'ARGS'        extra OBI arguments (split at blanks), e.g. '--workers 2'
#   --obi-args-file FILE     extra OBI arguments, one per line ('#' comments)
#   --files DIR              files copied into the guest's /etc/obi/files (the OBI's
#                            working directory is /etc/obi), e.g. certificates
#   --console FILE           serial console log (default build/vm/guest-<N>.console.log);
#                            this boot's initrd is written beside it (.initrd for .log)
#   --mem MIB, --cpus N      guest memory (default 512) and CPUs (default 1)
#   --accel kvm|tcg|auto     KVM, or qemu's CPU emulation (TCG); auto (default): KVM when
#                            /dev/kvm is usable, else TCG with a warning
#   --check-accel            only print the accelerator auto picks: "kvm", or "tcg: WHY"
#   --cpu MODEL              qemu CPU model (default host,-arch-capabilities under KVM,
#                            max under TCG)
#   --image DIR              the guest built by build-guest.sh (default build/vm; OBI=PATH
#                            picks the OBI binary it is built from)
#
# Taps that do not exist yet are created (persistent, so they and their bridge ports stay
# when qemu stops and the next boot finds them); existing ones are reused. Extra
# arguments and files are packed into a small archive added to the initramfs for this
# boot only, so one image serves any number of guests with their own settings.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
IMAGE="${OBI_VM_DIR:-$ROOT/build/vm}"
DPID= CONTROLLER= ADDR= GW= PORT=3636 NETNS= CONTROL= CONSOLE= MEM=512 CPUS=1 CPU_MODEL= ACCEL_KIND=auto CHECK_ONLY=0
DATA=() OBI_ARGS=() FILES=

die() { printf 'run-guest: %s\n' "$*" >&2; exit 2; }
say() { printf 'run-guest: %s\n' "$*" >&2; }
need() { [ $# -ge 2 ] && [ -n "$2" ] || die "$1 needs a value (see --help)"; }

while (($#)); do
  case "$1" in
    --dpid) need "$@"; DPID=$2; shift 2 ;;
    --controller) need "$@"; CONTROLLER=$2; shift 2 ;;
    --ip) need "$@"; ADDR=$2; shift 2 ;;
    --gw) need "$@"; GW=$2; shift 2 ;;
    --port) need "$@"; PORT=$2; shift 2 ;;
    --netns) need "$@"; NETNS=$2; shift 2 ;;
    --control) need "$@"; CONTROL=$2; shift 2 ;;
    --data) need "$@"; DATA+=("$2"); shift 2 ;;
    --obi-args) need "$@"; read -r -a more <<< "$2"; OBI_ARGS+=("${more[@]}"); shift 2 ;;
    --obi-args-file) need "$@"; [ -f "$2" ] || die "--obi-args-file: no file $2"
      while IFS= read -r a || [ -n "$a" ]; do
        case "$a" in ''|'#'*) ;; *) OBI_ARGS+=("$a") ;; esac
      done < "$2"; shift 2 ;;
    --files) need "$@"; [ -d "$2" ] || die "--files: no directory $2"; FILES=$2; shift 2 ;;
    --console) need "$@"; CONSOLE=$2; shift 2 ;;
    --mem) need "$@"; MEM=$2; shift 2 ;;
    --cpus) need "$@"; CPUS=$2; shift 2 ;;
    --cpu) need "$@"; CPU_MODEL=$2; shift 2 ;;
    --accel) need "$@"; ACCEL_KIND=$2; shift 2 ;;
    --check-accel) CHECK_ONLY=1; shift ;;
    --image) need "$@"; IMAGE=$2; shift 2 ;;
    -h|--help) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done

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

# the image (rebuilt when the OBI binary or anything else in it changed) and qemu
build_image() {
  "$HERE/build-guest.sh" --out "$IMAGE" -q > /dev/null
  install_missing qemu-system-x86
}

# the unpacked kernel (started at its PVH entry) when the image has one, else the bzImage
kernel() { if [ -f "$IMAGE/vmlinux" ]; then echo "$IMAGE/vmlinux"; else echo "$IMAGE/vmlinuz"; fi; }

# Prints why KVM cannot run the guest (and succeeds), or fails when it can: /dev/kvm must
# be usable and the guest kernel must start within KVM_PROBE_S seconds (default 5; it
# takes well under one where KVM works). A /dev/kvm without hardware virtualization
# below it (a software KVM backend, or nested KVM without hardware-assisted paging) can
# be so slow that the kernel does not even finish unpacking itself in a minute.
kvm_unusable() {
  [ -r /dev/kvm ] && [ -w /dev/kvm ] || { echo "/dev/kvm is missing or not accessible"; return 0; }
  local log pid i
  log=$(mktemp "${TMPDIR:-/tmp}/obi-kvm-probe.XXXXXX")
  qemu-system-x86_64 -enable-kvm -cpu "${CPU_MODEL:-host,-arch-capabilities}" -machine pc -m 256 \
    -nodefaults -no-user-config -nographic -monitor none -serial "file:$log" -no-reboot \
    -kernel "$(kernel)" -append "console=ttyS0 earlyprintk=serial,ttyS0,115200 panic=-1" \
    > "$log.err" 2>&1 &
  pid=$!
  for ((i = 0; i < ${KVM_PROBE_S:-5} * 10; i++)); do
    grep -aq "Linux version" "$log" 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  if grep -aq "Linux version" "$log"; then rm -f "$log" "$log.err"; return 1; fi
  if [ -s "$log.err" ] && ! grep -q "terminating on signal" "$log.err"; then
    echo "KVM refused the guest ($(head -1 "$log.err"))"
  else
    local hw="the CPU has no vmx/svm flag: this /dev/kvm works without hardware virtualization"
    grep -qwE 'vmx|svm' /proc/cpuinfo && hw="nested virtualization without hardware-assisted paging?"
    echo "under KVM the guest kernel did not start within ${KVM_PROBE_S:-5} s ($hw)"
  fi
  rm -f "$log" "$log.err"
  return 0
}

[[ $ACCEL_KIND =~ ^(kvm|tcg|auto)$ ]] || die "--accel: '$ACCEL_KIND' is not kvm, tcg or auto"
if [ "$CHECK_ONLY" = 1 ]; then
  build_image
  if why=$(kvm_unusable); then echo "tcg: $why"; else echo kvm; fi
  exit 0
fi

[[ $DPID =~ ^[0-9]{1,18}$ ]] || die "--dpid: '$DPID' is not a datapath id (a number of at most 18 digits)"
[[ $CONTROLLER =~ ^https?://[^[:space:],]+$ ]] || die "--controller: '$CONTROLLER' is not an http(s) URL"
[[ $ADDR =~ ^([0-9]{1,3}\.){3}[0-9]{1,3}/[0-9]{1,2}$ ]] || die "--ip: '$ADDR' is not ADDR/PREFIX (e.g. 10.98.0.11/24)"
[ -z "$GW" ] || [[ $GW =~ ^([0-9]{1,3}\.){3}[0-9]{1,3}$ ]] || die "--gw: '$GW' is not an IPv4 address"
[[ $PORT =~ ^[0-9]+$ ]] && ((PORT > 0 && PORT < 65536)) || die "--port: '$PORT' is not a TCP port"
[[ $MEM =~ ^[0-9]+$ ]] && ((MEM >= 128)) || die "--mem: '$MEM' is not a size in MiB (at least 128)"
[[ $CPUS =~ ^[0-9]+$ ]] && ((CPUS >= 1)) || die "--cpus: '$CPUS' is not a CPU count"
for a in "${OBI_ARGS[@]}"; do
  [[ $a != *$'\n'* ]] || die "--obi-args: an argument holds a line break"
done
if [ -n "$NETNS" ]; then
  [ -e "/var/run/netns/$NETNS" ] || die "--netns: no network namespace $NETNS (ip netns list)"
fi
IP=(ip); [ -z "$NETNS" ] || IP=(ip -n "$NETNS")
INNS=(); [ -z "$NETNS" ] || INNS=(ip netns exec "$NETNS")

build_image

# ---- NICs: name, tap, bridge and a MAC address derived from the dpid
mac() { printf '52:54:00:%02x:%02x:%02x' $(((DPID >> 8) & 255)) $((DPID & 255)) "$1"; }
NAMES=(ctl0) TAPS=() BRIDGES=()
spec=${CONTROL:-obi$DPID-ctl}
TAPS+=("${spec%%@*}"); [[ $spec == *@* ]] && BRIDGES+=("${spec#*@}") || BRIDGES+=("")
for d in "${DATA[@]}"; do
  [[ $d =~ ^([A-Za-z][A-Za-z0-9_]*)=([^@=]+)(@(.+))?$ ]] || die "--data: '$d' is not NAME=TAP[@BRIDGE]"
  [ "${BASH_REMATCH[1]}" != ctl0 ] || die "--data: the name ctl0 is the control NIC's"
  NAMES+=("${BASH_REMATCH[1]}") TAPS+=("${BASH_REMATCH[2]}") BRIDGES+=("${BASH_REMATCH[4]}")
done
((${#NAMES[@]} <= 32)) || die "at most 31 data NICs"
NETDEVS=() NICS=
for i in "${!TAPS[@]}"; do
  t=${TAPS[$i]} b=${BRIDGES[$i]}
  ((${#t} <= 15)) || die "tap name '$t' is longer than 15 characters"
  if ! "${IP[@]}" link show dev "$t" >/dev/null 2>&1; then
    "${IP[@]}" tuntap add dev "$t" mode tap || die "cannot create tap $t${NETNS:+ in $NETNS}"
  elif ! "${IP[@]}" -d link show dev "$t" | grep -q 'tun type tap'; then
    die "$t${NETNS:+ in $NETNS} exists and is not a tap device"
  fi
  if [ -n "$b" ]; then
    "${IP[@]}" link set dev "$t" master "$b" || die "cannot add tap $t to bridge $b${NETNS:+ in $NETNS}"
  fi
  "${IP[@]}" link set dev "$t" up
  NETDEVS+=(-netdev "tap,id=n$i,ifname=$t,script=no,downscript=no"
            -device "virtio-net-pci,netdev=n$i,mac=$(mac "$i"),romfile=")
  NICS="${NICS:+$NICS,}${NAMES[$i]}=$(mac "$i")"
done

# ---- this boot's initrd: the image plus an archive with the extra arguments and files
CONSOLE=${CONSOLE:-$IMAGE/guest-$DPID.console.log}
mkdir -p "$(dirname "$CONSOLE")"
boot=$(mktemp -d "${TMPDIR:-/tmp}/obi-guest-$DPID.XXXXXX")
trap 'rm -rf "$boot"' EXIT
mkdir -p "$boot/root/etc/obi/files"
printf '%s\n' "${OBI_ARGS[@]}" > "$boot/root/etc/obi/args"
[ -z "$FILES" ] || cp -R "$FILES/." "$boot/root/etc/obi/files/"
python3 "$HERE/mkcpio.py" "$boot/root" "$boot/extra.cpio"
# the initrd outlives this script (qemu replaces it): it goes next to the console log
INITRD="${CONSOLE%.log}.initrd"
# (uncompressed, so it goes first: the kernel finds no archive after a compressed one)
cat "$boot/extra.cpio" "$IMAGE/initramfs.img" > "$INITRD"

# The host's CPU model without the IA32_ARCH_CAPABILITIES register: nested KVM (a host
# that is itself a virtual machine) often refuses to set it, and qemu then aborts at
# start; the guest only loses that register's report of the CPU's speculation fixes.
if [ "$ACCEL_KIND" = auto ]; then
  if why=$(kvm_unusable); then
    say "WARNING: $why: emulating the CPU (TCG), which is many times slower"
    ACCEL_KIND=tcg
  else
    ACCEL_KIND=kvm
  fi
fi
if [ "$ACCEL_KIND" = kvm ]; then
  ACCEL=(-enable-kvm -cpu "${CPU_MODEL:-host,-arch-capabilities}")
else
  ACCEL=(-accel tcg -cpu "${CPU_MODEL:-max}")
  # an emulated CPU competes with the host's load; the TSC rate the kernel measures at boot
  # can then be far off, and with it the guest's clocks and timers: the ACPI PM timer
  # follows qemu's (real-time) clock instead
  CLOCK=" clocksource=acpi_pm"
fi
APPEND="console=ttyS0 loglevel=${LOGLEVEL:-4} edd=off panic=-1 ipv6.disable=1 obi.dpid=$DPID obi.controller=$CONTROLLER"
APPEND+="${CLOCK:-} obi.ip=$ADDR obi.port=$PORT obi.nics=$NICS${GW:+ obi.gw=$GW}"
: > "$CONSOLE"
say "booting OBI guest dpid $DPID (${NAMES[*]} on taps ${TAPS[*]}${NETNS:+ in $NETNS}); console $CONSOLE"
trap - EXIT
rm -rf "$boot"
exec "${INNS[@]}" qemu-system-x86_64 "${ACCEL[@]}" -machine pc -m "$MEM" -smp "$CPUS" \
  -nodefaults -no-user-config -nographic -monitor none -serial "file:$CONSOLE" -no-reboot \
  -kernel "$(kernel)" -initrd "$INITRD" -append "$APPEND" "${NETDEVS[@]}"
