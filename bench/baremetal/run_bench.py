#!/usr/bin/env python3
"""Runs the benchmark image under QEMU with the instruction-count plugin and
writes one JSON record per case.

  bench/baremetal/run_bench.py --plugin build/cortex-m4/tools/qemu-plugin/libattn_insn_count.so \
      --machine mps2-an386 --elf build/cortex-m4/bench/baremetal/attn_bench_ops.elf --json bench.json
  bench/baremetal/run_bench.py --plugin ... --user "qemu-aarch64 -L /usr/aarch64-linux-gnu" \
      --elf build/aarch64-linux/bench/baremetal/attn_bench_ops --json bench.json

--runs N (default 2) runs the image N times and fails unless every run gives
identical instruction counts. Instruction counts exclude the markers' own
overhead (case 0, the empty region, is subtracted). Exit status: 0 when all
cases ran, returned ok and were deterministic.
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

LINE = re.compile(r"^bench (\d+) op=(\S+) shape=(\S+) dtype=(\S+) cycles=(\S+) status=(\S+)")


def marker_addresses(elf, nm):
    addrs = {}
    for line in subprocess.run([nm, elf], check=True, capture_output=True, text=True).stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] in ("attn_bench_begin", "attn_bench_end"):
            addrs[parts[2]] = int(parts[0], 16)
    if len(addrs) != 2:
        sys.exit(f"{elf}: marker functions attn_bench_begin/attn_bench_end not found")
    return addrs


def run_once(args, addrs):
    with tempfile.TemporaryDirectory() as tmp:
        counts_file = os.path.join(tmp, "insns.txt")
        plugin = (f"{args.plugin},begin=0x{addrs['attn_bench_begin']:x},"
                  f"end=0x{addrs['attn_bench_end']:x},out={counts_file}")
        if args.machine:
            cmd = [args.qemu_system, "-M", args.machine, "-nographic",
                   "-semihosting-config", "enable=on,target=native",
                   "-plugin", plugin, "-kernel", args.elf]
        else:
            user = shlex.split(args.user)
            cmd = user[:1] + ["-plugin", plugin] + user[1:] + [args.elf]
        # QEMU 7.2 writes the semihosting console to its stderr: read both.
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=args.timeout)
        counts = {}
        if os.path.exists(counts_file):
            for line in open(counts_file):
                parts = line.split()
                if parts and parts[0] == "insns":
                    counts[int(parts[1])] = int(parts[2])
        return proc, counts


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--elf", required=True)
    ap.add_argument("--machine", help="qemu-system-arm board, e.g. mps2-an386")
    ap.add_argument("--user", help="qemu-user command, e.g. 'qemu-aarch64 -L /usr/aarch64-linux-gnu'")
    ap.add_argument("--qemu-system", default="qemu-system-arm")
    ap.add_argument("--nm", default="arm-none-eabi-nm")
    ap.add_argument("--json", default="")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--target", default="")
    ap.add_argument("--compiler", default="", help="compiler of the image, e.g. 'GNU 12.2.1'")
    ap.add_argument("--flags", default="", help="its compile flags (those of the counted code)")
    args = ap.parse_args()
    if not args.machine and not args.user:
        ap.error("--machine or --user")

    addrs = marker_addresses(args.elf, args.nm)
    runs = []
    for _ in range(max(1, args.runs)):
        proc, counts = run_once(args, addrs)
        sys.stdout.write(proc.stdout)
        if proc.returncode != 0:
            print(f"run_bench: the image exited with {proc.returncode}", file=sys.stderr)
            return 1
        runs.append((proc.stdout, counts))

    stdout, counts = runs[0]
    ok = True
    for i, (_, other) in enumerate(runs[1:], start=2):
        if other != counts:
            print(f"run_bench: run {i} counted differently from run 1: {other} vs {counts}", file=sys.stderr)
            ok = False
    cases = []
    overhead = counts.get(0, 0)
    m = re.search(r"^cycle counter: (.*)$", stdout, re.M)
    counter = m.group(1).strip() if m else "unknown"
    for line in stdout.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        n = int(m.group(1))
        if n not in counts:
            print(f"run_bench: no instruction count for case {n}", file=sys.stderr)
            ok = False
            continue
        if m.group(2) == "empty":
            continue
        cases.append({
            "op": m.group(2), "shape": m.group(3), "dtype": m.group(4),
            "cycles": None if m.group(5) == "n/a" else int(m.group(5)),
            "instructions": counts[n] - overhead,
            "status": m.group(6),
        })
        if m.group(6) != "ok":
            ok = False
    if not cases:
        print("run_bench: no benchmark lines in the output", file=sys.stderr)
        ok = False

    print(f"\n| {'op':<18} | {'shape':<26} | {'dtype':<5} | {'cycles':>10} | {'instructions':>12} |")
    print(f"|{'-' * 20}|{'-' * 28}|{'-' * 7}|{'-' * 12}|{'-' * 14}|")
    for c in cases:
        cyc = "n/a" if c["cycles"] is None else str(c["cycles"])
        print(f"| {c['op']:<18} | {c['shape']:<26} | {c['dtype']:<5} | {cyc:>10} | {c['instructions']:>12} |")
    if args.compiler or args.flags:
        print(f"built with {args.compiler}: {args.flags}")
    print(f"(instruction counts identical over {len(runs)} runs: {'yes' if ok else 'NO'}; "
          f"marker overhead {overhead} subtracted)")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"target": args.target or (args.machine or args.user), "elf": args.elf,
                       "compiler": args.compiler, "flags": args.flags, "runs": len(runs), "deterministic": ok, "marker_overhead": overhead,
                       "cycle_counter": counter,
                       "cases": cases}, fh, indent=2)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
