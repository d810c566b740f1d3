#!/usr/bin/python3
"""`attn bench` end to end: the JSON report of float, int8 and model-blob runs.

Usage: cli_bench_test.py ATTN [EMULATOR ARGS...]
(cross builds pass their qemu-user command, e.g. qemu-aarch64 -L /usr/aarch64-linux-gnu).

For `attn bench sdpa --seq-q 256 --seq-kv 256 --dim 64 --json` (float32 and
--dtype int8, tiny time budget) and `attn bench mha --model` on the committed
float and int8 blobs it checks: every field is present, times are positive with
min <= median <= max, at least 3 timed calls, the throughput equals the op count
over the median time, the op count equals the documented formula, and the
scratch bytes equal the library's formula (the float and int8 SDPA formulas of
attn/sdpa.h and attn/sdpa_s8.h recomputed here; for the blobs, the figure
`attn info` prints). Also: the text report, and one-line errors (exit 2) for a
failing op, an unknown op, and a flag the op does not take. No timing is
asserted. Exits 0 on success, 1 on failure.
"""
import json
import os
import sys

from cli_common import check, finish, runner

HERE = os.path.dirname(os.path.realpath(__file__))
MODELS = os.path.join(os.path.dirname(HERE), "data", "model")
CMD = sys.argv[2:] + [os.path.abspath(sys.argv[1])]
attn = runner(CMD, timeout=600)


def a64(n):
    return (n + 63) // 64 * 64


def r(n, m):
    return (n + m - 1) // m * m


def sdpa_f32_scratch(report, dk, dv):
    """attn/sdpa.h: the query tile is 8 with the ref kernels, 32 with a SIMD backend."""
    t = 32 if report["kernels"]["f32_backend"] in ("hwy", "xsimd") else 8
    return 64 + a64(4 * t * dk) + a64(4 * t * 64) + a64(4 * t * dv) + 3 * a64(4 * t)


def sdpa_s8_scratch(report, skv, dk, dv):
    """attn/sdpa_s8.h: the query tile T is 16 on x86-64 and AArch64 and 1 on the
    other hosted targets (4 only on Cortex-M boards, which do not run the CLI)."""
    arch = report["cpu"]["arch"]
    t = 16 if arch in ("x86_64", "aarch64") else 1
    ptr = 8 if arch in ("x86_64", "aarch64") else 4  # sizeof(void*)
    row = 2 * a64(skv) + a64(2 * skv) + a64(ptr * skv) + a64(2 * dk) + a64(4 * dv)
    tile = 0
    if t > 1:
        tile = (a64(r(skv, 16) * r(dk, 4)) + a64(4 * r(skv, 16)) + a64(r(skv, 16) * r(dv, 16)) +
                a64(t * r(dk, 4)) + 2 * a64(4 * t) + a64(4 * t * r(skv, 16)) +
                a64(t * r(skv, 16)) + a64(4 * t * r(dv, 16)))
    return 64 + row + tile


def bench_json(tag, *args):
    rc, out, err = attn("bench", *args, "--json", "--time", "0.02", "--warmup", "1")
    check(rc == 0, f"{tag}: exit {rc}: {err.strip()}")
    if rc != 0:
        return None
    try:
        rep = json.loads(out)
    except ValueError as e:
        check(False, f"{tag}: not JSON ({e}): {out!r}")
        return None
    for key in ("op", "dtype", "model", "shape", "mask", "calls", "warmup_calls", "budget_s",
                "time_ns", "ops_per_call", "ops_formula", "kernels", "cpu", "cycle_counter",
                "scratch_bytes"):
        check(key in rep, f"{tag}: JSON has {key}")
    t = rep.get("time_ns", {})
    check(0 < t.get("min", 0) <= t.get("median", 0) <= t.get("max", 0),
          f"{tag}: 0 < min <= median <= max: {t}")
    check(rep.get("calls", 0) >= 3, f"{tag}: at least 3 timed calls: {rep.get('calls')}")
    rate = "gops" if rep.get("dtype") == "int8" else "gflops"
    if rate in rep and t.get("median", 0) > 0:
        want = rep["ops_per_call"] / t["median"]
        check(abs(rep[rate] - want) <= 1e-5 * want,
              f"{tag}: {rate} {rep[rate]} = ops / median {want}")
    else:
        check(False, f"{tag}: JSON has {rate}")
    k = rep.get("kernels", {})
    check(k.get("f32_backend") in ("ref", "hwy", "xsimd") and k.get("int8"),
          f"{tag}: kernels named: {k}")
    check(k.get("ran", "").startswith(rep.get("dtype", "?")), f"{tag}: kernels that ran: {k}")
    check(rep.get("cpu", {}).get("model") and rep.get("cpu", {}).get("arch"), f"{tag}: cpu named")
    cc = rep.get("cycle_counter")
    check(cc is None or (cc["name"] and 0 <= cc["min"] <= cc["median"] <= cc["max"]),
          f"{tag}: cycle counter {cc}")
    return rep


def main():
    sq = skv = 256
    d = 64
    shape = ["--seq-q", str(sq), "--seq-kv", str(skv), "--dim", str(d)]
    rep = bench_json("sdpa f32", "sdpa", *shape)
    if rep:
        check(rep["dtype"] == "f32" and rep["shape"] == {"batch": 1, "seq_q": sq, "seq_kv": skv,
                                                         "dim": d, "heads": 1}, f"sdpa f32: {rep}")
        check(rep["ops_per_call"] == 2 * sq * skv * 2 * d, f"sdpa f32 ops: {rep['ops_per_call']}")
        want = sdpa_f32_scratch(rep, d, d)
        check(rep["scratch_bytes"] == want, f"sdpa f32 scratch {rep['scratch_bytes']} != {want}")
    rep = bench_json("sdpa int8", "sdpa", *shape, "--dtype", "int8", "--mask", "causal")
    if rep:
        check(rep["dtype"] == "int8" and rep["mask"] == "causal", f"sdpa int8: {rep}")
        check(rep["ops_per_call"] == 2 * sq * skv * 2 * d, f"sdpa int8 ops: {rep['ops_per_call']}")
        want = sdpa_s8_scratch(rep, skv, d, d)
        check(rep["scratch_bytes"] == want, f"sdpa int8 scratch {rep['scratch_bytes']} != {want}")

    for blob, dtype, label in (("mha.attn", "f32", "scratch: "),
                               ("mha_int8.attn", "int8", "(mha_s8 ")):
        path = os.path.join(MODELS, blob)
        rep = bench_json(f"mha --model {blob}", "mha", "--model", path, "--seq-q", str(sq),
                         "--seq-kv", str(skv))
        rc, info, err = attn("info", path, "--seq", str(sq), "--seq-kv", str(skv))
        check(rc == 0, f"info {blob}: {err}")
        if rep and rc == 0:
            check(rep["dtype"] == dtype and rep["model"] == path, f"{blob}: {rep}")
            line = next(l for l in info.splitlines() if "scratch:" in l)
            want = int(line.split(label, 1)[1].split()[0])
            check(rep["scratch_bytes"] == want, f"{blob}: scratch {rep['scratch_bytes']}, "
                                                f"attn info says {want}")

    # One decoder step at a context: GQA with float32 and float16 caches, int8.
    e, h, g, ctx = 64, 4, 2, 300
    hd = e // h
    ops = 2 * (2 * e * e + 2 * e * g * hd) + 4 * h * (ctx + 1) * hd
    for extra, dtype in (([], "f32"), (["--cache-dtype", "f16"], "f32"),
                         (["--cache-dtype", "int8"], "int8")):
        tag = f"mha-decode {' '.join(extra) or 'f32'}"
        rep = bench_json(tag, "mha-decode", "--dim", str(e), "--heads", str(h), "--kv-heads",
                         str(g), "--seq-kv", str(ctx), *extra)
        if rep:
            check(rep["dtype"] == dtype and rep["shape"]["seq_q"] == 1 and
                  rep["shape"]["seq_kv"] == ctx and rep["scratch_bytes"] > 0, f"{tag}: {rep}")
            check(rep["ops_per_call"] == ops, f"{tag}: ops {rep['ops_per_call']} != {ops}")

    rc, out, err = attn("bench", "luong-dot", "--time", "0.01")
    check(rc == 0 and "time per call" in out and "GFLOP/s" in out and "scratch" in out,
          f"text report: {rc} {out!r} {err!r}")
    for args, needle in ((["mha", "--dim", "64", "--heads", "3"], "attn: mha: "),
                         (["nosuchop"], "unknown op 'nosuchop'"),
                         (["sdpa", "--mask", "caual"], "'caual' is neither causal/none nor a file"),
                         (["luong-dot", "--seq-q", "4"], "--seq-q"),
                         (["sdpa", "--seq-kv", "0"], "must be positive"),
                         (["general", "--dtype", "int8"], "no int8 form"),
                         (["sdpa", "--kv-heads", "2"], "mha-decode only"),
                         (["mha-decode", "--batch", "2"], "one stream"),
                         (["mha-decode", "--heads", "4", "--kv-heads", "3"], "--kv-heads"),
                         (["mha-decode", "--cache-dtype", "f16", "--dtype", "int8"], "f16")):
        rc, out, err = attn("bench", *args, "--time", "0.01")
        check(rc == 2 and needle in err and len(err.strip().splitlines()) == 1 and out == "",
              f"bench {args}: rc {rc}, one-line error with {needle!r}: {err!r}")
    return finish("all bench checks passed")


if __name__ == "__main__":
    sys.exit(main())
