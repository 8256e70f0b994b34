#!/usr/bin/env python3
"""Writes the kernel ELF image (vmlinux) held compressed inside a bzImage (vmlinuz).

    unpack-kernel.py VMLINUZ VMLINUX

qemu starts such an ELF at its PVH entry point directly (kernels built with CONFIG_PVH),
without the decompressor: under CPU emulation (TCG) that saves most of the boot time.
The payload is found by its compression format's magic number (xz, gzip or zstd) and
unpacked with the matching command-line tool; the result must be an ELF file.
"""
import os
import subprocess
import sys

FORMATS = [  # magic, command that unpacks one stream from stdin to stdout
    (b"\xfd7zXZ\x00", ["xz", "-dc", "--single-stream"]),
    (b"\x28\xb5\x2f\xfd", ["zstd", "-dcq"]),
    (b"\x1f\x8b\x08", ["gzip", "-dc"]),
]


def main(argv):
    if len(argv) != 2:
        raise SystemExit("usage: unpack-kernel.py VMLINUZ VMLINUX")
    with open(argv[0], "rb") as f:
        image = f.read()
    for magic, cmd in FORMATS:
        at = image.find(magic)
        if at < 0:
            continue
        # gzip and zstd complain about what follows the stream; the ELF check decides
        run = subprocess.run(cmd, input=image[at:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        if run.stdout[:4] == b"\x7fELF":
            tmp = argv[1] + ".tmp"
            with open(tmp, "wb") as f:
                f.write(run.stdout)
            os.replace(tmp, argv[1])
            return
    raise SystemExit("unpack-kernel: %s: no xz, zstd or gzip payload holding an ELF kernel" % argv[0])


if __name__ == "__main__":
    main(sys.argv[1:])
