"""A synthetic `ncu --page source --csv --print-source sass` export for
ncu-regions.test: an item loop [0x100, 0x1000] around a key loop
[0x400, 0x900], a shorter backward jump 0xc80 -> 0x800 that only overlaps the key
loop, the last EXIT at 0x1010 and a retry stub at 0x1020 jumping back to
0x100 (after the last EXIT: not a loop)."""
import csv
import sys

BASE = 0x7f0000000000
head = ["Address", "Source", "Warp Stall Sampling (All Samples)",
        "Warp Stall Sampling (Not-issued Samples)", "# Samples", "Instructions Executed",
        "stall_barrier", "stall_wait", "stall_wait (Not Issued)"]
out = csv.writer(sys.stdout, quoting=csv.QUOTE_ALL)
sys.stdout.write('"Kernel Name","attnc_attention",\n')
out.writerow(head)
for off in range(0, 0x1030, 0x10):
    src, wait, barrier = "FADD R0, R1, R2", 0, 0
    if 0x400 <= off <= 0x900:
        wait = 2
    elif 0x100 <= off <= 0x1000:
        barrier = 1
    if off == 0x900:
        src = f"@!P0 BRA 0x{BASE + 0x400:x}"
    if off == 0xc80:
        src = f"@P1 BRA 0x{BASE + 0x800:x}"
    if off == 0x1000:
        src = f"@!P3 BRA 0x{BASE + 0x100:x}"
    if off == 0x1010:
        src, barrier = "EXIT", 5
    if off == 0x1020:
        src, barrier = f"BRA 0x{BASE + 0x100:x}", 5
    samples = wait + barrier
    out.writerow([f"0x{BASE + off:x}", src, samples, samples, samples, 1000,
                  barrier, wait, wait])
