#!/usr/bin/env python3
"""Driver of tests/system/rulesets.sh: every shipped rule set enforced end to end.

  rulesets.py --data DIR --work DIR --merge-cp CLASSPATH [--only rule-sets,samples]

Cases (the real controller jar with the real application jars, and real OBIs whose
devices are pcap files: device map in=pcap:TRACE, out*=pcap:WORK/...). Run "rule-sets"
(one controller, the IPS on OBI 1 and the firewall on OBI 2, by their location key):
  ips-web        ips, ../shared/data/snort-web.rules + snort-vars.conf, on
                 pcap/generated/http-trace.pcap
  firewall-4560  firewall, ClassBench fw-4560 (every rule allow, default drop), on
                 fw-4560.trace.pcap
Run "more-rule-sets" (a second controller):
  ips-http       ips, snort-http.rules + snort-vars.conf, on http-trace.pcap
  firewall-acl1  firewall, ClassBench acl1-1000 (every rule alerts, default allow), on
                 the first 4,000 lines of acl1-1000.trace as frames (converted here, as
                 PROVENANCE.md describes for fw-4560.trace.pcap)
Run "fw1-10000" (a third controller):
  firewall-fw1   firewall, ClassBench fw1-10000 (every rule allow, default drop), on
                 the first 10,000 lines of fw1-10000.trace as frames
Run "samples" (a second controller):
  samples        firewall, ips and loadbalancer with their sample configs
                 (apps/demo/sample), chained on one OBI, on the sample trace
                 (apps/demo/sample/make_trace.py); not the web cache, whose
                 HttpCacheResponder the reference interpreter does not run
For each OBI, once it has read its whole trace, the graph it runs (GET
/api/obis/{dpid}/graph) is run over the same trace by the merge module's reference
interpreter (tests/system/RulesetReference.java: java.util.regex, block by block, not
the OBI's engine), and:
  * alerts per application at the controller (/api/alerts) == the reference's alerts;
  * every classifier's per-rule counts (count handle) == the reference's rule hits;
  * packets per output device (the pcap files the OBI wrote) == the reference's exits;
  * GlobalStats: packets_in == trace packets == packets_out + packets_dropped, no event
    dropped.
Rules the IPS skipped are listed with their reasons (from the controller log). Exit 0 when
every check holds.
"""
import argparse
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "apps", "demo"))
import launch  # noqa: E402
from launch import (Transport, app_jar, controller_jar, controller_up, http_json, obi_command,  # noqa: E402
                    running_obis, wait_for)

# Rule-set semantics, not transport security (tests/system/tls_attacks.sh): plain HTTP,
# said explicitly to the controller and to every OBI.
PLAIN = Transport(insecure=True)

launch.OBI_BIN = os.environ.get("OPENBOX_OBI") or launch.OBI_BIN

SAMPLE = os.path.join(ROOT, "apps", "demo", "sample")
# The web cache's HttpCacheResponder is a modifier the reference interpreter does not run.
SAMPLE_APPS = ("firewall", "ips", "loadbalancer")
START = time.monotonic()
failures = []


def say(msg):
    print("[%5.1fs] rulesets: %s" % (time.monotonic() - START, msg), flush=True)


def check(case, what, got, expected):
    ok = got == expected
    if ok:
        say("%s: ok: %s (%s)" % (case, what, short(got)))
    else:
        failures.append("%s: %s: got %s, expected %s" % (case, what, short(got), short(expected)))
        say("%s: FAIL: %s: got %s, expected %s" % (case, what, short(got), short(expected)))


def short(v):
    s = json.dumps(v) if not isinstance(v, str) else v
    return s if len(s) < 300 else s[:300] + "..."


def pcap_count(path):
    n = 0
    if not os.path.exists(path):
        return 0
    with open(path, "rb") as f:
        if len(f.read(24)) < 24:
            return 0
        while True:
            h = f.read(16)
            if len(h) < 16:
                return n
            f.seek(struct.unpack("<IIII", h)[2], 1)
            n += 1


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def props(path, entries):
    with open(path, "w") as f:
        for k, v in entries.items():
            f.write("%s = %s\n" % (k, v))
    return path


class Run:
    """One controller with some applications and the OBIs they run on."""

    def __init__(self, name, work, apps, obis):
        self.name, self.work, self.apps, self.obis = name, os.path.join(work, name), apps, obis
        self.procs = []

    def start(self):
        shutil.rmtree(self.work, ignore_errors=True)
        apps_dir = os.path.join(self.work, "apps")
        os.makedirs(apps_dir)
        for module in sorted({m for m, _ in self.apps.values()}):
            shutil.copy(app_jar(module), apps_dir)
        port = free_port()
        self.base = PLAIN.url("127.0.0.1", port)
        cmd = ["java", "-Xmx768m"] + ["-Dopenbox.app.%s.config=%s" % (a, cfg) for a, (_, cfg) in self.apps.items()]
        cmd += ["-jar", controller_jar(), "--port", str(port), "--apps", apps_dir, "--server.address=127.0.0.1",
                "--openbox.alert-history=100000"] + PLAIN.controller_settings() \
            + launch.credentials.controller_args(launch.management_credentials())
        self.ctl_log = os.path.join(self.work, "controller.log")
        self.procs.append(subprocess.Popen(cmd, stdout=open(self.ctl_log, "w"), stderr=subprocess.STDOUT,
                                           cwd=self.work))
        wait_for("the controller", lambda: controller_up(self.base), 90, who="rulesets")
        for dpid, o in self.obis.items():
            devices = {"in": "pcap:" + o["trace"]}
            # "in" among the outputs: what leaves by the input device ("in/tx", the web cache's answers)
            devices.update({("in/tx" if d == "in" else d): "pcap:" + os.path.join(self.work, "%s-%d.pcap" % (d, dpid))
                            for d in o["outs"]})
            self.procs.append(subprocess.Popen(
                obi_command(dpid, "127.0.0.1:%d" % free_port(), self.base, devices, workers=1, transport=PLAIN),
                stdout=open(os.path.join(self.work, "obi-%d.log" % dpid), "w"), stderr=subprocess.STDOUT))
        wait_for("the OBIs to run their graphs", lambda: running_obis(self.base, list(self.obis)), 120,
                 who="rulesets")

    def wait_read(self, dpid, packets, timeout=120):
        def done():
            st = http_json(self.base + "/api/obis/%d/stats" % dpid)
            st = st.get("stats", st)
            return st if st.get("packets_in", 0) >= packets else None
        wait_for("OBI %d to read its %d packets" % (dpid, packets), done, timeout, who="rulesets")
        time.sleep(1.5)   # buffered alerts reach the controller
        st = http_json(self.base + "/api/obis/%d/stats" % dpid)
        return st.get("stats", st)

    def stop(self):
        for p in reversed(self.procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in reversed(self.procs):
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


class Reference:
    """The reference interpreter over a graph and a trace, started at once, read later."""

    def __init__(self, args, graph_path, trace):
        self.graph_path = graph_path
        self.t0 = time.monotonic()
        self.out = open(graph_path + ".reference.json", "w+")
        self.err = open(graph_path + ".reference.log", "w+")
        self.proc = subprocess.Popen(["java", "-Xmx1g", "-cp", args.merge_cp, os.path.join(HERE, "RulesetReference.java"),
                                      graph_path, trace], stdout=self.out, stderr=self.err)

    def result(self):
        rc = self.proc.wait()
        self.seconds = time.monotonic() - self.t0
        self.out.seek(0)
        self.err.seek(0)
        if rc != 0:
            raise SystemExit("rulesets: the reference interpreter failed on %s: %s"
                             % (self.graph_path, self.err.read().strip()[-2000:]))
        return json.loads(self.out.read().strip().splitlines()[-1])

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def start_reference(args, run, dpid):
    """Saves the graph OBI dpid runs and starts the reference interpreter on it."""
    graph = http_json(run.base + "/api/obis/%d/graph" % dpid)["graph"]
    gpath = os.path.join(run.work, "graph-%d.json" % dpid)
    with open(gpath, "w") as f:
        json.dump(graph, f)
    patterns = sum(len(m.get("payload_match", [])) for b in graph["blocks"] if b["type"] == "HeaderPayloadClassifier"
                   for m in b["config"]["match"])
    say("%s: OBI %d runs the graph (%d blocks, %d payload patterns compiled by the OBI)"
        % (run.obis[dpid]["case"], dpid, len(graph["blocks"]), patterns))
    return graph, Reference(args, gpath, run.obis[dpid]["trace"])


def verify(args, run, dpid, case, app_of_block, graph, reference):
    o = run.obis[dpid]
    packets = pcap_count(o["trace"])
    st = run.wait_read(dpid, packets)
    ref = reference.result()
    say("%s: reference interpreter: %d packets, %d out, %d dropped, %d alerts, %d logs (%.1f s)"
        % (case, ref["packets"], ref["out"], ref["dropped"], ref["alerts"], ref["logs"], reference.seconds))
    check(case, "packets_in == packets in the trace", st["packets_in"], packets)
    check(case, "packets_in == packets_out + packets_dropped", st["packets_out"] + st["packets_dropped"], st["packets_in"])
    check(case, "packets_out == the reference's", st["packets_out"], ref["out"])
    check(case, "events_dropped", st.get("events_dropped", 0), 0)
    # alerts per application, at the controller
    alerts = http_json(run.base + "/api/alerts?limit=10000")
    by_app = {}
    for a in alerts:
        if a.get("dpid", dpid) == dpid:
            by_app[a.get("app")] = by_app.get(a.get("app"), 0) + 1
    expect_app = {}
    for block, n in list(ref["alerts_by_block"].items()) + list(ref["logs_by_block"].items()):
        app = app_of_block(graph, block)
        expect_app[app] = expect_app.get(app, 0) + n
    if ref["alerts"] + ref["logs"] > 10000:
        say("%s: %d alerts expected: more than /api/alerts keeps; per-rule counts check them" % (case, ref["alerts"]))
    else:
        check(case, "alerts per application at the controller (/api/alerts)", by_app, expect_app)
    # per-rule counts of every classifier
    classifiers = [b["name"] for b in graph["blocks"] if b["type"].endswith("Classifier")]
    for c in classifiers:
        got = http_json(run.base + "/api/obis/%d/blocks/%s/count" % (dpid, urllib.parse.quote(c, safe="")))
        exp = ref["rule_hits"].get(c, [0] * len(got))
        if len(exp) < len(got):
            exp = exp + [0] * (len(got) - len(exp))
        diff = [i for i in range(max(len(got), len(exp))) if (got[i] if i < len(got) else None) != (exp[i] if i < len(exp) else None)]
        check(case, "classifier '%s': per-rule counts of its %d rules (%d packets classified)"
              % (c, len(got), sum(exp)), {"rules_differing": len(diff), "first": diff[:5]},
              {"rules_differing": 0, "first": []})
    # packets per output device
    expect_dev = {}
    for b in graph["blocks"]:
        if b["type"] == "ToDevice":
            dev = b["config"]["devname"]
            expect_dev[dev] = expect_dev.get(dev, 0) + ref["exits"].get(b["name"], 0)
    for dev, n in sorted(expect_dev.items()):
        if dev not in o["outs"]:
            failures.append("%s: the graph sends to device '%s', which the test does not bind" % (case, dev))
            continue
        check(case, "packets written to device '%s'" % dev, pcap_count(os.path.join(run.work, "%s-%d.pcap" % (dev, dpid))), n)
    return ref


def ips_skipped(run):
    lines = [l.strip() for l in open(run.ctl_log, errors="replace") if "ips: skipped line" in l]
    return lines


def classbench_firewall(data, rule_set, action, default, dpid):
    """Settings of the firewall application for ClassBench set DATA/RULE_SET.classbench on OBI dpid."""
    return {"rules.format": "classbench", "rules.file": os.path.join(data, rule_set + ".classbench"),
            "classbench.action": action, "default.action": default, "location": "obi:%d" % dpid}


def snort_ips(data, rules, dpid):
    """Settings of the IPS application for Snort rules DATA/RULES (with snort-vars.conf) on OBI dpid."""
    return {"rules.file": os.path.join(data, rules), "variables.file": os.path.join(data, "snort-vars.conf"),
            "location": "obi:%d" % dpid, "alert.attach_packet": "false"}


def case_rules(args):
    d = args.data
    work = args.work
    os.makedirs(work, exist_ok=True)
    http = os.path.join(d, "pcap", "generated", "http-trace.pcap")
    fw_trace = os.path.join(d, "fw-4560.trace.pcap")
    cfg = os.path.join(work, "cfg")
    os.makedirs(cfg, exist_ok=True)
    ips = snort_ips(d, "snort-web.rules", 1)
    fw = classbench_firewall(d, "fw-4560", "allow", "drop", 2)
    apps = {"ips": ("ips", props(os.path.join(cfg, "ips-web.properties"), ips)),
            "firewall": ("firewall", props(os.path.join(cfg, "firewall-4560.properties"), fw))}
    obis = {1: {"trace": http, "outs": ["out"], "case": "ips-web", "app": "ips"},
            2: {"trace": fw_trace, "outs": ["out"], "case": "firewall-4560", "app": "firewall"}}
    return Run("rule-sets", work, apps, obis)


def trace_to_pcap(trace, pcap, limit=None):
    """ClassBench header trace -> 60-byte Ethernet/IPv4 frames, one per line and in order
    (as PROVENANCE.md describes for fw-4560.trace.pcap): TCP and UDP headers with the
    trace's ports, the TCP flags byte from the flags column, the ports in the first four
    bytes after the IP header for other protocols. Returns the number of frames."""
    def ip_checksum(h):
        total = sum(struct.unpack("!10H", h))
        while total >> 16:
            total = (total & 0xFFFF) + (total >> 16)
        return ~total & 0xFFFF
    n = 0
    with open(trace) as src, open(pcap, "wb") as out:
        out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for line in src:
            f = line.split()
            if len(f) < 6 or (limit is not None and n >= limit):
                break
            sip, dip, sport, dport, proto, flags = (int(x) for x in f[:6])
            if proto == 6:
                l4 = struct.pack("!HHIIBBHHH", sport, dport, 0, 0, 0x50, (flags >> 24) & 0xFF, 65535, 0, 0)
            elif proto == 17:
                l4 = struct.pack("!HHHH", sport, dport, 8, 0)
            else:
                l4 = struct.pack("!HH", sport, dport)
            l4 = l4.ljust(60 - 14 - 20, b"\0")
            ip = struct.pack("!BBHHHBBHII", 0x45, 0, 20 + len(l4), 0, 0, 64, proto & 0xFF, 0, sip, dip)
            ip = ip[:10] + struct.pack("!H", ip_checksum(ip)) + ip[12:]
            frame = b"\x02\0\0\0\0\x02" + b"\x02\0\0\0\0\x01" + b"\x08\x00" + ip + l4
            out.write(struct.pack("<IIII", 1600000000 + n // 1000000, n % 1000000, len(frame), len(frame)) + frame)
            n += 1
    return n


def case_more_rules(args):
    d = args.data
    work = os.path.join(args.work, "more")
    cfg = os.path.join(work, "cfg")
    os.makedirs(cfg, exist_ok=True)
    http = os.path.join(d, "pcap", "generated", "http-trace.pcap")
    acl_trace = os.path.join(work, "acl1-1000.trace.pcap")
    # every packet alerts: as many as the OBI's event ring holds (4096 per worker) while the
    # pcap is read at full speed, so that none is dropped before the controller drains it
    trace_to_pcap(os.path.join(d, "acl1-1000.trace"), acl_trace, limit=4000)
    ips = snort_ips(d, "snort-http.rules", 4)
    fw = classbench_firewall(d, "acl1-1000", "alert", "allow", 5)
    apps = {"ips": ("ips", props(os.path.join(cfg, "ips-http.properties"), ips)),
            "firewall": ("firewall", props(os.path.join(cfg, "firewall-acl1.properties"), fw))}
    obis = {4: {"trace": http, "outs": ["out"], "case": "ips-http", "app": "ips"},
            5: {"trace": acl_trace, "outs": ["out"], "case": "firewall-acl1", "app": "firewall"}}
    return Run("more-rule-sets", args.work, apps, obis)


def case_fw1(args):
    d = args.data
    work = os.path.join(args.work, "fw1")
    cfg = os.path.join(work, "cfg")
    os.makedirs(cfg, exist_ok=True)
    trace = os.path.join(work, "fw1-10000.trace.pcap")
    trace_to_pcap(os.path.join(d, "fw1-10000.trace"), trace, limit=10000)
    fw = classbench_firewall(d, "fw1-10000", "allow", "drop", 6)
    apps = {"firewall": ("firewall", props(os.path.join(cfg, "firewall-fw1.properties"), fw))}
    obis = {6: {"trace": trace, "outs": ["out"], "case": "firewall-fw1", "app": "firewall"}}
    return Run("fw1-10000", args.work, apps, obis)


def case_samples(args):
    work = args.work
    os.makedirs(work, exist_ok=True)
    trace = os.path.join(work, "sample-trace.pcap")
    subprocess.run([sys.executable, os.path.join(SAMPLE, "make_trace.py"), trace, "--packets", "5000", "--seed", "7"],
                   check=True)
    # the sample configs as they are (relative paths resolve against apps/demo/sample)
    apps = {a: (a, os.path.join(SAMPLE, a + ".properties")) for a in SAMPLE_APPS}
    obis = {3: {"trace": trace, "outs": ["out", "out0", "out1", "in"], "case": "samples", "app": None}}
    return Run("samples", work, apps, obis)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--merge-cp", required=True)
    ap.add_argument("--only", default="rule-sets,more-rule-sets,fw1-10000,samples")
    args = ap.parse_args()
    runs = []
    only = set(args.only.split(","))
    unknown = only - {"rule-sets", "more-rule-sets", "fw1-10000", "samples"}
    if unknown:
        raise SystemExit("rulesets: unknown run(s) %s" % ", ".join(sorted(unknown)))
    if "rule-sets" in only:
        runs.append(case_rules(args))
    if "more-rule-sets" in only:
        runs.append(case_more_rules(args))
    if "fw1-10000" in only:
        runs.append(case_fw1(args))
    if "samples" in only:
        runs.append(case_samples(args))
    # the runs go side by side (own controller, OBIs, ports and work directories)
    threads = [threading.Thread(target=one_run, args=(args, run)) for run in runs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failures:
        for f in failures:
            print("rulesets: FAIL: " + f, file=sys.stderr)
        sys.exit(1)
    say("PASS")


def one_run(args, run):
    say("%s: starting the controller (%s) and %d OBI(s)" % (run.name, ", ".join(run.apps), len(run.obis)))
    refs = {}
    try:
        run.start()
        for dpid in run.obis:
            refs[dpid] = start_reference(args, run, dpid)
        for dpid, o in run.obis.items():
            origins = origins_of(run.base, dpid)
            verify(args, run, dpid, o["case"], lambda g, b, o=o: origins.get(b, o["app"]), *refs[dpid])
        if "ips" in run.apps:
            sk = ips_skipped(run)
            say("%s: the IPS skipped %d rules (reasons in %s), e.g. %s"
                % (run.name, len(sk), run.ctl_log, sk[0][sk[0].find("ips: "):] if sk else "-"))
    except SystemExit as e:
        failures.append("%s: %s" % (run.name, e))
    except Exception as e:  # noqa: BLE001  (any error fails the run, with its reason)
        failures.append("%s: %s: %s" % (run.name, type(e).__name__, e))
    finally:
        for _, r in refs.values():
            r.stop()
        run.stop()


def origins_of(base, dpid):
    """block -> application of the graph an OBI runs (GET /api/obis/{dpid}/graph "origins")."""
    view = http_json(base + "/api/obis/%d/graph" % dpid)
    out = {}
    for block, refs in (view.get("provenance") or {}).items():
        if refs:
            out[block] = refs[0]["app"]
    return out


if __name__ == "__main__":
    main()
