#!/usr/bin/env python3
"""Driver of the container system test (tests/system/compose.sh starts the engine, builds
the images and runs this from the repository root with COMPOSE_PROJECT_NAME, COMPOSE_FILE
and the OPENBOX_* settings of docker-compose.yml in the environment).

  1. `up` of the controller, OBIs 1 and 2 and the receiver: both OBIs UP over mutual TLS
     with the firewall and IPS graph running;
  2. the replayer sends the demo's two traces (tests/system/compose/replay.py), trace 1
     through OBI 1 and trace 2 through OBI 2. This driver reads what reaches the receiver
     container on raw sockets opened in its network namespace and compares it per traffic
     class with what the sample firewall and IPS policies (apps/demo/sample) say: allowed
     classes arrive complete and unchanged, dropped classes not at all; alerts per
     (application, dpid) through the management API and in the applications' own logs;
  3. `kill obi1`: DOWN within the keep-alive timeout, InstanceDown, OBI 2 still UP;
  4. `start obi1`: Hello, UP, the graph pushed again to the new process;
  5. the replayer again: the traces through both OBIs as in 2, alerts doubled.

Exits 1 with "compose: FAIL: ..." on the first failed check.
"""
import argparse
import calendar
import collections
import ipaddress
import os
import re
import shlex
import socket
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
DEMO = os.path.join(ROOT, "apps", "demo")
os.environ.setdefault("OPENBOX_DEMO", DEMO)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(DEMO, "sample"))
sys.path.insert(0, os.path.join(ROOT, "tests", "system", "compose"))

import multihost  # noqa: E402
from launch import http_json, running_obis, wait_for  # noqa: E402
from make_trace import ATTACKS, build  # noqa: E402
from multihost import Controller, check, check_alerts, fail, say  # noqa: E402
from netns import drain, inside, raw_socket  # noqa: E402
from replay import PACKETS, TRACES  # noqa: E402

multihost.TEST = "compose"
KEEPALIVE_TIMEOUT_S = 3     # docker-compose.yml: --openbox.keepalive-timeout=3s
# the receiver's interfaces: path N's "out" network (docker-compose.yml)
OUT_SUBNET = {1: "10.99.12.0/24", 2: "10.99.22.0/24"}
ALERT_TEXT = {"ips": "[sid:100000", "firewall": "ssh to the admin host"}
BLACKLISTED = ipaddress.ip_network("10.66.0.0/16")
# an attack request's URI is the request line's second word: an attack path holding spaces
# ("... UNION SELECT ...") is cut there, and no rule sees the attack in the URI
ATTACK_URIS = {a.encode() for a in ATTACKS if " " not in a}
CUT_ATTACK_REQUESTS = [("GET %s " % a).encode() for a in ATTACKS if " " in a]


class Fate(collections.namedtuple("Fate", "passes alert_app why")):
    """What the sample policies do with a traffic class of the trace."""


FATES = collections.OrderedDict([
    ("web", Fate(True, None, "firewall allows HTTP to and from 10.0.2.10")),
    ("attack", Fate(True, "ips", "allowed; an IPS rule alerts on the URI")),
    ("attack-cut", Fate(True, None, "allowed; the attack lies past the URI's end, no alert")),
    ("dns", Fate(True, None, "firewall allows DNS to and from 10.0.2.53")),
    ("icmp", Fate(True, None, "firewall allows ICMP")),
    ("ssh", Fate(True, "firewall", "firewall alert rule: reported and passed")),
    ("telnet", Fate(False, None, "firewall drops telnet")),
    ("blacklisted", Fate(False, None, "firewall drops 10.66/16")),
])


def ip_packet(frame):
    """The IPv4 packet of an Ethernet frame (without any padding), or None."""
    if len(frame) < 34 or frame[12:14] != b"\x08\x00":
        return None
    return frame[14:14 + struct.unpack("!H", frame[16:18])[0]]


def classify(pkt):
    """Traffic class of an IPv4 packet of the sample trace (apps/demo/sample/make_trace.py)."""
    ihl, proto = (pkt[0] & 0x0F) * 4, pkt[9]
    src = ipaddress.ip_address(pkt[12:16])
    if src in BLACKLISTED:
        return "blacklisted"
    if proto == 1:
        return "icmp"
    sport, dport = struct.unpack("!HH", pkt[ihl:ihl + 4])
    if proto == 17 and 53 in (sport, dport):
        return "dns"
    if proto == 6:
        if dport == 22:
            return "ssh"
        if dport == 23:
            return "telnet"
        if 80 in (sport, dport):
            payload = pkt[ihl + (pkt[ihl + 12] >> 4) * 4:]
            words = payload.split(b"\r\n", 1)[0].split(b" ")
            if dport == 80 and len(words) == 3 and words[0] == b"GET" and words[1] in ATTACK_URIS:
                return "attack"
            if dport == 80 and any(payload.startswith(r) for r in CUT_ATTACK_REQUESTS):
                return "attack-cut"
            return "web"
    return "other"


class Trace:
    """One replayed trace: its packets, and the packets the policies let through."""

    def __init__(self, seed):
        self.sent = collections.Counter(ip_packet(f) for f in build(PACKETS, seed))
        self.by_class = collections.Counter()
        for pkt, n in self.sent.items():
            self.by_class[classify(pkt)] += n
        unknown = set(self.by_class) - set(FATES)
        if unknown:
            fail("trace (seed %d) holds packets of no known class: %s" % (seed, sorted(unknown)))
        self.passed = collections.Counter({p: n for p, n in self.sent.items() if FATES[classify(p)].passes})


class Compose:
    """The compose tool (docker compose or docker-compose) on this project."""

    def __init__(self, command):
        self.command = shlex.split(command)
        self.ids = {}                                  # service -> container id (kept across stop/start)

    def run(self, *args, timeout=300):
        r = subprocess.run(self.command + list(args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True, timeout=timeout)
        if r.returncode:
            fail("%s %s: %s" % (" ".join(self.command), " ".join(args), r.stdout.strip().splitlines()[-1:]))
        return r.stdout

    def container(self, service):
        if service not in self.ids:
            cid = self.run("ps", "-q", service).strip()
            if not cid:
                fail("no container for service %s" % service)
            self.ids[service] = cid
        return self.ids[service]

    def state(self, service):
        out = docker("inspect", "-f", "{{.State.Running}} {{.State.ExitCode}} {{.State.Pid}} {{.State.StartedAt}}",
                     self.container(service)).split()
        return {"running": out[0] == "true", "exit": int(out[1]), "pid": int(out[2]), "started": out[3]}


def docker(*args):
    r = subprocess.run(["docker"] + list(args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=60)
    if r.returncode:
        fail("docker %s: %s" % (" ".join(args), r.stdout.strip()))
    return r.stdout


def obi_stats(ctl, dpid):
    """The OBI's own counters (GlobalStats through the management API)."""
    s = http_json(ctl.base + "/api/obis/%d/stats" % dpid)
    return {k: v for k, v in (s or {}).items() if isinstance(v, (int, float))}


def finished_at(stamp):
    """Seconds since the epoch of an engine time stamp (RFC 3339, UTC, up to nanoseconds)."""
    m = re.match(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?Z$", stamp)
    if not m:
        fail("cannot read the engine's time stamp %r" % stamp)
    whole = calendar.timegm(time.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S"))
    return whole + float("0." + (m.group(2) or "0"))


class ContainerController(Controller):
    """The controller container: management API through its published port, log through the engine."""

    def __init__(self, base, cid):
        super().__init__(base, None)
        self.cid = cid

    def log_text(self):
        r = subprocess.run(["docker", "logs", self.cid], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=60)
        return r.stdout.decode(errors="replace")


class Receiver:
    """Raw sockets in the receiver container's network namespace, one on each path's
    interface, and the IPv4 packets they saw since the last reset()."""

    def __init__(self, compose):
        cid = compose.container("receiver")
        pid = compose.state("receiver")["pid"]
        self.rx = {}
        for path, subnet in OUT_SUBNET.items():
            out = docker("exec", cid, "ip", "-o", "-4", "addr", "show", "to", subnet).split()
            if len(out) < 2:
                fail("the receiver has no interface in %s" % subnet)
            with inside("/proc/%d/ns/net" % pid):
                s = raw_socket(out[1])
            # a whole replay fits in the queue even while this process is busy
            s.setsockopt(socket.SOL_SOCKET, 33, 256 << 20)          # SO_RCVBUFFORCE
            self.rx[path] = s
            say("     receiver: path %d arrives on its %s (%s)" % (path, out[1], subnet))
        self.reset()

    def reset(self):
        self.poll(0)
        self.got = {p: collections.Counter() for p in self.rx}

    def _on_frame(self, path, data, pkttype):
        pkt = ip_packet(data)
        if pkt is not None and pkttype != 4:          # 4: PACKET_OUTGOING
            self.got[path][pkt] += 1

    def poll(self, wait):
        drain(self.rx, self._on_frame, wait)


ATTEMPTS = 3   # replays of one phase when an OBI could not read the whole trace (see replay)


def replay(compose, rcv, traces, ctl, alerts, phase, title):
    """Runs the replayer and checks what the receiver got per path and class, and the alerts.

    Exact in every run: no packet of a dropped class arrives, every packet that arrives is
    one of the trace's allowed ones, unchanged, and everything an OBI forwarded (its own
    counter) arrives. Complete: every allowed packet arrives. An OBI on a host too busy to
    give it CPU in time loses frames before it reads them (its socket's ring overflows;
    its counter of frames read falls short of the trace): such a run is reported and the
    replay repeated, up to ATTEMPTS times; alerts are expected for what the OBIs processed.
    """
    say("phase %d: %s" % (phase, title))
    for attempt in range(1, ATTEMPTS + 1):
        short = replay_once(compose, rcv, traces, ctl, alerts, phase, attempt == 1)
        if not short:
            break
        say("     note: %s; the replay is repeated" % "; ".join(short))
    else:
        fail("phase %d: in %d replays the OBIs never read the whole traces (host too busy?)" % (phase, ATTEMPTS))
    for p in traces:
        lost = docker("logs", compose.container("obi%d" % p)).count("cannot deliver Alert")
        if lost:
            say("     note: OBI %d logged 'cannot deliver Alert' %d time(s): a batch of alerts the controller "
                "did not take within the OBI's timeout is not sent again" % (p, lost))
    check_alerts(ctl, alerts, ALERT_TEXT)


def replay_once(compose, rcv, traces, ctl, alerts, phase, first):
    """One run of the replayer; returns what fell short of complete delivery (empty: nothing)."""
    rcv.reset()
    before = {p: obi_stats(ctl, p) for p in traces}
    compose.run(*(("up", "-d", "--no-deps", "replayer") if first and phase == 1 else ("start", "replayer")))
    deadline = time.monotonic() + 180
    while compose.state("replayer")["running"]:
        rcv.poll(0.2)
        if time.monotonic() > deadline:
            fail("the replayer still runs after 180 s")
    st = compose.state("replayer")
    if st["exit"] != 0:
        fail("the replayer exited with status %d: %s"
             % (st["exit"], docker("logs", "--tail", "5", compose.container("replayer")).strip()))
    want = {p: traces[p].passed for p in traces}
    settle = time.monotonic() + 5
    while time.monotonic() < settle and any(sum(rcv.got[p].values()) < sum(want[p].values()) for p in traces):
        rcv.poll(0.2)
    rcv.poll(0.5)                                   # stragglers and packets that should not come
    say("     replayer done (exit 0): 2 x %d packets sent" % PACKETS)
    after = {p: obi_stats(ctl, p) for p in traces}
    short = []
    for p in sorted(traces):
        t = traces[p]
        seen = {k: after[p].get(k, 0) - before[p].get(k, 0) for k in ("packets_in", "packets_out", "packets_dropped")}
        got = collections.Counter()
        for pkt, n in rcv.got[p].items():
            got[classify(pkt) if pkt in t.sent else "not from trace %d" % p] += n
        arrived = sum(rcv.got[p].values())
        counters = ("OBI %d read %d frames (the trace has %d), forwarded %d, dropped %d; the receiver got %d"
                    % (p, seen["packets_in"], PACKETS, seen["packets_out"], seen["packets_dropped"], arrived))
        desc = ", ".join("%s %d/%d" % (c, got[c], t.by_class[c]) for c in FATES)
        wrong = [c for c in got if c not in FATES or not FATES[c].passes]
        changed = sum(n - t.passed[pkt] for pkt, n in rcv.got[p].items() if n > t.passed[pkt])
        if wrong or changed or arrived != seen["packets_out"]:
            fail("phase %d path %d: received per class %s (%d packets not among the trace's allowed ones); %s"
                 % (phase, p, dict(got), changed, counters))
        for c, f in FATES.items():
            if f.alert_app:
                alerts[(f.alert_app, p)] += got[c]
        if rcv.got[p] == t.passed:
            say("ok   path %d (OBI %d) delivered per class, received/sent: %s" % (p, p, desc))
            say("     OBI %d's own counters: read %d, forwarded %d, dropped %d"
                % (p, seen["packets_in"], seen["packets_out"], seen["packets_dropped"]))
        elif seen["packets_in"] < PACKETS:
            short.append("path %d: OBI %d read only %d of %d frames (%s), all it allowed arrived"
                         % (p, p, seen["packets_in"], PACKETS, desc))
        else:
            fail("phase %d path %d: received per class %s although OBI %d read the whole trace; %s"
                 % (phase, p, dict(got), p, counters))
    return short


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="directory for logs")
    ap.add_argument("--compose", required=True, help="the compose command, e.g. 'docker compose'")
    args = ap.parse_args()
    compose = Compose(args.compose)
    base = "https://127.0.0.1:%s" % os.environ["OPENBOX_CONTROLLER_PORT"]

    traces = {p: Trace(seed) for p, seed in TRACES}
    for p, t in sorted(traces.items()):
        say("trace %d (seed %d): %s" % (p, dict(TRACES)[p], ", ".join(
            "%s %d (%s)" % (c, t.by_class[c], "passes" if f.passes else "dropped") for c, f in FATES.items())))

    say("up: controller, obi1, obi2, receiver (the controller healthy first)")
    t0 = time.monotonic()
    compose.run("up", "-d", "controller", "obi1", "obi2", "receiver", timeout=240)
    ctl = ContainerController(base, compose.container("controller"))
    views = wait_for("both OBIs UP with their graph", lambda: running_obis(base, [1, 2]), 90, who="compose: FAIL")
    for v in views:
        check(sorted(v["apps"] or []) == ["firewall", "ips"] and str(v["endpoint"]).startswith("https://10.99.0.1"),
              "OBI %d UP at %s (mutual TLS), graph %s, apps %s" % (v["dpid"], v["endpoint"], v["graphStatus"], v["apps"]),
              "OBI %d: endpoint %s, apps %s; expected https://10.99.0.1%d:3636 and firewall, ips"
              % (v["dpid"], v["endpoint"], v["apps"], v["dpid"]))
    say("     deployment up in %.1f s" % (time.monotonic() - t0))

    rcv = Receiver(compose)
    alerts = collections.Counter()
    replay(compose, rcv, traces, ctl, alerts, 1, "the replayer's traces through both OBIs")
    count_before = ctl.source_count(1)

    # OBI 1 dies: the controller must notice within the keep-alive deadline, counted from
    # the moment the engine saw the container end (the engine's clock is this host's)
    obi1 = compose.container("obi1")
    docker("kill", "-s", "KILL", obi1)                # what `compose kill obi1` does
    wait_for("the controller to mark OBI 1 DOWN", lambda: ctl.obi(1)["state"] == "DOWN",
             KEEPALIVE_TIMEOUT_S + 10, who="compose: FAIL", poll=0.05)
    t_down = time.time()
    t_dead = finished_at(docker("inspect", "-f", "{{.State.FinishedAt}}", obi1).strip())
    say("OBI 1 killed (SIGKILL to its container)")
    dt = t_down - t_dead
    limit = KEEPALIVE_TIMEOUT_S + 1.0
    check(dt <= limit, "OBI 1 DOWN after %.2f s (deadline %d s, limit %.1f s)" % (dt, KEEPALIVE_TIMEOUT_S, limit),
          "OBI 1 marked DOWN only after %.2f s (keep-alive timeout %d s)" % (dt, KEEPALIVE_TIMEOUT_S))
    v1, v2 = ctl.obi(1), ctl.obi(2)
    log = ctl.log_text()
    check(v1["downCount"] == 1 and "OBI 1 is down" in log,
          "InstanceDown for OBI 1: downCount 1, controller log says 'OBI 1 is down'",
          "after the kill: downCount %s, log line 'OBI 1 is down' %s"
          % (v1["downCount"], "present" if "OBI 1 is down" in log else "missing"))
    check(v2["state"] == "UP" and v2["downCount"] == 0, "OBI 2 still UP",
          "OBI 2 is %s (downCount %s) after OBI 1 was killed" % (v2["state"], v2["downCount"]))

    # OBI 1 comes back: Hello -> UP -> graph pushed again
    started = compose.state("obi1")["started"]
    compose.run("start", "obi1")
    say("OBI 1 started again (start obi1)")
    wait_for("OBI 1 UP again", lambda: ctl.obi(1)["state"] == "UP", 30, who="compose: FAIL")
    count = wait_for("OBI 1 to hold its graph again (FromDevice count readable from the OBI)",
                     lambda: ctl.source_count(1) is not None and (ctl.source_count(1),), 30,
                     who="compose: FAIL")[0]
    v1 = ctl.obi(1)
    back = re.search(r"OBI 1 said Hello .*, back up", ctl.log_text())
    check(str(v1["graphStatus"]).startswith("running") and back,
          "OBI 1 back up (%s), graph re-pushed: the new OBI's FromDevice blocks answer" % v1["graphStatus"],
          "OBI 1 after restart: graphStatus %s, log line 'back up' %s"
          % (v1["graphStatus"], "present" if back else "missing"))
    check(compose.state("obi1")["started"] != started and count < count_before,
          "a new OBI 1 process got the graph (container started again; FromDevice count %d, was %d)"
          % (count, count_before),
          "OBI 1 after restart: container start time %s (was %s), FromDevice count %d (was %d)"
          % (compose.state("obi1")["started"], started, count, count_before))

    replay(compose, rcv, traces, ctl, alerts, 2, "the replayer again, OBI 1 restarted")
    for svc in ("controller", "obi1", "obi2", "receiver"):
        if not compose.state(svc)["running"]:
            fail("%s exited (status %d) during the test" % (svc, compose.state(svc)["exit"]))
    say("PASS: containers over mutual TLS, delivery and drops per class, per-app alerts, InstanceDown "
        "and graph re-push")


if __name__ == "__main__":
    main()
