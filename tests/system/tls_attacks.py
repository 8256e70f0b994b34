"""Attacks on the mutual TLS of the control channel, against the real controller and a real
OBI on loopback ports (driven by tls_attacks.sh, which makes the certificates).

  (a) no client certificate: SetProcessingGraph and AddCustomModule to the OBI are refused
      at the handshake and the running graph is unchanged;
  (b) a certificate from another CA (with the controller's name): refused;
  (c) a valid OBI certificate (obi-7) from the right CA: refused with HTTP 403 and
      FORBIDDEN/NOT_PERMITTED (only the controller may program an OBI);
  (d) an expired controller certificate from the right CA: refused;
  (e) at the controller: a Hello without a client certificate, and a Hello for dpid 5 with
      obi-6's certificate, are refused, while OBI 5 stays UP with its graph and endpoint.
Then a control: the same SetProcessingGraph with the controller's certificate is taken
(the source block of the real graph disappears), so the graph check above can fail.

Usage: tls_attacks.py --pki DIR --work DIR  (OPENBOX_PKI=DIR for the controller's API)
"""
import argparse
import base64
import http.client
import json
import os
import socket
import ssl
import subprocess
import sys
import time
import urllib.error

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "apps", "demo"))

from launch import (SAMPLE, Transport, controller_command, controller_up, http_json, obi_command,  # noqa: E402
                    running_obis, wait_for)

failures = []


def say(msg):
    print("tls_attacks: " + msg, flush=True)


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


def post(port, path, body, cert=None, key=None, ca=None):
    """POST over TLS as a client holding cert/key (none when None), checking the server
    against ca. Returns (status, body) or ("refused", reason) when no HTTP answer came."""
    ctx = ssl.create_default_context(cafile=ca)
    if cert:
        ctx.load_cert_chain(cert, key)
    try:
        c = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=10)
        c.request("POST", path, body=json.dumps(body), headers={"Content-Type": "application/json"})
        r = c.getresponse()
        return r.status, r.read().decode(errors="replace")
    except (ssl.SSLError, ConnectionError, OSError) as e:
        return "refused", "%s: %s" % (type(e).__name__, e)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pki", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--module", required=True, help="a custom module (.so) for AddCustomModuleRequest")
    args = ap.parse_args()
    pki = args.pki
    p = lambda name: os.path.join(pki, name)  # noqa: E731
    ca = p("ca.crt")
    transport = Transport(directory=pki)
    procs = []
    try:
        ctl_port, obi_port = free_port(), free_port()
        base = transport.url("127.0.0.1", ctl_port)
        ctl_log = os.path.join(args.work, "controller.log")
        procs.append(subprocess.Popen(
            controller_command(["firewall"], os.path.join(args.work, "apps"), ctl_port,
                               ["--openbox.keepalive-interval=1s",
                                "--openbox.state-dir=" + os.path.join(args.work, "state")],
                               heap="384m", transport=transport),
            stdout=open(ctl_log, "w"), stderr=subprocess.STDOUT, cwd=SAMPLE))
        children = [("the controller", procs[-1], ctl_log)]
        wait_for("the controller", lambda: controller_up(base), 90, who="tls_attacks", children=children)
        trace = os.path.join(args.work, "in.pcap")
        subprocess.run([sys.executable, os.path.join(SAMPLE, "make_trace.py"), trace, "--packets", "2000",
                        "--seed", "5"], check=True, stdout=subprocess.DEVNULL)
        obi_log = os.path.join(args.work, "obi-5.log")
        devices = {"in": "pcap:" + trace, "out": "pcap:" + os.path.join(args.work, "out.pcap")}
        procs.append(subprocess.Popen(obi_command(5, "127.0.0.1:%d" % obi_port, base, devices, transport=transport),
                                      stdout=open(obi_log, "w"), stderr=subprocess.STDOUT))
        children.append(("OBI 5", procs[-1], obi_log))
        view = wait_for("OBI 5 UP with its graph over TLS", lambda: running_obis(base, [5]), 60, who="tls_attacks",
                        children=children)[0]
        graph = http_json(base + "/api/obis/5/graph")["graph"]
        source = next(b["name"] for b in graph["blocks"] if b["type"] in ("FromDevice", "FromDump"))

        def source_count():
            return int(http_json(base + "/api/obis/5/blocks/%s/count" % source, timeout=10))

        def current_count():
            """The source's count, or why it cannot be read."""
            try:
                return source_count()
            except urllib.error.HTTPError as e:
                return "HTTP %d %s" % (e.code, e.read().decode(errors="replace")[:300])

        packets = wait_for("OBI 5 to read its trace", lambda: source_count() == 2000 and 2000, 60,
                           who="tls_attacks", children=children)
        say("OBI 5 UP at %s over TLS, graph %s, source %s read %d packets"
            % (view["endpoint"], view["graphStatus"], source, packets))

        intruder = {"type": "SetProcessingGraphRequest", "xid": 900001,
                    "blocks": [{"type": "FromDump", "name": "intruder_in", "config": {"filename": trace}},
                               {"type": "Discard", "name": "intruder"}],
                    "connectors": [{"src": "intruder_in", "src_port": 0, "dst": "intruder", "dst_port": 0}]}
        with open(args.module, "rb") as f:
            module = {"type": "AddCustomModuleRequest", "xid": 900002, "module_name": "intruder",
                      "module_content": base64.b64encode(f.read()).decode(), "content_type": "application/octet-stream",
                      "content_transfer_encoding": "base64", "translation": {}}
        attackers = [
            ("(a) no client certificate", None, None),
            ("(b) another CA's controller certificate", p("other/controller.crt"), p("other/controller.key")),
            ("(d) an expired controller certificate", p("expired.crt"), p("expired.key")),
        ]
        for what, cert, key in attackers:
            for msg in (intruder, module):
                st, why = post(obi_port, "/message/" + msg["type"], msg, cert, key, ca)
                check(st == "refused", "%s: %s refused at the handshake (%s)" % (what, msg["type"], why),
                      "%s: %s got HTTP %s: %s" % (what, msg["type"], st, why[:200]))
        for msg in (intruder, module):
            st, body = post(obi_port, "/message/" + msg["type"], msg, p("obi-7.crt"), p("obi-7.key"), ca)
            try:
                err = json.loads(body) if st == 403 else {}
            except ValueError:
                err = {}
            check(st == 403 and err.get("error_type") == "FORBIDDEN" and err.get("error_subtype") == "NOT_PERMITTED",
                  "(c) obi-7's certificate: %s answered 403 FORBIDDEN/NOT_PERMITTED" % msg["type"],
                  "(c) obi-7's certificate: %s got %s: %s" % (msg["type"], st, body[:200]))
        time.sleep(1.0)   # anything accepted would have been executed by now
        still, count = running_obis(base, [5]), current_count()
        check(still is not None and count == packets,
              "OBI 5 still UP with its graph: %s readable, count %d unchanged" % (source, packets),
              "OBI 5 after the attacks: %s, %s count %s" % (still, source, count))

        # (e) at the controller
        hello = {"type": "Hello", "xid": 1, "dpid": 5, "version": "1.1.0", "source_addr": "127.0.0.1",
                 "source_port": free_port(), "capabilities": {}}
        st, body = post(ctl_port, "/message/Hello", dict(hello, dpid=77), None, None, ca)
        check(st == "refused" or (isinstance(st, int) and st >= 400),
              "(e) Hello without a client certificate refused (%s)" % st,
              "(e) Hello without a client certificate got %s: %s" % (st, body[:200]))
        st, body = post(ctl_port, "/message/Hello", hello, p("obi-6.crt"), p("obi-6.key"), ca)
        try:
            err = json.loads(body) if isinstance(st, int) else {}
        except ValueError:
            err = {}
        check(st == 403 and err.get("error_type") == "FORBIDDEN",
              "(e) Hello for dpid 5 with obi-6's certificate: 403 %s/%s" % (err.get("error_type"),
                                                                          err.get("error_subtype")),
              "(e) Hello for dpid 5 with obi-6's certificate got %s: %s" % (st, body[:200]))
        time.sleep(2.5)   # past a keep-alive interval
        obis = {o["dpid"]: o for o in http_json(base + "/api/obis")}
        check(77 not in obis, "(e) no OBI 77 registered from the certificate-less Hello",
              "(e) the certificate-less Hello registered OBI 77: %s" % obis.get(77))
        v, count = running_obis(base, [5]), current_count()
        check(v is not None and v[0]["endpoint"] == view["endpoint"] and count == packets,
              "(e) OBI 5 still UP at %s with its graph" % view["endpoint"],
              "(e) OBI 5 after the forged Hello: %s, %s count %s" % (v or obis.get(5), source, count))

        # control: the same graph from the controller's certificate is taken
        st, body = post(obi_port, "/message/SetProcessingGraphRequest", intruder, p("controller.crt"),
                        p("controller.key"), ca)

        def source_gone():
            try:
                source_count()
                return False
            except Exception:   # noqa: BLE001 - the read fails once the graph is replaced
                return True
        gone = st == 200 and wait_for("the control graph", source_gone, 10, who="tls_attacks")
        check(gone, "control: the controller's certificate installs the same graph (%s gone)" % source,
              "control: the controller's certificate could not install the graph (%s: %s)" % (st, body[:200]))
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
    if failures:
        say("FAILED: %d check(s): %s" % (len(failures), "; ".join(failures)))
        return 1
    say("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
