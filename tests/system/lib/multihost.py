#!/usr/bin/env python3
"""Driver of the multi-host system test (tests/system/multihost.sh sets up the namespaces
and runs this inside PREFIX-ctl).

Starts the controller (firewall + IPS apps, 1 s keep-alive) here in PREFIX-ctl and one OBI
in each of PREFIX-obi1 / PREFIX-obi2 (graph devices in/out bound to their veths), then in
three phases sends a fixed set of frames from PREFIX-snd over both paths and counts what
reaches PREFIX-rcv:

  1. both OBIs up: allowed kinds arrive, dropped kinds do not; IPS alerts only for the IPS
     app, firewall alerts only for the firewall app, each from the OBI the packets crossed;
  2. OBI 1 killed (SIGKILL): the controller marks it DOWN within the keep-alive deadline;
     path 2 still delivers, path 1 delivers nothing;
  3. OBI 1 restarted: UP again, its graph pushed again (read back from the OBI), and path 1
     delivers again.

Exits 1 with "FAIL: ..." on the first failed check.
"""
import argparse
import collections
import os
import re
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "apps", "demo"))

from frames import frame, marker, parse_marker  # noqa: E402
from launch import (SAMPLE, Transport, controller_command, pki, controller_up, http_json, obi_command,  # noqa: E402
                    running_obis, wait_for)
from netns import drain, inside, raw_socket  # noqa: E402

CTL_IP = "10.99.0.1"
PORT = 3637
KEEPALIVE_S = 1
KEEPALIVE_TIMEOUT_S = 3
N = 20                     # frames of each kind, per path and phase
SRC_MAC, DST_MAC = "02:0b:00:00:00:01", "02:0b:00:00:00:02"

GET_INDEX = b"GET /index.html HTTP/1.1\r\nHost: intranet\r\n\r\n"
GET_PHF = b"GET /cgi-bin/phf?Qalias=x HTTP/1.1\r\nHost: intranet\r\n\r\n"


class Kind(collections.namedtuple("Kind", "id name proto src dst dport payload passes alert_app why")):
    """A kind of test frame and what the sample policies (apps/demo/sample) do with it."""


KINDS = [
    Kind(1, "web", "tcp", "10.0.1.5", "10.0.2.10", 80, GET_INDEX, True, None, "firewall allows web to 10.0.2.10"),
    Kind(2, "attack", "tcp", "10.0.1.6", "10.0.2.10", 80, GET_PHF, True, "ips", "allowed; IPS sid 1000001 alerts"),
    Kind(3, "ssh", "tcp", "10.0.1.7", "10.0.2.20", 22, b"SSH-2.0-client\r\n", True, "firewall",
         "firewall alert rule: reported and passed"),
    Kind(4, "telnet", "tcp", "10.0.1.8", "10.0.2.20", 23, b"login: root\r\n", False, None, "firewall drops telnet"),
    Kind(5, "blacklisted", "tcp", "10.66.3.4", "10.0.2.10", 80, GET_PHF, False, None,
         "firewall drops 10.66/16 before the IPS sees the attack"),
    Kind(6, "unlisted", "udp", "10.0.1.9", "10.0.2.99", 9999, b"hello", False, None, "firewall default drop"),
]
PROBE = Kind(7, "probe", "tcp", "10.0.1.4", "10.0.2.10", 80, GET_INDEX, True, None, "warm-up")
ALERT_TEXT = {"ips": "sid:1000001", "firewall": "ssh to the admin host"}
# what FirewallApp and IpsApp log for every alert their onAlert receives
APP_ALERT_LINE = re.compile(r"\.(?:FirewallApp|IpsApp)\s*: (firewall|ips) alert\b[^\n]*? dpid (\d+)\b([^\n]*)")

START = time.monotonic()
TEST = "multihost"          # the name FAIL lines carry (lib/compose.py runs these checks as "compose")


def say(msg):
    print("[%5.1fs] %s" % (time.monotonic() - START, msg), flush=True)


def fail(msg):
    raise SystemExit("%s: FAIL: %s" % (TEST, msg))


def check(cond, ok_msg, fail_msg):
    if not cond:
        fail(fail_msg)
    say("ok   " + ok_msg)


class Net:
    """The sender's and the receiver's raw sockets and the frames counted so far."""

    def __init__(self, prefix):
        with inside(prefix + "-snd"):
            self.tx = {p: raw_socket("snd%d" % p) for p in (1, 2)}
        with inside(prefix + "-rcv"):
            self.rx = {p: raw_socket("rcv%d" % p) for p in (1, 2)}
        self.counts = collections.Counter()     # (path, phase, kind id) -> frames received

    def _on_frame(self, path, data, pkttype):
        m = parse_marker(data)
        if m and pkttype != 4:                   # 4: PACKET_OUTGOING
            self.counts[(path, m[0], m[1])] += 1

    def poll(self, wait):
        drain(self.rx, self._on_frame, wait)

    def send(self, path, phase, kind, seq):
        payload = kind.payload + marker(phase, kind.id, seq)
        self.tx[path].send(frame(SRC_MAC, DST_MAC, kind.src, kind.dst, kind.proto, 20000 + seq, kind.dport,
                                 payload, ip_id=seq))

    def warm_up(self, path, phase):
        """Sends probe frames on `path` until one arrives: the OBI's graph is live."""
        for seq in range(100):
            self.send(path, phase, PROBE, seq)
            self.poll(0.1)
            if self.counts[(path, phase, PROBE.id)]:
                return seq + 1
        fail("no probe frame came through path %d (OBI %d) in 10 s: graph not live" % (path, path))


class Controller:
    def __init__(self, base, log):
        self.base, self.log = base, log

    def obi(self, dpid):
        return {o["dpid"]: o for o in http_json(self.base + "/api/obis")}.get(dpid)

    def alerts(self):
        return http_json(self.base + "/api/alerts?limit=10000")

    def log_text(self):
        with open(self.log, errors="replace") as f:
            return f.read()

    def source_count(self, dpid):
        """Packets counted by the OBI's FromDevice blocks, read from the OBI itself."""
        g = http_json(self.base + "/api/obis/%d/graph" % dpid)["graph"]
        srcs = [b["name"] for b in g["blocks"] if b["type"] == "FromDevice"]
        if not srcs:
            return None
        return sum(int(http_json(self.base + "/api/obis/%d/blocks/%s/count" % (dpid, s))) for s in srcs)


def fresh_count(count, before, stray=3):
    """A restarted OBI's FromDevice count before any test traffic: a fresh process counts
    from 0, give or take a frame or two the namespaces' kernels send on their own (an ARP
    retry for an address the last phase sent to), never what the old process had counted."""
    return count <= stray and count < before


def run_phase(net, ctl, phase, live, expected_alerts, title):
    say("phase %d: %s" % (phase, title))
    for p in live:
        n = net.warm_up(p, phase)
        say("     path %d (OBI %d) live after %d probe frame(s)" % (p, p, n))
    for seq in range(N):
        for kind in KINDS:
            for p in (1, 2):
                net.send(p, phase, kind, seq)
        time.sleep(0.002)
    want = {(p, k.id): (N if (p in live and k.passes) else 0) for p in (1, 2) for k in KINDS}
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        net.poll(0.1)
        if all(net.counts[(p, phase, k)] >= n for (p, k), n in want.items()):
            break
    net.poll(0.5)                                # stragglers and frames that should not come
    for p in (1, 2):
        got = {k.name: net.counts[(p, phase, k.id)] for k in KINDS}
        exp = {k.name: want[(p, k.id)] for k in KINDS}
        desc = ", ".join("%s %d/%d" % (k.name, got[k.name], N) for k in KINDS)
        state = "OBI %d up" % p if p in live else "OBI %d down"  % p
        check(got == exp, "path %d (%s) received: %s" % (p, state, desc),
              "phase %d path %d (%s): received %s, expected %s" % (phase, p, state, got, exp))

    for k in KINDS:
        if k.alert_app:
            for p in live:
                expected_alerts[(k.alert_app, p)] += N
    check_alerts(ctl, expected_alerts)


def check_alerts(ctl, expected, texts=None):
    """Alerts per (app, dpid) equal `expected`, each app's alerts carry only its own messages
    (texts: app -> text every alert message of that app holds; default ALERT_TEXT)."""
    texts = texts or ALERT_TEXT
    def tally():
        c = collections.Counter()
        for a in ctl.alerts():
            c[(a.get("app"), a.get("dpid"))] += 1
        return c

    deadline = time.monotonic() + 8
    got = tally()
    while time.monotonic() < deadline and any(got[k] < v for k, v in expected.items()):
        time.sleep(0.2)
        got = tally()
    time.sleep(0.5)
    got = +tally()
    exp = +collections.Counter(expected)
    check(got == exp, "alerts per (app, dpid): %s" % dict(sorted(got.items())),
          "alerts per (app, dpid) are %s, expected %s" % (dict(got), dict(exp)))
    for a in ctl.alerts():
        text = texts.get(a.get("app"))
        if text is None or text not in str(a.get("message")):
            fail("alert delivered to app %r does not belong to it: %s" % (a.get("app"), a))
    say("ok   every alert belongs to its application (%s)"
        % ", ".join("app %s: %r" % (app, text) for app, text in sorted(texts.items())))

    # the applications' own onAlert handlers log each alert they receive
    def delivered():
        c = collections.Counter()
        for m in APP_ALERT_LINE.finditer(ctl.log_text()):
            app, dpid, rest = m.group(1), int(m.group(2)), m.group(3)
            c[(app if texts[app] in rest else app + " (foreign alert)", dpid)] += 1
        return c

    got = delivered()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and got != exp:
        time.sleep(0.2)
        got = delivered()
    check(got == exp, "alerts received by the applications themselves (their onAlert log lines) match",
          "alerts logged by the applications' onAlert per (app, dpid) are %s, expected %s" % (dict(got), dict(exp)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--prefix", required=True, help="namespace prefix (namespaces PREFIX-ctl, -obi1, ...)")
    ap.add_argument("--out", required=True, help="directory for logs")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    procs = []
    # Mutual TLS between the namespaces: certificates in $OPENBOX_PKI (the test's own
    # directory, set by multihost.sh), each OBI's naming its address on the control bridge,
    # the controller's its own (it listens on its namespace's address only).
    transport = Transport()
    pki("controller", ips=[CTL_IP], directory=transport.dir)
    base = transport.url(CTL_IP, PORT)

    def start_obi(dpid, mode):
        ns = "%s-obi%d" % (args.prefix, dpid)
        cmd = ["ip", "netns", "exec", ns] + obi_command(
            dpid, "10.99.0.1%d:3636" % dpid, transport.url(CTL_IP, PORT),
            {"in": "in%d" % dpid, "out": "out%d" % dpid}, transport=transport)
        log = open(os.path.join(args.out, "obi-%d.log" % dpid), mode)
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        procs.append(p)
        return p

    try:
        state = os.path.join(args.out, "state")
        shutil.rmtree(state, ignore_errors=True)
        ctl_log = os.path.join(args.out, "controller.log")
        with open(ctl_log, "w") as log:
            procs.append(subprocess.Popen(
                controller_command(["firewall", "ips"], os.path.join(args.out, "apps"), PORT,
                                   ["--openbox.keepalive-interval=%ds" % KEEPALIVE_S,
                                    "--openbox.keepalive-timeout=%ds" % KEEPALIVE_TIMEOUT_S,
                                    # the applications log each alert their onAlert gets at DEBUG
                                    "--logging.level.org.openbox.apps=DEBUG",
                                    # a fresh state (alerts, apps) each run, kept with its logs
                                    "--openbox.state-dir=" + state], heap="384m",
                                   transport=transport, bind=CTL_IP),
                stdout=log, stderr=subprocess.STDOUT, cwd=SAMPLE))
        ctl = Controller(base, ctl_log)
        wait_for("the controller in %s-ctl" % args.prefix, lambda: controller_up(base), 90, who="multihost")
        say("controller up in %s-ctl at %s:%d (apps firewall, ips; keep-alive %d s, timeout %d s)"
            % (args.prefix, CTL_IP, PORT, KEEPALIVE_S, KEEPALIVE_TIMEOUT_S))
        obi = {d: start_obi(d, "w") for d in (1, 2)}
        views = wait_for("both OBIs UP with their graph", lambda: running_obis(base, [1, 2]), 30, who="multihost")
        for v in views:
            check(sorted(v["apps"] or []) == ["firewall", "ips"],
                  "OBI %d UP at %s, graph %s, apps %s" % (v["dpid"], v["endpoint"], v["graphStatus"], v["apps"]),
                  "OBI %d runs apps %s, expected firewall and ips" % (v["dpid"], v["apps"]))

        net = Net(args.prefix)
        alerts = collections.Counter()
        run_phase(net, ctl, 1, (1, 2), alerts, "both OBIs up")

        # OBI 1 dies: the controller must notice within the keep-alive deadline
        counted_before = ctl.source_count(1)
        t_kill = time.monotonic()
        obi[1].send_signal(signal.SIGKILL)
        obi[1].wait()
        say("OBI 1 killed (SIGKILL)")
        wait_for("the controller to mark OBI 1 DOWN", lambda: ctl.obi(1)["state"] == "DOWN",
                 KEEPALIVE_TIMEOUT_S + 5, who="multihost: FAIL", poll=0.05)
        dt = time.monotonic() - t_kill
        limit = KEEPALIVE_TIMEOUT_S + 1.0
        check(dt <= limit, "OBI 1 DOWN after %.2f s (deadline %d s, limit %.1f s)" % (dt, KEEPALIVE_TIMEOUT_S, limit),
              "OBI 1 marked DOWN only after %.2f s (keep-alive timeout %d s)" % (dt, KEEPALIVE_TIMEOUT_S))
        v1, v2 = ctl.obi(1), ctl.obi(2)
        check(v1["downCount"] == 1 and "OBI 1 is down" in ctl.log_text(),
              "InstanceDown for OBI 1: downCount 1, controller log says 'OBI 1 is down'",
              "after the kill: downCount %s, log line 'OBI 1 is down' %s"
              % (v1["downCount"], "present" if "OBI 1 is down" in ctl.log_text() else "missing"))
        check(v2["state"] == "UP" and v2["downCount"] == 0, "OBI 2 still UP",
              "OBI 2 is %s (downCount %s) after OBI 1 was killed" % (v2["state"], v2["downCount"]))
        run_phase(net, ctl, 2, (2,), alerts, "OBI 1 down, traffic on both paths")

        # OBI 1 comes back: Hello -> UP -> graph pushed again
        obi[1] = start_obi(1, "a")
        say("OBI 1 restarted")
        wait_for("OBI 1 UP again", lambda: ctl.obi(1)["state"] == "UP", 20, who="multihost: FAIL")
        count = wait_for("OBI 1 to hold its graph again (FromDevice count readable from the OBI)",
                         lambda: ctl.source_count(1) is not None and (ctl.source_count(1),), 20,
                         who="multihost: FAIL")[0]
        v1 = ctl.obi(1)
        back = re.search(r"OBI 1 said Hello .*, back up", ctl.log_text())
        check(str(v1["graphStatus"]).startswith("running") and back,
              "OBI 1 back up (%s), graph re-pushed: the new OBI's FromDevice blocks answer (count %d)"
              % (v1["graphStatus"], count),
              "OBI 1 after restart: graphStatus %s, log line 'back up' %s"
              % (v1["graphStatus"], "present" if back else "missing"))
        check(fresh_count(count, counted_before),
              "the restarted OBI counts from 0 (a fresh process got the graph): %d frame(s) since it started, "
              "%d before the kill" % (count, counted_before),
              "restarted OBI 1 reports %d packets before any traffic (%d before the kill)" % (count, counted_before))
        run_phase(net, ctl, 3, (1, 2), alerts, "OBI 1 restarted")
        for d in (1, 2):
            if obi[d].poll() is not None:
                fail("OBI %d exited with status %s during the test" % (d, obi[d].returncode))
        say("PASS: delivery, firewall drops, per-app alerts, InstanceDown and graph re-push")
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in reversed(procs):
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


if __name__ == "__main__":
    main()
