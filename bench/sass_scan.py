#!/usr/bin/env python3
"""Reads the SASS of an sm_90a cubin's attnc_attention without nvdisasm (this
machine has none): where the key loop's WARPGROUP.DEPBAR waits sit among its
MUFU.EX2, or the register fields of a range of instructions.

Usage: python3 bench/sass_scan.py waits CUBIN        (DEPBAR / MUFU / HGMMA order)
       python3 bench/sass_scan.py regs CUBIN FROM TO  (hex byte offsets)

An instruction is 16 bytes; its opcode is the low 12 bits of the first 8, read
off cuobjdump -sass of the same cubins on the GPU machine: 0x9c5 WARPGROUP.*
(DEPBAR.LE gsb0, N carries N in bit 8 of the second 8 bytes' flags: hi
0x...10100 is N = 1, 0x...10000 is N = 0; ARRIVE has no 0x10000), 0x308
MUFU, 0x9f0 HGMMA from shared memory, 0xdf0 HGMMA with A in registers. Rd, Ra,
Rb are bits 16-23, 24-31 and 32-39 (immediates overlap Rb; uniform-register
instructions such as 0x290 UIADD3 name UR registers there).
"""
import struct
import sys


def code(path, name=b".text.attnc_attention"):
    d = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3A)
    secs = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize)
            for i in range(shnum)]
    strtab = secs[shstrndx][4]
    for s in secs:
        start = strtab + s[0]
        if d[start:d.index(b"\0", start)] == name:
            return d[s[4]:s[4] + s[5]]
    sys.exit(f"{path}: no section {name.decode()}")


def waits(path):
    t = code(path)
    run = None  # (first offset, count) of consecutive MUFUs
    for off in range(0, len(t), 16):
        lo, hi = struct.unpack_from("<QQ", t, off)
        op = lo & 0xfff
        if op == 0x308:
            run = (run[0], run[1] + 1) if run else (off, 1)
            continue
        if op not in (0x9c5, 0x9f0, 0xdf0):
            continue
        if run:
            print(f"{run[0]:6x} {run[1]} x MUFU")
            run = None
        if op == 0x9c5 and hi & 0x10000:
            print(f"{off:6x} DEPBAR.LE gsb0, {hi >> 8 & 1}")
        elif op != 0x9c5:
            print(f"{off:6x} HGMMA{' (A in registers)' if op == 0xdf0 else ''}")
    if run:
        print(f"{run[0]:6x} {run[1]} x MUFU")


def regs(path, first, last):
    t = code(path)
    for off in range(first, min(last, len(t)), 16):
        lo, hi = struct.unpack_from("<QQ", t, off)
        print(f"{off:6x} op={lo & 0xfff:03x} rd={lo >> 16 & 0xff:3d} "
              f"ra={lo >> 24 & 0xff:3d} rb={lo >> 32 & 0xff:3d} {lo:016x} {hi:016x}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "waits":
        waits(sys.argv[2])
    elif len(sys.argv) == 5 and sys.argv[1] == "regs":
        regs(sys.argv[2], int(sys.argv[3], 16), int(sys.argv[4], 16))
    else:
        sys.exit(__doc__)
