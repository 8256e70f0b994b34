#!/usr/bin/env python3
"""Time until a new graph is live, end to end, as an operator sees it: the real controller
with real applications and a real OBI (plain HTTP on loopback, one worker), each
application reload timed from the POST /api/apps/NAME/reload to the moment the OBI's
workers run the new graph.

  bench/live.py [--apps firewall[,ips|,firewall2]] [--fw-fw two-sets|split] [--rules FILE]
                [--reloads N] [--warmup W] [--pcap P]
                (defaults: firewall, ../shared/data/fw-4560.classbench, 6 reloads after
                 1 warm-up reload, ../shared/data/fw-4560.trace.pcap)

The firewall alerts on every ClassBench rule of FILE (default allow: one HeaderClassifier
and one Alert per rule); with ips also the IPS on snort-web.rules, merged into one graph by
the controller. With firewall2, a second instance of the firewall application
(openbox.instances.firewall2=firewall) with its own rule file, merged with the first (FW +
FW): "two-sets" (default) gives the first the whole of FILE and the second the first as
many rules of fw1-10000.classbench (as chains.sh's fw_fw), "split" gives the first the
first half of FILE and the second the other half (chains.sh's fw_fw_split). The derived
rule files are written under build/live/. Before every reload of the firewall its rule
file is rewritten without one of its rules, a different one each time (reload k leaves out
the k-th rule and puts back the one left out before: an operator removing a rule and
restoring another; rules near the top, as one further down may be covered by those above
it and the merge would leave it out anyway), so every reload gives the controller a firewall graph it has
not merged before, and sends the OBI a graph whose firewall classifier is new (its rules
are rebuilt; the Alert blocks of the other rules are unchanged and carried over).

Per reload, one JSON line on stdout: "live_ms" (POST reload -> the OBI's workers run the
new graph: the OBI's "live at" wall-clock time, same host), "reload_ms" (POST -> the
controller's answer, which waits for the OBI's), the OBI's own parts from its log line
(request received -> live "obi_live_ms", "obi_parse_ms", "obi_compile_ms", ...), and
"controller_cpu_ms", the CPU time the controller process used from the POST until the
graph was live (all its threads), "controller_idle_cpu_ms", what it uses in as long a time
between reloads (the rate measured over the second before the POST: the OBI's alerts,
keep-alives), and "reload_cpu_ms", the difference: the reload's own CPU time, the figure
to compare on a loaded machine, as wall-clock times stretch with the load. The controller's part (reload: rules read, graphs built and
merged, the request serialised and sent) is "controller_ms" = live_ms - obi_live_ms. Then
a summary line with the medians of the N reloads after the W warm-up ones (printed with
"warmup": true and a reload number <= 0). Work files and logs: build/live/.
"""
import argparse
import json
import os
import re
import shutil
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


def cpu_seconds(pid):
    """User + system CPU time of process pid so far, in seconds (Linux /proc)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def classbench_rules(path):
    with open(path) as f:
        return [l for l in f if l.strip()]


def firewall_properties(path, rule_file):
    with open(path, "w") as f:
        f.write("rules.format = classbench\nrules.file = %s\nclassbench.action = alert\ndefault.action = allow\n"
                % rule_file)


def main():
    data = os.environ.get("OPENBOX_DATA", os.path.join(ROOT, "..", "shared", "data"))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--apps", default="firewall")
    ap.add_argument("--rules", default=os.path.join(data, "fw-4560.classbench"))
    ap.add_argument("--fw-fw", choices=["two-sets", "split"], default="two-sets",
                    help="with firewall2: the second firewall's rules (see above)")
    ap.add_argument("--reloads", type=int, default=6)
    ap.add_argument("--warmup", type=int, default=1,
                    help="first reloads printed but left out of the medians (the JIT compiles the reload path)")
    ap.add_argument("--pcap", default=os.path.join(data, "fw-4560.trace.pcap"))
    args = ap.parse_args()
    apps = [a for a in args.apps.split(",") if a]
    if "firewall" not in apps or not set(apps) <= {"firewall", "ips", "firewall2"} or len(set(apps)) != len(apps):
        sys.exit("live: --apps is firewall, firewall,ips or firewall,firewall2")
    work = os.path.join(ROOT, "build", "live")
    os.makedirs(work, exist_ok=True)
    rules = classbench_rules(args.rules)
    rule_file = os.path.join(work, "firewall.classbench")
    settings = ["--openbox.app.firewall.config=" + os.path.join(work, "firewall.properties")]
    if "firewall2" in apps:
        if args.fw_fw == "split":
            half = len(rules) // 2
            rules, second = rules[:half], rules[half:]
        else:
            second = classbench_rules(os.path.join(data, "fw1-10000.classbench"))[:len(rules)]
        second_file = os.path.join(work, "firewall2.classbench")
        with open(second_file, "w") as f:
            f.writelines(second)
        firewall_properties(os.path.join(work, "firewall2.properties"), second_file)
        settings += ["--openbox.instances.firewall2=firewall",
                     "--openbox.app.firewall2.config=" + os.path.join(work, "firewall2.properties")]
        apps = [a for a in apps if a != "firewall2"]   # an instance of the firewall's jar, not a jar of its own

    def write_rules(without=None):
        with open(rule_file, "w") as f:
            f.writelines(r for k, r in enumerate(rules) if k != without)

    write_rules()
    firewall_properties(os.path.join(work, "firewall.properties"), rule_file)
    if "ips" in apps:
        with open(os.path.join(work, "ips.properties"), "w") as f:
            f.write("rules.file = %s\n" % os.path.join(data, "snort-web.rules"))
            if os.path.exists(os.path.join(data, "snort-vars.conf")):
                f.write("variables.file = %s\n" % os.path.join(data, "snort-vars.conf"))
        settings.append("--openbox.app.ips.config=" + os.path.join(work, "ips.properties"))

    shutil.rmtree(os.path.join(work, "apps"), ignore_errors=True)   # only the jars of this run's applications
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
        names = apps + (["firewall2"] if "firewall2" in args.apps.split(",") else [])
        say("controller %s, OBI 5 running %s (%d firewall rules)" % (base, "+".join(names), len(rules)))
        rows = []
        for i in range(args.warmup + args.reloads):
            idle0, tidle0 = cpu_seconds(procs[0].pid), time.time()
            time.sleep(1.0)
            write_rules(i)
            seen = len(live_lines(obi_log))
            cpu0 = cpu_seconds(procs[0].pid)
            t0 = time.time()
            idle_rate = (cpu0 - idle0) / (t0 - tidle0)   # the controller's CPU seconds per second between reloads
            r = http_json(base + "/api/apps/firewall/reload", data={}, timeout=120)
            t1 = time.time()
            if not r.get("ok"):
                sys.exit("live: reload refused: %s" % r)
            wait_for("the OBI's new graph", lambda: len(live_lines(obi_log)) > seen, 30, who="live",
                     children=children)
            cpu1, tcpu1 = cpu_seconds(procs[0].pid), time.time()
            m = live_lines(obi_log)[seen]
            row = {"reload": i + 1 - args.warmup, "apps": names, "live_ms": round((float(m.group(2)) - t0) * 1000, 1),
                   "controller_cpu_ms": round((cpu1 - cpu0) * 1000, 1),
                   "controller_idle_cpu_ms": round(idle_rate * (tcpu1 - t0) * 1000, 1),
                   "reload_ms": round((t1 - t0) * 1000, 1), "obi_live_ms": float(m.group(3)),
                   "obi_parse_ms": float(m.group(4)), "obi_queued_ms": float(m.group(5)),
                   "obi_compile_ms": float(m.group(6)), "obi_activate_ms": float(m.group(7)),
                   "obi_switch_ms": float(m.group(8))}
            row["controller_ms"] = round(row["live_ms"] - row["obi_live_ms"], 1)
            row["reload_cpu_ms"] = round(row["controller_cpu_ms"] - row["controller_idle_cpu_ms"], 1)
            if i >= args.warmup:
                rows.append(row)
            else:
                row["warmup"] = True
            print(json.dumps(row), flush=True)
        keys = ["live_ms", "reload_ms", "controller_ms", "controller_cpu_ms", "reload_cpu_ms", "obi_live_ms",
                "obi_parse_ms", "obi_compile_ms", "obi_switch_ms"]
        summary = {"summary": "median", "apps": names, "rules": len(rules), "reloads": len(rows),
                   "load_average": round(os.getloadavg()[0], 1)}
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
