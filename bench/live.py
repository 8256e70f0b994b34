#!/usr/bin/env python3
"""Time until a new graph is live, end to end, as an operator sees it: the real controller
with real applications and a real OBI (plain HTTP on loopback, one worker), each
application reload timed from the POST /api/apps/NAME/reload to the moment the OBI's
workers run the new graph.

  bench/live.py [--apps firewall[,ips]] [--rules FILE] [--reloads N] [--pcap P]
                (defaults: firewall, ../shared/data/fw-4560.classbench, 6 reloads,
                 ../shared/data/fw-4560.trace.pcap)

The firewall alerts on every ClassBench rule of FILE (default allow: one HeaderClassifier
and one Alert per rule); with ips also the IPS on snort-web.rules, merged into one graph by
the controller. Before every reload of the firewall its rule file is rewritten, without
its last rule and with it in turn (an operator removing and restoring a rule), so every
reload sends the OBI a graph whose firewall classifier is new (its rules are rebuilt; the
Alert blocks of the other rules are unchanged and carried over).

Per reload, one JSON line on stdout: "live_ms" (POST reload -> the OBI's workers run the
new graph: the OBI's "live at" wall-clock time, same host), "reload_ms" (POST -> the
controller's answer, which waits for the OBI's), and the OBI's own parts from its log line
(request received -> live "obi_live_ms", "obi_parse_ms", "obi_compile_ms", ...); the
controller's part (reload: rules read, graphs built and merged, the request serialised and
sent) is live_ms - obi_live_ms. Then a summary line with the medians. Work files and logs:
build/live/.
"""
import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(ROOT, "apps", "demo"))

from launch import (Transport, controller_command, controller_up, http_json, obi_command,  # noqa: E402
                    running_obis, wait_for)

LIVE = re.compile(r"obi: graph \(xid (\d+)\) live at ([0-9.]+), ([0-9.]+) ms after its request: parse ([0-9.]+), "
                  r"queued ([0-9.]+), compile ([0-9.]+), activate ([0-9.]+), switch ([0-9.]+) ms")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def say(msg):
    print("live: " + msg, file=sys.stderr, flush=True)


def live_lines(log):
    with open(log) as f:
        return [m for m in (LIVE.search(l) for l in f) if m]


def main():
    data = os.environ.get("OPENBOX_DATA", os.path.join(ROOT, "..", "shared", "data"))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--apps", default="firewall")
    ap.add_argument("--rules", default=os.path.join(data, "fw-4560.classbench"))
    ap.add_argument("--reloads", type=int, default=6)
    ap.add_argument("--pcap", default=os.path.join(data, "fw-4560.trace.pcap"))
    args = ap.parse_args()
    apps = [a for a in args.apps.split(",") if a]
    if "firewall" not in apps or not set(apps) <= {"firewall", "ips"}:
        sys.exit("live: --apps is firewall or firewall,ips")
    work = os.path.join(ROOT, "build", "live")
    os.makedirs(work, exist_ok=True)
    with open(args.rules) as f:
        rules = [l for l in f if l.strip()]
    rule_file = os.path.join(work, "firewall.classbench")

    def write_rules(without_last):
        with open(rule_file, "w") as f:
            f.writelines(rules[:-1] if without_last else rules)

    write_rules(False)
    settings = ["--openbox.app.firewall.config=" + os.path.join(work, "firewall.properties")]
    with open(os.path.join(work, "firewall.properties"), "w") as f:
        f.write("rules.format = classbench\nrules.file = %s\nclassbench.action = alert\ndefault.action = allow\n"
                % rule_file)
    if "ips" in apps:
        with open(os.path.join(work, "ips.properties"), "w") as f:
            f.write("rules.file = %s\n" % os.path.join(data, "snort-web.rules"))
            if os.path.exists(os.path.join(data, "snort-vars.conf")):
                f.write("variables.file = %s\n" % os.path.join(data, "snort-vars.conf"))
        settings.append("--openbox.app.ips.config=" + os.path.join(work, "ips.properties"))

    transport = Transport(insecure=True)
    ctl_port, obi_port = free_port(), free_port()
    base = transport.url("127.0.0.1", ctl_port)
    procs = []
    try:
        ctl_log = os.path.join(work, "controller.log")
        procs.append(subprocess.Popen(
            controller_command(apps, os.path.join(work, "apps"), ctl_port,
                               settings + ["--openbox.state-dir=" + os.path.join(work, "state"),
                                           "--openbox.metrics.interval=0"],
                               heap="768m", transport=transport),
            stdout=open(ctl_log, "w"), stderr=subprocess.STDOUT, cwd=work))
        children = [("the controller", procs[-1], ctl_log)]
        wait_for("the controller", lambda: controller_up(base), 300, who="live", children=children)
        obi_log = os.path.join(work, "obi.log")
        devices = {"in": "pcap:" + args.pcap, "out": "pcap:" + os.path.join(work, "out.pcap")}
        procs.append(subprocess.Popen(obi_command(5, "127.0.0.1:%d" % obi_port, base, devices, transport=transport),
                                      stdout=open(obi_log, "w"), stderr=subprocess.STDOUT))
        children.append(("the OBI", procs[-1], obi_log))
        wait_for("the OBI UP with its graph", lambda: running_obis(base, [5]), 300, who="live", children=children)
        say("controller %s, OBI 5 running %s (%d firewall rules)" % (base, "+".join(apps), len(rules)))
        rows = []
        for i in range(args.reloads):
            time.sleep(1.0)
            write_rules(i % 2 == 0)
            seen = len(live_lines(obi_log))
            t0 = time.time()
            r = http_json(base + "/api/apps/firewall/reload", data={}, timeout=120)
            t1 = time.time()
            if not r.get("ok"):
                sys.exit("live: reload refused: %s" % r)
            wait_for("the OBI's new graph", lambda: len(live_lines(obi_log)) > seen, 30, who="live",
                     children=children)
            m = live_lines(obi_log)[seen]
            row = {"reload": i + 1, "apps": apps, "live_ms": round((float(m.group(2)) - t0) * 1000, 1),
                   "reload_ms": round((t1 - t0) * 1000, 1), "obi_live_ms": float(m.group(3)),
                   "obi_parse_ms": float(m.group(4)), "obi_queued_ms": float(m.group(5)),
                   "obi_compile_ms": float(m.group(6)), "obi_activate_ms": float(m.group(7)),
                   "obi_switch_ms": float(m.group(8))}
            row["controller_ms"] = round(row["live_ms"] - row["obi_live_ms"], 1)
            rows.append(row)
            print(json.dumps(row), flush=True)
        keys = ["live_ms", "reload_ms", "controller_ms", "obi_live_ms", "obi_parse_ms", "obi_compile_ms",
                "obi_switch_ms"]
        summary = {"summary": "median", "apps": apps, "rules": len(rules), "reloads": len(rows)}
        summary.update({k: round(statistics.median(r[k] for r in rows), 1) for k in keys})
        print(json.dumps(summary), flush=True)
        say(" ".join("%s %s" % (k, summary[k]) for k in keys))
    finally:
        for p in reversed(procs):
            p.terminate()
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()


if __name__ == "__main__":
    main()
