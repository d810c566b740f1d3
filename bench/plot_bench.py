#!/usr/bin/python3
"""Plot and summarise attn_bench JSON output (Google Benchmark format).

    bench/plot_bench.py bench_hwy.json [bench_ref.json bench_xsimd.json ...] -o bench_sdpa.png

Several files (one per ATTN_SIMD build) are merged. Prints, per benchmark
family, the median time, GFLOP/s, % of the FMA peak and the ratio
time(best peer) / time(attn) of the same run (the fastest of the Eigen,
oneDNN and OpenBLAS rows of that shape), and draws time vs sequence length
for SDPA d=64 (log-log) per backend and peer, plus the MHA / seq2seq /
softmax ratios, into one PNG.
"""
import argparse
import json
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


# The peer implementations attn_bench registers beside the attn rows.
PEERS = ("eigen", "onednn", "openblas")
PEERS_S8 = ("onednn_s8",)  # the int8 rows' peer (registered on VNNI CPUs only)


def load(paths):
    """Returns {(family, impl, arg): row} using the median aggregate (or the only run).

    Each file is one run; its peer rows are renamed <peer>@<backend of that run>
    and every attn row keeps a reference to the fastest peer of its own run.
    """
    rows = {}
    contexts = []
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        ctx = data.get("context", {})
        contexts.append(ctx)
        tag = ctx.get("attn_backend", os.path.basename(path))
        local = {}
        for b in data["benchmarks"]:
            if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
                continue
            name = b.get("run_name", b["name"])
            parts = name.split("/")
            family, impl = parts[0], parts[1] if len(parts) > 1 else ""
            arg = parts[2] if len(parts) > 2 else ""
            key = (family, impl, arg)
            if b.get("run_type") == "aggregate" or key not in local:
                local[key] = b
        for (family, impl, arg), b in local.items():
            kinds = PEERS_S8 if "_s8" in impl else PEERS
            peers = [local[(family, p, arg)] for p in kinds if (family, p, arg) in local]
            b["_peer"] = min(peers, key=ns) if peers else None
            if impl in PEERS or impl in PEERS_S8:
                impl = impl + "@" + tag
            if (family, impl, arg) not in rows:
                rows[(family, impl, arg)] = b
    return rows, contexts


def ns(b):
    scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}[b.get("time_unit", "ns")]
    # CPU time: the benchmark machines are shared; GFLOPS counters use it too.
    return b["cpu_time"] * scale


def peer_name(b):
    return b.get("run_name", b["name"]).split("/")[1]


def summary(rows):
    lines = ["| benchmark | impl | time (ns) | GFLOP/s | % peak | best peer/attn | ns/elem |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for (family, impl, arg), b in sorted(rows.items()):
        peer = b.get("_peer")
        ratio = ""
        if peer is not None and impl.startswith("attn"):
            ratio = "%.2fx (%s)" % (ns(peer) / ns(b), peer_name(peer))
        lines.append("| %s%s | %s | %.0f | %s | %s | %s | %s |" % (
            family, "/" + arg if arg else "", impl, ns(b),
            "%.1f" % b["GFLOPS"] if "GFLOPS" in b else "",
            "%.0f%%" % b["pct_peak"] if "pct_peak" in b else "",
            ratio,
            "%.3f" % b["ns_per_elem"] if "ns_per_elem" in b else ""))
    return "\n".join(lines)


def plot(rows, contexts, out):
    fig, axes = plt.subplots(1, 2, figsize=(14, 7))
    ax = axes[0]
    series = defaultdict(list)
    for (family, impl, arg), b in rows.items():
        if family == "SDPA_d64" and arg and "_s8" not in impl:
            series[impl].append((int(arg), ns(b) / 1e3))
    for impl, pts in sorted(series.items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=impl)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("sequence length (Sq = Skv), d = 64")
    ax.set_ylabel("CPU time per SDPA (us, median)")
    peak = ", ".join(sorted({c.get("fma_peak_gflops", "?")[:6] for c in contexts}))
    ax.set_title("SDPA d=64, single core (FMA peak %s GFLOP/s)" % peak)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()

    ax = axes[1]
    labels, values = [], []
    for (family, impl, arg), b in sorted(rows.items()):
        peer = b.get("_peer")
        if peer is None or not impl.startswith("attn") or "_s8" in impl or impl == "attn_ref":
            continue
        labels.append("%s%s  %s" % (family, "/" + arg if arg else "", impl[5:]))
        values.append(ns(peer) / ns(b))
    ax.barh(range(len(values)), values)
    ax.set_yticks(range(len(values)))
    ax.set_yticklabels(labels, fontsize=7)
    ax.axvline(1.0, color="k", lw=0.8)
    ax.set_xlabel("speed-up over the best peer of the same run (time(peer) / time(attn))")
    ax.set_title("attn vs the best of Eigen 3.4, oneDNN, OpenBLAS")
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", nargs="+")
    ap.add_argument("-o", "--out", default="bench_sdpa.png")
    args = ap.parse_args()
    rows, contexts = load(args.json)
    print(summary(rows))
    plot(rows, contexts, args.out)
    print("wrote", os.path.abspath(args.out), file=sys.stderr)


if __name__ == "__main__":
    main()
