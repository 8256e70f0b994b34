#!/usr/bin/env python3
"""openbox ctl: the controller's management API from the command line (Python standard library only).

  ./openbox ctl [--url URL] [--token T | --user U] [--cacert FILE] [--json] COMMAND ...

  obis                              the OBIs: state, endpoint, applications, graph status
  apps                              the applications: state, failure mode, what their traffic gets
  app start|stop|reload NAME        act on an application (needs the OPERATOR role)
  graph DPID [--dot]                the merged graph of an OBI: blocks and the application blocks
                                    each implements (--dot: Graphviz)
  alerts [--follow] [--app A] [--dpid N] [--severity S] [--limit N]
                                    recent alerts (severity S or more, 1..5); --follow keeps
                                    printing new ones as they come (the controller's alert
                                    stream, resumed after the last alert on reconnect) until
                                    interrupted
  stats DPID                        an OBI's GlobalStats (packets, bytes, load, memory ...)
  rules APP [--dpid N]              an application's classifier rules with their hits (summed
                                    over the OBIs that are up, or at OBI N)

Tables by default, --json prints what the API answered. The controller is --url, else
$OPENBOX_URL, else https://127.0.0.1:3637. Credentials: --token T (or $OPENBOX_TOKEN), or
--user U with $OPENBOX_PASSWORD (or that user's password in the credentials file), else the
API token of the credentials file ./openbox made ($OPENBOX_CREDENTIALS, else
build/credentials/credentials). HTTPS trusts --cacert, else $OPENBOX_PKI/ca.crt or
build/pki/ca.crt.

Exit codes: 0 done, 1 the controller refused or failed the request, 2 bad usage,
3 controller unreachable, 4 not authenticated or not allowed, 5 unknown application or OBI.
"""
import argparse
import base64
import http.client
import json
import os
import socket
import ssl
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

ROOT = os.environ.get("OPENBOX_ROOT") or os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "apps", "demo"))
import credentials  # noqa: E402  (apps/demo/credentials.py: the format of build/credentials)

EXIT_FAILED, EXIT_USAGE, EXIT_UNREACHABLE, EXIT_AUTH, EXIT_NOT_FOUND = 1, 2, 3, 4, 5
MAX_ANSWER = 64 << 20   # bytes read from one answer at most
MAX_EVENT_LINE = 4 << 20   # bytes of one line of the alert stream at most
STREAM_IDLE_SECONDS = 90   # no byte for this long (the controller sends a comment every 15 s): reconnect
RECONNECT_SECONDS = (0.5, 1, 2, 5)   # waits before reconnecting, the last one repeated


class CtlError(Exception):
    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


# ------------------------------------------------------------------ talking to the controller

class Api:
    def __init__(self, url, auth, cacert):
        self.url = url.rstrip("/")
        self.auth = auth   # (header value, who: for messages)
        self.context = None
        if self.url.startswith("https://"):
            if not os.path.isfile(cacert):
                raise CtlError("%s is https but the CA certificate %s is missing (--cacert FILE)" % (self.url, cacert),
                               EXIT_USAGE)
            self.context = ssl.create_default_context(cafile=cacert)
        elif not self.url.startswith("http://"):
            raise CtlError("--url %s: not an http:// or https:// URL" % url, EXIT_USAGE)

    def call(self, method, path):
        """The decoded JSON answer of a request that must succeed."""
        return self.request(method, path)[1]

    def request(self, method, path, answered=(), timeout=30):
        """(status, decoded answer). HTTP errors whose status is in `answered` are returned
        with their body; any other error is raised as a CtlError with its exit code."""
        req = urllib.request.Request(self.url + path, method=method, data=b"" if method == "POST" else None,
                                     headers={"Accept": "application/json", "Authorization": self.auth[0]})
        try:
            with urllib.request.urlopen(req, timeout=timeout, context=self.context) as r:
                return r.status, _decode(r.read(MAX_ANSWER + 1), path)
        except urllib.error.HTTPError as e:
            raw = e.read(MAX_ANSWER) if e.fp else b""
            if e.code in answered:
                try:
                    return e.code, json.loads(raw)
                except ValueError:
                    return e.code, {"ok": False, "message": raw.decode("utf-8", "replace").strip()}
            raise self._http_error(e.code, method, path, _error_text(raw))
        except urllib.error.URLError as e:
            raise CtlError(_unreachable(self.url, e.reason), EXIT_UNREACHABLE)
        except (socket.timeout, TimeoutError):
            raise CtlError("the controller at %s did not answer within %d s" % (self.url, timeout), EXIT_UNREACHABLE)
        except (ConnectionError, ssl.SSLError) as e:
            raise CtlError(_unreachable(self.url, e), EXIT_UNREACHABLE)

    def _http_error(self, code, method, path, body):
        if code == 401:
            return CtlError("%s: 401: %s was not accepted (check %s, or give --token / --user)"
                            % (self.url, self.auth[1], _credentials_file()), EXIT_AUTH)
        if code == 403:
            return CtlError("%s: 403: %s may not do this%s (starting, stopping and reloading need the OPERATOR "
                            "role: the operator's token or --user with that role)"
                            % (self.url, self.auth[1], ": " + body if body else ""), EXIT_AUTH)
        if code == 404:
            return CtlError(body or "%s: not found" % path, EXIT_NOT_FOUND)
        return CtlError("%s %s: HTTP %d%s" % (method, path, code, ": " + body if body else ""), EXIT_FAILED)


def _decode(raw, path):
    if len(raw) > MAX_ANSWER:
        raise CtlError("%s: the answer is larger than %d MiB" % (path, MAX_ANSWER >> 20), EXIT_FAILED)
    try:
        return json.loads(raw) if raw.strip() else None
    except ValueError:
        raise CtlError("%s: the answer is not JSON (is --url the controller?)" % path, EXIT_FAILED)


def _error_text(raw):
    """The message of a JSON error body ({"error": ...} or Spring's {"message": ...})."""
    try:
        body = json.loads(raw) if raw else {}
    except ValueError:
        return ""
    if not isinstance(body, dict):
        return ""
    msg = body.get("message") or body.get("error") or ""
    return " ".join(str(msg).split())


def _unreachable(url, reason):
    text = str(getattr(reason, "strerror", None) or reason)
    if isinstance(reason, ssl.SSLCertVerificationError) or "CERTIFICATE_VERIFY_FAILED" in text:
        return "cannot reach the controller at %s: its certificate is not signed by the CA given (--cacert): %s" \
               % (url, getattr(reason, "verify_message", text))
    if isinstance(reason, ssl.SSLError) and "WRONG_VERSION_NUMBER" in text:
        return "cannot reach the controller at %s: it does not speak TLS there (a controller run with " \
               "--insecure: --url http://...)" % url
    return "cannot reach the controller at %s: %s (is it running? --url or $OPENBOX_URL)" % (url, text)


def _credentials_file():
    return os.path.join(credentials.directory(), "credentials")


def authorization(args):
    """The Authorization header and a description of who is sending it."""
    token = args.token or os.environ.get("OPENBOX_TOKEN")
    if token:
        return "Bearer " + token, "the token given"
    creds = credentials.load()
    if args.user:
        password = os.environ.get("OPENBOX_PASSWORD")
        if password is None and creds:
            for role in ("OPERATOR", "VIEWER"):
                if creds.get("OPENBOX_%s_USER" % role) == args.user:
                    password = creds.get("OPENBOX_%s_PASSWORD" % role)
        if password is None:
            if not sys.stdin.isatty():
                raise CtlError("--user %s: no password (set $OPENBOX_PASSWORD)" % args.user, EXIT_USAGE)
            import getpass
            password = getpass.getpass("password for %s: " % args.user)
        basic = base64.b64encode(("%s:%s" % (args.user, password)).encode()).decode()
        return "Basic " + basic, "user '%s'" % args.user
    if not creds:
        raise CtlError("no credentials: %s is missing (./openbox controller makes it) and no --token or --user was "
                       "given" % _credentials_file(), EXIT_AUTH)
    return "Bearer " + creds["OPENBOX_API_TOKEN"], "the API token of %s" % _credentials_file()


# ------------------------------------------------------------------ output

def table(headers, rows):
    """Rows as aligned columns under a header line; the last column is not padded."""
    rows = [["" if c is None else str(c) for c in r] for r in rows]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    out = []
    for r in [list(headers)] + rows:
        out.append("  ".join(c.ljust(widths[i]) if i < len(r) - 1 else c for i, c in enumerate(r)).rstrip())
    return "\n".join(out)


def short_time(t):
    """ISO time without fractions of a second: 2026-01-02T03:04:05Z."""
    if not t:
        return "-"
    t = str(t)
    if "." in t:
        t = t.split(".")[0] + ("Z" if t.endswith("Z") else "")
    return t


def show_obis(obis):
    rows = [[o.get("dpid"), o.get("state"), o.get("endpoint"), ",".join(o.get("apps") or []) or "-",
             o.get("blocks"), o.get("downCount"), short_time(o.get("lastSeen")), o.get("graphStatus") or "-",
             o.get("lastError") or ""] for o in obis]
    return table(["DPID", "STATE", "ENDPOINT", "APPS", "BLOCKS", "DOWNS", "LAST SEEN", "GRAPH", "LAST ERROR"], rows)


def show_apps(apps):
    rows = [[a.get("name"), a.get("priority"), a.get("state"), a.get("failureMode"), a.get("action"),
             a.get("source"), a.get("error") or ""] for a in apps]
    return table(["NAME", "PRIORITY", "STATE", "FAILURE MODE", "TRAFFIC", "SOURCE", "ERROR"], rows)


def show_graph(view):
    blocks = (view.get("graph") or {}).get("blocks") or []
    prov = view.get("provenance") or {}
    rows = [[b.get("name"), b.get("type"),
             ", ".join("%s.%s" % (o.get("app"), o.get("block")) for o in prov.get(b.get("name"), [])) or "-"]
            for b in blocks]
    head = "OBI %s: %d blocks, %d connectors; applications %s; composition %s" % (
        view.get("dpid"), len(blocks), len((view.get("graph") or {}).get("connectors") or []),
        ", ".join(view.get("apps") or []) or "none", view.get("composition") or "-")
    lines = [head, table(["BLOCK", "TYPE", "IMPLEMENTS"], rows)]
    if view.get("failure"):
        lines.append("last composition failure: " + view["failure"])
    return "\n".join(lines)


def dot(view):
    def q(s):
        return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'
    graph = view.get("graph") or {}
    prov = view.get("provenance") or {}
    out = ["digraph obi_%s {" % view.get("dpid"), "  rankdir=LR;", "  node [shape=box, fontname=\"monospace\"];"]
    for b in graph.get("blocks") or []:
        owners = ", ".join("%s.%s" % (o.get("app"), o.get("block")) for o in prov.get(b.get("name"), []))
        label = "%s\\n%s%s" % (b.get("name"), b.get("type"), ("\\n" + owners) if owners else "")
        out.append("  %s [label=%s];" % (q(b.get("name")), q(label).replace("\\\\n", "\\n")))
    for c in graph.get("connectors") or []:
        out.append("  %s -> %s [label=%s];" % (q(c.get("src")), q(c.get("dst")),
                                               q("%s:%s" % (c.get("src_port", 0), c.get("dst_port", 0)))))
    out.append("}")
    return "\n".join(out)


def show_stats(dpid, stats):
    order = ["packets_in", "bytes_in", "packets_out", "bytes_out", "packets_dropped", "current_load", "avg_load",
             "uptime", "cpus", "memory_rss", "memory_vms", "memory_usage"]
    keys = [k for k in order if k in stats] + sorted(k for k in stats if k not in order)
    return "OBI %s\n%s" % (dpid, table(["FIGURE", "VALUE"], [[k, _number(stats[k])] for k in keys]))


def _number(v):
    if isinstance(v, float):
        return ("%.3f" % v).rstrip("0").rstrip(".") if v != int(v) else str(int(v))
    return json.dumps(v) if isinstance(v, (dict, list)) else str(v)


def show_rules(app, blocks):
    rows = []
    for b in blocks:
        for r in b.get("rules") or []:
            hits = r.get("hits")
            rows.append([b.get("block"), b.get("type"), r.get("index"), "-" if hits is None else hits, r.get("label")])
    if not rows:
        return "application %s has no classifier rules" % app
    return table(["BLOCK", "TYPE", "RULE", "HITS", "RULE TEXT"], rows)


def alert_rows(alerts):
    return [[short_time(a.get("time")), a.get("app") or "(unattributed)", a.get("dpid"),
             a.get("block") or a.get("mergedBlock"), a.get("severity"), a.get("message")] for a in alerts]


ALERT_HEADERS = ["TIME", "APP", "DPID", "BLOCK", "SEVERITY", "MESSAGE"]


# ------------------------------------------------------------------ commands

def cmd_alerts(api, args, out):
    q = {"limit": args.limit}
    if args.app:
        q["app"] = args.app
    if args.dpid is not None:
        q["dpid"] = args.dpid
    if args.severity:
        q["minSeverity"] = args.severity
    filters = {k: v for k, v in q.items() if k != "limit"}
    # --follow opens the stream before reading the history, so nothing raised in between is
    # missed; what the history already shows is not printed again
    stream = AlertStream(api, filters) if args.follow else None
    if stream:
        stream.connect(first=True)
    path = "/api/alerts?" + urllib.parse.urlencode(q)
    alerts = api.call("GET", path)
    if args.json:
        if not args.follow:
            out(json.dumps(alerts, indent=2))
        else:
            for a in alerts:
                out(json.dumps(a))
    else:
        rows = alert_rows(alerts)
        if rows or not args.follow:
            out(table(ALERT_HEADERS, rows) if rows else "no alerts")
    if not args.follow:
        return 0
    sys.stdout.flush()
    shown = set(_key(a) for a in alerts)
    try:
        for a in stream.alerts():
            k = _key(a)
            if k in shown:
                shown.discard(k)   # raised while the history was read: printed already
                continue
            out(json.dumps(a) if args.json else "  ".join(str(c) for c in alert_rows([a])[0]))
            sys.stdout.flush()   # as it comes, also into a pipe
    except KeyboardInterrupt:
        return 0
    finally:
        stream.close()
    return 0


def _key(alert):
    return json.dumps(alert, sort_keys=True)


class AlertStream:
    """The controller's alert stream (GET /api/alerts/stream, Server-Sent Events) with the
    given filters. When it ends (the controller closes streams after a while, or the
    connection drops) it reconnects with Last-Event-ID, so the controller first sends what
    was missed: every alert is yielded once."""

    def __init__(self, api, filters):
        self.api = api
        self.path = "/api/alerts/stream" + ("?" + urllib.parse.urlencode(filters) if filters else "")
        self.last_id = None
        self.response = None

    def connect(self, first=False):
        headers = {"Accept": "text/event-stream", "Authorization": self.api.auth[0]}
        if self.last_id:
            headers["Last-Event-ID"] = self.last_id
        req = urllib.request.Request(self.api.url + self.path, headers=headers)
        try:
            self.response = urllib.request.urlopen(req, timeout=STREAM_IDLE_SECONDS, context=self.api.context)
        except urllib.error.HTTPError as e:
            raw = e.read(MAX_ANSWER) if e.fp else b""
            err = self.api._http_error(e.code, "GET", self.path, _error_text(raw))
            if e.code == 503 or not first and e.code >= 500:
                raise CtlError("alert stream: %s" % err, EXIT_FAILED)
            raise err
        except (urllib.error.URLError, socket.timeout, TimeoutError, ConnectionError, ssl.SSLError) as e:
            if first:
                raise CtlError(_unreachable(self.api.url, getattr(e, "reason", e)), EXIT_UNREACHABLE)
            raise

    def close(self):
        if self.response:
            self.response.close()
            self.response = None

    def alerts(self):
        """Yields the alerts (decoded) as they come, reconnecting as needed; runs until interrupted."""
        failures = 0
        while True:
            if self.response is None:
                try:
                    self.connect()
                    failures = 0
                except (urllib.error.URLError, socket.timeout, TimeoutError, ConnectionError, ssl.SSLError) as e:
                    wait = RECONNECT_SECONDS[min(failures, len(RECONNECT_SECONDS) - 1)]
                    if failures == 0:
                        print("openbox ctl: alert stream: %s; reconnecting" % _unreachable(self.api.url, getattr(
                            e, "reason", e)), file=sys.stderr)
                    failures += 1
                    time.sleep(wait)
                    continue
            try:
                for event_id, name, data in self._events():
                    if event_id:
                        self.last_id = event_id
                    if name == "alert" and data:
                        try:
                            yield json.loads(data)
                        except ValueError:
                            print("openbox ctl: alert stream: an event that is not JSON was skipped", file=sys.stderr)
            except (socket.timeout, TimeoutError, ConnectionError, ssl.SSLError, http.client.HTTPException):
                pass   # the connection broke or went quiet: reconnect from the last id
            self.close()

    def _events(self):
        """(id, event, data) of each event of the open stream until it ends (SSE framing)."""
        event_id, name, data = None, "message", []
        while True:
            line = self.response.readline(MAX_EVENT_LINE + 1)
            if not line:
                return
            if len(line) > MAX_EVENT_LINE:
                raise CtlError("alert stream: a line is longer than %d MiB" % (MAX_EVENT_LINE >> 20), EXIT_FAILED)
            line = line.decode("utf-8", "replace").rstrip("\r\n")
            if not line:
                if data or event_id:
                    yield event_id, name, "\n".join(data)
                event_id, name, data = None, "message", []
                continue
            if line.startswith(":"):
                continue   # a comment: the controller keeping the stream open
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "id":
                event_id = value
            elif field == "event":
                name = value
            elif field == "data":
                data.append(value)


def run(argv, out=print):
    p = argparse.ArgumentParser(prog="./openbox ctl", description="the controller's management API",
                                epilog="exit codes: 0 done, 1 refused or failed, 2 usage, 3 unreachable, "
                                       "4 not authenticated or allowed, 5 unknown application or OBI")
    p.add_argument("--url", default=os.environ.get("OPENBOX_URL", "https://127.0.0.1:3637"),
                   help="the controller (default $OPENBOX_URL or https://127.0.0.1:3637)")
    p.add_argument("--token", help="API token (default $OPENBOX_TOKEN, or the credentials file's)")
    p.add_argument("--user", help="log in as USER ($OPENBOX_PASSWORD, or the credentials file's password)")
    p.add_argument("--cacert", help="CA of the controller's certificate (default build/pki/ca.crt)")
    p.add_argument("--json", action="store_true", help="print the API's JSON instead of a table")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.add_parser("obis", help="the OBIs")
    sub.add_parser("apps", help="the applications")
    a = sub.add_parser("app", help="start, stop or reload an application")
    a.add_argument("action", choices=["start", "stop", "reload"])
    a.add_argument("name")
    g = sub.add_parser("graph", help="an OBI's merged graph")
    g.add_argument("dpid", type=_dpid)
    g.add_argument("--dot", action="store_true", help="Graphviz DOT")
    al = sub.add_parser("alerts", help="recent alerts")
    al.add_argument("--follow", action="store_true", help="keep printing new alerts")
    al.add_argument("--app")
    al.add_argument("--dpid", type=_dpid)
    al.add_argument("--severity", type=_severity, help="least severity, 1 (lowest) to 5")
    al.add_argument("--limit", type=_limit, default=100, help="newest N (1..10000, default 100)")
    s = sub.add_parser("stats", help="an OBI's GlobalStats")
    s.add_argument("dpid", type=_dpid)
    r = sub.add_parser("rules", help="an application's classifier rules with their hits")
    r.add_argument("app")
    r.add_argument("--dpid", type=_dpid, help="hits at this OBI only")
    args = p.parse_args(argv)
    if not args.command:
        p.print_usage(sys.stderr)
        raise CtlError("a COMMAND is needed: obis, apps, app, graph, alerts, stats, rules", EXIT_USAGE)
    cacert = args.cacert or os.path.join(os.environ.get("OPENBOX_PKI") or os.path.join(ROOT, "build", "pki"), "ca.crt")
    api = Api(args.url, authorization(args), cacert)

    if args.command == "obis":
        obis = api.call("GET", "/api/obis")
        out(json.dumps(obis, indent=2) if args.json else show_obis(obis) if obis else "no OBIs")
    elif args.command == "apps":
        apps = api.call("GET", "/api/apps")
        out(json.dumps(apps, indent=2) if args.json else show_apps(apps) if apps else "no applications")
    elif args.command == "app":
        status, r = api.request("POST", "/api/apps/%s/%s" % (urllib.parse.quote(args.name, safe=""), args.action),
                                answered=(400, 409, 422, 500), timeout=120)
        if args.json:
            out(json.dumps(r, indent=2))
        r = r or {}
        if not r.get("ok"):
            msg = " ".join(str(r.get("message") or r.get("error") or "HTTP %d" % status).split())
            raise CtlError("app %s: %s refused: %s" % (args.name, args.action, msg), EXIT_FAILED)
        if not args.json:
            out("app %s: %s done, now %s%s" % (args.name, args.action, r.get("state"),
                                              ("; " + r["message"]) if r.get("message") else ""))
    elif args.command == "graph":
        view = api.call("GET", "/api/obis/%d/graph" % args.dpid)
        out(dot(view) if args.dot else json.dumps(view, indent=2) if args.json else show_graph(view))
    elif args.command == "stats":
        stats = api.call("GET", "/api/obis/%d/stats" % args.dpid)
        out(json.dumps(stats, indent=2) if args.json else show_stats(args.dpid, stats))
    elif args.command == "rules":
        path = "/api/apps/%s/rules" % urllib.parse.quote(args.app, safe="")
        if args.dpid is not None:
            path += "?dpid=%d" % args.dpid
        blocks = api.call("GET", path)
        out(json.dumps(blocks, indent=2) if args.json else show_rules(args.app, blocks))
    elif args.command == "alerts":
        return cmd_alerts(api, args, out)
    return 0


def _dpid(v):
    try:
        n = int(v)
    except ValueError:
        raise argparse.ArgumentTypeError("'%s' is not a dpid (a decimal number)" % v)
    if n < 0 or n >= 1 << 63:
        raise argparse.ArgumentTypeError("dpid %s is out of range" % v)
    return n


def _severity(v):
    if not v.isdigit() or not 1 <= int(v) <= 5:
        raise argparse.ArgumentTypeError("'%s' is not a severity (1 lowest .. 5 highest)" % v)
    return int(v)


def _limit(v):
    if not v.isdigit() or not 1 <= int(v) <= 10000:
        raise argparse.ArgumentTypeError("'%s' is not a limit (1..10000)" % v)
    return int(v)


def main():
    try:
        sys.exit(run(sys.argv[1:]))
    except CtlError as e:
        print("openbox ctl: %s" % e, file=sys.stderr)
        sys.exit(e.code)
    except BrokenPipeError:
        sys.exit(0)


if __name__ == "__main__":
    main()
