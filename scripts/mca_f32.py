#!/usr/bin/python3
"""Static throughput analysis of the float SDPA's hot loops on x86 (llvm-mca).

Compiles the Highway float kernels (engine/src/kernels/f32/hwy/kernels_f32_hwy.cpp)
to assembly with the library's own flags (every dynamic-dispatch target, as
shipped), finds the innermost loop of each stage of the transposed SDPA tile
(Q.K^T: QkBlockT; online softmax: SoftmaxTGroup's max and exp passes; P.V:
PvBlock) per Highway target, and runs llvm-mca on each loop for several CPU
models. Prints per loop and CPU: instructions and vector FMAs per iteration,
llvm-mca's block reciprocal throughput, the busiest ports and the mnemonics on
them, and the FMA-peak fraction the loop can reach (its FMAs at the model's own
FMA rate, measured by llvm-mca on a block of independent FMAs, over its block
throughput). Then the per-score cost of each stage and the stage shares of a
d = 64 SDPA at L = 256 and 1024, from those cycle estimates.

Usage: scripts/mca_f32.py [--cxx c++] [--mca llvm-mca-19] [--asm file.s] [--cpus a,b]
                        [--show-loops]
No timing is involved: the numbers are llvm-mca's static model, the same on
any machine with the same compiler and LLVM.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "engine/src/kernels/f32/hwy/kernels_f32_hwy.cpp")
# The attn library's flags for this file on x86 (Release, engine/CMakeLists.txt
# and kernels/f32/backends.cmake), without the warnings.
FLAGS = ["-DATTN_BACKEND=hwy", "-DHWY_WANT_AVX3_DL", "-I" + os.path.join(ROOT, "engine/include"),
         "-I" + os.path.join(ROOT, "engine/src"), "-O3", "-DNDEBUG", "-fno-exceptions",
         "-fno-rtti", "-std=c++17", "-falign-loops=64"]
# Highway target -> (vector register, CPU models that run it).
TARGETS = {
    "AVX3": ("zmm", ["skylake-avx512", "icelake-server", "sapphirerapids", "znver4", "znver5"]),
    "AVX2": ("ymm", ["skylake", "icelake-server", "sapphirerapids", "znver3", "znver4", "znver5"]),
}
# Stage -> demangled-name fragments of the functions that hold its loops.
STAGES = {
    "qk": ("QkBlockT", "QkRowsT", "QkTileT<", "QkTileTF32"),
    "softmax": ("SoftmaxTGroup", "SoftmaxT<", "SoftmaxTF32"),
    "pv": ("PvBlock", "PvRows", "PvTileStrided", "PvTileT<", "PvTileTF32"),
}
SDPA_TILE_Q = 32  # kSdpaQueryTile with a SIMD backend
SDPA_KEY_BLOCK = 64  # kSdpaKeyBlock


def find_mca(requested):
    for name in ([requested] if requested else ["llvm-mca-19", "llvm-mca-18", "llvm-mca-17",
                                                 "llvm-mca"]):
        path = shutil.which(name) or (name if os.path.exists(name) else None)
        if path:
            return path
    sys.exit("llvm-mca not found (Debian: apt-get install llvm-19)")


def known_cpus(mca):
    out = subprocess.run([mca, "-mtriple=x86_64", "-mcpu=help"], capture_output=True, text=True)
    return set(re.findall(r"^\s+([a-z0-9_-]+)\s+- Select", out.stdout + out.stderr, re.M))


def compile_asm(cxx, out):
    subprocess.run([cxx] + FLAGS + ["-S", "-o", out, SRC], check=True)


def split_functions(lines):
    """{mangled name: [asm lines]} of every function in a GCC .s file."""
    funcs, name = {}, None
    for line in lines:
        m = re.match(r"^([A-Za-z_.$][\w.$]*):", line)
        if m and not m.group(1).startswith(".L"):
            name = m.group(1)
            funcs[name] = []
        elif name is not None:
            if line.strip().startswith(".size"):
                name = None
            else:
                funcs[name].append(line)
    return funcs


def demangle(names):
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True,
                         check=True).stdout.splitlines()
    return dict(zip(names, out))


def is_insn(line):
    s = line.strip()
    return bool(s) and not s.startswith((".", "#")) and not s.endswith(":")


def innermost_loops(body):
    """[(label, [instructions])] of loops (label, later jump back to it) with no inner loop."""
    labels = {}
    for i, line in enumerate(body):
        m = re.match(r"^(\.L\w+):", line)
        if m:
            labels[m.group(1)] = i
    loops = []
    for i, line in enumerate(body):
        m = re.match(r"^\s+j\w+\s+(\.L\w+)", line)
        if m and m.group(1) in labels and labels[m.group(1)] < i:
            loops.append((labels[m.group(1)], i, m.group(1)))
    inner = [l for l in loops
             if not any(o is not l and l[0] <= o[0] and o[1] <= l[1] for o in loops)]
    return [(lab, [body[k].strip() for k in range(a, b + 1) if is_insn(body[k])])
            for a, b, lab in inner]


def mnemonic(insn):
    return insn.split()[0]


def count_fma(insns):
    return sum(1 for i in insns if mnemonic(i).startswith("vfmadd"))


def run_mca(mca, cpu, insns):
    src = "\n".join(insns) + "\n"
    out = subprocess.run([mca, "-mtriple=x86_64-unknown-linux-gnu", "-mcpu=" + cpu,
                          "-iterations=200", "-resource-pressure", "-instruction-info=false"],
                         input=src, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    return parse_mca(out.stdout)


def parse_mca(text):
    res = {"rthroughput": float(re.search(r"Block RThroughput:\s+([\d.]+)", text).group(1)),
           "uops": int(re.search(r"Total uOps:\s+(\d+)", text).group(1))}
    # Resource names, then per-iteration pressure, then per-instruction pressure.
    names = dict(re.findall(r"^\[(\d+(?:\.\d+)?)\]\s+-\s+(\S+)", text, re.M))
    sec = text.split("Resource pressure per iteration:")[1]
    hdr, vals = sec.strip().splitlines()[:2]
    cols = re.findall(r"\[([\d.]+)\]", hdr)
    pressure = {}
    for col, v in zip(cols, vals.split()):
        pressure[names.get(col, col)] = 0.0 if v == "-" else float(v)
    res["pressure"] = pressure
    # Which mnemonics load each resource.
    by_insn = text.split("Resource pressure by instruction:")[1].strip().splitlines()[1:]
    users = {n: Counter() for n in pressure}
    for row in by_insn:
        parts = row.split()
        if len(parts) < len(cols) + 1:
            continue
        for col, v in zip(cols, parts[:len(cols)]):
            if v != "-":
                users[names.get(col, col)][parts[len(cols)]] += float(v)
    res["users"] = users
    return res


def fma_rate(mca, cpu, reg):
    """Cycles per vector FMA at the model's peak: 12 independent chains."""
    block = ["vfmadd231ps %{0}12, %{0}13, %{0}{1}".format(reg, i) for i in range(12)]
    return run_mca(mca, cpu, block)["rthroughput"] / len(block)


def broadcasts(insns):
    """Distinct scalar addresses broadcast to a vector (vbroadcastss or {1toN} operands)."""
    addrs = set()
    for i in insns:
        m = re.search(r"([-\w]*\([^)]*\))\{1to\d+\}", i)
        if m:
            addrs.add(m.group(1))
        elif mnemonic(i) == "vbroadcastss":
            addrs.add(i.split()[1].rstrip(","))
    return len(addrs)


def target_loops(funcs, names, target):
    """{stage: [(function, label, insns)]} of one Highway target's innermost loops."""
    out = {stage: [] for stage in STAGES}
    for mangled, body in funcs.items():
        dn = names[mangled]
        if "N_%s::" % target not in dn:
            continue
        for stage, frags in STAGES.items():
            if any(f in dn for f in frags):
                for label, insns in innermost_loops(body):
                    if not any(mnemonic(i) in ("ret", "call") for i in insns):
                        out[stage].append((dn, label, insns))
    return out


def qk_blocks(lanes):
    """QkTileT's register blocks at tq = SDPA_TILE_Q: (G, KB) and the tail KB for 64 keys."""
    g = SDPA_TILE_Q // lanes
    kb = {1: 16, 2: 6, 4: 3}[g]
    return g, kb, SDPA_KEY_BLOCK % kb


def select(loops, lanes):
    """The loops of the tile a d = 64 SDPA runs: {name: (insns, what it covers)}."""
    g, kb, tail = qk_blocks(lanes)
    sel = {}
    for insns_fma, nb, key in ((g * kb, kb, "qk"), (g * tail, tail, "qk_tail")):
        if nb == 0:
            continue
        cand = [l for l in loops["qk"] if count_fma(l[2]) == insns_fma and broadcasts(l[2]) == nb]
        if cand:
            sel[key] = min(cand, key=lambda l: len(l[2]))[2]
    sm = loops["softmax"]
    maxl = [l for l in sm if count_fma(l[2]) == 0 and
            sum(mnemonic(i) == "vmaxps" for i in l[2]) == 4]
    expl = [l for l in sm if count_fma(l[2]) > 0 and
            sum(mnemonic(i).startswith("vmovups") and i.rstrip().endswith(")") for i in l[2]) == 2]
    if maxl:
        sel["softmax_max"] = min(maxl, key=lambda l: len(l[2]))[2]
    if expl:
        sel["softmax_exp"] = min(expl, key=lambda l: len(l[2]))[2]
    # PvBlock<4, RC>: 4 broadcast weights, the most FMAs (RC = FMAs / 4). GCC
    # may emit it twice (P's key stride 1, and the transposed tiles' stride tq,
    # which PvTileT runs); the strided one has the longer body.
    pv = [l for l in loops["pv"] if broadcasts(l[2]) == 4 and count_fma(l[2]) % 4 == 0]
    if pv:
        most = max(count_fma(l[2]) for l in pv)
        sel["pv"] = max((l for l in pv if count_fma(l[2]) == most), key=lambda l: len(l[2]))[2]
    return sel


def analyse_loop(mca, cpu, insns):
    r = run_mca(mca, cpu, insns)
    top = sorted(r["pressure"].items(), key=lambda kv: -kv[1])[:3]
    r["top"] = [(name, p, [m for m, _ in r["users"][name].most_common(3)]) for name, p in top]
    return r


def per_score_cycles(rt, lanes, pv_cols, d=64):
    """Cycles per score of each stage from the loops' block throughputs."""
    g, kb, tail = qk_blocks(lanes)
    tq, nk = SDPA_TILE_Q, SDPA_KEY_BLOCK
    full = nk // kb
    qk = (rt["qk"] * d * full + (rt.get("qk_tail", 0.0) * d if tail else 0.0)) / (tq * nk)
    sm = rt["softmax_max"] / (4 * lanes) + rt["softmax_exp"] / (2 * lanes)
    pv = rt["pv"] * (d / (pv_cols * lanes)) / 4  # PvBlock<4, RC>: 4 queries x RC vectors per key
    return {"qk": qk, "softmax": sm, "pv": pv}


def ops_per_vector_of_scores(sel, lanes, pv_cols, d=64):
    """{stage: (vector instructions, vector FMAs)} per Lanes() scores, steady state."""
    g, kb, _ = qk_blocks(lanes)
    vec = lambda insns: sum(1 for i in insns if mnemonic(i).startswith("v"))
    per = {"qk": (sel["qk"], d / (g * kb)),
           "softmax_max": (sel["softmax_max"], 1 / 4),
           "softmax_exp": (sel["softmax_exp"], 1 / 2),
           "pv": (sel["pv"], d / (4 * pv_cols))}
    out = {k: (vec(i) * f, count_fma(i) * f) for k, (i, f) in per.items()}
    mx, ex = out.pop("softmax_max"), out.pop("softmax_exp")
    out["softmax"] = (mx[0] + ex[0], mx[1] + ex[1])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cxx", default=os.environ.get("CXX", "c++"))
    ap.add_argument("--mca", default=None)
    ap.add_argument("--asm", default=None, help="use this .s instead of compiling")
    ap.add_argument("--cpus", default=None, help="comma-separated subset of the CPU models")
    ap.add_argument("--show-loops", action="store_true", help="print each selected loop")
    args = ap.parse_args()
    mca = find_mca(args.mca)
    cpus_known = known_cpus(mca)
    with tempfile.TemporaryDirectory() as tmp:
        asm = args.asm or os.path.join(tmp, "kernels_f32_hwy.s")
        if not args.asm:
            compile_asm(args.cxx, asm)
        lines = open(asm).read().splitlines()
    funcs = split_functions(lines)
    names = demangle(list(funcs))
    cxx_ver = subprocess.run([args.cxx, "--version"], capture_output=True, text=True).stdout
    mca_ver = subprocess.run([mca, "--version"], capture_output=True, text=True).stdout
    print("compiler: %s" % cxx_ver.splitlines()[0])
    print("llvm-mca: %s (%s)" % (re.search(r"LLVM version (\S+)", mca_ver).group(1), mca))
    print("flags: %s -S (every Highway target; loops as shipped)" % " ".join(
        f for f in FLAGS if not f.startswith("-I")))
    wanted = set(args.cpus.split(",")) if args.cpus else None
    for target, (reg, cpus) in TARGETS.items():
        lanes = 16 if reg == "zmm" else 8
        sel = select(target_loops(funcs, names, target), lanes)
        g, kb, tail = qk_blocks(lanes)
        missing = {"qk", "softmax_max", "softmax_exp", "pv"} - set(sel)
        if missing:
            sys.exit("loops not found for %s: %s" % (target, ", ".join(sorted(missing))))
        pv_cols = count_fma(sel["pv"]) // 4
        print("\n## Highway %s (%d lanes), tq = %d: QkBlockT<G=%d, KB=%d> (+ KB=%d tail), "
              "PvBlock<4, %d>" % (target, lanes, SDPA_TILE_Q, g, kb, tail, pv_cols))
        if args.show_loops:
            for key, insns in sel.items():
                print("\n### %s loop (%s)\n%s" % (key, target, "\n".join(insns)))
        print("\n| loop | CPU | insns/iter | vec FMAs/iter | uops | block RThroughput (cycles) | "
              "FMA-bound cycles | % FMA peak | busiest resources (pressure/iter: mnemonics) |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---|")
        summary = []
        for cpu in cpus:
            if cpu not in cpus_known or (wanted and cpu not in wanted):
                continue
            rate = fma_rate(mca, cpu, reg)
            rt = {}
            for key, insns in sel.items():
                r = analyse_loop(mca, cpu, insns)
                rt[key] = r["rthroughput"]
                nf = count_fma(insns)
                fb = nf * rate
                top = "; ".join("%s %.2f: %s" % (n, p, ",".join(ms)) for n, p, ms in r["top"])
                print("| %s | %s | %d | %d | %d | %.2f | %.2f | %s | %s |" % (
                    key, cpu, len(insns), nf, r["uops"] // 200, r["rthroughput"], fb,
                    "%.0f%%" % (100 * fb / r["rthroughput"]) if nf else "-", top))
            c = per_score_cycles(rt, lanes, pv_cols)
            peak = 2 * 64 / lanes * rate  # vector FMAs per score (d = dv = 64) at the peak rate
            total = sum(c.values())
            summary.append((cpu, rate, c, total, peak))
        ops = ops_per_vector_of_scores(sel, lanes, pv_cols)
        print("\nVector instructions (of which FMAs) per %d scores at d = 64: Q.K^T %.0f (%.0f), "
              "softmax %.1f (%.1f), P.V %.0f (%.0f)" % (
                  lanes, ops["qk"][0], ops["qk"][1], ops["softmax"][0], ops["softmax"][1],
                  ops["pv"][0], ops["pv"][1]))
        print("\nPer score at d = 64 (steady state of a 32-query tile, 64-key blocks; "
              "cycles from the block throughputs):")
        print("\n| CPU | cycles/vec FMA (peak) | Q.K^T | softmax | P.V | total | FMA-peak cycles | "
              "% FMA peak | shares QK / softmax / PV |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
        for cpu, rate, c, total, peak in summary:
            print("| %s | %.2f | %.3f | %.3f | %.3f | %.3f | %.3f | %.0f%% | %s |" % (
                cpu, rate, c["qk"], c["softmax"], c["pv"], total, peak, 100 * peak / total,
                " / ".join("%.0f%%" % (100 * c[k] / total) for k in ("qk", "softmax", "pv"))))


if __name__ == "__main__":
    main()
