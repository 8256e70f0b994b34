"""`./openbox ctl` against the real controller (firewall and ips) and a real OBI (dpid 5, the
sample trace from a pcap) over mutual TLS (driven by ctl.sh, which makes the work directory):

  every command as a table and as --json, compared with what the management API answers:
  obis, apps, app stop|start|reload, graph (table, --dot, --json), stats, rules, alerts with
  each filter, and alerts --follow printing the alerts of a restarted OBI's trace as they come
  (from the controller's alert stream, which ends every 2 s here: each alert once across the
  reconnections);
  the errors, each one line with its exit code: unknown application (5) and OBI (5), a
  viewer stopping an application (4), a wrong token (4), no controller there (3), a
  controller certificate from another CA (3), bad arguments (2).

Usage: ctl_checks.py --pki DIR --work DIR  (OPENBOX_PKI=DIR)
"""
import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "apps", "demo"))

from launch import (SAMPLE, Transport, controller_command, controller_up, http_json, management_credentials,  # noqa: E402
                    obi_command, running_obis, wait_for)

failures = []


def say(msg):
    print("ctl: " + msg, flush=True)


def check(cond, ok_msg, fail_msg):
    if cond:
        say("ok: " + ok_msg)
    else:
        failures.append(fail_msg)
        say("FAIL: " + fail_msg)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Ctl:
    def __init__(self, url, env):
        self.url, self.env = url, env

    def __call__(self, *args, url=None):
        """(exit code, stdout, stderr) of ./openbox ctl --url URL ARGS."""
        r = subprocess.run([os.path.join(ROOT, "openbox"), "ctl", "--url", url or self.url] + list(args),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.env, timeout=120)
        return r.returncode, r.stdout, r.stderr

    def popen(self, *args):
        return subprocess.Popen([sys.executable, os.path.join(ROOT, "tools", "ctl.py"), "--url", self.url] + list(args),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.env)


def header_and_rows(text):
    """The column names of a table (split on runs of 2+ spaces) and its row lines."""
    lines = [l for l in text.splitlines() if l.strip()]
    return re.split(r"\s{2,}", lines[0].strip()), lines[1:]


def aligned(text):
    """Every cell of every row starts where its column's name starts in the header line."""
    lines = text.splitlines()
    head = lines[0]
    starts = [i for i in range(len(head)) if head[i] != " " and (i == 0 or head[i - 2:i] == "  ")]
    for row in lines[1:]:
        for s in starts:
            if s < len(row) and (row[s] == " " or (s > 0 and row[s - 1] != " ")):
                return False
    return len(lines) > 1


def one_line_error(rc, err, code, *needles):
    lines = err.strip().splitlines()
    return rc == code and len(lines) == 1 and lines[0].startswith("openbox ctl: ") and all(n in err for n in needles)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pki", required=True)
    ap.add_argument("--other-pki", required=True, help="another CA, for the untrusted certificate case")
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    transport = Transport(directory=args.pki)
    procs = []
    env = dict(os.environ, OPENBOX_PKI=args.pki)
    env.pop("OPENBOX_URL", None)
    env.pop("OPENBOX_TOKEN", None)
    try:
        ctl_port, obi_port = free_port(), free_port()
        base = transport.url("127.0.0.1", ctl_port)
        ctl = Ctl(base, env)
        ctl_log = os.path.join(args.work, "controller.log")
        procs.append(subprocess.Popen(
            controller_command(["firewall", "ips"], os.path.join(args.work, "apps"), ctl_port,
                               ["--openbox.keepalive-interval=1s", "--openbox.alert-history=100000",
                                # alert streams end every 2 s: alerts --follow resumes with Last-Event-ID
                                "--openbox.alert-stream.timeout=2s",
                                "--openbox.state-dir=" + os.path.join(args.work, "state")],
                               heap="384m", transport=transport),
            stdout=open(ctl_log, "w"), stderr=subprocess.STDOUT, cwd=SAMPLE))
        children = [("the controller", procs[-1], ctl_log)]
        wait_for("the controller", lambda: controller_up(base), 90, who="ctl", children=children)
        trace = os.path.join(args.work, "in.pcap")
        subprocess.run([sys.executable, os.path.join(SAMPLE, "make_trace.py"), trace, "--packets", "400",
                        "--seed", "7"], check=True, stdout=subprocess.DEVNULL)
        devices = {"in": "pcap:" + trace, "out": "pcap:" + os.path.join(args.work, "out.pcap")}

        def start_obi(run):
            log = os.path.join(args.work, "obi-5-%d.log" % run)
            p = subprocess.Popen(obi_command(5, "127.0.0.1:%d" % obi_port, base, devices, transport=transport),
                                 stdout=open(log, "w"), stderr=subprocess.STDOUT)
            procs.append(p)
            return p, log

        obi, obi_log = start_obi(1)
        children.append(("OBI 5", obi, obi_log))
        wait_for("OBI 5 UP with its graph", lambda: running_obis(base, [5]), 60, who="ctl", children=children)
        wait_for("OBI 5 to read its trace", lambda: http_json(base + "/api/obis/5/stats")["packets_in"] == 400, 60,
                 who="ctl", children=children)
        wait_for("alerts of both applications",
                 lambda: {a["app"] for a in http_json(base + "/api/alerts?limit=1000")} >= {"firewall", "ips"}, 30,
                 who="ctl", children=children)
        say("controller at %s, OBI 5 read its trace of 400 packets" % base)

        # ---- obis
        rc, out, err = ctl("obis")
        cols, rows = header_and_rows(out)
        row5 = [r for r in rows if r.split()[0] == "5"]
        check(rc == 0 and cols[:4] == ["DPID", "STATE", "ENDPOINT", "APPS"] and len(row5) == 1
              and row5[0].split()[1] == "UP" and "firewall,ips" in row5[0],
              "obis: a table with OBI 5 UP running firewall,ips", "obis: rc %d, %r %r" % (rc, out, err))
        api = http_json(base + "/api/obis")
        check(aligned(out), "obis: columns aligned under their headers", "obis: columns not aligned: %r" % out)
        rc, out, _ = ctl("--json", "obis")
        got = json.loads(out)
        check(rc == 0 and [o["dpid"] for o in got] == [o["dpid"] for o in api] and got[0]["state"] == "UP",
              "obis --json: the API's list", "obis --json: %r" % out[:300])

        # ---- apps, app stop/start/reload
        rc, out, _ = ctl("apps")
        cols, rows = header_and_rows(out)
        states = {r.split()[0]: r.split()[2] for r in rows}
        check(rc == 0 and cols[:3] == ["NAME", "PRIORITY", "STATE"] and states == {"firewall": "RUNNING", "ips": "RUNNING"},
              "apps: firewall and ips RUNNING", "apps: %r" % out)
        rc, out, _ = ctl("--json", "apps")
        check(rc == 0 and sorted(a["name"] for a in json.loads(out)) == ["firewall", "ips"],
              "apps --json: both applications", "apps --json: %r" % out[:300])
        rc, out, err = ctl("app", "stop", "ips")
        check(rc == 0 and "app ips: stop done, now STOPPED" in out, "app stop ips: STOPPED",
              "app stop: rc %d %r %r" % (rc, out, err))
        rc, out, _ = ctl("apps")
        check("STOPPED" in [r.split()[2] for r in header_and_rows(out)[1] if r.startswith("ips")],
              "apps: ips shows STOPPED", "apps after stop: %r" % out)
        rc, out, err = ctl("--json", "app", "start", "ips")
        check(rc == 0 and json.loads(out).get("ok") is True and json.loads(out).get("state") == "RUNNING",
              "app start ips --json: ok, RUNNING", "app start: rc %d %r %r" % (rc, out, err))
        rc, out, err = ctl("app", "reload", "firewall")
        check(rc == 0 and "app firewall: reload done" in out, "app reload firewall: done",
              "app reload: rc %d %r %r" % (rc, out, err))

        # ---- graph
        view = http_json(base + "/api/obis/5/graph")
        rc, out, _ = ctl("graph", "5")
        cols, rows = header_and_rows(out.split("\n", 1)[1])
        names = [r.split()[0] for r in rows]
        check(rc == 0 and out.startswith("OBI 5: %d blocks" % len(view["graph"]["blocks"]))
              and cols == ["BLOCK", "TYPE", "IMPLEMENTS"] and sorted(names) == sorted(b["name"] for b in view["graph"]["blocks"])
              and any("firewall." in r for r in rows) and any("ips." in r for r in rows),
              "graph 5: every merged block with the application blocks it implements", "graph: %r" % out[:500])
        rc, out, _ = ctl("graph", "5", "--dot")
        check(rc == 0 and out.startswith("digraph obi_5 {") and out.count(" -> ") == len(view["graph"]["connectors"]),
              "graph 5 --dot: one edge per connector", "graph --dot: %r" % out[:300])
        rc, out, _ = ctl("--json", "graph", "5")
        check(rc == 0 and json.loads(out)["graph"] == view["graph"], "graph 5 --json: the API's graph",
              "graph --json differs")

        # ---- stats
        rc, out, _ = ctl("stats", "5")
        figures = dict(l.split(None, 1) for l in out.splitlines()[2:])
        check(rc == 0 and out.startswith("OBI 5\nFIGURE") and figures.get("packets_in") == "400"
              and "bytes_in" in figures, "stats 5: packets_in 400 in the table", "stats: %r" % out[:400])
        rc, out, _ = ctl("--json", "stats", "5")
        check(rc == 0 and json.loads(out)["packets_in"] == 400, "stats 5 --json: packets_in 400",
              "stats --json: %r" % out[:300])

        # ---- rules
        api_rules = http_json(base + "/api/apps/firewall/rules?dpid=5")
        rc, out, _ = ctl("rules", "firewall", "--dpid", "5")
        cols, rows = header_and_rows(out)
        n_rules = sum(len(b["rules"]) for b in api_rules)
        # (the reloads above rebuilt the classifiers: their hits count from then on)
        want = [str(r["hits"]) if r["hits"] is not None else "-" for b in api_rules for r in b["rules"]]
        check(rc == 0 and cols == ["BLOCK", "TYPE", "RULE", "HITS", "RULE TEXT"] and n_rules > 0
              and [r.split()[3] for r in rows] == want and aligned(out),
              "rules firewall --dpid 5: its %d rules with the API's hits" % n_rules, "rules: %r" % out[:400])
        rc, out, _ = ctl("--json", "rules", "firewall")
        check(rc == 0 and [b["block"] for b in json.loads(out)] == [b["block"] for b in api_rules],
              "rules firewall --json: the API's blocks", "rules --json: %r" % out[:300])
        rc, _, err = ctl("rules", "nosuch")
        check(one_line_error(rc, err, 5, "nosuch"), "rules of an unknown application: exit 5, one line",
              "rules nosuch: rc %d %r" % (rc, err))

        # ---- alerts
        everything = http_json(base + "/api/alerts?limit=10000")
        rc, out, _ = ctl("alerts", "--limit", "10000")
        cols, rows = header_and_rows(out)
        check(rc == 0 and cols == ["TIME", "APP", "DPID", "BLOCK", "SEVERITY", "MESSAGE"] and len(rows) == len(everything),
              "alerts: a table of all %d alerts" % len(everything), "alerts: %d rows for %d alerts" % (len(rows), len(everything)))
        rc, out, _ = ctl("--json", "alerts", "--app", "ips", "--dpid", "5", "--limit", "10000")
        got = json.loads(out)
        check(rc == 0 and got and all(a["app"] == "ips" and a["dpid"] == 5 for a in got)
              and len(got) == sum(1 for a in everything if a["app"] == "ips"),
              "alerts --app ips --dpid 5 --json: ips's %d alerts only" % len(got), "alerts --app: %r" % out[:300])
        rc, out, _ = ctl("alerts", "--app", "firewall", "--limit", "3")
        rows = header_and_rows(out)[1]
        check(rc == 0 and len(rows) == 3 and all(r.split()[1] == "firewall" for r in rows),
              "alerts --app firewall --limit 3: three firewall rows", "alerts --limit: %r" % out)
        top = max(a["severity"] for a in everything)
        rc, out, _ = ctl("--json", "alerts", "--severity", str(top), "--limit", "10000")
        got = json.loads(out)
        check(rc == 0 and got and all(a["severity"] >= top for a in got)
              and len(got) == sum(1 for a in everything if a["severity"] >= top),
              "alerts --severity %d: only alerts of that severity or more" % top, "alerts --severity: %r" % out[:300])
        rc, out, _ = ctl("alerts", "--dpid", "77")
        check(rc == 0 and out.strip() == "no alerts", "alerts --dpid 77: no alerts", "alerts --dpid 77: %r" % out)

        # alerts --follow: the alerts of OBI 5's restarted trace appear as they come, each once
        # although the stream ends every 2 s and ctl reconnects with Last-Event-ID
        follow = ctl.popen("--json", "alerts", "--follow", "--app", "firewall", "--limit", "1")
        procs.append(follow)
        first = follow.stdout.readline()
        before = len([a for a in http_json(base + "/api/alerts?limit=10000") if a["app"] == "firewall"])
        obi.kill()
        obi.wait()
        wait_for("OBI 5 DOWN", lambda: http_json(base + "/api/obis/5")["obi"]["state"] == "DOWN", 30, who="ctl")
        obi, obi_log = start_obi(2)
        wait_for("OBI 5 to read its trace again",
                 lambda: len([a for a in http_json(base + "/api/alerts?limit=10000") if a["app"] == "firewall"])
                 >= 2 * before, 60, who="ctl")
        time.sleep(2.5)   # the last ones through the stream (it may be reconnecting)
        follow.send_signal(signal.SIGINT)
        rest, ferr = follow.communicate(timeout=10)
        followed = [json.loads(l) for l in rest.splitlines() if l.strip()]
        check(first.strip() and json.loads(first)["app"] == "firewall" and len(followed) == before
              and all(a["app"] == "firewall" for a in followed) and follow.returncode == 0,
              "alerts --follow: the newest alert, then the %d new ones of the second run, exit 0 on ^C" % before,
              "alerts --follow: first %r, then %d (expected %d), rc %s, err %r"
              % (first, len(followed), before, follow.returncode, ferr[-300:]))

        # the restarted OBI's trace went through the current graph: its rules counted it
        rc, out, _ = ctl("rules", "firewall", "--dpid", "5")
        total = sum(int(r.split()[3]) for r in header_and_rows(out)[1] if r.split()[3] != "-")
        check(rc == 0 and total >= 400, "rules firewall after the second pass: %d hits" % total,
              "rules after the second pass: %r" % out[:400])

        # ---- errors: one line each, with its exit code
        rc, _, err = ctl("app", "stop", "nosuch")
        check(one_line_error(rc, err, 5, "no application named 'nosuch'"), "unknown application: exit 5, one line",
              "unknown app: rc %d %r" % (rc, err))
        rc, _, err = ctl("stats", "77")
        check(one_line_error(rc, err, 5, "no OBI with dpid 77"), "unknown OBI: exit 5, one line",
              "unknown OBI: rc %d %r" % (rc, err))
        rc, _, err = ctl("--user", management_credentials()["OPENBOX_VIEWER_USER"], "app", "stop", "ips")
        check(one_line_error(rc, err, 4, "403", "OPERATOR"), "viewer stopping an application: exit 4, names the role",
              "viewer: rc %d %r" % (rc, err))
        rc, out, _ = ctl("--user", management_credentials()["OPENBOX_VIEWER_USER"], "apps")
        check(rc == 0 and "ips" in out, "a viewer may list the applications", "viewer apps: rc %d %r" % (rc, out))
        rc, _, err = ctl("--token", "wrong", "obis")
        check(one_line_error(rc, err, 4, "401", "not accepted"), "wrong token: exit 4, one line",
              "wrong token: rc %d %r" % (rc, err))
        rc, _, err = ctl("obis", url="https://127.0.0.1:%d" % free_port())
        check(one_line_error(rc, err, 3, "cannot reach the controller"), "no controller there: exit 3, one line",
              "unreachable: rc %d %r" % (rc, err))
        rc, _, err = ctl("--cacert", os.path.join(args.other_pki, "ca.crt"), "obis")
        check(one_line_error(rc, err, 3, "certificate"), "a controller certificate from another CA: exit 3, one line",
              "other CA: rc %d %r" % (rc, err))
        rc, _, err = ctl("obis", url=base.replace("https:", "http:"))
        check(rc in (1, 3) and len(err.strip().splitlines()) == 1, "plain HTTP to a TLS controller: one line",
              "http to https: rc %d %r" % (rc, err))
        rc, _, err = ctl("graph", "five")
        check(rc == 2 and "not a dpid" in err, "graph five: exit 2 (not a dpid)", "bad dpid: rc %d %r" % (rc, err))
        rc, _, err = ctl("alerts", "--severity", "9")
        check(rc == 2 and "not a severity" in err, "alerts --severity 9: exit 2", "bad severity: rc %d %r" % (rc, err))
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    p.kill()
    if failures:
        say("%d check(s) failed" % len(failures))
        return 1
    say("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
