#!/usr/bin/python3
"""`--threads N` of `attn run` and `attn bench` end to end.

Usage: cli_threads_test.py path/to/attn

Checks:
  * every op of `attn run` (float32, int8 with --dtype int8, and model blobs)
    writes the same outputs with --threads 3 as with --threads 1: bit for bit
    where the op splits by batch item, head or query tile (and every int8
    op), and for a float op that splits one long item by key range (Luong dot
    over 5000 keys: see attn/luong.h) within |a - b| <= 1e-5 (1 + |b|);
  * --threads 0, -2, 'two' and 1000 (above the limit): exit 2, one line on
    stderr naming --threads, no output file; the same for `attn bench`;
  * `attn run <op> --help` and `attn bench --help` document --threads;
  * `attn bench --threads 2 --json` reports "threads": 2 and the scratch of
    two workers (64 + 2 * (one worker's scratch - 64) for sdpa);
  * `attn demo`'s two-thread MHA row has the serial row's checksum.
Exits 0 on success, 1 on failure, 77 (skipped) when NumPy is missing (1 under CI=true).
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from cli_common import check, finish, runner, temp_dir  # noqa: E402
from missing_tool import skip  # noqa: E402

try:
    import numpy as np
except ImportError:
    skip("cli_threads_test", "NumPy missing")

ATTN = os.path.abspath(sys.argv[1])
MODELS = os.path.join(os.path.dirname(HERE), "data", "model")
run = runner([ATTN], timeout=300)


def f32(rng, *shape, scale=1.0):
    return (scale * rng.uniform(-1, 1, size=shape)).astype(np.float32)


def i8(rng, *shape):
    return rng.integers(-127, 128, size=shape).astype(np.int8)


def compare(d, tag, args, outs, exact=True):
    """Runs args with --threads 1 and 3 (outputs suffixed .t1 / .t3) and compares."""
    got = {}
    for t in (1, 3):
        full = list(args)
        for flag, name in outs:
            full += [flag, d(f"{name}.t{t}.npy")]
        rc, _, err = run(*full, "--threads", t)
        if not check(rc == 0, f"{tag} --threads {t}: exit {rc}: {err.strip()}"):
            return
        got[t] = [np.load(d(f"{name}.t{t}.npy")) for _, name in outs]
    for (flag, _), a, b in zip(outs, got[3], got[1]):
        if exact:
            check(a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes(),
                  f"{tag} {flag}: --threads 3 differs from --threads 1")
        else:
            a64, b64 = a.astype(np.float64), b.astype(np.float64)
            worst = float((np.abs(a64 - b64) / (1 + np.abs(b64))).max())
            check(a.shape == b.shape and worst <= 1e-5,
                  f"{tag} {flag}: --threads 3 within 1e-5 of --threads 1: {worst:.3g}")


def test_float(d, rng):
    q, k, v = f32(rng, 2, 200, 32), f32(rng, 2, 300, 32), f32(rng, 2, 300, 32)
    compare(d, "sdpa", ["run", "sdpa", "--q", d.save("q.npy", q), "--k", d.save("k.npy", k),
                        "--v", d.save("v.npy", v), "--mask", "causal"],
            [("--out", "o"), ("--probs-out", "w")])

    e = 64
    wdir = d("mha_w")
    os.makedirs(wdir, exist_ok=True)
    np.save(os.path.join(wdir, "in_proj_weight.npy"), f32(rng, 3 * e, e, scale=0.125))
    np.save(os.path.join(wdir, "in_proj_bias.npy"), f32(rng, 3 * e, scale=0.1))
    np.save(os.path.join(wdir, "out_proj.weight.npy"), f32(rng, e, e, scale=0.125))
    np.save(os.path.join(wdir, "out_proj.bias.npy"), f32(rng, e, scale=0.1))
    compare(d, "mha", ["run", "mha", "--query", d.save("mq.npy", f32(rng, 2, 100, e)),
                       "--weights", wdir, "--heads", 4, "--mask", "causal"],
            [("--out", "o"), ("--probs-out", "w")])

    bq, bk = f32(rng, 4, 16), f32(rng, 4, 500, 16)
    compare(d, "bahdanau", ["run", "bahdanau", "--query", d.save("bq.npy", bq),
                            "--keys", d.save("bk.npy", bk),
                            "--w1", d.save("w1.npy", f32(rng, 16, 32, scale=0.5)),
                            "--w2", d.save("w2.npy", f32(rng, 16, 32, scale=0.5)),
                            "--v", d.save("bv.npy", f32(rng, 32)), "--bv", "0.25"],
            [("--out", "o"), ("--probs-out", "w")])

    compare(d, "luong-dot", ["run", "luong-dot", "--query", d.save("lq.npy", f32(rng, 4, 32)),
                             "--keys", d.save("lk.npy", f32(rng, 4, 3000, 32))],
            [("--out", "o"), ("--probs-out", "w")])
    compare(d, "luong-general", ["run", "luong-general",
                                 "--query", d.save("gq.npy", f32(rng, 3, 24)),
                                 "--keys", d.save("gk.npy", f32(rng, 3, 2000, 32)),
                                 "--w", d.save("gw.npy", f32(rng, 32, 24, scale=0.5))],
            [("--out", "o"), ("--probs-out", "w")])
    compare(d, "general", ["run", "general", "--x", d.save("x.npy", f32(rng, 2, 150, 24)),
                           "--wq", d.save("wq.npy", f32(rng, 24, 32, scale=0.3)),
                           "--wk", d.save("wk.npy", f32(rng, 24, 32, scale=0.3)),
                           "--wv", d.save("wv.npy", f32(rng, 24, 32, scale=0.3))],
            [("--out", "o"), ("--probs-out", "w")])
    # One long item: split by key range, summed in another order.
    compare(d, "luong-dot, one item of 5000 keys",
            ["run", "luong-dot", "--query", d.save("l1q.npy", f32(rng, 1, 32)),
             "--keys", d.save("l1k.npy", f32(rng, 1, 5000, 32))],
            [("--out", "o"), ("--probs-out", "w")], exact=False)


def test_int8(d, rng):
    quant = ["--q-quant", "0.05:1", "--k-quant", "0.04:-2", "--v-quant", "0.045:3",
             "--scores-quant", "0.5:2", "--out-quant", "0.02:-1"]
    for tag, (b, sq, skv) in (("sdpa int8", (2, 40, 300)), ("sdpa int8 decode", (1, 2, 4000))):
        compare(d, tag, ["run", "sdpa", "--dtype", "int8",
                         "--q", d.save("q8.npy", i8(rng, b, sq, 64)),
                         "--k", d.save("k8.npy", i8(rng, b, skv, 64)),
                         "--v", d.save("v8.npy", i8(rng, b, skv, 64)), *quant],
                [("--out", "o8"), ("--probs-out", "w8")])

    ctx_quant = ["--query-quant", "0.05:1", "--keys-quant", "0.04:-2", "--scores-quant", "0.3:0",
                 "--context-quant", "0.04:-1"]
    compare(d, "luong-dot int8", ["run", "luong-dot", "--dtype", "int8",
                                  "--query", d.save("lq8.npy", i8(rng, 1, 64)),
                                  "--keys", d.save("lk8.npy", i8(rng, 1, 4000, 64)), *ctx_quant],
            [("--out", "o8"), ("--probs-out", "w8")])
    compare(d, "luong-general int8",
            ["run", "luong-general", "--dtype", "int8",
             "--query", d.save("gq8.npy", i8(rng, 2, 24)),
             "--keys", d.save("gk8.npy", i8(rng, 2, 2500, 64)),
             "--w", d.save("gw8.npy", i8(rng, 64, 24)),
             "--w-scales", d.save("gws.npy", np.full(24, 0.004, np.float32)),
             "--keys-proj-quant", "0.6:2", *ctx_quant],
            [("--out", "o8"), ("--probs-out", "w8")])
    compare(d, "bahdanau int8",
            ["run", "bahdanau", "--dtype", "int8",
             "--query", d.save("bq8.npy", i8(rng, 1, 16)),
             "--keys", d.save("bk8.npy", i8(rng, 1, 3000, 16)),
             "--w1", d.save("bw1.npy", i8(rng, 16, 32)), "--w2", d.save("bw2.npy", i8(rng, 16, 32)),
             "--v", d.save("bv8.npy", i8(rng, 32)),
             "--w1-scales", d.save("bs1.npy", np.full(32, 0.005, np.float32)),
             "--w2-scales", d.save("bs2.npy", np.full(32, 0.005, np.float32)),
             "--v-scale", "0.005",
             "--query-quant", "0.05:1", "--keys-quant", "0.04:-2", "--query-proj-quant", "0.03:0",
             "--keys-proj-quant", "0.03:4", "--sum-quant", "0.05:-1", "--scores-quant", "0.1:3",
             "--context-quant", "0.04:-2"],
            [("--out", "o8"), ("--probs-out", "w8")])

    e = 32
    wdir = d("mha_w8")
    os.makedirs(wdir, exist_ok=True)
    for n in "qkv":
        np.save(os.path.join(wdir, f"{n}_proj_weight.npy"), i8(rng, e, e))
        np.save(os.path.join(wdir, f"{n}_proj_scales.npy"), np.full(e, 0.004, np.float32))
    np.save(os.path.join(wdir, "out_proj.weight.npy"), i8(rng, e, e))
    np.save(os.path.join(wdir, "out_proj.scales.npy"), np.full(e, 0.004, np.float32))
    compare(d, "mha int8",
            ["run", "mha", "--dtype", "int8", "--query", d.save("mq8.npy", i8(rng, 2, 64, e)),
             "--weights", wdir, "--heads", 4, "--mask", "causal", "--per-head-probs",
             "--query-quant", "0.05:1", "--q-quant", "0.06:-1", "--k-quant", "0.05:4",
             "--v-quant", "0.07:0", "--scores-quant", "0.3:2", "--attn-quant", "0.06:-3",
             "--out-quant", "0.05:5"],
            [("--out", "o8"), ("--probs-out", "w8")])


def test_models(d):
    m = lambda name: os.path.join(MODELS, name)
    compare(d, "mha --model", ["run", "mha", "--model", m("mha.attn"),
                               "--query", m("mha_self.query.npy")], [("--out", "o")])
    compare(d, "mha --model int8", ["run", "mha", "--model", m("mha_int8_causal.attn"),
                                    "--query", m("mha_causal.query.npy"), "--mask", "causal"],
            [("--out", "o")])
    for op, name in (("bahdanau", "bahdanau"), ("luong-general", "luong")):
        for blob in (name + ".attn", name + "_int8.attn"):
            compare(d, f"{op} --model {blob}",
                    ["run", op, "--model", m(blob), "--query", m(name + ".query.npy"),
                     "--keys", m(name + ".keys.npy")], [("--out", "o"), ("--probs-out", "w")])


def test_errors(d, rng):
    io = ["--q", d.save("eq.npy", f32(rng, 4, 8)), "--k", d.save("ek.npy", f32(rng, 6, 8)),
          "--v", d.save("ev.npy", f32(rng, 6, 8))]
    for bad in ("0", "-2", "two", "1000"):
        out = d("bad_threads.npy")
        rc, _, err = run("run", "sdpa", *io, "--out", out, "--threads", bad)
        check(rc == 2 and err.count("\n") == 1 and "--threads" in err,
              f"run --threads {bad}: rc {rc}, stderr {err!r}")
        check(not os.path.exists(out), f"run --threads {bad}: no output file")
        rc, out_text, err = run("bench", "sdpa", "--seq-q", 8, "--threads", bad)
        check(rc == 2 and err.count("\n") == 1 and "--threads" in err and not out_text,
              f"bench --threads {bad}: rc {rc}, stderr {err!r}")


def test_help():
    for op in ("sdpa", "mha", "mha-decode", "bahdanau", "luong-dot", "luong-general", "general",
               "softmax-s8"):
        rc, out, _ = run("run", op, "--help")
        check(rc == 0 and "--threads" in out, f"run {op} --help documents --threads")
    rc, out, _ = run("bench", "--help")
    check(rc == 0 and "--threads" in out, "bench --help documents --threads")


def test_bench():
    reps = {}
    for t in (1, 2):
        rc, out, err = run("bench", "sdpa", "--seq-q", 64, "--seq-kv", 96, "--time", "0.01",
                           "--warmup", 1, "--json", "--threads", t)
        if not check(rc == 0, f"bench --threads {t}: {err.strip()}"):
            return
        reps[t] = json.loads(out)
        check(reps[t].get("threads") == t, f"bench --threads {t} reports threads {reps[t]}")
    one = reps[1]["scratch_bytes"]
    check(reps[2]["scratch_bytes"] == 64 + 2 * (one - 64),
          f"bench --threads 2 scratch {reps[2]['scratch_bytes']} (one worker: {one})")
    rc, out, err = run("bench", "luong-dot", "--seq-kv", 256, "--time", "0.01", "--warmup", 1,
                       "--threads", 2)
    check(rc == 0 and "threads        2" in out, f"bench text report names the threads: {out}{err}")


def test_demo():
    rc, out, err = run("demo")
    if not check(rc == 0, f"demo: {err}"):
        return
    rows = {l[:24].strip(): l.split() for l in out.splitlines()}
    serial, threaded = rows.get("mha self causal, 2 heads"), rows.get("the same, 2 threads")
    check(serial is not None and threaded is not None, "demo shows the two-thread MHA run")
    if serial and threaded:
        # The checksum: the column after the scratch bytes.
        check(serial[-4] == threaded[-4], f"demo: threaded checksum {threaded} != {serial}")


def main():
    with temp_dir("attn_cli_threads.") as d:
        rng = np.random.default_rng(20260512)
        test_help()
        test_errors(d, rng)
        test_float(d, rng)
        test_int8(d, rng)
        test_models(d)
        test_bench()
        test_demo()
    return finish("all --threads checks passed")


if __name__ == "__main__":
    sys.exit(main())
