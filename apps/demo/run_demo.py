#!/usr/bin/env python3
"""The OpenBox demo: a controller with the firewall and IPS applications, two OBIs on the
embedded default (pcap files as their network interfaces), the sample trace replayed
through them, and a summary of what happened.

Run through `./openbox demo` (which builds everything first). Output: out/demo/
(per-OBI input and output pcaps, controller and OBI logs, report.json).
"""
import argparse
import json
import re
import os
import shutil
import signal
import struct
import subprocess
import sys
import time

from launch import (ROOT, SAMPLE, Transport, check_children, controller_command, controller_up, http_json,
                    management_credentials, obi_command, port_in_use, require_free_port, running_obis, wait_for)

APPS = {"firewall": "firewall", "ips": "ips", "webcache": "webcache", "loadbalancer": "loadbalancer"}
# Devices packets leave by: "out" (firewall, IPS, web cache), "out0"/"out1" (the load
# balancer's two servers, see sample/loadbalancer.properties), and "in" itself: the web
# cache answers clients through the device their requests came in by; the OBI writes what
# leaves by "in" to back-N.pcap (binding "in/tx").
OUT_DEVICES = ("out", "out0", "out1")
BACK = "back"

START = time.monotonic()


def progress(msg):
    print("[%5.1fs] %s" % (time.monotonic() - START, msg), flush=True)


def pcap_count(path):
    """Number of packets and bytes in a classic pcap file."""
    n = b = 0
    try:
        with open(path, "rb") as f:
            if len(f.read(24)) < 24:
                return 0, 0
            while True:
                h = f.read(16)
                if len(h) < 16:
                    break
                _, _, caplen, wirelen = struct.unpack("<IIII", h)
                f.seek(caplen, 1)
                n += 1
                b += wirelen
    except FileNotFoundError:
        pass
    return n, b


def main():
    ap = argparse.ArgumentParser(description="OpenBox demo: controller + 2 OBIs + sample apps on a sample trace")
    ap.add_argument("--apps", default="firewall,ips", help="applications to run (firewall,ips,webcache,loadbalancer)")
    ap.add_argument("--packets", type=int, default=20000, help="packets in each OBI's trace")
    ap.add_argument("--out", default=os.path.join(ROOT, "out", "demo"))
    ap.add_argument("--port", type=int, default=3637, help="controller port")
    ap.add_argument("--insecure", action="store_true",
                    help="plain HTTP between the controller and the OBIs (default: mutual TLS, certificates "
                         "from $OPENBOX_PKI or build/pki, made when missing)")
    args = ap.parse_args()
    transport = Transport(insecure=args.insecure)
    if args.insecure:
        print("demo: WARNING: --insecure: controller and OBIs talk plain HTTP", file=sys.stderr)
    apps = [a for a in args.apps.split(",") if a]
    for a in apps:
        if a not in APPS:
            raise SystemExit("demo: unknown app '%s' (%s)" % (a, ",".join(APPS)))

    out = args.out
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "apps"))
    procs = []

    def stop_all():
        for p in reversed(procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in reversed(procs):
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()

    try:
        # 1. the sample traces, one per OBI (two sites of the same office network)
        for dpid, seed in ((1, 7), (2, 8)):
            subprocess.run([sys.executable, os.path.join(SAMPLE, "make_trace.py"),
                            os.path.join(out, "in-%d.pcap" % dpid), "--packets", str(args.packets),
                            "--seed", str(seed)], check=True)
        progress("sample traces written: 2 x %d packets" % args.packets)

        # 2. the controller with the chosen applications; its own health endpoint says when it
        #    is up (and a controller that exits, e.g. on a bad configuration, ends the demo at once)
        require_free_port(args.port, "demo: controller")
        for dpid in (1, 2):
            require_free_port(3640 + dpid, "demo: OBI %d" % dpid)
        children = []
        log_path = os.path.join(out, "controller.log")
        log = open(log_path, "w")
        procs.append(subprocess.Popen(controller_command([APPS[a] for a in apps], os.path.join(out, "apps"), args.port,
                                                         ["--openbox.alert-history=100000",
                                                          # a fresh state each run, kept with its output
                                                          "--openbox.state-dir=" + os.path.join(out, "state")],
                                                         transport=transport),
                                      stdout=log, stderr=subprocess.STDOUT, cwd=SAMPLE))
        children.append(("the controller", procs[-1], log_path))
        base = transport.url("127.0.0.1", args.port)
        wait_for("the controller", lambda: controller_up(base), 60, who="demo", children=children)
        progress("controller up on port %d with apps: %s" % (args.port, ", ".join(apps)))
        progress("web UI and management API: %s/ (logins and API token in %s)"
                 % (base, management_credentials()["file"]))

        # 3. two OBIs; every interface the sample apps use is a pcap file
        for dpid in (1, 2):
            log_path = os.path.join(out, "obi-%d.log" % dpid)
            log = open(log_path, "w")
            devices = {"in": "pcap:" + os.path.join(out, "in-%d.pcap" % dpid),
                       "in/tx": "pcap:" + os.path.join(out, "%s-%d.pcap" % (BACK, dpid))}
            devices.update({d: "pcap:" + os.path.join(out, "%s-%d.pcap" % (d, dpid)) for d in OUT_DEVICES})
            procs.append(subprocess.Popen(
                obi_command(dpid, "127.0.0.1:%d" % (3640 + dpid), base, devices, transport=transport),
                stdout=log, stderr=subprocess.STDOUT))
            children.append(("OBI %d" % dpid, procs[-1], log_path))

        wait_for("both OBIs to listen", lambda: all(port_in_use(3640 + d) for d in (1, 2)), 30, who="demo",
                 children=children)
        obis = wait_for("both OBIs to receive their graph", lambda: running_obis(base, [1, 2]), 60, who="demo",
                        children=children)
        t_graph = time.monotonic()
        progress("OBIs up: %s, merged graphs installed" % ", ".join("dpid %d" % o["dpid"] for o in obis))

        # 4. wait until each OBI has read its whole trace
        def source_count(dpid):
            g = http_json(base + "/api/obis/%d/graph" % dpid)["graph"]
            srcs = [b["name"] for b in g["blocks"] if b["type"] in ("FromDevice", "FromDump")]
            return sum(int(http_json(base + "/api/obis/%d/blocks/%s/count" % (dpid, s))) for s in srcs)

        done = {}
        while len(done) < 2:
            check_children(children, "the traces to be replayed", "demo")
            for dpid in (1, 2):
                if dpid not in done and source_count(dpid) >= args.packets:
                    done[dpid] = time.monotonic()
            if time.monotonic() - t_graph > 60:
                raise SystemExit("demo: traffic did not finish within 60 s")
            time.sleep(0.2)
        time.sleep(1.0)   # let output files and buffered alerts flush
        progress("traces replayed through both OBIs")

        # 5. summary
        report = {"apps": apps, "obis": [], "alerts": {}, "alert_log": os.path.join(out, "state", "eve.json")}
        for o in http_json(base + "/api/obis"):
            dpid = o["dpid"]
            g = http_json(base + "/api/obis/%d/graph" % dpid)
            with open(os.path.join(out, "merged-graph-%d.json" % dpid), "w") as f:
                json.dump(g["graph"], f, indent=1)
            n_in, b_in = pcap_count(os.path.join(out, "in-%d.pcap" % dpid))
            outs = {d: pcap_count(os.path.join(out, "%s-%d.pcap" % (d, dpid)))[0] for d in OUT_DEVICES}
            n_out = sum(outs.values())
            n_back, _ = pcap_count(os.path.join(out, "%s-%d.pcap" % (BACK, dpid)))
            report["obis"].append({
                "dpid": dpid, "state": o["state"], "apps": o.get("apps"),
                "merged_blocks": len(g["graph"]["blocks"]), "merged_connectors": len(g["graph"]["connectors"]),
                "merge_report": g.get("report"),
                "packets_in": n_in, "packets_out": n_out, "packets_dropped": n_in - n_out,
                "packets_out_by_device": {d: n for d, n in outs.items() if n}, "cache_responses": n_back,
                "seconds": round(done[dpid] - t_graph, 3),
                "mbps": round(b_in * 8 / 1e6 / max(done[dpid] - t_graph, 1e-3), 1),
            })
        alerts = http_json(base + "/api/alerts?limit=10000")
        for a in alerts:
            report["alerts"].setdefault(a.get("app") or "?", []).append(a)
        with open(os.path.join(out, "report.json"), "w") as f:
            json.dump(report, f, indent=2, default=str)

        print()
        print("OpenBox demo summary")
        print("====================")
        for o in report["obis"]:
            print("OBI %d (%s): apps %s" % (o["dpid"], o["state"], ", ".join(o["apps"] or [])))
            sizes = dict(re.findall(r"(\w+(?:Before|After))=(\d+)", str(o["merge_report"] or "")))
            if sizes:
                print("  unmerged (apps chained): %s blocks, %s connectors, %s classifier rules"
                      % (sizes.get("blocksBefore"), sizes.get("connectorsBefore"), sizes.get("rulesBefore")))
                print("  merged:                  %s blocks, %s connectors, %s classifier rules"
                      % (sizes.get("blocksAfter"), sizes.get("connectorsAfter"), sizes.get("rulesAfter")))
                print("  (one classification pass per packet instead of one per application)")
            print("  packets: in %d, out %d, dropped %d; trace replayed in %.2f s (%.1f Mbit/s, wall clock "
                  "incl. polling)" % (o["packets_in"], o["packets_out"], o["packets_dropped"], o["seconds"], o["mbps"]))
            if len(o["packets_out_by_device"]) > 1:
                print("  out by device: %s" % ", ".join("%s %d" % kv for kv in o["packets_out_by_device"].items()))
            if o["cache_responses"]:
                print("  web cache: %d response packets sent back to the clients (requests answered from "
                      "the cache count as dropped)" % o["cache_responses"])
        for app in apps:
            got = report["alerts"].get(app, [])
            print("alerts for %s: %d" % (app, len(got)))
            for a in got[:4]:
                print("  %s dpid %s %s%s %s: %s" % (a.get("time"), a.get("dpid"), a.get("block"),
                                                    rule_text(a.get("rule")), flow_text(a.get("headers") or {}),
                                                    a.get("message")))
        print("\nalerts (EVE JSON lines): %s" % report["alert_log"])
        print("output pcaps, merged graphs and report.json in %s" % out)
    finally:
        stop_all()
    progress("done")


def rule_text(rule):
    """' rule N' (' sid N:REV' for a revised rule) of an alert's rule, or ''."""
    if not rule:
        return ""
    return " sid %s:%s" % (rule.get("id"), rule.get("rev")) if rule.get("rev") else " rule %s" % rule.get("id")


def flow_text(h):
    """'TCP 10.0.0.1:1234 -> 10.0.0.2:80' (what the alert's packet headers hold)."""
    if not h.get("srcIp"):
        return "L2 %s -> %s" % (h.get("ethSrc"), h.get("ethDst")) if h.get("ethSrc") else "-"
    proto = {1: "ICMP", 6: "TCP", 17: "UDP", 58: "ICMPv6", 132: "SCTP"}.get(h.get("ipProto"), str(h.get("ipProto")))
    port = lambda p: "" if p is None else ":%s" % p
    return "%s %s%s -> %s%s" % (proto, h.get("srcIp"), port(h.get("srcPort")), h.get("dstIp"), port(h.get("dstPort")))


if __name__ == "__main__":
    main()
