#!/usr/bin/env python3
"""Firmware footprint report and no-heap check for the bare-metal targets.

  scripts/footprint.py report [--presets cortex-m4 cortex-m55] [--opt Os O2]
                            [--json build/footprint.json]
      For each preset and optimisation level, configures and builds
      build/<preset>-fp-<opt> (the op images of tests/baremetal/ops), then
      prints, per op: flash (.text + .rodata + .data image, i.e. what the
      image grows by over the baseline platform-only image), static RAM
      (.data + .bss over the baseline), worst-case stack (from -fstack-usage
      and the -fcallgraph-info call graph, from the op's entry function down),
      and the scratch the op needs for the image's shape (attn_fp_scratch_*).
      Writes everything as JSON.

  Both report and analyze fail (exit 1) when an op image is missing, and
  when an op's call graph has an indirect call or a recursion without an
  explicit bound in the stack budget file (tests/baremetal/ops/
  stack_budget.json, or --stack-budget): a static call graph cannot follow
  those, so the worst case would be under-reported. A bound reads
      "indirect_call_bounds": {"attn::f": {"bytes": 64, "why": "calls only g or h, each <= 64 B"}}
      "recursion_bounds":     {"attn::f": {"bytes": 96, "why": "depth <= 2, 48 B per level"}}
  keyed by the demangled function name without its argument list; "why" (the
  comment saying where the bound comes from) must not be empty. The bytes are
  the stack below the function: the indirect callee's worst case, or every
  recursive level beyond the first.

  scripts/footprint.py noheap [--nm arm-none-eabi-nm] IMAGE.elf
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



OPS = ["sdpa_f32", "mha_f32", "bahdanau_f32", "luong_dot_f32", "luong_general_f32",
       "general_attention_f32", "sdpa_s8", "softmax_s8", "mha_s8", "luong_dot_s8",
       "luong_general_s8", "bahdanau_s8", "model_load", "mha_decode_f32", "mha_decode_s8"]
# Demangled-name prefix of each op's entry function (the stack root).
ENTRY = {op: f"attn::{op}(" for op in OPS}
ENTRY["luong_dot_s8"] = ENTRY["luong_general_s8"] = "attn::luong_s8("
SHAPES = {
    "sdpa_f32": "B=1 Sq=Skv=16 d=64 causal",
    "mha_f32": "B=1 S=16 E=64 H=4",
    "bahdanau_f32": "B=1 T=16 D=64 units=32",
    "luong_dot_f32": "B=1 T=16 D=64",
    "luong_general_f32": "B=1 T=16 D=64",
    "general_attention_f32": "B=1 S=16 in=dk=dv=64",
    "sdpa_s8": "B=1 Sq=Skv=16 d=64",
    "softmax_s8": "16x16",
    "mha_s8": "B=1 S=16 E=64 H=4",
    "luong_dot_s8": "B=1 T=16 D=64",
    "luong_general_s8": "B=1 T=16 D=64",
    "bahdanau_s8": "B=1 T=16 D=64 units=32",
    "model_load": "64-byte blob",
    "mha_decode_f32": "E=64 H=4 kv=2 ctx=128 rope",
    "mha_decode_s8": "E=64 H=4 kv=2 ctx=128 rope",
}
TOOL = "arm-none-eabi-"


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def sections(elf):
    sizes = {}
    for line in run([TOOL + "size", "-A", elf]).splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0].startswith(".") and parts[1].isdigit():
            sizes[parts[0]] = int(parts[1])
    text = sizes.get(".text", 0) + sizes.get(".ARM.exidx", 0) + sizes.get(".ARM.extab", 0) + \
        sizes.get(".init_array", 0) + sizes.get(".preinit_array", 0) + sizes.get(".fini_array", 0)
    rodata = sizes.get(".rodata", 0)
    data = sizes.get(".data", 0)
    bss = sizes.get(".bss", 0)
    return {"text": text, "rodata": rodata, "data": data, "bss": bss,
            "flash": text + rodata + data, "ram": data + bss, "stack_reserved": sizes.get(".stack", 0)}


def scratch_symbols(elf, kind="scratch"):
    """op -> bytes from the image's attn_fp_<kind>_<op> symbols (kind: scratch
    or cache, the decoder ops' KV cache)."""
    out = {}
    prefix = f"attn_fp_{kind}_"
    for line in run([TOOL + "nm", elf]).splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2].startswith(prefix):
            out[parts[2][len(prefix):]] = int(parts[0], 16)
    return out


def library_data_symbols(archive):
    """Names of the .data/.bss objects an archive defines."""
    names = set()
    for line in run([TOOL + "nm", archive]).splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "bBdD":
            names.add(parts[2])
    return names


def owned_ram(elf, names):
    """Bytes of .data/.bss in `elf` held by the symbols `names`."""
    total = 0
    for line in run([TOOL + "nm", "-S", elf]).splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "bBdD" and parts[3] in names:
            total += int(parts[1], 16)
    return total


def frame_sizes_from_ci(build_dir):
    """Mangled name -> (bytes, qualifier) from every -fcallgraph-info .ci file."""
    frames = {}
    node = re.compile(r'node: \{ title: "([^"]+)" label: "[^"]*\\n(\d+) bytes \(([^)]*)\)"')
    for dirpath, _, files in os.walk(build_dir):
        for f in files:
            if f.endswith(".ci"):
                with open(os.path.join(dirpath, f), errors="replace") as fh:
                    for m in node.finditer(fh.read()):
                        frames[m.group(1)] = (int(m.group(2)), m.group(3))
    return frames


PUSH = re.compile(r"\b(push|stmdb\s+sp!),?\s*\{([^}]*)\}")
VPUSH = re.compile(r"\bvpush\s*\{([^}]*)\}")
SUBSP = re.compile(r"\bsub(?:\.w|w)?\s+sp,\s*(?:sp,\s*)?#(\d+)")


def reg_count(reglist):
    n = 0
    for part in reglist.split(","):
        part = part.strip()
        if "-" in part:
            a, b = part.split("-")
            n += int(re.sub(r"\D", "", b)) - int(re.sub(r"\D", "", a)) + 1
        elif part:
            n += 1
    return n


def parse_disassembly(elf):
    """Function name -> {"callees": set, "indirect": bool, "prologue": bytes}."""
    funcs = {}
    cur = None
    start = {}
    header = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
    call = re.compile(r"\s(bl|blx|b\.w|b)\s+([0-9a-f]+) <([^>+]+)>")
    for line in run([TOOL + "objdump", "-d", "--no-show-raw-insn", elf]).splitlines():
        m = header.match(line)
        if m:
            cur = m.group(2)
            start[cur] = int(m.group(1), 16)
            funcs[cur] = {"callees": set(), "indirect": False, "prologue": 0, "n": 0}
            continue
        if cur is None or ":\t" not in line:
            continue
        f = funcs[cur]
        f["n"] += 1
        c = call.search(line)
        if c and c.group(3) != cur:
            f["callees"].add(c.group(3))
        elif re.search(r"\sblx\s+r\d", line):
            f["indirect"] = True
        if f["n"] <= 12:  # the prologue
            p = PUSH.search(line)
            if p:
                f["prologue"] += 4 * reg_count(p.group(2))
            v = VPUSH.search(line)
            if v:
                f["prologue"] += 8 * reg_count(v.group(1)) if "d" in v.group(1) else 4 * reg_count(v.group(1))
            s2 = SUBSP.search(line)
            if s2:
                f["prologue"] += int(s2.group(1))
    return funcs


def demangle(names):
    out = run(["c++filt"], input="\n".join(names)).splitlines()
    return dict(zip(names, out))


def load_bounds(budget_path):
    """{"indirect": {name: bytes}, "recursion": {name: bytes}} from the budget
    file; a bound without bytes > 0 or without a "why" is an error."""
    bounds = {"indirect": {}, "recursion": {}}
    if not budget_path:
        return bounds
    with open(budget_path) as fh:
        data = json.load(fh)
    for kind, key in (("indirect", "indirect_call_bounds"), ("recursion", "recursion_bounds")):
        for name, b in data.get(key, {}).items():
            if not isinstance(b, dict) or not isinstance(b.get("bytes"), int) or b["bytes"] <= 0 \
                    or not str(b.get("why", "")).strip():
                raise SystemExit(f"{budget_path}: {key} {name}: needs \"bytes\" > 0 and a \"why\"")
            bounds[kind][name] = b["bytes"]
    return bounds


def worst_stack(root, funcs, frames, names, bounds):
    """Worst-case stack from `root` over the static call graph:
    (bytes, path, notes, unbounded); unbounded lists the indirect calls and
    recursions that `bounds` (load_bounds) does not cover."""
    notes = set()
    unbounded = set()
    memo = {}

    def short(fn):
        return names.get(fn, fn).split("(")[0]

    def frame(fn):
        if fn in frames:
            size, qual = frames[fn]
            if "dynamic" in qual and "bounded" not in qual:
                notes.add(f"{fn}: dynamic stack")
            return size
        return funcs.get(fn, {}).get("prologue", 0)

    def visit(fn, stack):
        if fn in memo:
            return memo[fn]
        if fn in stack:
            bound = bounds["recursion"].get(short(fn))
            if bound is None:
                unbounded.add(f"recursion through {short(fn)}: no recursion_bounds entry")
                return 0, []
            notes.add(f"recursion through {short(fn)}: bounded at {bound} B")
            return bound, [f"{fn} (recursion bound)"]
        info = funcs.get(fn)
        if info is None:
            return frame(fn), [fn]
        best = (0, [])
        if info["indirect"]:
            bound = bounds["indirect"].get(short(fn))
            if bound is None:
                unbounded.add(f"{short(fn)}: indirect call, no indirect_call_bounds entry")
            else:
                notes.add(f"{short(fn)}: indirect call bounded at {bound} B")
                best = (bound, [f"{fn} (indirect call bound)"])
        stack.add(fn)
        for c in sorted(info["callees"]):
            r = visit(c, stack)
            if r[0] > best[0]:
                best = r
        stack.discard(fn)
        memo[fn] = (frame(fn) + best[0], [fn] + best[1])
        return memo[fn]

    size, path = visit(root, set())
    return size, path, sorted(notes), sorted(unbounded)


def analyze(build_dir, preset, opt, bounds):
    """(rows, summary, problems): problems name every missing op image and
    every unbounded indirect call or recursion."""
    ops_dir = os.path.join(build_dir, "tests", "baremetal", "ops")
    base = sections(os.path.join(ops_dir, "attn_fp_base.elf"))
    frames = frame_sizes_from_ci(build_dir)
    engine_data = library_data_symbols(os.path.join(build_dir, "engine", "libattn.a"))
    platform_data = library_data_symbols(os.path.join(build_dir, "platform", "libattn_platform.a"))
    rt_dir = os.path.join(build_dir, "platform", "CMakeFiles", "attn_platform_rt.dir", "src")
    if os.path.isdir(rt_dir):
        for f in os.listdir(rt_dir):
            if f.endswith(".obj") or f.endswith(".o"):
                platform_data |= library_data_symbols(os.path.join(rt_dir, f))
    rows = []
    problems = []
    for op in OPS:
        elf = os.path.join(ops_dir, f"attn_fp_{op}.elf")
        if not os.path.exists(elf):
            problems.append(f"{op}: op image {os.path.relpath(elf, build_dir)} missing")
            continue
        sec = sections(elf)
        scratch = scratch_symbols(elf).get(op)
        if scratch is None:
            problems.append(f"{op}: no attn_fp_scratch_{op} symbol in its image")
            continue
        funcs = parse_disassembly(elf)
        names = demangle(list(funcs))
        # The entry function itself, not an entity local to it ("f(...)::{lambda()#1}").
        roots = [f for f, d in names.items() if d.startswith(ENTRY[op]) and ")::" not in d]
        stack, path, notes, unbounded = (0, [], [], ["entry function not found"])
        if roots:
            stack, path, notes, unbounded = worst_stack(roots[0], funcs, frames, names, bounds)
        problems += [f"{op}: {u}" for u in unbounded]
        dm = demangle(path) if path else {}
        rows.append({
            "preset": preset, "opt": opt, "op": op, "shape": SHAPES[op],
            "flash": sec["flash"] - base["flash"],
            "text": sec["text"] - base["text"],
            "rodata": sec["rodata"] - base["rodata"],
            "static_ram": owned_ram(elf, engine_data),
            "stack": stack,
            "scratch": scratch,
            "cache": scratch_symbols(elf, "cache").get(op, 0),
            "stack_path": [dm.get(f, f).split("(")[0] for f in path],
            "notes": notes,
        })
    total_elf = os.path.join(ops_dir, "attn_all_ops.elf")
    summary = None
    if os.path.exists(total_elf):
        sec = sections(total_elf)
        scr = scratch_symbols(total_elf)
        summary = {"preset": preset, "opt": opt, "op": "all ops",
                   "flash": sec["flash"] - base["flash"], "text": sec["text"] - base["text"],
                   "rodata": sec["rodata"] - base["rodata"],
                   "static_ram": owned_ram(total_elf, engine_data),
                   "platform_flash": base["flash"],
                   "platform_ram": owned_ram(os.path.join(ops_dir, "attn_fp_base.elf"), platform_data)}
    return rows, summary, problems


def report_problems(problems, where):
    for p in problems:
        print(f"footprint: {where}: {p}", file=sys.stderr)
    return 1 if problems else 0


def print_table(rows, summaries, out=sys.stdout):
    hdr = f"| {'target':<11} | {'opt':<7} | {'op':<22} | {'shape':<26} | {'flash B':>7} | {'(.text':>6} | {'.rodata)':>8} | {'static RAM B':>12} | {'stack B':>7} | {'scratch B':>9} | {'cache B':>7} |"
    print(hdr, file=out)
    print("|" + "|".join("-" * (len(c)) for c in hdr.split("|")[1:-1]) + "|", file=out)
    for r in rows:
        print(f"| {r['preset']:<11} | {r['opt']:<7} | {r['op']:<22} | {r['shape']:<26} | {r['flash']:>7} | {r['text']:>6} | {r['rodata']:>8} | {r['static_ram']:>12} | {r['stack']:>7} | {r['scratch']:>9} | {r.get('cache', 0) or '':>7} |", file=out)
    for s in summaries:
        if s:
            print(f"| {s['preset']:<11} | {s['opt']:<7} | {'all ops':<22} | {'':<26} | {s['flash']:>7} | {s['text']:>6} | {s['rodata']:>8} | {s['static_ram']:>12} | {'':>7} | {'':>9} | {'':>7} |", file=out)
    for s in summaries:
        if s:
            print(f"\n{s['preset']} -{s['opt']}: the platform-only baseline image (start-up, console, "
                  f"cycle counter, libc bits, the image's main) is {s['platform_flash']} B flash; the "
                  f"platform holds {s['platform_ram']} B static RAM (plus the stack, 64 KiB by default)", file=out)
    notes = sorted({f"{r['op']}: {n}" for r in rows for n in r["notes"]})
    if notes:
        print("\nnotes:", file=out)
        for n in notes:
            print(f"  {n}", file=out)


def cmd_analyze(args):
    preset = args.preset or os.path.basename(args.build_dir.rstrip("/"))
    rows, summary, problems = analyze(args.build_dir, preset, args.opt,
                                      load_bounds(args.stack_budget))
    print_table(rows, [summary])
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"rows": rows, "summary": [summary]}, fh, indent=2)
    if not rows:
        print("no op images found", file=sys.stderr)
        return 1
    bad = [r for r in rows if r["stack"] <= 0 or r["flash"] <= 0]
    for r in bad:
        print(f"footprint: {preset}: {r['op']}: stack {r['stack']} B, flash {r['flash']} B: "
              "not measured", file=sys.stderr)
    if report_problems(problems, preset) != 0:
        return 1
    if args.stack_budget and check_stack_budget(rows, args.stack_budget, args.preset) != 0:
        return 1
    return 1 if bad else 0


# Allowed drift over a recorded stack budget (as TFLM's arena threshold tests
# allow): a change that grows an op's worst-case stack by more fails.
STACK_DRIFT_BYTES = 32
STACK_DRIFT_FRACTION = 0.05


def check_stack_budget(rows, budget_path, preset):
    """Compares each op's worst-case stack with the recorded budget for this
    preset; fails on growth beyond the drift, and names ops that shrank a lot
    (so the budget can be tightened)."""
    with open(budget_path) as fh:
        budgets = json.load(fh).get(preset, {})
    if not budgets:
        print(f"stack budget: no entry for {preset} in {budget_path}", file=sys.stderr)
        return 1
    failed = 0
    for r in rows:
        want = budgets.get(r["op"])
        if want is None:
            print(f"stack budget: {preset} {r['op']}: no recorded budget", file=sys.stderr)
            failed = 1
            continue
        limit = want + max(STACK_DRIFT_BYTES, int(want * STACK_DRIFT_FRACTION))
        if r["stack"] > limit:
            print(f"stack budget: {preset} {r['op']}: {r['stack']} B > budget {want} B "
                  f"(+drift = {limit} B); path {' -> '.join(r.get('stack_path', []))}",
                  file=sys.stderr)
            failed = 1
        elif r["stack"] < want - 2 * max(STACK_DRIFT_BYTES, int(want * STACK_DRIFT_FRACTION)):
            print(f"stack budget: {preset} {r['op']}: {r['stack']} B, well under its budget "
                  f"{want} B: tighten {os.path.relpath(budget_path, ROOT)}", file=sys.stderr)
    print(f"stack budget: {preset}: {'FAILED' if failed else 'ok'} ({len(rows)} ops)",
          file=sys.stderr)
    return failed


OPT_FLAGS = {"Os": ["-DCMAKE_BUILD_TYPE=MinSizeRel"],
             "O2": ["-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG",
                    "-DCMAKE_C_FLAGS_RELEASE=-O2 -DNDEBUG"]}


def cmd_report(args):
    all_rows, summaries, failed = [], [], 0
    bounds = load_bounds(args.stack_budget)
    targets = ["attn_fp_base", "attn_all_ops"] + [f"attn_fp_{op}" for op in OPS]
    for preset in args.presets:
        for opt in args.opt:
            bdir = os.path.join(ROOT, "build", f"{preset}-fp-{opt}")
            print(f"footprint: {preset} -{opt} in {os.path.relpath(bdir, ROOT)}", file=sys.stderr)
            subprocess.run(["cmake", "--preset", preset, "-B", bdir] + OPT_FLAGS[opt], cwd=ROOT,
                           check=True, stdout=subprocess.DEVNULL)
            subprocess.run(["cmake", "--build", bdir, "-j", str(args.jobs), "--target"] + targets,
                           cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
            rows, summary, problems = analyze(bdir, preset, opt, bounds)
            failed |= report_problems(problems, f"{preset} -{opt}")
            all_rows += rows
            summaries.append(summary)
    print_table(all_rows, summaries)
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as fh:
        json.dump({"rows": all_rows, "summary": summaries,
                   "columns": {
                       "flash": "bytes of flash the op adds to a platform-only image (.text + .rodata + .data image)",
                       "static_ram": "bytes of .data + .bss the engine itself holds in the image (caller buffers, params and scratch excluded)",
                       "stack": "worst-case stack of the op's entry function (call graph, -fstack-usage)",
                       "scratch": "bytes of caller scratch the op needs for the shape (*_scratch_bytes)",
                       "cache": "bytes of caller KV cache of the decoder ops (kv_cache_bytes)"}},
                  fh, indent=2)
    print(f"\nwritten {args.json}", file=sys.stderr)
    return failed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    nh = sub.add_parser("noheap", help="check an image for heap/exception symbols")
    nh.add_argument("--nm", default="arm-none-eabi-nm")
    nh.add_argument("elf")
    nh.set_defaults(func=cmd_noheap)
    an = sub.add_parser("analyze", help="footprint of the op images in one build directory")
    an.add_argument("build_dir")
    an.add_argument("--preset", default="")
    an.add_argument("--opt", default="")
    an.add_argument("--json", default="")
    an.add_argument("--stack-budget", default="",
                    help="JSON {preset: {op: bytes}}: fail if an op's stack exceeds it (+drift)")
    an.set_defaults(func=cmd_analyze)
    rp = sub.add_parser("report", help="build at -Os and -O2 and report per target and op")
    rp.add_argument("--presets", nargs="+", default=["cortex-m4", "cortex-m55"])
    rp.add_argument("--opt", nargs="+", default=["Os", "O2"], choices=sorted(OPT_FLAGS))
    rp.add_argument("--json", default=os.path.join(ROOT, "build", "footprint.json"))
    rp.add_argument("--jobs", type=int, default=2)
    rp.add_argument("--stack-budget",
                    default=os.path.join(ROOT, "tests", "baremetal", "ops", "stack_budget.json"),
                    help="JSON with the indirect-call and recursion bounds (see above)")
    rp.set_defaults(func=cmd_report)
    args = ap.parse_args()
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
