#!/usr/bin/env python3
"""Forwarding over real I/O: rates and latency of an OBI between veth pairs, by deployment.

    gen ns: iogen send g0 ==== i0 [OBI: FromDevice i0 -> graph -> ToDevice o0] o0 ==== s0 (sink ns: iogen sink)
            iogen send g1 ============================================================ s1 (the generator alone)

    --io memif: iogen (DPDK, lcore G) --memif A--> [OBI: FromDevice dpdk:0 -> graph -> ToDevice dpdk:1] --memif B--> iogen
                (the same iogen thread sends on A and counts what comes back on B; the OBI on lcore O)
    the generator alone: iogen --memif A--> iogen sink (on lcore O)

The OBI runs as a process (in the dut namespace), in a container (docker, the veth ends
i0/o0 created in the container's own network namespace) or in a qemu guest (virtio-net on
the taps vm-in/vm-out of the vm namespace; iogen sends on vm-in and reads vm-out there).
Each graph (pass-through; the 4560-rule ClassBench firewall, every rule forwarding) is
measured twice: the rate (iogen as fast as it can for --seconds) and the latency (iogen at
--lat-rate with stamped frames, iogen sink at the far side). Run by bench/io.sh (root),
which makes the namespaces, the container engine and image and the guest image, and
removes everything again.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

HZ = os.sysconf("SC_CLK_TCK")


def sh(*cmd, **kw):
    return subprocess.run(list(cmd), check=True, **kw)


def ns_cmd(ns, *cmd):
    return ["ip", "netns", "exec", ns] + list(cmd)


def dev_counter(ns, dev, what):
    out = subprocess.run(ns_cmd(ns, "cat", "/sys/class/net/%s/statistics/%s" % (dev, what)),
                         capture_output=True, text=True, check=True).stdout
    return int(out)


def cpu_ticks(pid):
    """utime + stime of a process and its waited-for children, in seconds."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return sum(int(x) for x in fields[11:15]) / HZ
    except (OSError, IndexError):
        return 0.0


def system_times():
    """(busy, softirq) seconds of all CPUs from /proc/stat."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + v[4]
    return (sum(v[:8]) - idle) / HZ, v[6] / HZ


class Bench:
    def __init__(self, a):
        self.a = a
        self.P = a.prefix
        self.gen, self.dut, self.sink, self.vmns = (self.P + s for s in ("-gen", "-dut", "-sink", "-vm"))
        self.trace = os.path.join(a.data, "fw-4560.trace.pcap")
        self.rows = []
        os.makedirs(a.work, exist_ok=True)
        graphs = os.path.join(a.work, "graphs")
        sh(sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "obi", "bench", "make_graphs.py"),
           "--data", a.data, "--out", graphs, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(os.path.join(graphs, "firewall.json")) as f:
            self.fw_rules = next(b for b in json.load(f)["blocks"] if b["type"] == "HeaderClassifier")

    # ------------------------------------------------------------------ pieces
    def graph(self, kind, rx, tx, rx_ring=None):
        fd = {"devname": rx}
        if rx_ring:
            fd["rx_ring"] = rx_ring
        blocks = [{"type": "FromDevice", "name": "in", "config": fd},
                  {"type": "ToDevice", "name": "out", "config": {"devname": tx}}]
        if kind == "passthrough":
            return {"blocks": blocks, "connectors": [{"src": "in", "src_port": 0, "dst": "out", "dst_port": 0}]}
        fw = dict(self.fw_rules, name="fw")
        conns = [{"src": "in", "src_port": 0, "dst": "fw", "dst_port": 0}]
        conns += [{"src": "fw", "src_port": i, "dst": "out", "dst_port": 0} for i in range(len(fw["config"]["match"]))]
        return {"blocks": blocks + [fw], "connectors": conns}

    def iogen(self, ns, *args, seconds):
        """Runs iogen in a namespace; returns (its JSON line, its CPU seconds)."""
        p = subprocess.Popen(ns_cmd(ns, self.a.iogen, *args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            out, err = p.communicate(timeout=seconds + 30)
        except subprocess.TimeoutExpired:
            p.kill()
            raise SystemExit("io: iogen %s did not stop" % " ".join(args))
        if p.returncode != 0:
            raise SystemExit("io: iogen %s failed: %s" % (" ".join(args), err.strip()))
        return json.loads(out.strip().splitlines()[-1])

    def wait_forwarding(self, gen_ns, gen_dev, sink_ns, sink_dev, what, timeout, proc=None):
        """Sends a few frames until some arrive at the sink (graph compiled, guest up)."""
        t0 = time.time()
        while time.time() - t0 < timeout:
            if proc is not None and proc.poll() is not None:
                raise SystemExit("io: %s exited with status %d" % (what, proc.returncode))
            before = dev_counter(sink_ns, sink_dev, "rx_packets")
            self.iogen(gen_ns, "send", "--dev", gen_dev, "--pcap", self.trace, "--rate", "2000", "--seconds", "0.2", seconds=1)
            time.sleep(0.3)
            if dev_counter(sink_ns, sink_dev, "rx_packets") - before > 100:
                return time.time() - t0
        raise SystemExit("io: %s forwarded nothing within %d s" % (what, timeout))

    def rate(self, gen_ns, gen_dev, sink_ns, sink_dev, obi_pid=None, mode="ring", perf_out=None):
        """The rate phase: iogen as fast as it can; counters at both ends and CPU use."""
        tx0 = dev_counter(gen_ns, gen_dev, "tx_packets")
        rx0 = dev_counter(sink_ns, sink_dev, "rx_packets")
        obi0 = cpu_ticks(obi_pid) if obi_pid else 0
        busy0, soft0 = system_times()
        perf = None
        if perf_out:
            perf = subprocess.Popen(["perf", "record", "-a", "-q", "-o", perf_out, "--", "sleep", str(self.a.seconds)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        g = self.iogen(gen_ns, "send", "--dev", gen_dev, "--pcap", self.trace, "--seconds", str(self.a.seconds),
                       "--mode", mode, seconds=self.a.seconds)
        if perf:
            perf.wait(60)
        time.sleep(0.3)   # frames still in flight
        busy1, soft1 = system_times()
        secs = g["seconds"]
        offered = dev_counter(gen_ns, gen_dev, "tx_packets") - tx0
        forwarded = dev_counter(sink_ns, sink_dev, "rx_packets") - rx0
        r = {"seconds": secs, "offered": offered, "forwarded": forwarded,
             "offered_mpps": round(offered / secs / 1e6, 4), "forwarded_mpps": round(forwarded / secs / 1e6, 4),
             "forwarded_share": round(forwarded / offered, 4) if offered else 0,
             "gen_send_calls_per_pkt": round(g["send_calls"] / g["sent"], 4) if g["sent"] else 0,
             "gen_ns_per_pkt": round(g["cpu_s"] / g["sent"] * 1e9) if g["sent"] else 0,
             "machine_busy_cpus": round((busy1 - busy0) / (secs + 0.3), 2),
             "softirq_cpus": round((soft1 - soft0) / (secs + 0.3), 2)}
        if obi_pid:
            obi_s = cpu_ticks(obi_pid) - obi0
            r["obi_cpus"] = round(obi_s / (secs + 0.3), 2)
            r["obi_ns_per_pkt"] = round(obi_s / forwarded * 1e9) if forwarded else 0
        return r

    def latency(self, gen_ns, gen_dev, sink_ns, sink_dev):
        """The latency phase: stamped frames at a fixed rate, read at the sink."""
        ls = self.a.lat_seconds
        sink = subprocess.Popen(ns_cmd(sink_ns, self.a.iogen, "sink", "--dev", sink_dev, "--seconds", str(ls + 1.5),
                                       "--warmup", "0.5"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.3)
        g = self.iogen(gen_ns, "send", "--dev", gen_dev, "--pcap", self.trace, "--stamp", "--rate", str(self.a.lat_rate),
                       "--seconds", str(ls), seconds=ls)
        out, err = sink.communicate(timeout=ls + 30)
        if sink.returncode != 0:
            raise SystemExit("io: iogen sink failed: %s" % err.strip())
        s = json.loads(out.strip().splitlines()[-1])
        return {"lat_rate": self.a.lat_rate, "lat_sent": g["sent"], "lat_timed": s["timed"],
                "p50_us": s["p50_us"], "p90_us": s["p90_us"], "p99_us": s["p99_us"], "p999_us": s["p999_us"],
                "max_us": s["max_us"], "lat_lost": s["lost_seq"]}

    def emit(self, row):
        row = dict({"bench": "io"}, **row, loadavg_1m=round(os.getloadavg()[0], 1))
        self.rows.append(row)
        print(json.dumps(row), flush=True)

    def veths(self, target):
        """g0 (gen) ==== i0 (target), o0 (target) ==== s0 (sink); target: a namespace name or a pid."""
        t = str(target)
        sh("ip", "link", "add", "g0", "netns", self.gen, "type", "veth", "peer", "name", "i0", "netns", t)
        sh("ip", "link", "add", "s0", "netns", self.sink, "type", "veth", "peer", "name", "o0", "netns", t)
        sh("ip", "-n", self.gen, "link", "set", "g0", "up")
        sh("ip", "-n", self.sink, "link", "set", "s0", "up")
        inside = (lambda *c: ["nsenter", "-t", t, "-n", "--"] + list(c)) if isinstance(target, int) \
            else (lambda *c: ns_cmd(t, *c))
        sh(*inside("sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"))
        for d in ("i0", "o0"):
            sh(*inside("ip", "link", "set", d, "up"))

    def drop_veths(self):
        for ns, d in ((self.gen, "g0"), (self.sink, "s0")):
            subprocess.run(["ip", "-n", ns, "link", "del", d], stderr=subprocess.DEVNULL)

    def summary(self, text):
        """FromDevice drops and ToDevice send calls per packet from `obi run`'s summary."""
        out = {}
        m = re.search(r"^\s+in\s+FromDevice\s+.*?drops=(\d+)", text, re.M)
        if m:
            out["obi_input_drops"] = int(m.group(1))
        m = re.search(r"^\s+out\s+ToDevice\s+count=(\d+).*?send_calls=(\d+)", text, re.M)
        if m and int(m.group(1)):
            out["obi_send_calls_per_pkt"] = round(int(m.group(2)) / int(m.group(1)), 4)
        return out

    # ------------------------------------------------------------------ the generator alone
    def baseline(self):
        sh("ip", "link", "add", "g1", "netns", self.gen, "type", "veth", "peer", "name", "s1", "netns", self.sink)
        sh("ip", "-n", self.gen, "link", "set", "g1", "up")
        sh("ip", "-n", self.sink, "link", "set", "s1", "up")
        for mode in ("ring", "sendmmsg"):
            r = self.rate(self.gen, "g1", self.sink, "s1", mode=mode)
            row = {"deploy": "none (generator into the sink)", "graph": "-", "io": "veth", "gen_mode": mode}
            row.update(r)
            if mode == "ring":
                row.update(self.latency(self.gen, "g1", self.sink, "s1"))
                self.gen_mpps = r["forwarded_mpps"]
            self.emit(row)

    # ------------------------------------------------------------------ deployments
    def process(self):
        self.veths(self.dut)
        eal = "--no-huge -m 1024 --no-pci --no-shconf --file-prefix %s " % self.P
        ios = {"afpacket": ("i0", "o0", None, None),
               "afpacket-frame": ("i0", "o0", None, "frame"),
               "dpdk-afpacket": ("dpdk:0", "dpdk:1", eal + "--vdev=net_af_packet0,iface=i0,blocksz=131072,framesz=2048,framecnt=512 "
                                                      "--vdev=net_af_packet1,iface=o0", None)}
        for io in self.a.io:
            if io == "memif":
                continue
            rx, tx, dpdk, rx_ring = ios[io]
            for kind in self.a.graphs:
                gpath = os.path.join(self.a.work, "process-%s-%s.json" % (kind, io))
                with open(gpath, "w") as f:
                    json.dump(self.graph(kind, rx, tx, rx_ring), f)
                cmd = [self.a.obi, "run", "--graph", gpath, "--workers", "1"] + (["--dpdk", dpdk] if dpdk else []) \
                    + (["--busy-poll"] if self.a.busy_poll else [])
                log_path = os.path.join(self.a.work, "process-%s-%s.log" % (kind, io))
                with open(log_path, "w") as log:
                    obi = subprocess.Popen(ns_cmd(self.dut, *cmd), stdout=log, stderr=subprocess.STDOUT)
                try:
                    self.wait_forwarding(self.gen, "g0", self.sink, "s0", "the OBI (%s, %s)" % (kind, io), 60, obi)
                except SystemExit as e:
                    obi.kill()
                    obi.wait()
                    tail = open(log_path).read().strip().splitlines()[-3:]
                    self.emit({"deploy": "process", "graph": kind, "io": io, "error": "%s: %s" % (e, " | ".join(tail))})
                    continue
                perf_out = os.path.join(self.a.work, "perf-%s-%s.data" % (kind, io)) if self.a.perf else None
                row = {"deploy": "process", "graph": kind, "io": io, "gen_mpps": self.gen_mpps}
                row.update(self.rate(self.gen, "g0", self.sink, "s0", obi_pid=obi.pid))
                row.update(self.latency(self.gen, "g0", self.sink, "s0"))
                if perf_out:   # a run of its own: sampling slows everything it watches
                    self.rate(self.gen, "g0", self.sink, "s0", obi_pid=obi.pid, perf_out=perf_out)
                obi.send_signal(2)
                obi.wait(30)
                row.update(self.summary(open(log_path).read()))
                if perf_out:
                    row["where"] = self.where(perf_out)
                self.emit(row)
        self.drop_veths()
        if "memif" in self.a.io:
            self.memif()

    # ------------------------------------------------------------------ DPDK memif
    def pinned(self, core, *cmd):
        return ns_cmd(self.dut, "taskset", "-c", str(core), *cmd)

    def memif_sockets_up(self, names, proc, what, timeout=30):
        """Waits until the memif servers listen on their (abstract) control sockets."""
        t0 = time.time()
        while time.time() - t0 < timeout:
            if proc.poll() is not None:
                return False
            unix = subprocess.run(ns_cmd(self.dut, "cat", "/proc/net/unix"), capture_output=True, text=True).stdout
            if all(("@" + n) in unix or (" " + n) in unix for n in names):
                return True
            time.sleep(0.1)
        raise SystemExit("io: %s did not open its memif sockets within %d s" % (what, timeout))

    def memif_gen(self, *args, seconds):
        return self.iogen_cmd(self.pinned(self.a.cores[0], self.a.iogen, "memif", "--lcore", str(self.a.cores[0]), *args),
                              seconds)

    def iogen_cmd(self, cmd, seconds):
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            out, err = p.communicate(timeout=seconds + 40)
        except subprocess.TimeoutExpired:
            p.kill()
            raise SystemExit("io: %s did not stop" % " ".join(cmd))
        if p.returncode != 0:
            raise SystemExit("io: %s failed: %s" % (" ".join(cmd[-12:]), err.strip()))
        return json.loads(out.strip().splitlines()[-1])

    def memif(self):
        gen_core, obi_core = self.a.cores
        sa, sb = "/run/%s-memif-a.sock" % self.P, "/run/%s-memif-b.sock" % self.P
        busy0, _ = system_times()
        # the generator alone: iogen into an iogen sink (memif server) on the OBI's core
        sink = subprocess.Popen(self.pinned(obi_core, self.a.iogen, "memif", "--rx", sa, "--server", "--lcore", str(obi_core),
                                            "--seconds", str(self.a.seconds + 60)),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            if not self.memif_sockets_up([sa], sink, "the iogen sink"):
                raise SystemExit("io: the iogen sink exited: %s" % sink.communicate()[1].strip())
            busy0, _ = system_times()
            g = self.memif_gen("--tx", sa, "--pcap", self.trace, "--seconds", str(self.a.seconds), seconds=self.a.seconds)
            busy1, _ = system_times()
        finally:
            sink.send_signal(2)
            out, err = sink.communicate(timeout=30)
        k = json.loads(out.strip().splitlines()[-1]) if sink.returncode == 0 else None
        if not k:
            raise SystemExit("io: the iogen sink failed: %s" % err.strip())
        secs = g["seconds"]
        row = {"deploy": "none (generator into the sink)", "graph": "-", "io": "memif", "gen_mode": "dpdk",
               "seconds": secs, "offered": g["sent"], "forwarded": k["received"],
               "offered_mpps": round(g["sent"] / secs / 1e6, 4), "forwarded_mpps": round(k["received"] / secs / 1e6, 4),
               "forwarded_share": round(k["received"] / g["sent"], 4) if g["sent"] else 0,
               "gen_ns_per_pkt": round(g["cpu_s"] / g["sent"] * 1e9) if g["sent"] else 0,
               "sink_ns_per_pkt": round(k["cpu_s"] / k["received"] * 1e9) if k["received"] else 0,
               "gen_waiting": round(g["tx_full"] / g["tx_bursts"], 3) if g["tx_bursts"] else 0, "machine_busy_cpus": round((busy1 - busy0) / secs, 2)}
        self.emit(row)
        self.memif_mpps = row["offered_mpps"]
        for kind in self.a.graphs:
            gpath = os.path.join(self.a.work, "process-%s-memif.json" % kind)
            with open(gpath, "w") as f:
                json.dump(self.graph(kind, "dpdk:0", "dpdk:1"), f)
            eal = ("--no-huge -m 1024 --no-pci --no-shconf --no-telemetry --file-prefix %s-obi -l %d --log-level *:error "
                   "--vdev=net_memif0,id=0,role=server,socket=%s --vdev=net_memif1,id=0,role=server,socket=%s"
                   % (self.P, obi_core, sa, sb))
            cmd = [self.a.obi, "run", "--graph", gpath, "--workers", "1", "--dpdk", eal] \
                + (["--busy-poll"] if self.a.busy_poll else [])
            log_path = os.path.join(self.a.work, "process-%s-memif.log" % kind)
            with open(log_path, "w") as log:
                obi = subprocess.Popen(self.pinned(obi_core, *cmd), stdout=log, stderr=subprocess.STDOUT)
            try:
                if not self.memif_sockets_up([sa, sb], obi, "the OBI"):
                    raise SystemExit("io: the OBI exited (%d)" % obi.wait())
                t0 = time.time()
                while True:   # until the graph forwards (compiled, ports started, peers connected)
                    w = self.memif_gen("--tx", sa, "--rx", sb, "--pcap", self.trace, "--rate", "2000", "--seconds", "0.3", seconds=1)
                    if w["received"] > 100:
                        break
                    if obi.poll() is not None or time.time() - t0 > 60:
                        raise SystemExit("io: the OBI (%s, memif) forwarded nothing" % kind)
                obi0 = cpu_ticks(obi.pid)
                busy0, soft0 = system_times()
                g = self.memif_gen("--tx", sa, "--rx", sb, "--pcap", self.trace, "--seconds", str(self.a.seconds),
                                   seconds=self.a.seconds)
                busy1, soft1 = system_times()
                obi_s = cpu_ticks(obi.pid) - obi0
                secs = g["seconds"]
                row = {"deploy": "process", "graph": kind, "io": "memif", "gen_mpps": self.memif_mpps, "seconds": secs,
                       "offered": g["sent"], "forwarded": g["received"],
                       "offered_mpps": round(g["sent"] / secs / 1e6, 4), "forwarded_mpps": round(g["received"] / secs / 1e6, 4),
                       "forwarded_share": round(g["received"] / g["sent"], 4) if g["sent"] else 0,
                       "gen_ns_per_pkt": round(g["cpu_s"] / g["sent"] * 1e9) if g["sent"] else 0,
                       "gen_waiting": round(g["tx_full"] / g["tx_bursts"], 3) if g["tx_bursts"] else 0, "machine_busy_cpus": round((busy1 - busy0) / secs, 2),
                       "obi_cpus": round(obi_s / secs, 2),
                       "obi_ns_per_pkt": round(obi_s / g["received"] * 1e9) if g["received"] else 0}
                lat = self.memif_gen("--tx", sa, "--rx", sb, "--pcap", self.trace, "--stamp", "--rate", str(self.a.lat_rate),
                                     "--seconds", str(self.a.lat_seconds), "--warmup", "0.5", seconds=self.a.lat_seconds)
                row.update({"lat_rate": self.a.lat_rate, "lat_sent": lat["sent"], "lat_timed": lat["timed"],
                            "p50_us": lat["p50_us"], "p90_us": lat["p90_us"], "p99_us": lat["p99_us"],
                            "p999_us": lat["p999_us"], "max_us": lat["max_us"], "lat_lost": lat["lost_seq"]})
            except SystemExit as e:
                obi.kill()
                obi.wait()
                tail = open(log_path).read().strip().splitlines()[-3:]
                self.emit({"deploy": "process", "graph": kind, "io": "memif", "error": "%s: %s" % (e, " | ".join(tail))})
                continue
            obi.send_signal(2)
            obi.wait(30)
            row.update(self.summary(open(log_path).read()))
            self.emit(row)

    def container(self):
        for kind in self.a.graphs:
            gdir = os.path.join(self.a.work, "container-%s" % kind)
            os.makedirs(gdir, exist_ok=True)
            with open(os.path.join(gdir, "graph.json"), "w") as f:
                json.dump(self.graph(kind, "i0", "o0"), f)
            # the OBI starts once the veth ends are in the container's namespace
            script = "until [ -e /sys/class/net/o0 ]; do sleep 0.1; done; exec /usr/local/bin/obi run --graph /bench/graph.json --workers 1"
            cid = subprocess.run(["docker", "run", "-d", "--network", "none", "--label", "openbox-bench-io=" + self.P,
                                  "-v", gdir + ":/bench:ro", self.a.image, "/bin/sh", "-c", script],
                                 capture_output=True, text=True, check=True).stdout.strip()
            try:
                pid = int(subprocess.run(["docker", "inspect", "-f", "{{.State.Pid}}", cid], capture_output=True,
                                         text=True, check=True).stdout)
                self.veths(pid)
                self.wait_forwarding(self.gen, "g0", self.sink, "s0", "the OBI container (%s)" % kind, 60)
                row = {"deploy": "container", "graph": kind, "io": "afpacket", "gen_mpps": self.gen_mpps}
                row.update(self.rate(self.gen, "g0", self.sink, "s0", obi_pid=pid))
                row.update(self.latency(self.gen, "g0", self.sink, "s0"))
                subprocess.run(["docker", "stop", "-t", "20", cid], capture_output=True, check=True)
                log = subprocess.run(["docker", "logs", cid], capture_output=True, text=True).stdout
                with open(os.path.join(self.a.work, "container-%s.log" % kind), "w") as f:
                    f.write(log)
                row.update(self.summary(log))
                self.emit(row)
            except (subprocess.CalledProcessError, SystemExit) as e:
                log = subprocess.run(["docker", "logs", cid], capture_output=True, text=True)
                tail = (log.stdout + log.stderr).strip().splitlines()[-3:]
                self.emit({"deploy": "container", "graph": kind, "io": "afpacket",
                           "error": "%s: %s" % (e, " | ".join(tail))})
            finally:
                subprocess.run(["docker", "rm", "-f", cid], capture_output=True)
                self.drop_veths()

    def vm(self):
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
        ns = self.vmns
        console = os.path.join(self.a.work, "guest.console.log")
        sh("ip", "-n", ns, "tuntap", "add", "vm-ctl", "mode", "tap")
        sh("ip", "-n", ns, "addr", "add", "10.77.17.1/24", "dev", "vm-ctl")
        sh("ip", "-n", ns, "link", "set", "vm-ctl", "up")
        log = open(os.path.join(self.a.work, "run-guest.log"), "w")
        # run-guest.sh ends by exec'ing qemu: this process id is qemu's (its CPU time: the guest's)
        qemu = subprocess.Popen([os.path.join(root, "obi", "vm", "run-guest.sh"),
                                 "--dpid", "17", "--controller", "http://10.77.17.1:3637", "--ip", "10.77.17.11/24",
                                 "--netns", ns, "--control", "vm-ctl", "--data", "in=vm-in", "--data", "out=vm-out",
                                 "--obi-args", "--insecure --workers 1", "--console", console, "--accel", self.a.accel],
                                stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ, OBI=self.a.obi))
        try:
            t0 = time.time()
            while True:   # the guest's OBI answers once it is up
                if qemu.poll() is not None:
                    raise SystemExit("io: qemu exited (%d); see %s" % (qemu.returncode, console))
                if subprocess.run(ns_cmd(ns, "python3", "-c", "import socket; socket.create_connection(('10.77.17.11', 3636), 1)"),
                                  capture_output=True).returncode == 0:
                    break
                if time.time() - t0 > 300:
                    raise SystemExit("io: the guest's OBI did not come up in 300 s; see %s" % console)
                time.sleep(1)
            boot = time.time() - t0
            for d in ("vm-in", "vm-out"):
                sh("ip", "-n", ns, "link", "set", d, "up")
            for kind in self.a.graphs:
                msg = dict(self.graph(kind, "in", "out"), type="SetProcessingGraphRequest", xid=len(self.rows) + 1)
                url = "http://10.77.17.11:3636/message/SetProcessingGraphRequest"
                post = "import sys, urllib.request; urllib.request.urlopen(urllib.request.Request(%r, data=sys.stdin.buffer.read(), " \
                       "method='POST', headers={'Content-Type': 'application/json'}), timeout=120).read()" % url
                subprocess.run(ns_cmd(ns, "python3", "-c", post), input=json.dumps(msg).encode(), check=True, capture_output=True)
                self.wait_forwarding(ns, "vm-in", ns, "vm-out", "the guest's OBI (%s)" % kind, 240, qemu)
                row = {"deploy": "vm (%s)" % self.a.accel, "graph": kind, "io": "afpacket on virtio-net",
                       "gen_mpps": self.gen_mpps, "guest_boot_s": round(boot, 1)}
                row.update(self.rate(ns, "vm-in", ns, "vm-out", obi_pid=qemu.pid))
                row.update(self.latency(ns, "vm-in", ns, "vm-out"))
                self.emit(row)
        finally:
            qemu.terminate()
            try:
                qemu.wait(20)
            except subprocess.TimeoutExpired:
                qemu.kill()
            log.close()

    # ------------------------------------------------------------------ where the time goes
    def where(self, perf_data):
        """From perf samples of all CPUs: the machine's share by command (the generator, the
        OBI and whatever else runs), then within the OBI and iogen by kernel/user object and
        the top symbols of each."""
        def report(*args):
            out = subprocess.run(["perf", "report", "-i", perf_data, "--stdio"] + list(args),
                                 capture_output=True, text=True).stdout
            return [" ".join(l.split()) for l in out.splitlines() if l.strip() and not l.startswith("#")]
        return {"machine_by_comm": report("--sort", "comm", "--percent-limit", "1")[:8],
                "ours_by_comm_dso": report("--comms", "obi,iogen", "--percentage", "relative", "--sort", "comm,dso",
                                           "--percent-limit", "1")[:10],
                "obi_symbols": report("--comms", "obi", "--percentage", "relative", "--sort", "sym",
                                      "--percent-limit", "2")[:10],
                "iogen_symbols": report("--comms", "iogen", "--percentage", "relative", "--sort", "sym",
                                        "--percent-limit", "3")[:8]}

    # ------------------------------------------------------------------ the table
    def table(self):
        base = {r["graph"] + "/" + r["io"]: r for r in self.rows if r.get("deploy") == "process" and "error" not in r}
        print()
        print("| deployment | graph | I/O | generator alone Mpps | offered Mpps | forwarded Mpps | share | "
              "fwd vs process | generator ns/pkt | generator waiting | OBI CPUs | OBI ns/pkt | p50 us | p90 us | p99 us | p99.9 us | p50 vs process | p99 vs process |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for r in self.rows:
            if "error" in r:
                print("| %s | %s | %s | %s |" % (r["deploy"], r["graph"], r["io"], r["error"]))
                continue
            b = base.get(r["graph"] + "/afpacket")
            def ratio(k):
                return "%.2fx" % (r[k] / b[k]) if b and b.get(k) and r["deploy"] != "process" and k in r else "-"
            gen = r.get("gen_mpps", r["forwarded_mpps"] if r.get("gen_mode") == "ring" else r["offered_mpps"])
            print("| %s | %s | %s | %.3f | %.3f | %.3f | %.1f %% | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                r["deploy"] + (" (%s)" % r["gen_mode"] if "gen_mode" in r else ""), r["graph"], r["io"], gen,
                r["offered_mpps"], r["forwarded_mpps"], 100 * r["forwarded_share"], ratio("forwarded_mpps"),
                r["gen_ns_per_pkt"], "%.0f %%" % (100 * r["gen_waiting"]) if "gen_waiting" in r else "-", r.get("obi_cpus", "-"), r.get("obi_ns_per_pkt", "-"), r.get("p50_us", "-"), r.get("p90_us", "-"), r.get("p99_us", "-"),
                r.get("p999_us", "-"), ratio("p50_us"), ratio("p99_us")))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--obi", required=True)
    ap.add_argument("--iogen", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--deploy", default="process,container,vm")
    ap.add_argument("--graphs", default="passthrough,firewall")
    ap.add_argument("--io", default="afpacket,afpacket-frame,dpdk-afpacket,memif")
    ap.add_argument("--cores", default="")
    ap.add_argument("--busy-poll", action="store_true")
    ap.add_argument("--seconds", type=float, default=4)
    ap.add_argument("--lat-seconds", type=float, default=3)
    ap.add_argument("--lat-rate", type=int, default=2000)
    ap.add_argument("--image", default="")
    ap.add_argument("--accel", default="kvm")
    ap.add_argument("--perf", action="store_true")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    a.deploy = a.deploy.split(",")
    a.graphs = a.graphs.split(",")
    a.io = a.io.split(",")
    for g in a.graphs:
        if g not in ("passthrough", "firewall"):
            raise SystemExit("io: --graphs: unknown graph '%s' (passthrough, firewall)" % g)
    for i in a.io:
        if i not in ("afpacket", "afpacket-frame", "dpdk-afpacket", "memif"):
            raise SystemExit("io: --io: unknown I/O '%s' (afpacket, afpacket-frame, dpdk-afpacket, memif)" % i)
    allowed = sorted(os.sched_getaffinity(0))
    try:
        a.cores = [int(c) for c in a.cores.split(",")] if a.cores else allowed[:2]
    except ValueError:
        raise SystemExit("io: --cores: two CPU numbers, e.g. 0,1")
    if len(a.cores) != 2 or a.cores[0] == a.cores[1] or any(c not in allowed for c in a.cores):
        raise SystemExit("io: --cores: two different CPUs of %s (the generator's and the OBI's)" % allowed)
    if not (0.5 <= a.seconds <= 120 and 0.5 <= a.lat_seconds <= 120 and 1 <= a.lat_rate <= 1000000):
        raise SystemExit("io: --seconds and --lat-seconds are 0.5..120, --lat-rate 1..1000000")
    b = Bench(a)
    b.baseline()
    for d in a.deploy:
        getattr(b, d)()
    if not a.json:
        b.table()


if __name__ == "__main__":
    sys.exit(main())
