#!/usr/bin/env python3
"""Writes a directory tree as a Linux initramfs archive (cpio "newc"), reproducibly:
entries in byte order of their paths, owner root, modification time 0, inode numbers
counted from 1, no device numbers. The same tree always gives the same bytes, whatever
the host's file system, owners or clocks.

    mkcpio.py ROOTDIR OUT.img [--gzip]

Regular files, directories and symbolic links are stored; anything else (device nodes,
sockets, fifos) is refused with a one-line error, since the guest's devtmpfs provides
the devices. The kernel unpacks several archives concatenated in one initrd, later ones
adding to and replacing files of earlier ones.
"""
import gzip
import os
import stat
import sys

TRAILER = "TRAILER!!!"


def _header(ino, mode, nlink, size, name):
    fields = [ino, mode, 0, 0, nlink, 0, size, 0, 0, 0, 0, len(name) + 1, 0]
    return b"070701" + b"".join(b"%08X" % f for f in fields) + name.encode() + b"\0"


def _pad(n):
    return b"\0" * ((4 - n % 4) % 4)


def entries(root):
    """(archive path, lstat) of everything under root, sorted by path."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        for n in dirnames + filenames:
            full = os.path.join(dirpath, n)
            out.append((os.path.relpath(full, root), full))
    return sorted(out, key=lambda e: e[0].encode())


def write(root, stream):
    ino = 0
    for rel, full in entries(root):
        st = os.lstat(full)
        ino += 1
        perm = stat.S_IMODE(st.st_mode)
        if stat.S_ISDIR(st.st_mode):
            mode, nlink, data = stat.S_IFDIR | perm, 2, b""
        elif stat.S_ISLNK(st.st_mode):
            mode, nlink, data = stat.S_IFLNK | 0o777, 1, os.readlink(full).encode()
        elif stat.S_ISREG(st.st_mode):
            mode, nlink = stat.S_IFREG | perm, 1
            with open(full, "rb") as f:
                data = f.read()
        else:
            raise SystemExit("mkcpio: %s: not a file, directory or symbolic link" % full)
        head = _header(ino, mode, nlink, len(data), rel)
        stream.write(head + _pad(len(head)) + data + _pad(len(data)))
    head = _header(0, 0, 1, 0, TRAILER)
    stream.write(head + _pad(len(head)))


def main(argv):
    args = [a for a in argv if a != "--gzip"]
    if len(args) != 2 or not os.path.isdir(args[0]):
        raise SystemExit("usage: mkcpio.py ROOTDIR OUT.img [--gzip]")
    tmp = args[1] + ".tmp"
    with open(tmp, "wb") as raw:
        if "--gzip" in argv:
            with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as z:
                write(args[0], z)
        else:
            write(args[0], raw)
    os.replace(tmp, args[1])


if __name__ == "__main__":
    main(sys.argv[1:])
