#!/bin/bash
# Entry point of the OBI image: runs obi with its arguments, after replacing every
# "@SUBNET" (e.g. in=@10.99.11.0/24 in --device-map) by the name of the container's
# interface that holds an IPv4 address in SUBNET. Container engines name interfaces
# eth0, eth1, ... in no guaranteed order; the networks' subnets are fixed, so this finds
# the right one on any engine. Plain interface names pass unchanged.
set -euo pipefail
args=()
for a in "$@"; do
  while [[ $a =~ @([0-9]+\.[0-9]+\.[0-9]+\.[0-9]+/[0-9]+) ]]; do
    subnet=${BASH_REMATCH[1]}
    dev=$(ip -o -4 addr show to "$subnet" | awk '{print $2; exit}')
    if [[ -z $dev ]]; then
      echo "obi: no interface with an address in $subnet (interfaces: $(ip -o -4 addr show | awk '{print $2 "=" $4}' | tr '\n' ' '))" >&2
      exit 2
    fi
    a=${a//@$subnet/$dev}
  done
  args+=("$a")
done
exec "${OBI:-/usr/local/bin/obi}" "${args[@]}"
