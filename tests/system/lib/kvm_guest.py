#!/usr/bin/env python3
"""Driver of the OBI-guest system test (tests/system/kvm_guest.sh builds the namespaces
and runs this inside PREFIX-ctl).

Starts the controller (firewall + IPS apps, 1 s keep-alive) here and boots the OBI guest
with obi/vm/run-guest.sh, its NICs on taps in PREFIX-host bridged to the controller's,
the sender's and the receiver's namespaces. Then:

  1. boot: the guest says Hello (its dpid, its endpoint) over mutual TLS with its own
     certificate, handed in with run-guest.sh --files and named by --obi-args '--pki DIR';
     the controller pushes the graph and the guest runs it; frames from PREFIX-snd cross the guest's data NICs to PREFIX-rcv, the
     firewall drops what it should, alerts reach /api/alerts from the guest's dpid;
  2. qemu killed (SIGKILL): the controller marks the OBI DOWN within the keep-alive
     deadline, and nothing crosses any more;
  3. booted again: Hello, the graph pushed again (read back from the new guest), and the
     same frames cross again with their alerts.

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
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "apps", "demo"))

from frames import frame, marker, parse_marker  # noqa: E402
from launch import SAMPLE, Transport, controller_command, controller_up, http_json, pki, wait_for  # noqa: E402
from multihost import ALERT_TEXT, KINDS, PROBE, SRC_MAC, DST_MAC, Controller, fresh_count  # noqa: E402
from netns import drain, inside, raw_socket  # noqa: E402

CTL_IP, GUEST_IP, PORT, OBI_PORT = "10.98.0.1", "10.98.0.11", 3637, 3636
DPID = 7
KEEPALIVE_S, KEEPALIVE_TIMEOUT_S = 1, 3
N = 20                     # frames of each kind per phase
GUEST_FILES = "/etc/obi/files"          # where run-guest.sh --files puts them in the guest
EXTRA_ARGS = "--workers 1 --pki " + GUEST_FILES
OBI_CERTS = ["ca.crt", "obi-%d.crt" % DPID, "obi-%d.key" % DPID]   # never the CA's key

START = time.monotonic()


def say(msg):
    print("[%5.1fs] %s" % (time.monotonic() - START, msg), flush=True)


def fail(msg):
    raise SystemExit("kvm_guest: FAIL: " + msg)


def check(cond, ok_msg, fail_msg):
    if not cond:
        fail(fail_msg)
    say("ok   " + ok_msg)


class Wire:
    """Raw sockets on the sender's and the receiver's side of the guest, and the test
    frames counted at the receiver."""

    def __init__(self, prefix):
        with inside(prefix + "-snd"):
            self.tx = raw_socket("snd0")
        with inside(prefix + "-rcv"):
            self.rx = {"rcv0": raw_socket("rcv0")}
        self.counts = collections.Counter()   # (phase, kind id) -> frames received

    def _on_frame(self, _name, data, pkttype):
        m = parse_marker(data)
        if m and pkttype != 4:                # 4: PACKET_OUTGOING
            self.counts[(m[0], m[1])] += 1

    def poll(self, wait):
        drain(self.rx, self._on_frame, wait)

    def send(self, phase, kind, seq):
        self.tx.send(frame(SRC_MAC, DST_MAC, kind.src, kind.dst, kind.proto, 20000 + seq, kind.dport,
                           kind.payload + marker(phase, kind.id, seq), ip_id=seq))

    def warm_up(self, phase, seconds):
        """Sends probe frames until one arrives (the guest's graph is live)."""
        deadline, seq = time.monotonic() + seconds, 0
        while time.monotonic() < deadline:
            self.send(phase, PROBE, seq)
            seq += 1
            self.poll(0.1)
            if self.counts[(phase, PROBE.id)]:
                return seq
        fail("no probe frame crossed the guest in %d s: graph not live on its data NICs" % seconds)

    def load(self, phase, live):
        """N frames of every kind; checks what arrived against the firewall policy."""
        for seq in range(N):
            for kind in KINDS:
                self.send(phase, kind, seq)
            time.sleep(0.002)
        want = {k.id: (N if live and k.passes else 0) for k in KINDS}
        deadline = time.monotonic() + (8 if live else 1.5)
        while time.monotonic() < deadline:
            self.poll(0.1)
            if live and all(self.counts[(phase, k)] >= n for k, n in want.items()):
                break
        self.poll(0.5)
        got = {k.name: self.counts[(phase, k.id)] for k in KINDS}
        exp = {k.name: want[k.id] for k in KINDS}
        desc = ", ".join("%s %d/%d" % (k.name, got[k.name], N) for k in KINDS)
        check(got == exp, "received through the guest: %s" % desc,
              "phase %d: received %s, expected %s" % (phase, got, exp))


def check_alerts(ctl, expected):
    """Alerts per (app, dpid) at /api/alerts equal `expected`; each carries its app's text."""
    def tally():
        return +collections.Counter((a.get("app"), a.get("dpid")) for a in ctl.alerts())
    exp = +collections.Counter(expected)
    deadline = time.monotonic() + 8
    got = tally()
    while time.monotonic() < deadline and got != exp:
        time.sleep(0.2)
        got = tally()
    check(got == exp, "alerts per (app, dpid) at /api/alerts: %s" % dict(sorted(got.items())),
          "alerts per (app, dpid) are %s, expected %s" % (dict(got), dict(exp)))
    for a in ctl.alerts():
        text = ALERT_TEXT.get(a.get("app"))
        if text is None or text not in str(a.get("message")):
            fail("alert delivered to app %r does not belong to it: %s" % (a.get("app"), a))


def guest_uptime(console):
    """The guest's uptime when its init started the OBI, from the console ('?' if absent)."""
    with open(console, errors="replace") as f:
        m = re.search(r"obi-guest: up ([0-9.]+) s; starting obi", f.read())
    return m.group(1) if m else "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--prefix", required=True, help="namespace prefix (PREFIX-ctl, -host, -snd, -rcv)")
    ap.add_argument("--out", required=True, help="directory for logs")
    ap.add_argument("--accel", choices=("kvm", "tcg"), required=True)
    args = ap.parse_args()
    boot_limit = 90 if args.accel == "kvm" else 180   # boot 1 also waits for the controller
    os.makedirs(args.out, exist_ok=True)
    # mutual TLS: certificates in $OPENBOX_PKI; the guest gets its own and the CA's only
    transport = Transport()
    pki("controller", ips=[CTL_IP], directory=transport.dir)
    pki("obi", DPID, ips=[GUEST_IP], directory=transport.dir)
    files = os.path.join(args.out, "guest-files")
    os.makedirs(files, exist_ok=True)
    for name in OBI_CERTS:
        shutil.copy(os.path.join(transport.dir, name), files)
    procs = []
    base = transport.url(CTL_IP, PORT)

    def boot(n):
        console = os.path.join(args.out, "guest-boot%d.console.log" % n)
        cmd = [os.path.join(ROOT, "obi", "vm", "run-guest.sh"), "--accel", args.accel,
               "--netns", args.prefix + "-host", "--dpid", str(DPID),
               "--controller", transport.url(CTL_IP, PORT), "--ip", GUEST_IP + "/24",
               "--control", "vm-ctl@br-ctl", "--data", "in=vm-in@br-in", "--data", "out=vm-out@br-out",
               "--obi-args", EXTRA_ARGS, "--files", files, "--console", console]
        log = open(os.path.join(args.out, "run-guest-%d.log" % n), "w")
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        procs.append(p)
        return p, console, time.monotonic()

    def wait_graph(n, t0, proc):
        wait_for("the guest (boot %d) to say Hello" % n, lambda: (ctl.obi(DPID) or {}).get("state") == "UP",
                 boot_limit, who="kvm_guest: FAIL", poll=0.1,
                 children=[("qemu (run-guest.sh)", proc, os.path.join(args.out, "run-guest-%d.log" % n))])
        t_hello = time.monotonic() - t0
        v = wait_for("the guest's graph to run", lambda: running(ctl.obi(DPID)), 30, who="kvm_guest: FAIL", poll=0.1)
        return v, t_hello, time.monotonic() - t0

    def running(v):
        return v if v and v["state"] == "UP" and str(v.get("graphStatus")).startswith("running") else None

    try:
        ctl_log = os.path.join(args.out, "controller.log")
        with open(ctl_log, "w") as log:
            procs.append(subprocess.Popen(
                controller_command(["firewall", "ips"], os.path.join(args.out, "apps"), PORT,
                                   ["--openbox.keepalive-interval=%ds" % KEEPALIVE_S,
                                    "--openbox.keepalive-timeout=%ds" % KEEPALIVE_TIMEOUT_S,
                                    # its own state: no alerts restored from an earlier run
                                    "--openbox.state-dir=" + os.path.join(args.out, "state")],
                                   heap="384m", transport=transport, bind=CTL_IP),
                stdout=log, stderr=subprocess.STDOUT, cwd=SAMPLE))
        ctl = Controller(base, ctl_log)
        # ---- 1: boot, while the controller starts (the OBI retries until it answers)
        qemu, console, t0 = boot(1)
        say("phase 1: guest booting (%s, dpid %d, console %s)" % (args.accel.upper(), DPID, console))
        wait_for("the controller", lambda: controller_up(base), 90, who="kvm_guest: FAIL")
        say("controller up in %s-ctl at %s:%d (apps firewall, ips; keep-alive %d s, timeout %d s)"
            % (args.prefix, CTL_IP, PORT, KEEPALIVE_S, KEEPALIVE_TIMEOUT_S))
        v, t_hello, t_graph = wait_graph(1, t0, qemu)
        up1 = guest_uptime(console)
        hello = re.search(r"OBI %d said Hello \(version [^,]*, endpoint ([^)]*)\)" % DPID, ctl.log_text())
        endpoint = transport.url(GUEST_IP, OBI_PORT)
        check(hello and hello.group(1).rstrip("/") == endpoint and v["dpid"] == DPID,
              "Hello from the guest after %.1f s: dpid %d, endpoint %s" % (t_hello, DPID, hello.group(1) if hello else "?"),
              "Hello of dpid %d with endpoint %s expected; controller log: %s"
              % (DPID, endpoint, hello.group(0) if hello else "no 'said Hello' line"))
        check(sorted(v.get("apps") or []) == ["firewall", "ips"],
              "GET /api/obis/%d: UP, graph %s, apps %s (%.1f s after qemu started)"
              % (DPID, v["graphStatus"], v["apps"], t_graph),
              "the guest runs apps %s, expected firewall and ips" % v.get("apps"))
        with open(console, errors="replace") as f:
            text = f.read()
        listed = re.search(r"files in %s: ([^\n]*)" % GUEST_FILES, text)
        check(EXTRA_ARGS in text and listed and sorted(listed.group(1).split()) == sorted(OBI_CERTS),
              "the guest's OBI got the extra arguments '%s' and the files %s" % (EXTRA_ARGS, " ".join(OBI_CERTS)),
              "console log lacks the extra OBI arguments or the handed-in files:\n" + text[-1500:])

        wire = Wire(args.prefix)
        alerts = collections.Counter()
        say("     graph live after %d probe frame(s)" % wire.warm_up(1, 10))
        wire.load(1, True)
        for k in KINDS:
            if k.alert_app:
                alerts[(k.alert_app, DPID)] += N
        check_alerts(ctl, alerts)

        # ---- 2: the guest dies
        counted_before = ctl.source_count(DPID)
        say("phase 2: qemu killed (SIGKILL)")
        t_kill = time.monotonic()
        qemu.send_signal(signal.SIGKILL)
        qemu.wait()
        wait_for("the controller to mark the guest DOWN", lambda: ctl.obi(DPID)["state"] == "DOWN",
                 KEEPALIVE_TIMEOUT_S + 5, who="kvm_guest: FAIL", poll=0.05)
        dt = time.monotonic() - t_kill
        check(dt <= KEEPALIVE_TIMEOUT_S + 1.0,
              "DOWN after %.2f s (keep-alive timeout %d s)" % (dt, KEEPALIVE_TIMEOUT_S),
              "DOWN only after %.2f s (keep-alive timeout %d s)" % (dt, KEEPALIVE_TIMEOUT_S))
        v = ctl.obi(DPID)
        down_line = "OBI %d is down" % DPID in ctl.log_text()
        check(v["downCount"] == 1 and down_line,
              "InstanceDown: downCount 1, controller log says 'OBI %d is down'" % DPID,
              "after the kill: downCount %s, log line %s" % (v["downCount"], "present" if down_line else "missing"))
        wire.load(2, False)

        # ---- 3: booted again
        qemu, console, t0 = boot(2)
        say("phase 3: guest booting again (console %s)" % console)
        v, t_hello2, t_graph2 = wait_graph(2, t0, qemu)
        up2 = guest_uptime(console)
        back = re.search(r"OBI %d said Hello .*, back up" % DPID, ctl.log_text())
        count = wait_for("the new guest's FromDevice count", lambda: (ctl.source_count(DPID),)
                         if ctl.source_count(DPID) is not None else None, 20, who="kvm_guest: FAIL")[0]
        check(back and str(v["graphStatus"]).startswith("running"),
              "Hello again after %.1f s, back up, graph pushed again (%s, %.1f s)" % (t_hello2, v["graphStatus"], t_graph2),
              "after the reboot: graphStatus %s, log line 'back up' %s"
              % (v["graphStatus"], "present" if back else "missing"))
        check(fresh_count(count, counted_before),
              "the rebooted guest counts from 0 (the graph came to a fresh OBI): %d frame(s) since it started, "
              "%d before the kill" % (count, counted_before),
              "the rebooted guest reports %d packets before any traffic (%d before the kill)" % (count, counted_before))
        say("     graph live after %d probe frame(s)" % wire.warm_up(3, 10))
        wire.load(3, True)
        for k in KINDS:
            if k.alert_app:
                alerts[(k.alert_app, DPID)] += N
        check_alerts(ctl, alerts)
        if qemu.poll() is not None:
            fail("qemu exited with status %s during the test" % qemu.returncode)
        say("PASS (%s): Hello, graph push, traffic and alerts through the guest, InstanceDown, re-push "
            "after a reboot; guest kernel start to OBI start %s s / %s s; qemu start to Hello %.1f s / %.1f s, "
            "to a running graph %.1f s / %.1f s (boot 1 while the controller started)"
            % (args.accel.upper(), up1, up2, t_hello, t_hello2, t_graph, t_graph2))
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
