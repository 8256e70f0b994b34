#!/usr/bin/env python3
"""Traffic replayer of the container layout (docker-compose.yml): waits until the
controller reports both OBIs UP with their graph running (so no frame meets an OBI
without a graph), writes the two sample traces (apps/demo/sample/make_trace.py, the
demo's seeds) and replays them with their original timing, trace 1 onto snd1 (-> OBI 1)
and trace 2 onto snd2 (-> OBI 2), using `obi run` with replay.json. Ends when both
traces are sent.

    replay.py --controller https://controller:3637 [--packets N] [--device-map snd1=...,snd2=...]

--device-map binds snd1/snd2 to the container's interfaces; "@SUBNET" targets are
resolved by the image's entry point (obi/docker-entrypoint.sh), which runs the OBI.
"""
import argparse
import os
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEMO = os.environ.get("OPENBOX_DEMO", "/opt/openbox/demo")
sys.path.insert(0, DEMO)
sys.path.insert(0, os.path.join(DEMO, "sample"))
from launch import running_obis, wait_for  # noqa: E402
from make_trace import CLIENT_MAC, SERVER_MAC  # noqa: E402

# (path, seed of make_trace.py): trace 1 goes through OBI 1, trace 2 through OBI 2
TRACES = ((1, 7), (2, 8))
PACKETS = 20000


def one_way_macs(path):
    """Rewrites every frame of the trace to go from the client MAC to the server MAC.

    The data networks are bridges, which learn where a MAC address lives from the frames'
    sources. The trace holds both directions of each exchange, all sent from this one
    port: the bridge would learn that the server is here and stop passing frames for it
    to the OBI. With one source and one destination address for every frame, the server's
    address is never learnt and every frame reaches the OBI. The NFs look at IP and above.
    """
    with open(path, "r+b") as f:
        pos = 24
        while True:
            f.seek(pos)
            header = f.read(16)
            if len(header) < 16:
                break
            caplen = struct.unpack("<I", header[8:12])[0]
            if caplen >= 12:
                f.write(SERVER_MAC + CLIENT_MAC)
            pos += 16 + caplen


def main():
    ap = argparse.ArgumentParser(description="replay the sample traces through OBI 1 and OBI 2")
    ap.add_argument("--controller", default="https://controller:3637",
                    help="controller URL; https:// is checked against $OPENBOX_PKI/ca.crt")
    ap.add_argument("--packets", type=int, default=PACKETS)
    ap.add_argument("--work", default="/work", help="directory for the traces (replay.json reads /work)")
    ap.add_argument("--obi", default="/usr/local/bin/obi-entrypoint", help="OBI executable (or its entry point)")
    ap.add_argument("--device-map", help="bindings of the devices snd1 and snd2")
    args = ap.parse_args()
    wait_for("OBIs 1 and 2 with their graph", lambda: running_obis(args.controller, [1, 2]), 120,
             who="replayer", poll=1.0)
    print("replayer: OBIs 1 and 2 are running their graphs", flush=True)
    for path, seed in TRACES:
        subprocess.run([sys.executable, os.path.join(DEMO, "sample", "make_trace.py"),
                        os.path.join(args.work, "in-%d.pcap" % path), "--packets", str(args.packets),
                        "--seed", str(seed)], check=True)
    for path in (1, 2):
        one_way_macs(os.path.join(args.work, "in-%d.pcap" % path))
    print("replayer: sending 2 x %d packets (snd1 -> OBI 1, snd2 -> OBI 2)" % args.packets, flush=True)
    cmd = [args.obi, "run", "--graph", os.path.join(HERE, "replay.json"), "--workers", "1"]
    if args.device_map:
        cmd += ["--device-map", args.device_map]
    os.execvp(args.obi, cmd)


if __name__ == "__main__":
    main()
