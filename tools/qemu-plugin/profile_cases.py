#!/usr/bin/env python3
"""Instructions per test case on a board: runs the bare-metal test image under
qemu-system-arm with the instruction-count plugin between the runner's
attn_case_begin / attn_case_end markers and lists the cases, heaviest first.

  tools/qemu-plugin/profile_cases.py build/cortex-m4 [--machine mps2-an386] [--top 15]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

BOARDS = {"cortex-m4": "mps2-an386", "cortex-m7": "mps2-an500", "cortex-m33": "mps2-an505",
          "cortex-m55": "mps3-an547"}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build_dir")
    ap.add_argument("--machine", default="")
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()
    bdir = args.build_dir.rstrip("/")
    machine = args.machine or BOARDS.get(os.path.basename(bdir), "")
    if not machine:
        ap.error("--machine (cannot tell the board from the build directory name)")
    elf = os.path.join(bdir, "tests", "baremetal", "attn_board_tests.elf")
    plugin = os.path.join(bdir, "tools", "qemu-plugin", "libattn_insn_count.so")
    syms = {}
    for line in subprocess.run(["arm-none-eabi-nm", elf], check=True, capture_output=True,
                               text=True).stdout.splitlines():
        p = line.split()
        if len(p) == 3 and p[2] in ("attn_case_begin", "attn_case_end"):
            syms[p[2]] = int(p[0], 16)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "insns.txt")
        cmd = ["qemu-system-arm", "-M", machine, "-nographic", "-semihosting-config",
               "enable=on,target=native", "-plugin",
               f"{plugin},begin=0x{syms['attn_case_begin']:x},end=0x{syms['attn_case_end']:x},out={out}",
               "-kernel", elf]
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        counts = [int(l.split()[2]) for l in open(out) if l.startswith("insns ")]
    names = re.findall(r"^\[ RUN      \] (\S+)", proc.stdout, re.M)
    rows = sorted(zip(counts, names), reverse=True)
    total = sum(counts)
    print(f"{len(names)} cases, {total} instructions in cases (exit code {proc.returncode})")
    for n, name in rows[: args.top]:
        print(f"  {n:>12}  {100.0 * n / max(total, 1):5.1f}%  {name}")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
