#!/usr/bin/env python3
"""Traffic replayer of the container layout (docker-compose.yml): waits until the
controller reports both OBIs UP with their graph running (so no frame meets an OBI
without a graph), writes the two sample traces (apps/demo/sample/make_trace.py, the
demo's seeds) and replays them with their original timing, trace 1 onto snd1 (-> OBI 1)
and trace 2 onto snd2 (-> OBI 2), using `obi run` with replay.json. Ends when both
traces are sent.

    replay.py --controller http://controller:3637 [--packets N]
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEMO = os.environ.get("OPENBOX_DEMO", "/opt/openbox/demo")
sys.path.insert(0, DEMO)
from launch import running_obis, wait_for  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description="replay the sample traces through OBI 1 and OBI 2")
    ap.add_argument("--controller", default="http://controller:3637")
    ap.add_argument("--packets", type=int, default=20000)
    ap.add_argument("--work", default="/work", help="directory for the traces (replay.json reads /work)")
    ap.add_argument("--obi", default="obi", help="OBI executable")
    args = ap.parse_args()
    wait_for("OBIs 1 and 2 with their graph", lambda: running_obis(args.controller, [1, 2]), 120,
             who="replayer", poll=1.0)
    print("replayer: OBIs 1 and 2 are running their graphs", flush=True)
    for path, seed in ((1, 7), (2, 8)):
        subprocess.run([sys.executable, os.path.join(DEMO, "sample", "make_trace.py"),
                        os.path.join(args.work, "in-%d.pcap" % path), "--packets", str(args.packets),
                        "--seed", str(seed)], check=True)
    print("replayer: sending 2 x %d packets (snd1 -> OBI 1, snd2 -> OBI 2)" % args.packets, flush=True)
    os.execvp(args.obi, [args.obi, "run", "--graph", os.path.join(HERE, "replay.json"), "--workers", "1"])


if __name__ == "__main__":
    main()
