"""Starting OpenBox processes the same way everywhere: the controller with a set of
application jars and their config files, OBIs with their device maps, and waiting on the
controller's management API. Used by the demo (run_demo.py) and the system tests
(tests/system/).

Every function builds or runs plain commands, so a caller can prefix them (for example
with `ip netns exec NS`) to run a process elsewhere.

The controller and the OBIs talk mutual TLS (a Transport over the PKI directory
$OPENBOX_PKI, default build/pki, whose certificates `./openbox pki` makes when missing),
or plain HTTP when a Transport is made insecure on purpose.
"""
import ipaddress
import json
import os
import shutil
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request

import credentials

ROOT = os.environ.get("OPENBOX_ROOT") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SAMPLE = os.path.join(ROOT, "apps", "demo", "sample")
OBI_BIN = os.path.join(ROOT, "build", "obi", "obi")


def pki_dir():
    """The PKI directory of this deployment ($OPENBOX_PKI, default build/pki)."""
    return os.path.abspath(os.environ.get("OPENBOX_PKI") or os.path.join(ROOT, "build", "pki"))


def pki(*what, ips=(), names=(), directory=None):
    """Makes the CA and the certificate of `what` ("controller" or "obi", DPID) when missing,
    with ./openbox pki; returns the directory."""
    d = directory or pki_dir()
    cmd = [os.path.join(ROOT, "openbox"), "pki", "--dir", d] + [str(w) for w in what]
    for ip in ips:
        cmd += ["--ip", ip]
    for n in names:
        cmd += ["--dns", n]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise SystemExit("pki: %s" % r.stdout.strip())
    return d


class Transport:
    """How the controller and the OBIs talk: mutual TLS with the certificates of a PKI
    directory, or plain HTTP (insecure=True, said explicitly to both sides)."""

    def __init__(self, insecure=False, directory=None):
        self.insecure = insecure
        self.dir = None if insecure else (directory or pki_dir())

    @property
    def scheme(self):
        return "http" if self.insecure else "https"

    def url(self, host, port):
        return "%s://%s:%d" % (self.scheme, host, port)

    def controller_settings(self):
        """Controller options: its SSL bundle `openbox` (certificate made when missing), or
        openbox.insecure."""
        if self.insecure:
            return ["--openbox.insecure=true"]
        d = pki("controller", directory=self.dir)
        b = "--spring.ssl.bundle.pem.openbox."
        return [b + "keystore.certificate=file:%s/controller.crt" % d,
                b + "keystore.private-key=file:%s/controller.key" % d,
                b + "truststore.certificate=file:%s/ca.crt" % d,
                "--server.ssl.bundle=openbox", "--server.ssl.client-auth=want"]

    def obi_args(self, dpid, listen):
        """OBI options: --pki with a certificate for dpid naming its listen address, or --insecure."""
        if self.insecure:
            return ["--insecure"]
        host = listen.rsplit(":", 1)[0].strip("[]")
        try:
            ips, names = ([str(ipaddress.ip_address(host))], [])
            if ipaddress.ip_address(host).is_unspecified:
                ips, names = ["127.0.0.1"], ["localhost"]
        except ValueError:
            ips, names = [], [host]
        return ["--pki", pki("obi", dpid, ips=ips, names=names, directory=self.dir)]

    def context(self):
        """An ssl context for the controller's management API (its certificate checked
        against the CA; management clients present none)."""
        return None if self.insecure else ssl.create_default_context(cafile=os.path.join(self.dir, "ca.crt"))


def _context_for(url):
    if not url.startswith("https:"):
        return None
    return ssl.create_default_context(cafile=os.path.join(pki_dir(), "ca.crt"))


class Timeout(SystemExit):
    """A wait_for that ran out of time (a SystemExit, so a script ends with its message)."""


_creds = None


def management_credentials():
    """The credentials of the controllers started here (credentials.py; created on first use)."""
    global _creds
    if _creds is None:
        _creds = credentials.ensure()
    return _creds


def http_json(url, data=None, timeout=5):
    """GET (or POST data as JSON) and decode the JSON answer; authenticated as the operator
    (bearer token of management_credentials()). An https:// URL is checked against the CA
    of pki_dir()."""
    headers = {"Content-Type": "application/json"}
    headers.update(credentials.auth_header(management_credentials()))
    req = urllib.request.Request(url, data=None if data is None else json.dumps(data).encode(), headers=headers)
    with urllib.request.urlopen(req, timeout=timeout, context=_context_for(url)) as r:
        return json.loads(r.read().decode() or "null")


def port_in_use(port, host="127.0.0.1"):
    """True when something accepts TCP connections on host:port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(1.0)
        return s.connect_ex((host, port)) == 0


def require_free_port(port, who, host="127.0.0.1"):
    """Stops with a one-line reason when the port a server of ours needs is taken."""
    if port_in_use(port, host):
        raise SystemExit("%s: port %d is already in use (another controller or OBI?)" % (who, port))


def last_lines(path, n=15):
    """The last n lines of a log file ('' when it cannot be read)."""
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-n:])
    except OSError:
        return ""


def check_children(children, what, who):
    """children: (name, Popen, log path) tuples; a finished one ends the wait at once with
    its exit code and the last lines of its log."""
    for name, proc, log in children:
        rc = proc.poll()
        if rc is not None:
            raise SystemExit("%s: %s exited (code %d) while waiting for %s; last lines of %s:\n%s"
                             % (who, name, rc, what, log, last_lines(log)))


def wait_for(what, check, timeout, who="openbox", poll=0.25, children=()):
    """Calls check() until it returns something true (returned) or timeout seconds pass
    (Timeout naming `what` and the last error). Connection and decoding errors count as
    "not yet". A child process of `children` ((name, Popen, log path) tuples) that exits
    meanwhile ends the wait at once (SystemExit with its last log lines)."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        check_children(children, what, who)
        try:
            v = check()
            if v:
                return v
        except (urllib.error.URLError, ConnectionError, OSError, ValueError, KeyError) as e:
            last = e
        time.sleep(poll)
    raise Timeout("%s: timed out after %g s waiting for %s%s" % (who, timeout, what, " (%s)" % last if last else ""))


def controller_jar():
    """The controller's executable jar (built by ./openbox build)."""
    d = os.path.join(ROOT, "obc", "server", "target")
    jars = sorted(j for j in (os.listdir(d) if os.path.isdir(d) else [])
                  if j.startswith("openbox-controller-") and j.endswith(".jar")
                  and "original" not in j and "sources" not in j)
    if not jars:
        raise SystemExit("controller jar not built in %s (run ./openbox build)" % d)
    return os.path.join(d, jars[0])


def app_jar(module):
    """The jar of the sample application in apps/<module>."""
    d = os.path.join(ROOT, "apps", module, "target")
    jars = sorted(j for j in (os.listdir(d) if os.path.isdir(d) else [])
                  if j.endswith(".jar") and "sources" not in j and "original" not in j)
    if not jars:
        raise SystemExit("application jar of %s not built in %s (run ./openbox build)" % (module, d))
    return os.path.join(d, jars[0])


def controller_command(apps, apps_dir, port, settings=(), heap="512m", transport=None, bind="127.0.0.1"):
    """Copies the jars of `apps` into apps_dir and returns the controller command line.
    A sample config apps/demo/sample/<app>.properties is passed when it exists;
    `settings` are extra controller options such as "--openbox.keepalive-interval=1s";
    `transport` (default: TLS with pki_dir()) adds the TLS or insecure settings.
    The controller listens on `bind` only and reads the management credentials."""
    os.makedirs(apps_dir, exist_ok=True)
    props = []
    for a in apps:
        shutil.copy(app_jar(a), apps_dir)
        cfg = os.path.join(SAMPLE, "%s.properties" % a)
        if os.path.exists(cfg):
            props.append("-Dopenbox.app.%s.config=%s" % (a, cfg))
    signing = os.environ.get("OPENBOX_MODULE_SIGNING_KEY")   # set by ./openbox demo
    if signing:
        settings = list(settings) + ["--openbox.modules.signing-key=" + signing]
    return (["java", "-Xmx" + heap] + props + ["-jar", controller_jar(), "--port", str(port), "--apps", apps_dir,
                                               "--server.address=" + bind]
            + (transport or Transport()).controller_settings()
            + credentials.controller_args(management_credentials()) + list(settings))


def obi_command(dpid, listen, controller, devices, workers=1, transport=None):
    """Command line of an OBI; devices maps graph device names to targets
    (interface name, dpdk:N or pcap:FILE); `transport` as for controller_command (the
    scheme of `controller` must match it)."""
    if not os.access(OBI_BIN, os.X_OK):
        raise SystemExit("OBI not built at %s (run ./openbox build)" % OBI_BIN)
    trust = os.environ.get("OPENBOX_MODULE_TRUST")   # set by ./openbox demo: the controller's key
    return ([OBI_BIN, "--dpid", str(dpid), "--listen", listen, "--controller", controller,
             "--workers", str(workers), "--device-map", ",".join("%s=%s" % kv for kv in devices.items())]
            + (transport or Transport()).obi_args(dpid, listen)
            + (["--module-trust", trust] if trust else []))


def controller_up(base):
    """True when the controller's health endpoint says UP."""
    return http_json(base + "/actuator/health").get("status") == "UP"


def running_obis(base, dpids):
    """The /api/obis entries of `dpids` when every one is UP with its graph running, else None."""
    views = {o["dpid"]: o for o in http_json(base + "/api/obis")}
    ok = [views[d] for d in dpids if d in views and views[d]["state"] == "UP"
          and str(views[d].get("graphStatus")).startswith("running")]
    return ok if len(ok) == len(dpids) else None
