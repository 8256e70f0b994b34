"""Raw AF_PACKET sockets opened inside named network namespaces (ip netns), from a
process that stays in its own namespace: the socket belongs to the namespace it was
created in, so the process enters the namespace only while it creates and binds it.

    with inside("obx1-snd"):
        s = raw_socket("snd1")

A namespace is named as `ip netns` names it, or given as a path ("/proc/PID/ns/net": the
namespace of a process, e.g. a container's).
"""
import contextlib
import ctypes
import os
import select
import socket

CLONE_NEWNET = 0x40000000
ETH_P_ALL = 0x0003
_libc = ctypes.CDLL(None, use_errno=True)


def _setns(fd, what):
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, "setns into %s: %s" % (what, os.strerror(err)))


@contextlib.contextmanager
def inside(ns):
    """Runs the body with the calling thread in network namespace `ns` (a name of ip netns,
    or a path such as /proc/PID/ns/net)."""
    here = os.open("/proc/self/ns/net", os.O_RDONLY)
    try:
        there = os.open(ns if ns.startswith("/") else "/var/run/netns/" + ns, os.O_RDONLY)
    except OSError:
        os.close(here)
        raise
    try:
        _setns(there, ns)
        try:
            yield
        finally:
            _setns(here, "the original namespace")
    finally:
        os.close(there)
        os.close(here)


def raw_socket(ifname):
    """A non-blocking AF_PACKET socket bound to ifname (in the current namespace) that
    sees every frame the interface receives."""
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((ifname, 0))
    s.setblocking(False)
    return s


def drain(sockets, on_frame, wait=0.0):
    """Reads every frame queued on `sockets` (dict name -> socket), calling
    on_frame(name, data, pkttype) for each; waits up to `wait` seconds for the first."""
    names = {s.fileno(): n for n, s in sockets.items()}
    ready, _, _ = select.select(list(sockets.values()), [], [], wait)
    while ready:
        for s in ready:
            while True:
                try:
                    data, addr = s.recvfrom(65535)
                except BlockingIOError:
                    break
                on_frame(names[s.fileno()], data, addr[2])
        ready, _, _ = select.select(list(sockets.values()), [], [], 0)
