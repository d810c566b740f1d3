#!/usr/bin/python3
"""End-to-end test of the attn executable's int8 commands.

Usage: cli_int8_test.py path/to/attn

Checks, bit for bit against tests/reference/int8_reference.py (the unfused NumPy
reference of the TFLite op sequence, written from docs/INT8.md):
  * `attn run softmax-s8` on seeded random int8 arrays (numpy.random.default_rng
    seeds 1000..1039 pick shapes, scales and beta, including the multiplier cap,
    diff_min cuts, the smallest accepted beta * scale, rows of 4095, ranks 1..3);
  * `attn run sdpa --dtype int8` on seeded cases: shapes, scales, zero points
    and beta from int8_reference.random_sdpa_case(seed) for seeds 2000..2047
    (extreme score spreads, multiplier cap, diff_min cuts, non-zero zero
    points), every mask kind in turn (none, causal, Keras float, bool, uint8,
    additive 0 / -inf / <= -1e9, int32 and int64 key lengths including 0,
    batched and unbatched matrices, combinations), outputs and --probs-out
    probabilities; plus hand-picked extreme scales (1e-19 .. 1e18, a zero
    score multiplier) and zero points -128 / 127;
  * `attn run mha --dtype int8` (parameters from int8_reference.random_mha_case
    for seeds 5000..5031: self/cross, packed or separate int8 weights,
    per-channel or per-tensor scales, int32 biases, causal / boolean / additive
    masks and key lengths, per-head weights) against int8_reference.mha_s8;
  * `attn run luong-dot|luong-general --dtype int8` (seeds 4000..4031; odd =
    general, per-channel or per-tensor W scales, optional int32 bias, key
    lengths) against int8_reference.fully_connected + sdpa_s8 (one query,
    values = keys);
  * `attn run bahdanau --dtype int8` (parameters from
    int8_reference.random_bahdanau_case for seeds 6000..6031: per-channel or
    per-tensor W1/W2 scales, optional int32 biases b1, b2 and bv, key lengths,
    beta, batched and unbatched) against int8_reference.bahdanau_s8;
  * bad inputs (float32 file for int8, bad SCALE:ZERO_POINT strings, zero point
    outside [-128, 127], scale <= 0 / NaN / Inf / underflowing, bad beta,
    int8 flags without --dtype int8, shape mismatches, unsupported additive
    values, engine statuses) each exit 2 with one line on stderr naming the file
    or flag, and leave no output file.
Exits 0 on success, 1 on failure, 77 (skipped) when NumPy is missing (1 under CI=true).
"""
import math
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
from cli_common import check, finish, runner, temp_dir  # noqa: E402
from missing_tool import skip  # noqa: E402

try:
    import numpy as np
except ImportError:
    skip("cli_int8_test", "NumPy missing")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import int8_reference as ref  # noqa: E402

ATTN = os.path.abspath(sys.argv[1])
counts = {"softmax": 0, "sdpa": 0, "luong": 0, "mha": 0, "bahdanau": 0, "errors": 0}
run = runner([ATTN])


def fs(x):
    """A float32 value as a string strtof reads back exactly (repr of its double)."""
    return repr(ref.f32(x))


def fh(x):
    """The same as a hex float literal."""
    return ref.f32(x).hex()


def qs(p):
    return f"{fs(p[0])}:{p[1]}"


def same(tag, got, want):
    want = np.asarray(want, dtype=np.int64)
    if not check(got.dtype == np.int8, f"{tag}: dtype {got.dtype}, expected int8"):
        return
    if not check(got.shape == want.shape, f"{tag}: shape {got.shape} != {want.shape}"):
        return
    bad = np.argwhere(got.astype(np.int64) != want)
    check(bad.size == 0, f"{tag}: {len(bad)} of {want.size} values differ from the reference, "
                         f"first at {tuple(bad[0]) if bad.size else ()}")


def i8(g, *shape):
    return g.integers(-128, 128, size=shape).astype(np.int8)


# ---------------------------------------------------------------- softmax-s8
def softmax_case(d, tag, x, scale, beta, beta_flag=True, hexs=False):
    d.clear("y.npy")
    xp = d.save("sx.npy", x)
    args = ["run", "softmax-s8", "--input", xp,
            "--input-scale", fh(scale) if hexs else fs(scale), "--out", d("y.npy")]
    if beta_flag:
        args += ["--beta", fh(beta) if hexs else fs(beta)]
    rc, _, err = run(*args)
    if not check(rc == 0, f"{tag}: exit {rc}: {err.strip()}"):
        return
    x2 = x.reshape(-1, x.shape[-1])
    want = ref.softmax_s8(x2, scale, beta if beta_flag else 1.0).reshape(x.shape)
    same(tag, np.load(d("y.npy")), want)
    counts["softmax"] += 1


def test_softmax(d):
    for seed in range(1000, 1040):
        g = np.random.default_rng(seed)
        rows = int(g.integers(1, 9))
        cols = int(g.integers(1, 301))
        scale = ref.f32(10 ** g.uniform(-3, 0))
        kind = seed % 5
        if kind == 0:
            beta = ref.f32(10 ** g.uniform(math.log10(32), 3) / scale)  # multiplier cap
        elif kind == 1:
            beta = ref.f32(10 ** g.uniform(math.log10(1 / 16), math.log10(32)) / scale)  # diff_min
        elif kind == 2:
            beta = ref.f32(2.0 ** -25 / scale)  # near the smallest accepted beta * scale
        else:
            beta = ref.f32(10 ** g.uniform(-1, 1))
        shape = [(cols,), (rows, cols), (2, rows, cols)][seed % 3]
        softmax_case(d, f"softmax-s8 seed {seed} shape {shape}", i8(g, *shape), scale, beta,
                     hexs=seed % 4 == 0)
    g = np.random.default_rng(1100)
    softmax_case(d, "softmax-s8 default beta", i8(g, 3, 17), 0.05, 1.0, beta_flag=False)
    softmax_case(d, "softmax-s8 4095 cols", i8(g, 2, 4095), 0.02, 1.0)
    softmax_case(d, "softmax-s8 extreme scale 1e-7", i8(g, 4, 33), 1e-7, 1e3)
    softmax_case(d, "softmax-s8 extreme scale 1e20", i8(g, 4, 33), 1e20, 1e-3)
    x = np.full((2, 600), -128, np.int8)
    x[0, :] = 127
    x[1, ::2] = 5
    softmax_case(d, "softmax-s8 512+ ties at the maximum", x, 0.1, 1.0)


# ---------------------------------------------------------------- sdpa --dtype int8
MASK_KINDS = ["none", "causal", "keras", "bool_batched", "uint8", "additive",
              "lengths_i32", "lengths_i64_zero", "causal+lengths", "bool+lengths_i32",
              "causal+additive", "additive+keras_batched"]


def make_mask(d, g, kind, B, Lq, Lkv):
    """Flags for a mask kind and the keep matrix [B, Lq, Lkv] it means."""
    keep = np.ones((B, Lq, Lkv), bool)
    flags = []
    parts = kind.split("+")
    for part in parts:
        if part == "none":
            pass
        elif part == "causal":
            flags += ["--mask", "causal"]
            keep &= ref.keep_matrix(B, Lq, Lkv, True, None, None)
        elif part == "keras":
            m = (g.random((Lq, Lkv)) < 0.3).astype(np.float32)
            flags += ["--mask", d.save("m_keras.npy", m)]
            keep &= (m == 0)[None]
        elif part == "keras_batched":
            m = (g.random((B, Lq, Lkv)) < 0.3).astype(np.float32)
            m[0, 0, :] = 1.0  # one fully masked row
            flags += ["--mask", d.save("m_kerasb.npy", m)]
            keep &= m == 0
        elif part == "bool_batched":
            m = g.random((B, Lq, Lkv)) < 0.3
            flags += ["--mask", d.save("m_bool.npy", m)]
            keep &= ~m
        elif part == "bool":
            m = g.random((Lq, Lkv)) < 0.25
            flags += ["--mask", d.save("m_bool2.npy", m)]
            keep &= ~m[None]
        elif part == "uint8":
            m = (g.random((Lq, Lkv)) < 0.3).astype(np.uint8) * g.integers(1, 256, (Lq, Lkv)).astype(np.uint8)
            flags += ["--mask", d.save("m_u8.npy", m)]
            keep &= (m == 0)[None]
        elif part == "additive":
            choice = g.integers(0, 4, (B, Lq, Lkv))
            vals = np.array([0.0, -np.inf, -1e9, -3.5e20], np.float32)
            a = vals[choice]
            a[choice == 0] = np.where(g.random(int((choice == 0).sum())) < 0.5, 0.0, -0.0)
            flags += ["--additive-mask", d.save("m_add.npy", a.astype(np.float32))]
            keep &= choice == 0
        elif part in ("lengths_i32", "lengths"):
            lens = g.integers(0, Lkv + 1, B).astype(np.int32)
            flags += ["--key-lengths", d.save("m_len.npy", lens)]
            keep &= np.arange(Lkv)[None, None, :] < lens[:, None, None]
        elif part == "lengths_i64_zero":
            lens = g.integers(0, Lkv + 1, B).astype(np.int64)
            lens[0] = 0  # every key of batch 0 masked: output zero point
            flags += ["--key-lengths", d.save("m_len64.npy", lens)]
            keep &= np.arange(Lkv)[None, None, :] < lens[:, None, None]
        else:
            raise ValueError(part)
    return flags, keep


def sdpa_case(d, tag, q, k, v, quant, beta, mask_flags, keep, beta_flag=True, unbatched=False,
              weights=True):
    """quant: dict q k v s o -> (scale, zp). q/k/v int8 [B, ...]."""
    d.clear("o.npy", "w.npy")
    arrs = [a[0] if unbatched else a for a in (q, k, v)]
    paths = [d.save(n, a) for n, a in zip(("q8.npy", "k8.npy", "v8.npy"), arrs)]
    args = ["run", "sdpa", "--dtype", "int8", "--q", paths[0], "--k", paths[1], "--v", paths[2],
            "--q-quant", qs(quant["q"]), "--k-quant", qs(quant["k"]), "--v-quant", qs(quant["v"]),
            "--scores-quant", qs(quant["s"]), "--out-quant", qs(quant["o"]),
            *mask_flags, "--out", d("o.npy")]
    if weights:
        args += ["--probs-out", d("w.npy")]
    if beta_flag:
        args += ["--beta", fs(beta)]
    rc, _, err = run(*args)
    if not check(rc == 0, f"{tag}: exit {rc}: {err.strip()}"):
        return
    want_beta = beta if beta_flag else ref.f32(1 / math.sqrt(q.shape[-1]))
    out, probs, _ = ref.sdpa_s8(q.astype(np.int64), k.astype(np.int64), v.astype(np.int64),
                                quant["q"], quant["k"], quant["v"], quant["s"], quant["o"],
                                want_beta, keep)
    if unbatched:
        out, probs = out[0], probs[0]
    same(tag + " out", np.load(d("o.npy")), out)
    if weights:
        same(tag + " weights", np.load(d("w.npy")), probs)
    counts["sdpa"] += 1


def test_sdpa(d):
    for i, seed in enumerate(range(2000, 2048)):
        c = ref.random_sdpa_case(seed)
        g = np.random.default_rng(seed)
        B, Lq, Lkv, dk, dv = c["B"], c["Lq"], c["Lkv"], c["dk"], c["dv"]
        q, k, v = i8(g, B, Lq, dk), i8(g, B, Lkv, dk), i8(g, B, Lkv, dv)
        quant = {"q": c["q"], "k": c["k"], "v": c["v"], "s": c["s"], "o": c["o"]}
        kind = MASK_KINDS[i % len(MASK_KINDS)]
        flags, keep = make_mask(d, g, kind, B, Lq, Lkv)
        default_beta = c["beta"] == ref.f32(1 / math.sqrt(dk))
        unbatched = B == 1 and seed % 2 == 0 and "batched" not in kind
        sdpa_case(d, f"sdpa int8 seed {seed} [{B},{Lq},{Lkv},{dk},{dv}] mask {kind}", q, k, v,
                  quant, c["beta"], flags, keep, beta_flag=not default_beta or seed % 3 == 0,
                  unbatched=unbatched, weights=seed % 5 != 0)

    g = np.random.default_rng(2100)

    def hand(tag, quant, B=2, Lq=5, Lkv=9, dk=16, dv=7, beta=None, kind="none"):
        q, k, v = i8(g, B, Lq, dk), i8(g, B, Lkv, dk), i8(g, B, Lkv, dv)
        flags, keep = make_mask(d, g, kind, B, Lq, Lkv)
        sdpa_case(d, f"sdpa int8 {tag}", q, k, v, quant, beta, flags, keep,
                  beta_flag=beta is not None)

    spread = lambda s_q, s_k, dk, steps: ref.f32(s_q * s_k * math.sqrt(dk) * 74 * 74 / steps)
    # Tiny scores scale: the default beta would make beta * scale < 2^-26 (refused,
    # see test_errors), so beta carries the scale back up (about 1.9e32).
    s_tiny = spread(3e-19, 2e-18, 16, 50)
    hand("tiny scales", {"q": (3e-19, 3), "k": (2e-18, -7), "v": (1e-30, 5),
                         "s": (s_tiny, 2), "o": (2e-31, -4)}, beta=ref.f32(0.05 / s_tiny),
         kind="causal")
    hand("huge scales", {"q": (1e18, -128), "k": (3e17, 127), "v": (1e30, 0),
                         "s": (spread(1e18, 3e17, 16, 50), -128), "o": (1e28, 127)}, kind="lengths")
    hand("zero score multiplier", {"q": (1e-6, 1), "k": (1e-6, 2), "v": (0.05, 3),
                                   "s": (1e3, 4), "o": (0.05, 5)}, beta=1e-3)
    hand("multiplier cap", {"q": (0.05, 10), "k": (0.04, -10), "v": (0.02, 0),
                            "s": (0.5, 0), "o": (0.01, 0)}, beta=1000.0, kind="bool")
    hand("zero points -128/127", {"q": (0.01, -128), "k": (0.02, 127), "v": (0.03, -128),
                                  "s": (0.4, 127), "o": (0.02, -128)}, kind="additive")
    hand("decode Lq=1", {"q": (0.02, 3), "k": (0.02, -7), "v": (0.03, 5),
                         "s": (0.3, 2), "o": (0.03, -4)}, B=1, Lq=1, Lkv=128, dk=64, dv=64)
    hand("Lkv 4095", {"q": (0.02, 3), "k": (0.02, -7), "v": (0.03, 5),
                      "s": (0.3, 2), "o": (0.03, -4)}, B=1, Lq=2, Lkv=4095, dk=4, dv=3)


# ---------------------------------------------------------------- luong --dtype int8
def test_luong(d):
    """Luong dot / general = int8 SDPA with one query and values = keys
    (general: keys through TFLite's per-channel FULLY_CONNECTED first)."""
    for seed in range(4000, 4032):
        g = np.random.default_rng(seed)
        general = seed % 2 == 1
        B = int(g.integers(1, 4))
        seq = int(g.integers(1, 121))
        kd = int(g.integers(1, 97))
        qd = int(g.integers(1, 97)) if general else kd
        zp = lambda: int(g.integers(-128, 128))
        qq = (ref.f32(10 ** g.uniform(-2.5, -0.5)), zp())
        kq = (ref.f32(10 ** g.uniform(-2.5, -0.5)), zp())
        wbase = 10 ** g.uniform(-3, -1)
        per_tensor = general and seed % 4 == 1
        wsc = [ref.f32(wbase * 10 ** g.uniform(-0.3, 0.3)) for _ in range(1 if per_tensor else qd)]
        kpq = (ref.f32(kq[0] * wbase * math.sqrt(kd) * 74 * 73 / 10 ** g.uniform(1, 2)), zp())
        sk = kpq if general else kq
        sq = (ref.f32(qq[0] * sk[0] * math.sqrt(qd) * 74 * 74 / 10 ** g.uniform(1, 2.1)), zp())
        cq = (ref.f32(kq[0] * 10 ** g.uniform(-0.4, 0.4)), zp())
        beta = None if seed % 3 else ref.f32(10 ** g.uniform(-1, 1.5) / sq[0])
        query, keys = i8(g, B, qd), i8(g, B, seq, kd)
        W = i8(g, qd, kd)
        W[W == -128] = -127  # symmetric weights
        bias = g.integers(-30000, 30001, qd).astype(np.int32) if general and seed % 5 < 3 else None
        lengths = g.integers(0, seq + 1, B).astype(np.int32) if seed % 4 >= 2 else None
        unbatched = B == 1 and seed % 3 == 0
        d.clear("o.npy", "w.npy")
        args = ["run", "luong-general" if general else "luong-dot", "--dtype", "int8",
                "--query", d.save("lq.npy", query[0] if unbatched else query),
                "--keys", d.save("lk.npy", keys[0] if unbatched else keys),
                "--query-quant", qs(qq), "--keys-quant", qs(kq), "--scores-quant", qs(sq),
                "--context-quant", qs(cq), "--out", d("o.npy"), "--probs-out", d("w.npy")]
        if general:
            args += ["--w", d.save("lw.npy", np.ascontiguousarray(W.T)),  # Keras layout [Dk, Dq]
                     "--w-scales", d.save("lws.npy", np.array(wsc if not per_tensor else wsc[0], np.float32)),
                     "--keys-proj-quant", qs(kpq)]
            if bias is not None:
                args += ["--b", d.save("lb.npy", bias)]
        if beta is not None:
            args += ["--beta", fs(beta)]
        if lengths is not None:
            args += ["--key-lengths", d.save("ll.npy", lengths)]
        tag = f"luong-{'general' if general else 'dot'} int8 seed {seed} [{B},{seq},{qd},{kd}]"
        rc, _, err = run(*args)
        if not check(rc == 0, f"{tag}: exit {rc}: {err.strip()}"):
            continue
        q64, k64 = query.astype(np.int64), keys.astype(np.int64)
        kmat = k64
        if general:
            kmat = ref.fully_connected(k64, W.astype(np.int64), wsc * qd if per_tensor else wsc,
                                       None if bias is None else bias.astype(np.int64), kq, kpq)
        keep = ref.keep_matrix(B, 1, seq, False, None if lengths is None else list(lengths), None)
        out, probs, _ = ref.sdpa_s8(q64[:, None, :], kmat, k64, qq, sk, kq, sq, cq,
                                    1.0 if beta is None else beta, keep)
        out, probs = out[:, 0], probs[:, 0]
        if unbatched:
            out, probs = out[0], probs[0]
        same(tag + " context", np.load(d("o.npy")), out)
        same(tag + " weights", np.load(d("w.npy")), probs)
        counts["luong"] += 1


# ---------------------------------------------------------------- bahdanau --dtype int8
BAHDANAU_QUANT_FLAGS = [("query", "--query-quant"), ("keys", "--keys-quant"),
                        ("query_proj", "--query-proj-quant"), ("keys_proj", "--keys-proj-quant"),
                        ("sum", "--sum-quant"), ("scores", "--scores-quant"),
                        ("context", "--context-quant")]


def test_bahdanau(d):
    """Weights go in as the float command's Keras layout ([in, out]); the
    reference takes TFLite's [out, in]."""
    for seed in range(6000, 6032):
        c = ref.random_bahdanau_case(seed)
        g = np.random.default_rng(seed + 100)
        B, seq, qd, kd, u = c["B"], c["seq"], c["qd"], c["kd"], c["units"]
        per_tensor = seed % 4 == 1
        scales = dict(c["scales"])
        if per_tensor:
            scales["w1"] = [scales["w1"][0]] * u
            scales["w2"] = [scales["w2"][0]] * u
        query, keys = i8(g, B, qd), i8(g, B, seq, kd)
        W = {"w1": g.integers(-127, 128, (u, qd)), "w2": g.integers(-127, 128, (u, kd)),
             "v": g.integers(-127, 128, (1, u))}
        biases = {"w1": None, "w2": None, "v": None}
        if c["bias"]:
            biases = {"w1": g.integers(-30000, 30001, u), "w2": g.integers(-30000, 30001, u),
                      "v": g.integers(-30000, 30001, 1)}
        lengths = g.integers(0, seq + 1, B).astype(np.int32) if c["has_lengths"] else None
        unbatched = B == 1 and seed % 3 == 0
        d.clear("o.npy", "w.npy")
        args = ["run", "bahdanau", "--dtype", "int8",
                "--query", d.save("bq.npy", query[0] if unbatched else query),
                "--keys", d.save("bk.npy", keys[0] if unbatched else keys),
                "--w1", d.save("bw1.npy", np.ascontiguousarray(W["w1"].T).astype(np.int8)),
                "--w2", d.save("bw2.npy", np.ascontiguousarray(W["w2"].T).astype(np.int8)),
                "--v", d.save("bv.npy", (W["v"][0] if seed % 2 else W["v"].T).astype(np.int8)),
                "--w1-scales", d.save("bs1.npy", np.array(scales["w1"][0] if per_tensor else scales["w1"], np.float32)),
                "--w2-scales", d.save("bs2.npy", np.array(scales["w2"][0] if per_tensor else scales["w2"], np.float32)),
                "--v-scale", fs(scales["v"][0]),
                "--out", d("o.npy"), "--probs-out", d("w.npy")]
        for name, flag in BAHDANAU_QUANT_FLAGS:
            args += [flag, qs(c["quant"][name])]
        if c["beta"] != 1.0:
            args += ["--beta", fs(c["beta"])]
        if c["bias"]:
            args += ["--b1", d.save("bb1.npy", biases["w1"].astype(np.int32)),
                     "--b2", d.save("bb2.npy", biases["w2"].astype(np.int32)),
                     "--bv", str(int(biases["v"][0]))]
        if lengths is not None:
            args += ["--key-lengths", d.save("bl.npy", lengths)]
        tag = f"bahdanau int8 seed {seed} [{B},{seq},{qd},{kd},U={u}]"
        rc, _, err = run(*args)
        if not check(rc == 0, f"{tag}: exit {rc}: {err.strip()}"):
            continue
        out, probs = ref.bahdanau_s8(query.astype(np.int64), keys.astype(np.int64), W, scales,
                                     biases, c["quant"], c["beta"],
                                     None if lengths is None else list(lengths))
        if unbatched:
            out, probs = out[0], probs[0]
        same(tag + " context", np.load(d("o.npy")), out)
        same(tag + " weights", np.load(d("w.npy")), probs)
        counts["bahdanau"] += 1


# ---------------------------------------------------------------- mha --dtype int8
MHA_QUANT_FLAGS = [("query", "--query-quant"), ("q", "--q-quant"), ("k", "--k-quant"),
                   ("v", "--v-quant"), ("scores", "--scores-quant"), ("attn", "--attn-quant"),
                   ("out", "--out-quant")]


def save_mha_weights(wdir, W, scales, biases, packed, per_tensor):
    """int8 weights [out, in], float32 scales, int32 biases under PyTorch state_dict names."""
    shutil.rmtree(wdir, ignore_errors=True)
    os.makedirs(wdir)
    sc = lambda n: np.array(scales[n][0] if per_tensor else scales[n], np.float32)
    if packed:
        np.save(os.path.join(wdir, "in_proj_weight.npy"),
                np.concatenate([W["q"], W["k"], W["v"]]).astype(np.int8))
        np.save(os.path.join(wdir, "in_proj_scales.npy"),
                np.array(scales["q"][:1] if per_tensor else scales["q"] + scales["k"] + scales["v"],
                         np.float32))
    else:
        for n in "qkv":
            np.save(os.path.join(wdir, f"{n}_proj_weight.npy"), W[n].astype(np.int8))
            np.save(os.path.join(wdir, f"{n}_proj_scales.npy"), sc(n))
    if biases["q"] is not None:
        np.save(os.path.join(wdir, "in_proj_bias.npy"),
                np.concatenate([biases["q"], biases["k"], biases["v"]]).astype(np.int32))
        np.save(os.path.join(wdir, "out_proj.bias.npy"), biases["o"].astype(np.int32))
    np.save(os.path.join(wdir, "out_proj.weight.npy"), W["o"].astype(np.int8))
    np.save(os.path.join(wdir, "out_proj.scales.npy"), sc("o"))


def test_mha(d):
    """Parameters from int8_reference.random_mha_case(seed); inputs and weights
    from numpy; reference int8_reference.mha_s8 (unfused FC -> SDPA per head -> FC)."""
    for seed in range(5000, 5032):
        c = ref.random_mha_case(seed)
        g = np.random.default_rng(seed)
        B, Sq, Skv, E, H = c["B"], c["Sq"], c["Skv"], c["E"], c["heads"]
        kdim, vdim, quant = c["kdim"], c["vdim"], c["quant"]
        query = i8(g, B, Sq, E)
        key, value = (query, query) if c["self_attn"] else (i8(g, B, Skv, kdim), i8(g, B, Skv, vdim))
        W = {n: g.integers(-127, 128, (E, fan)).astype(np.int64)
             for n, fan in [("q", E), ("k", kdim), ("v", vdim), ("o", E)]}
        per_tensor = seed % 4 == 3
        scales = {n: ([v[0]] * E if per_tensor else v) for n, v in c["scales"].items()}
        biases = {n: (g.integers(-30000, 30001, E).astype(np.int64) if c["bias"] else None)
                  for n in "qkvo"}
        packed = c["self_attn"] and seed % 2 == 0
        wdir = d("mha_w8")
        save_mha_weights(wdir, W, scales, biases, packed, per_tensor)
        lengths = g.integers(0, Skv + 1, B).astype(np.int32) if c["has_lengths"] else None
        masked = (g.random((Sq, Skv)) < 0.25) if c["pattern"] else None
        keep = ref.keep_matrix(B, Sq, Skv, c["causal"], None if lengths is None else list(lengths),
                               masked)
        unbatched = B == 1 and seed % 3 == 0
        cut = (lambda a: a[0]) if unbatched else (lambda a: a)
        d.clear("o.npy", "w.npy")
        args = ["run", "mha", "--dtype", "int8", "--query", d.save("mq.npy", cut(query)),
                "--weights", wdir, "--heads", H, "--out", d("o.npy"),
                "--probs-out", d("w.npy"), "--per-head-probs"]
        if not c["self_attn"]:
            args += ["--kv", d.save("mk.npy", cut(key)), "--value", d.save("mv.npy", cut(value)),
                     "--key-quant", qs(quant["key"]), "--value-quant", qs(quant["value"])]
        for n, flag in MHA_QUANT_FLAGS:
            args += [flag, qs(quant[n])]
        if c["beta"] != ref.f32(1 / math.sqrt(E // H)) or seed % 5 == 0:
            args += ["--beta", fs(c["beta"])]
        if c["causal"]:
            args += ["--mask", "causal"]
        elif masked is not None:
            args += ["--mask", d.save("mm.npy", masked)]
        if c["causal"] and masked is not None:
            # --mask is one flag: give the pattern as an additive mask instead.
            args += ["--additive-mask", d.save("ma.npy", np.where(masked, -np.inf, 0).astype(np.float32))]
        if lengths is not None:
            args += ["--key-lengths", d.save("ml.npy", lengths)]
        tag = (f"mha int8 seed {seed} [B{B},Sq{Sq},Skv{Skv},E{E},H{H},k{kdim},v{vdim}] "
               f"{'self' if c['self_attn'] else 'cross'}{' packed' if packed else ''}"
               f"{' per-tensor' if per_tensor else ''}")
        rc, _, err = run(*args)
        if not check(rc == 0, f"{tag}: exit {rc}: {err.strip()}"):
            continue
        out, probs = ref.mha_s8(query.astype(np.int64), key.astype(np.int64), value.astype(np.int64),
                                W, scales, biases, quant, H, c["beta"], keep)
        same(tag + " out", np.load(d("o.npy")), cut(out))
        same(tag + " weights", np.load(d("w.npy")), cut(probs))
        counts["mha"] += 1


# ---------------------------------------------------------------- errors
def test_errors(d):
    g = np.random.default_rng(3000)
    q, k, v = i8(g, 2, 4, 8), i8(g, 2, 6, 8), i8(g, 2, 6, 5)
    good = {"q": d.save("eq.npy", q), "k": d.save("ek.npy", k), "v": d.save("ev.npy", v)}
    x = d.save("ex.npy", i8(g, 3, 10))

    def expect_fail(tag, args, name_in_msg, outs=("o.npy", "w.npy", "y.npy")):
        d.clear(*outs)
        rc, out, err = run(*args)
        lines = err.strip().splitlines()
        check(rc == 2, f"{tag}: exit code {rc}, expected 2 ({err.strip()})")
        check(len(lines) == 1, f"{tag}: one-line error, got {lines!r}")
        check(name_in_msg in err, f"{tag}: error names {name_in_msg!r}: {err.strip()}")
        for o in outs:
            check(not os.path.exists(d(o)), f"{tag}: no output file {o}")
        leftovers = [f for f in os.listdir(d.root) if ".tmp." in f]
        check(not leftovers, f"{tag}: no temporary files {leftovers}")
        counts["errors"] += 1

    base_quant = {"--q-quant": "0.02:3", "--k-quant": "0.02:-7", "--v-quant": "0.03:5",
                  "--scores-quant": "0.3:2", "--out-quant": "0.03:-4"}

    def sdpa(qp=None, kp=None, vp=None, quant=None, extra=(), dtype=("--dtype", "int8")):
        qu = dict(base_quant)
        qu.update(quant or {})
        qargs = [a for kv in qu.items() if kv[1] is not None for a in kv]
        return ["run", "sdpa", *dtype, "--q", qp or good["q"], "--k", kp or good["k"],
                "--v", vp or good["v"], *qargs, "--out", d("o.npy"), "--probs-out", d("w.npy"),
                *extra]

    rc, _, err = run(*sdpa())
    check(rc == 0, f"int8 sdpa control runs: {err.strip()}")

    # Files: wrong dtype, rank, shape.
    f32q = d.save("f32q.npy", q.astype(np.float32))
    expect_fail("float32 --q for int8", sdpa(qp=f32q), "f32q.npy")
    expect_fail("uint8 --k for int8", sdpa(kp=d.save("u8k.npy", k.view(np.uint8))), "u8k.npy")
    expect_fail("int16 --v for int8", sdpa(vp=d.save("i16v.npy", v.astype(np.int16))), "i16v.npy")
    expect_fail("int8 --q for f32", sdpa(dtype=(), quant={n: None for n in base_quant}), "eq.npy")
    expect_fail("int8 Dk mismatch", sdpa(kp=d.save("kdk.npy", i8(g, 2, 6, 7))), "kdk.npy")
    expect_fail("int8 batch mismatch", sdpa(vp=d.save("vb.npy", i8(g, 3, 6, 5))), "vb.npy")
    expect_fail("int8 Skv mismatch", sdpa(vp=d.save("vs.npy", i8(g, 2, 5, 5))), "vs.npy")
    expect_fail("int8 rank mismatch", sdpa(kp=d.save("kr.npy", i8(g, 6, 8))), "kr.npy")
    expect_fail("int8 rank 4", sdpa(qp=d.save("qr4.npy", i8(g, 1, 2, 4, 8))), "qr4.npy")
    expect_fail("int8 zero dim", sdpa(qp=d.save("qz.npy", np.zeros((2, 0, 8), np.int8))), "qz.npy")
    raw = open(good["q"], "rb").read()
    with open(d("trunc.npy"), "wb") as f:
        f.write(raw[:-5])
    expect_fail("int8 truncated", sdpa(qp=d("trunc.npy")), "trunc.npy")
    expect_fail("int8 missing file", sdpa(qp=d("nope.npy")), "nope.npy")

    # SCALE:ZERO_POINT strings.
    for flag in base_quant:
        for bad in ["0.1", "0.1:", ":3", "abc:3", "0.1:3:4", "0.1:1.5", "0.1: 3", " 0.1:3",
                    "0.1:3x", "0.1x:3", "", "0.1;3"]:
            expect_fail(f"{flag} {bad!r}", sdpa(quant={flag: bad}), flag)
    for bad in ["0.1:128", "0.1:-129", "0.1:99999999999999999999", "0.1:-300"]:
        expect_fail(f"zero point {bad}", sdpa(quant={"--v-quant": bad}), "--v-quant")
        rc, _, err = run(*sdpa(quant={"--v-quant": bad}))
        check("[-128, 127]" in err, f"zero point {bad}: message gives the range: {err.strip()}")
    for bad in ["0:0", "-0.1:0", "-0:0", "nan:0", "inf:0", "-inf:0", "1e-50:0", "1e39:0"]:
        expect_fail(f"scale {bad}", sdpa(quant={"--scores-quant": bad}), "--scores-quant")
    # Edge values that are fine: extreme zero points, hex scales, denormal-free tiny scale.
    for okq in ["0x1p-7:-128", "0.125:127", "1e-30:0", "3e38:+5"]:
        rc, _, err = run(*sdpa(quant={"--q-quant": okq}))
        check(rc in (0, 2), f"--q-quant {okq}: exit {rc}")
        if rc == 2:
            check("sdpa: " in err, f"--q-quant {okq}: only an engine status may refuse it: {err.strip()}")
    rc, _, err = run(*sdpa(quant={"--q-quant": "0x1p-7:-128"}))
    check(rc == 0, f"hex scale and zero point -128 accepted: {err.strip()}")

    # Missing and misplaced flags.
    expect_fail("missing --scores-quant", sdpa(quant={"--scores-quant": None}), "--scores-quant")
    expect_fail("--q-quant without --dtype int8",
                sdpa(dtype=(), quant={n: None for n in base_quant if n != "--q-quant"}), "--q-quant")
    expect_fail("--beta without --dtype int8",
                sdpa(dtype=(), quant={n: None for n in base_quant}, extra=["--beta", "0.5"]), "--beta")
    expect_fail("--scale with --dtype int8", sdpa(extra=["--scale", "0.5"]), "--scale")
    expect_fail("bad --dtype", sdpa(dtype=("--dtype", "int4")), "--dtype")
    for bad in ["0", "-1", "nan", "inf", "x", "1e-50", ""]:
        expect_fail(f"--beta {bad!r}", sdpa(extra=["--beta", bad]), "--beta")

    # Masks.
    expect_fail("int8 additive mask value -5",
                sdpa(extra=["--additive-mask", d.save("am5.npy", np.full((4, 6), -5.0, np.float32))]),
                "am5.npy")
    expect_fail("int8 additive mask NaN",
                sdpa(extra=["--additive-mask", d.save("amn.npy", np.full((4, 6), np.nan, np.float32))]),
                "amn.npy")
    expect_fail("int8 mask wrong shape",
                sdpa(extra=["--mask", d.save("mws.npy", np.zeros((4, 5), bool))]), "mws.npy")
    expect_fail("int8 mask int8 dtype",
                sdpa(extra=["--mask", d.save("mi8.npy", np.zeros((4, 6), np.int8))]), "mi8.npy")
    expect_fail("int8 key lengths out of range",
                sdpa(extra=["--key-lengths", d.save("kl.npy", np.array([3, 7], np.int32))]), "kl.npy")

    # Engine statuses: status_str, exit 2, nothing written.
    expect_fail("score multiplier >= 2^30",
                sdpa(quant={"--q-quant": "1:0", "--k-quant": "1:0", "--scores-quant": "1e-12:0"}),
                "sdpa: an argument is out of range")
    expect_fail("beta * scores scale < 2^-26", sdpa(extra=["--beta", "1e-9"]),
                "sdpa: an argument is out of range")
    expect_fail("tiny scores scale with the default beta",
                sdpa(quant={"--q-quant": "3e-19:0", "--k-quant": "2e-18:0", "--scores-quant": "2.6e-34:0"}),
                "sdpa: an argument is out of range")
    expect_fail("Skv 4096", sdpa(kp=d.save("kbig.npy", i8(g, 2, 4096, 8)),
                                 vp=d.save("vbig.npy", i8(g, 2, 4096, 5))),
                "sdpa: shape too large for exact integer accumulation")
    os.remove(d("kbig.npy"))
    os.remove(d("vbig.npy"))
    expect_fail("unwritable --probs-out",
                sdpa()[:-2] + ["--probs-out", d("nodir/w.npy")], "nodir/w.npy")
    expect_fail("same path twice", sdpa()[:-2] + ["--probs-out", d("o.npy")], "o.npy")

    # softmax-s8.
    def sm(xp=x, scale="0.1", beta=None, out=None):
        a = ["run", "softmax-s8", "--input", xp, "--input-scale", scale, "--out", out or d("y.npy")]
        return a + (["--beta", beta] if beta is not None else [])

    rc, _, err = run(*sm())
    check(rc == 0, f"softmax-s8 control runs: {err.strip()}")
    expect_fail("softmax-s8 float32 input", sm(xp=d.save("sf.npy", np.zeros((2, 3), np.float32))),
                "sf.npy")
    expect_fail("softmax-s8 uint8 input", sm(xp=d.save("su.npy", np.zeros((2, 3), np.uint8))),
                "su.npy")
    expect_fail("softmax-s8 zero dim", sm(xp=d.save("s0.npy", np.zeros((2, 0), np.int8))), "s0.npy")
    expect_fail("softmax-s8 scalar", sm(xp=d.save("ss.npy", np.int8(3))), "ss.npy")
    for bad in ["0", "-0.5", "nan", "inf", "1e-50", "1e39", "abc", "0.1x", ""]:
        expect_fail(f"softmax-s8 --input-scale {bad!r}", sm(scale=bad), "--input-scale")
        expect_fail(f"softmax-s8 --beta {bad!r}", sm(beta=bad), "--beta")
    expect_fail("softmax-s8 missing --input-scale",
                ["run", "softmax-s8", "--input", x, "--out", d("y.npy")], "--input-scale")
    expect_fail("softmax-s8 beta * scale < 2^-26", sm(scale="1e-4", beta="1e-4"),
                "softmax-s8: an argument is out of range")
    expect_fail("softmax-s8 4096 cols", sm(xp=d.save("sbig.npy", np.zeros((1, 4096), np.int8))),
                "softmax-s8: shape too large for exact integer accumulation")
    expect_fail("softmax-s8 unwritable", sm(out=d("nodir/y.npy")), "nodir/y.npy")

    # luong-dot / luong-general --dtype int8.
    lq, lk = d.save("elq.npy", i8(g, 2, 6)), d.save("elk.npy", i8(g, 2, 9, 6))
    lw = d.save("elw.npy", i8(g, 6, 6))
    lws = d.save("elws.npy", np.full(6, 0.01, np.float32))
    lquant = {"--query-quant": "0.02:1", "--keys-quant": "0.03:-2", "--scores-quant": "0.5:3",
              "--context-quant": "0.03:4"}

    def luong(general=False, quant=None, extra=(), dtype=("--dtype", "int8"), w=lw, ws=lws, q=lq, k=lk):
        qu = dict(lquant)
        if general:
            qu["--keys-proj-quant"] = "0.2:-5"
        qu.update(quant or {})
        qargs = [a for kv in qu.items() if kv[1] is not None for a in kv]
        a = ["run", "luong-general" if general else "luong-dot", *dtype, "--query", q, "--keys", k,
             *qargs, "--out", d("o.npy"), "--probs-out", d("w.npy"), *extra]
        if general:
            a += ["--w", w] + (["--w-scales", ws] if ws else [])
        return a

    for general in (False, True):
        rc, _, err = run(*luong(general))
        check(rc == 0, f"luong general={general} int8 control runs: {err.strip()}")
    expect_fail("luong-dot float32 query", luong(q=d.save("elqf.npy", np.zeros((2, 6), np.float32))),
                "elqf.npy")
    expect_fail("luong-dot Dq != Dk", luong(k=d.save("elk5.npy", i8(g, 2, 9, 5))), "elk5.npy")
    expect_fail("luong-dot keys rank", luong(k=d.save("elk2.npy", i8(g, 9, 6))), "elk2.npy")
    expect_fail("luong-dot bad --scores-quant", luong(quant={"--scores-quant": "0.5:-200"}),
                "--scores-quant")
    expect_fail("luong-dot missing --context-quant", luong(quant={"--context-quant": None}),
                "--context-quant")
    expect_fail("luong-dot --query-quant without --dtype int8",
                luong(dtype=(), quant={"--keys-quant": None, "--scores-quant": None,
                                       "--context-quant": None}), "--query-quant")
    expect_fail("luong-dot key lengths", luong(extra=["--key-lengths", d.save("ell.npy", np.array([1, 10], np.int32))]),
                "ell.npy")
    expect_fail("luong-general missing --keys-proj-quant",
                luong(True, quant={"--keys-proj-quant": None}), "--keys-proj-quant")
    expect_fail("luong-general missing --w-scales", luong(True, ws=None), "--w-scales")
    expect_fail("luong-general float32 W", luong(True, w=d.save("elwf.npy", np.zeros((6, 6), np.float32))),
                "elwf.npy")
    expect_fail("luong-general W shape", luong(True, w=d.save("elw5.npy", i8(g, 6, 5))), "elw5.npy")
    expect_fail("luong-general scales count", luong(True, ws=d.save("elws3.npy", np.ones(3, np.float32))),
                "elws3.npy")
    expect_fail("luong-general scale <= 0", luong(True, ws=d.save("elws0.npy", np.array([0.1, 0, 1, 1, 1, 1], np.float32))),
                "elws0.npy")
    expect_fail("luong-general scales float64", luong(True, ws=d.save("elws64.npy", np.ones(6))),
                "elws64.npy")
    expect_fail("luong-general bias int64", luong(True, extra=["--b", d.save("elb64.npy", np.zeros(6, np.int64))]),
                "elb64.npy")
    expect_fail("luong-general bias length", luong(True, extra=["--b", d.save("elb5.npy", np.zeros(5, np.int32))]),
                "elb5.npy")
    # mha --dtype int8.
    e, h = 8, 2
    mx = d.save("emx.npy", i8(g, 2, 4, e))
    mwd = d("emha_w")
    Wm = {n: g.integers(-127, 128, (e, e)) for n in "qkvo"}
    sc = {n: [0.01] * e for n in "qkvo"}
    bs = {n: np.zeros(e, np.int64) for n in "qkvo"}
    mquant = {"--query-quant": "0.02:1", "--q-quant": "0.2:2", "--k-quant": "0.2:-3",
              "--v-quant": "0.2:4", "--scores-quant": "0.5:5", "--attn-quant": "0.2:-6",
              "--out-quant": "0.3:7"}

    def mha(quant=None, extra=(), dtype=("--dtype", "int8"), probs_out=True):
        qu = dict(mquant)
        qu.update(quant or {})
        qargs = [a for kv in qu.items() if kv[1] is not None for a in kv]
        return ["run", "mha", *dtype, "--query", mx, "--weights", mwd, "--heads", str(h), *qargs,
                "--out", d("o.npy"), *(["--probs-out", d("w.npy"), "--per-head-probs"]
                                      if probs_out else []), *extra]

    def reset_weights(packed=True):
        save_mha_weights(mwd, Wm, sc, bs, packed, False)

    reset_weights()
    rc, _, err = run(*mha())
    check(rc == 0, f"mha int8 control runs: {err.strip()}")
    expect_fail("mha int8 --probs-out without --per-head-probs",
                mha(probs_out=False, extra=["--probs-out", d("w.npy")]), "--per-head-probs")
    expect_fail("mha int8 --key-quant without --kv", mha(quant={"--key-quant": "0.1:0"}), "--key-quant")
    expect_fail("mha int8 missing --attn-quant", mha(quant={"--attn-quant": None}), "--attn-quant")
    expect_fail("mha --out-quant without --dtype int8",
                mha(dtype=(), quant={n: None for n in mquant if n != "--out-quant"}), "--out-quant")
    expect_fail("mha int8 float32 query",
                ["run", "mha", "--dtype", "int8", "--query", d.save("emxf.npy", np.zeros((2, 4, e), np.float32)),
                 *mha()[6:]], "emxf.npy")
    expect_fail("mha int8 additive -5",
                mha(extra=["--additive-mask", d.save("emadd.npy", np.full((4, 4), -5, np.float32))]),
                "emadd.npy")
    os.remove(os.path.join(mwd, "in_proj_scales.npy"))
    expect_fail("mha int8 missing in_proj_scales", mha(), "in_proj_scales.npy")
    np.save(os.path.join(mwd, "in_proj_scales.npy"), np.ones(2 * e, np.float32))
    expect_fail("mha int8 in_proj_scales count", mha(), "in_proj_scales.npy")
    np.save(os.path.join(mwd, "in_proj_scales.npy"), -np.ones(3 * e, np.float32))
    expect_fail("mha int8 negative scale", mha(), "in_proj_scales.npy")
    reset_weights()
    np.save(os.path.join(mwd, "in_proj_weight.npy"), np.zeros((3 * e, e), np.float32))
    expect_fail("mha int8 float32 weight", mha(), "in_proj_weight.npy")
    reset_weights()
    np.save(os.path.join(mwd, "in_proj_bias.npy"), np.zeros(3 * e, np.int64))
    expect_fail("mha int8 int64 bias", mha(), "in_proj_bias.npy")
    reset_weights(packed=False)
    np.save(os.path.join(mwd, "k_proj_weight.npy"), np.zeros((e, e + 1), np.int8))
    expect_fail("mha int8 k_proj_weight shape", mha(), "k_proj_weight.npy")
    reset_weights()
    os.remove(os.path.join(mwd, "out_proj.scales.npy"))
    expect_fail("mha int8 missing out_proj.scales", mha(), "out_proj.scales.npy")
    reset_weights()
    expect_fail("mha int8 projection multiplier >= 2^30", mha(quant={"--q-quant": "1e-15:0"}),
                "mha: an argument is out of range")

    expect_fail("luong-general FC multiplier >= 2^30",
                luong(True, quant={"--keys-proj-quant": "1e-15:0"}),
                "luong-general: an argument is out of range")

    # bahdanau --dtype int8.
    bq, bk = d.save("ebq.npy", i8(g, 2, 5)), d.save("ebk.npy", i8(g, 2, 7, 6))
    bw1, bw2 = d.save("ebw1.npy", i8(g, 5, 4)), d.save("ebw2.npy", i8(g, 6, 4))
    bv = d.save("ebv.npy", i8(g, 4))
    bs = d.save("ebs.npy", np.full(4, 0.01, np.float32))
    bquant = {"--query-quant": "0.02:1", "--keys-quant": "0.03:-2", "--query-proj-quant": "0.1:3",
              "--keys-proj-quant": "0.1:-4", "--sum-quant": "0.05:5", "--scores-quant": "0.2:-6",
              "--context-quant": "0.03:7", "--w1-scales": bs, "--w2-scales": bs, "--v-scale": "0.01"}

    def bahdanau(quant=None, extra=(), dtype=("--dtype", "int8"), w1=bw1, w2=bw2, v=bv, q=bq, k=bk):
        qu = dict(bquant)
        qu.update(quant or {})
        qargs = [a for kv in qu.items() if kv[1] is not None for a in kv]
        return ["run", "bahdanau", *dtype, "--query", q, "--keys", k, "--w1", w1, "--w2", w2,
                "--v", v, *qargs, "--out", d("o.npy"), "--probs-out", d("w.npy"), *extra]

    rc, _, err = run(*bahdanau())
    check(rc == 0, f"bahdanau int8 control runs: {err.strip()}")
    expect_fail("bahdanau int8 float32 keys", bahdanau(k=d.save("ebkf.npy", np.zeros((2, 7, 6), np.float32))),
                "ebkf.npy")
    expect_fail("bahdanau int8 W1 rows", bahdanau(w1=d.save("ebw1r.npy", i8(g, 4, 4))), "ebw1r.npy")
    expect_fail("bahdanau int8 W2 units", bahdanau(w2=d.save("ebw2u.npy", i8(g, 6, 3))), "ebw2u.npy")
    expect_fail("bahdanau int8 v length", bahdanau(v=d.save("ebv3.npy", i8(g, 3))), "ebv3.npy")
    expect_fail("bahdanau int8 v [U,2]", bahdanau(v=d.save("ebv42.npy", i8(g, 4, 2))), "ebv42.npy")
    expect_fail("bahdanau int8 missing --sum-quant", bahdanau(quant={"--sum-quant": None}), "--sum-quant")
    expect_fail("bahdanau int8 missing --w2-scales", bahdanau(quant={"--w2-scales": None}), "--w2-scales")
    expect_fail("bahdanau int8 bad --v-scale", bahdanau(quant={"--v-scale": "-1"}), "--v-scale")
    expect_fail("bahdanau int8 scales count", bahdanau(quant={"--w1-scales": d.save("ebs3.npy", np.ones(3, np.float32))}),
                "ebs3.npy")
    expect_fail("bahdanau int8 bias length", bahdanau(extra=["--b1", d.save("ebb5.npy", np.zeros(5, np.int32))]),
                "ebb5.npy")
    expect_fail("bahdanau int8 float32 bias", bahdanau(extra=["--b2", d.save("ebbf.npy", np.zeros(4, np.float32))]),
                "ebbf.npy")
    expect_fail("bahdanau int8 fractional --bv", bahdanau(extra=["--bv", "0.5"]), "--bv")
    expect_fail("bahdanau --sum-quant without --dtype int8",
                bahdanau(dtype=(), quant={n: None for n in bquant if n != "--sum-quant"}), "--sum-quant")
    expect_fail("bahdanau int8 key lengths", bahdanau(extra=["--key-lengths", d.save("ebl.npy", np.array([1, 8], np.int32))]),
                "ebl.npy")


def test_help():
    rc, out, _ = run("run", "sdpa", "--help")
    for f in ["--dtype", "--q-quant", "--k-quant", "--v-quant", "--scores-quant", "--out-quant",
              "--beta", "--mask", "--additive-mask", "--key-lengths", "--probs-out"]:
        check(f + " " in out or f + "\n" in out, f"run sdpa --help documents {f}")
    rc, out, _ = run("run", "softmax-s8", "--help")
    check(rc == 0, "softmax-s8 --help exits 0")
    for f in ["--input", "--input-scale", "--beta", "--out"]:
        check(f + " " in out, f"run softmax-s8 --help documents {f}")
    rc, out, _ = run("run", "--help")
    check("softmax-s8" in out, "run --help lists softmax-s8")


def main():
    with temp_dir("attn_cli_int8_test.") as d:
        test_help()
        test_softmax(d)
        test_sdpa(d)
        test_luong(d)
        test_mha(d)
        test_bahdanau(d)
        test_errors(d)
    print(f"{counts['softmax']} softmax-s8, {counts['sdpa']} sdpa, {counts['luong']} luong, "
          f"{counts['mha']} mha and {counts['bahdanau']} bahdanau int8 runs matched the "
          f"reference bit for bit; "
          f"{counts['errors']} error cases")
    return finish("all int8 CLI checks passed")


if __name__ == "__main__":
    sys.exit(main())
