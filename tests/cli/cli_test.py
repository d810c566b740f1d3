#!/usr/bin/python3
"""End-to-end test of the attn executable.

Usage: cli_test.py path/to/attn

Checks:
  * `attn demo` prints the seed table (each value within 1e-6 of the seed's
    float64 table: float32 cannot match its 8 printed digits exactly) and runs
    every op;
  * `attn run <op>` on NumPy-generated inputs matches a float64 NumPy reference
    (PyTorch's nn.MultiheadAttention for mha, when torch is installed) within
    |attn - ref| <= TOL * (1 + |ref|), TOL = 1e-5;
  * hand-broken inputs (truncated, wrong magic, wrong dtype, wrong shape,
    fortran order, header lying about the size, ...) each give exit code 2, a
    one-line error on stderr naming the file, and no output file;
  * --help documents every flag.
Exits 0 on success, 1 on failure, 77 (skipped) when NumPy is missing (1 under CI=true).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
from cli_common import check, failures, finish, runner, temp_dir  # noqa: E402
from missing_tool import part_missing, skip  # noqa: E402

try:
    import numpy as np
except ImportError:
    skip("cli_test", "NumPy missing")

TOL = 1e-5
ATTN = os.path.abspath(sys.argv[1])
run = runner([ATTN])


def close(name, got, ref):
    got = np.asarray(got, np.float64)
    ref = np.asarray(ref, np.float64)
    if got.shape != ref.shape:
        check(False, f"{name}: shape {got.shape} != reference {ref.shape}")
        return
    err = np.abs(got - ref) / (1.0 + np.abs(ref))
    worst = float(err.max()) if err.size else 0.0
    check(worst <= TOL, f"{name}: relative error {worst:.3g} > {TOL}")


def softmax_masked(s, masked):
    """Row softmax of float64 scores with a boolean mask; fully masked rows -> 0."""
    s = np.where(masked, -np.inf, s)
    m = s.max(axis=-1, keepdims=True)
    all_masked = ~np.isfinite(m)
    e = np.exp(s - np.where(all_masked, 0.0, m))
    e = np.where(masked, 0.0, e)
    z = e.sum(axis=-1, keepdims=True)
    return np.where(all_masked, 0.0, e / np.where(z == 0, 1.0, z))


def ref_attention(q, k, v, scale=None, causal=False, keras=None, boolean=None, additive=None,
                  lengths=None):
    """float64 SDPA reference, q [B,Sq,D], k [B,Skv,D], v [B,Skv,Dv]."""
    b, sq, d = q.shape
    skv = k.shape[1]
    scale = 1.0 / np.sqrt(d) if scale is None else scale
    s = np.einsum("bqd,bkd->bqk", q, k) * scale
    masked = np.zeros((b, sq, skv), bool)
    if causal:
        i = np.arange(sq)[:, None]
        j = np.arange(skv)[None, :]
        masked |= (j > i + (skv - sq))[None]
    if lengths is not None:
        masked |= np.arange(skv)[None, None, :] >= np.asarray(lengths)[:, None, None]
    if keras is not None:
        # Keras: -1e9 added to the score (the key stays in the softmax, with a
        # weight that underflows to 0 unless the whole row is masked).
        s = s + -1e9 * np.broadcast_to(keras, (b, sq, skv))
    if boolean is not None:
        masked |= np.broadcast_to(boolean != 0, (b, sq, skv))
    if additive is not None:
        s = s + np.broadcast_to(additive, (b, sq, skv))
        masked |= np.isneginf(np.broadcast_to(additive, (b, sq, skv)))
    w = softmax_masked(s, masked)
    if keras is not None:
        # Keras rows masked entirely: the engine defines them as zeros.
        full = np.broadcast_to(keras != 0, (b, sq, skv)) | masked
        w = np.where(full.all(axis=-1, keepdims=True), 0.0, w)
    return w @ v, w


def f32(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


# ---------------------------------------------------------------- demo
def test_demo():
    rc, out, err = run("demo")
    check(rc == 0, f"demo exit code {rc}: {err}")
    seed = np.array([[0.98522025, 1.74174051, 0.75652026],
                     [0.90965265, 1.40965265, 0.5],
                     [0.99851226, 1.75849334, 0.75998108],
                     [0.99560386, 1.90407309, 0.90846923]])
    rows = [l for l in out.splitlines() if l.startswith("[[") or l.startswith(" [")][:4]
    check(len(rows) == 4, "demo: 4 table rows")
    if len(rows) == 4:
        table = np.array([[float(x) for x in r.replace("[", " ").replace("]", " ").split()]
                          for r in rows])
        check(table.shape == (4, 3), "demo: 4x3 table")
        if table.shape == (4, 3):
            check(np.abs(table - seed).max() <= 1e-6,
                  f"demo table within 1e-6 of the seed: {np.abs(table - seed).max()}")
    check(out.startswith("Seed worked example"), "demo starts with the seed example")
    check("max |difference| to the seed" in out, "demo prints the difference to the seed")
    for op in ["sdpa (no mask)", "sdpa (causal)", "sdpa (key lengths", "sdpa (Keras mask)",
               "sdpa (boolean mask)", "sdpa (additive mask)", "mha self", "mha cross",
               "bahdanau", "luong-dot", "luong-general"]:
        check(op in out, f"demo runs {op}")


# ---------------------------------------------------------------- sdpa
def test_sdpa(d, rng):
    cases = []
    # (batch or None for rank 2, sq, skv, dk, dv)
    for shape in [(None, 1, 1, 1, 1), (None, 4, 6, 3, 5), (2, 5, 7, 8, 6), (3, 9, 9, 16, 4),
                  (1, 70, 130, 33, 7), (2, 7, 3, 5, 5)]:
        cases.append(shape)
    for idx, (b, sq, skv, dk, dv) in enumerate(cases):
        bb = b or 1
        q, k, v = f32(rng, bb, sq, dk), f32(rng, bb, skv, dk), f32(rng, bb, skv, dv)
        sq_ = (lambda a: a[0]) if b is None else (lambda a: a)
        qp, kp, vp = d.save("q.npy", sq_(q)), d.save("k.npy", sq_(k)), d.save("v.npy", sq_(v))
        q64, k64, v64 = q.astype(np.float64), k.astype(np.float64), v.astype(np.float64)
        keras = (rng.random((sq, skv)) < 0.3).astype(np.float32)
        keras_b = (rng.random((bb, sq, skv)) < 0.3).astype(np.float32)
        boolean = rng.random((sq, skv)) < 0.3
        additive = np.where(rng.random((bb, sq, skv)) < 0.2, -np.inf,
                            rng.standard_normal((bb, sq, skv))).astype(np.float32)
        lengths = rng.integers(0, skv + 1, size=bb)
        variants = [
            ("none", [], {}),
            ("causal", ["--mask", "causal"], {"causal": True}),
            ("scale", ["--scale", "0.37"], {"scale": 0.37}),
            ("keras2d", ["--mask", d.save("m.npy", keras)], {"keras": keras}),
            ("keras3d", ["--mask", d.save("m3.npy", keras_b)], {"keras": keras_b}),
            ("bool", ["--mask", d.save("mb.npy", boolean)], {"boolean": boolean}),
            ("uint8", ["--mask", d.save("mu.npy", boolean.astype(np.uint8))], {"boolean": boolean}),
            ("additive", ["--additive-mask", d.save("ma.npy", additive)], {"additive": additive}),
            ("len32", ["--key-lengths", d.save("l.npy", lengths.astype(np.int32))],
             {"lengths": lengths}),
            ("len64+causal", ["--key-lengths", d.save("l64.npy", lengths.astype(np.int64)),
                              "--mask", "causal"], {"lengths": lengths, "causal": True}),
            ("bool+additive", ["--mask", d("mb.npy"), "--additive-mask", d("ma.npy")],
             {"boolean": boolean, "additive": additive}),
        ]
        for name, flags, kw in variants:
            for p in ("o.npy", "w.npy"):
                if os.path.exists(d(p)):
                    os.remove(d(p))
            rc, out, err = run("run", "sdpa", "--q", qp, "--k", kp, "--v", vp, *flags,
                               "--out", d("o.npy"), "--probs-out", d("w.npy"))
            tag = f"sdpa case {idx} {(b, sq, skv, dk, dv)} {name}"
            check(rc == 0, f"{tag}: exit {rc}: {err.strip()}")
            if rc != 0:
                continue
            o_ref, w_ref = ref_attention(q64, k64, v64, **kw)
            o, w = np.load(d("o.npy")), np.load(d("w.npy"))
            check(o.dtype == np.float32 and w.dtype == np.float32, f"{tag}: float32 outputs")
            close(tag + " out", o, sq_(o_ref))
            close(tag + " weights", w, sq_(w_ref))


# ---------------------------------------------------------------- mha
def ref_mha(x, y, v, w, heads, **mask):
    """float64 reference of nn.MultiheadAttention (batch_first) from its state_dict."""
    e = x.shape[-1]
    hd = e // heads
    if "in_proj_weight" in w:
        wq, wk, wv = np.split(w["in_proj_weight"], 3)
    else:
        wq, wk, wv = w["q_proj_weight"], w["k_proj_weight"], w["v_proj_weight"]
    bq, bk, bv = np.split(w.get("in_proj_bias", np.zeros(3 * e)), 3)
    q, k, vv = x @ wq.T + bq, y @ wk.T + bk, v @ wv.T + bv
    b, sq, skv = x.shape[0], x.shape[1], y.shape[1]
    outs, ws = [], []
    for h in range(heads):
        sl = slice(h * hd, (h + 1) * hd)
        o, wt = ref_attention(q[..., sl], k[..., sl], vv[..., sl], **mask)
        outs.append(o)
        ws.append(wt)
    o = np.concatenate(outs, -1) @ w["out_proj.weight"].T + w.get("out_proj.bias", np.zeros(e))
    return o, np.mean(ws, axis=0), np.stack(ws, axis=1)


def test_mha(d, rng):
    try:
        import torch
    except ImportError:
        torch = None
        if part_missing("cli_test", "PyTorch missing: mha checked against NumPy only"):
            failures.append("PyTorch missing")
    print("mha reference:", "NumPy and PyTorch " + torch.__version__ if torch else "NumPy only")
    for (b, sq, skv, e, heads, kdim, vdim, cross, causal, bias) in [
            (2, 5, 5, 8, 2, 8, 8, False, False, True),
            (2, 5, 5, 8, 2, 8, 8, False, True, True),
            (1, 4, 9, 12, 3, 12, 12, True, False, True),
            (2, 3, 6, 8, 4, 5, 7, True, False, True),
            (1, 6, 6, 6, 1, 6, 6, False, False, False)]:
        wdir = d(f"mha_{b}_{sq}_{skv}_{e}_{kdim}_{vdim}_{bias}")
        os.makedirs(wdir, exist_ok=True)
        x = f32(rng, b, sq, e)
        y = f32(rng, b, skv, kdim)
        val = f32(rng, b, skv, vdim) if vdim != kdim else y
        if not cross:
            y = val = x
        w = {}
        if torch is not None:
            torch.manual_seed(7)
            m = torch.nn.MultiheadAttention(e, heads, bias=bias, batch_first=True,
                                            kdim=kdim, vdim=vdim).double()
            with torch.no_grad():
                for p in m.parameters():
                    p.uniform_(-0.5, 0.5)
            for key, t in m.state_dict().items():
                w[key] = t.numpy().astype(np.float32)
        else:
            if kdim == e and vdim == e:
                w["in_proj_weight"] = f32(rng, 3 * e, e)
            else:
                w["q_proj_weight"], w["k_proj_weight"], w["v_proj_weight"] = (
                    f32(rng, e, e), f32(rng, e, kdim), f32(rng, e, vdim))
            if bias:
                w["in_proj_bias"] = f32(rng, 3 * e)
                w["out_proj.bias"] = f32(rng, e)
            w["out_proj.weight"] = f32(rng, e, e)
        for key, arr in w.items():
            np.save(os.path.join(wdir, key + ".npy"), arr)
        flags = ["--query", d.save("x.npy", x), "--weights", wdir, "--heads", str(heads),
                 "--out", d("mo.npy"), "--probs-out", d("mw.npy")]
        if cross:
            flags += ["--kv", d.save("y.npy", y)]
            if vdim != kdim:
                flags += ["--value", d.save("val.npy", val)]
        if causal:
            flags += ["--mask", "causal"]
        tag = f"mha b={b} sq={sq} skv={skv} e={e} h={heads} kdim={kdim} vdim={vdim} cross={cross}"
        rc, out, err = run("run", "mha", *flags)
        check(rc == 0, f"{tag}: exit {rc}: {err.strip()}")
        if rc != 0:
            continue
        w64 = {k_: a.astype(np.float64) for k_, a in w.items()}
        o_ref, wav_ref, wh_ref = ref_mha(x.astype(np.float64), y.astype(np.float64),
                                         val.astype(np.float64), w64, heads, causal=causal)
        close(tag + " out (numpy)", np.load(d("mo.npy")), o_ref)
        close(tag + " weights (numpy)", np.load(d("mw.npy")), wav_ref)
        if torch is not None:
            mask = None
            if causal:
                mask = torch.triu(torch.ones(sq, skv, dtype=torch.bool), diagonal=1 + skv - sq)
            with torch.no_grad():
                m64 = torch.nn.MultiheadAttention(e, heads, bias=bias, batch_first=True,
                                                  kdim=kdim, vdim=vdim).double()
                m64.load_state_dict({k_: torch.from_numpy(a) for k_, a in w64.items()})
                to, tw = m64(torch.from_numpy(x.astype(np.float64)),
                             torch.from_numpy(y.astype(np.float64)),
                             torch.from_numpy(val.astype(np.float64)), attn_mask=mask)
            close(tag + " out (torch)", np.load(d("mo.npy")), to.numpy())
            close(tag + " weights (torch)", np.load(d("mw.npy")), tw.numpy())
        rc, out, err = run("run", "mha", *flags, "--per-head-probs")
        check(rc == 0, f"{tag} per-head: exit {rc}: {err.strip()}")
        if rc == 0:
            close(tag + " per-head weights", np.load(d("mw.npy")), wh_ref)
        # Masks from files reach every head: key lengths plus a batched boolean mask.
        lengths = rng.integers(1, skv + 1, size=b)
        boolean = rng.random((b, sq, skv)) < 0.25
        rc, out, err = run("run", "mha", *flags, "--key-lengths",
                           d.save("mlen.npy", lengths.astype(np.int64)),
                           "--additive-mask", d.save("madd.npy", np.where(boolean, -np.inf, 0.0).astype(np.float32)))
        check(rc == 0, f"{tag} masks: exit {rc}: {err.strip()}")
        if rc == 0:
            o_ref, wav_ref, _ = ref_mha(x.astype(np.float64), y.astype(np.float64),
                                        val.astype(np.float64), w64, heads, causal=causal,
                                        lengths=lengths, boolean=boolean)
            close(tag + " masked out", np.load(d("mo.npy")), o_ref)
            close(tag + " masked weights", np.load(d("mw.npy")), wav_ref)


# ------------------------------------------------- bahdanau, luong, general
def ref_context(scores, h, lengths=None):
    b, t = scores.shape
    masked = np.zeros((b, t), bool)
    if lengths is not None:
        masked = np.arange(t)[None, :] >= lengths[:, None]
    a = softmax_masked(scores, masked)
    return np.einsum("bt,btd->bd", a, h), a


def test_context_ops(d, rng):
    for batched, b, t, dq, dk, u in [(True, 2, 9, 6, 6, 5), (False, 1, 1, 3, 3, 1),
                                     (True, 3, 70, 7, 7, 11), (True, 2, 5, 4, 6, 3)]:
        q, h = f32(rng, b, dq), f32(rng, b, t, dk)
        sq_ = (lambda a: a) if batched else (lambda a: a[0])
        qp, hp = d.save("q.npy", sq_(q)), d.save("h.npy", sq_(h))
        q64, h64 = q.astype(np.float64), h.astype(np.float64)
        lengths = rng.integers(0, t + 1, size=b)
        lp = d.save("len.npy", lengths.astype(np.int32))
        common = ["--query", qp, "--keys", hp, "--out", d("c.npy"), "--probs-out", d("a.npy")]
        tag0 = f"(batched={batched} b={b} t={t} dq={dq} dk={dk})"

        def check_run(tag, args, scores, lens=None):
            rc, out, err = run("run", *args)
            check(rc == 0, f"{tag}: exit {rc}: {err.strip()}")
            if rc == 0:
                c_ref, a_ref = ref_context(scores, h64, lens)
                close(tag + " context", np.load(d("c.npy")), sq_(c_ref))
                close(tag + " weights", np.load(d("a.npy")), sq_(a_ref))

        w1, b1, w2, b2 = f32(rng, dq, u), f32(rng, u), f32(rng, dk, u), f32(rng, u)
        v = f32(rng, u, 1)
        scores = np.tanh((q64 @ w1.astype(np.float64) + b1)[:, None, :] +
                         h64 @ w2.astype(np.float64) + b2) @ v[:, 0].astype(np.float64) + 0.3
        bflags = ["bahdanau", *common, "--w1", d.save("w1.npy", w1), "--b1", d.save("b1.npy", b1),
                  "--w2", d.save("w2.npy", w2), "--b2", d.save("b2.npy", b2),
                  "--v", d.save("v.npy", v), "--bv", "0.3"]
        check_run("bahdanau " + tag0, bflags, scores)
        check_run("bahdanau+lengths " + tag0, bflags + ["--key-lengths", lp], scores, lengths)
        if dq == dk:
            scores = np.einsum("bd,btd->bt", q64, h64)
            check_run("luong-dot " + tag0, ["luong-dot", *common], scores)
            check_run("luong-dot+lengths " + tag0, ["luong-dot", *common, "--key-lengths", lp],
                      scores, lengths)
        w, bb = f32(rng, dk, dq), f32(rng, dq)
        scores = np.einsum("bd,btd->bt", q64, h64 @ w.astype(np.float64) + bb)
        check_run("luong-general " + tag0,
                  ["luong-general", *common, "--w", d.save("w.npy", w), "--b", d.save("b.npy", bb)],
                  scores)

    # general attention: the seed example through files, and a random batch.
    words = np.array([[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1]], np.float32)
    wq = np.array([[2, 0, 2], [2, 0, 0], [2, 1, 2]], np.float32)
    wk = np.array([[2, 2, 2], [0, 2, 1], [0, 1, 1]], np.float32)
    wv = np.array([[1, 1, 0], [0, 1, 1], [0, 0, 0]], np.float32)
    for x, causal in [(words, False), (f32(rng, 3, 6, 5), True)]:
        gw = [wq, wk, wv] if x is words else [f32(rng, 5, 4), f32(rng, 5, 4), f32(rng, 5, 3)]
        flags = ["general", "--x", d.save("gx.npy", x), "--wq", d.save("gq.npy", gw[0]),
                 "--wk", d.save("gk.npy", gw[1]), "--wv", d.save("gv.npy", gw[2]),
                 "--out", d("go.npy"), "--probs-out", d("gw.npy")]
        if causal:
            flags += ["--mask", "causal"]
        rc, out, err = run("run", *flags)
        check(rc == 0, f"general: exit {rc}: {err.strip()}")
        if rc == 0:
            x3 = (x if x.ndim == 3 else x[None]).astype(np.float64)
            o_ref, w_ref = ref_attention(x3 @ gw[0], x3 @ gw[1], x3 @ gw[2], causal=causal)
            o = np.load(d("go.npy"))
            close("general out", o, o_ref if x.ndim == 3 else o_ref[0])
            close("general weights", np.load(d("gw.npy")), w_ref if x.ndim == 3 else w_ref[0])


# ---------------------------------------------------------------- broken inputs
def npy_bytes(header, data=b"", version=1):
    h = header.encode("latin1")
    n = len(h)
    size = n.to_bytes(2, "little") if version == 1 else n.to_bytes(4, "little")
    return b"\x93NUMPY" + bytes([version, 0]) + size + h + data


def test_errors(d, rng):
    q, k, v = f32(rng, 2, 4, 8), f32(rng, 2, 6, 8), f32(rng, 2, 6, 5)
    good = {"q": d.save("gq.npy", q), "k": d.save("gk.npy", k), "v": d.save("gv.npy", v)}
    raw_q = open(good["q"], "rb").read()
    hdr_len = int.from_bytes(raw_q[8:10], "little")

    def write(name, content):
        with open(d(name), "wb") as f:
            f.write(content)
        return d(name)

    broken = {
        "truncated_data.npy": raw_q[:-10],
        "truncated_header.npy": raw_q[:30],
        "empty.npy": b"",
        "wrong_magic.npy": b"\x93NUMPZ" + raw_q[6:],
        "text.npy": b"this is not a numpy file\n",
        "lying_header.npy": raw_q.replace(b"(2, 4, 8)", b"(2, 5, 8)"),
        "lying_header_small.npy": raw_q.replace(b"(2, 4, 8)", b"(2, 3, 8)"),
        "huge_shape.npy": raw_q.replace(b"'shape': (2, 4, 8), ",
                                        b"'shape': (9999999999999,9999999,8),"),
        "bad_dict.npy": raw_q.replace(b"'descr'", b"'dscr' "),
        "bad_version.npy": raw_q[:6] + b"\x07\x00" + raw_q[8:],
        "big_endian.npy": raw_q.replace(b"'<f4'", b"'>f4'"),
    }
    files = {name: write(name, content) for name, content in broken.items()}
    files["wrong_dtype.npy"] = d.save("wrong_dtype.npy", q.astype(np.float64))
    files["int_dtype.npy"] = d.save("int_dtype.npy", q.astype(np.int32))
    files["fortran.npy"] = d.save("fortran.npy", np.asfortranarray(f32(rng, 2, 4, 8).transpose(2, 1, 0)).transpose(2, 1, 0).copy(order="F"))
    files["rank4.npy"] = d.save("rank4.npy", f32(rng, 1, 2, 4, 8))
    files["rank1.npy"] = d.save("rank1.npy", f32(rng, 8))
    files["wrong_dk.npy"] = d.save("wrong_dk.npy", f32(rng, 2, 4, 7))
    files["wrong_batch.npy"] = d.save("wrong_batch.npy", f32(rng, 3, 4, 8))
    files["zero_dim.npy"] = d.save("zero_dim.npy", np.zeros((2, 0, 8), np.float32))
    files["missing.npy"] = d("missing.npy")
    # Sanity: the fortran file really says fortran_order True.
    check(b"'fortran_order': True" in open(files["fortran.npy"], "rb").read(),
          "fortran test file is fortran-ordered")

    def expect_fail(tag, args, name_in_msg, outs=("o.npy", "w.npy")):
        for o in outs:
            if os.path.exists(d(o)):
                os.remove(d(o))
        rc, out, err = run(*args)
        lines = err.strip().splitlines()
        check(rc == 2, f"{tag}: exit code {rc}, expected 2 ({err.strip()})")
        check(len(lines) == 1, f"{tag}: one-line error, got {lines!r}")
        check(name_in_msg in err, f"{tag}: error names {name_in_msg}: {err.strip()}")
        for o in outs:
            check(not os.path.exists(d(o)), f"{tag}: no output file {o}")
        leftovers = [f for f in os.listdir(d.root) if ".tmp." in f]
        check(not leftovers, f"{tag}: no temporary files {leftovers}")

    def sdpa(qp=None, kp=None, vp=None, extra=()):
        return ["run", "sdpa", "--q", qp or good["q"], "--k", kp or good["k"],
                "--v", vp or good["v"], "--out", d("o.npy"), "--probs-out", d("w.npy"), *extra]

    for name, path in files.items():
        if name in ("wrong_dk.npy",):
            expect_fail(f"sdpa --k {name}", sdpa(kp=path), name)
        else:
            expect_fail(f"sdpa --q {name}", sdpa(qp=path), name)
    expect_fail("sdpa --v wrong Skv", sdpa(vp=d.save("v_bad.npy", f32(rng, 2, 5, 5))), "v_bad.npy")
    expect_fail("sdpa rank mismatch", sdpa(kp=d.save("k2.npy", f32(rng, 6, 8))), "k2.npy")
    expect_fail("mask wrong shape", sdpa(extra=["--mask", d.save("mbad.npy", np.zeros((4, 5), np.float32))]),
                "mbad.npy")
    expect_fail("mask wrong dtype", sdpa(extra=["--mask", d.save("mint.npy", np.zeros((4, 6), np.int32))]),
                "mint.npy")
    expect_fail("mask truncated", sdpa(extra=["--mask", files["truncated_data.npy"]]),
                "truncated_data.npy")
    expect_fail("additive mask bool", sdpa(extra=["--additive-mask", d.save("mab.npy", np.zeros((4, 6), bool))]),
                "mab.npy")
    expect_fail("key lengths out of range",
                sdpa(extra=["--key-lengths", d.save("lbad.npy", np.array([2, 7], np.int32))]), "lbad.npy")
    expect_fail("key lengths wrong count",
                sdpa(extra=["--key-lengths", d.save("lcnt.npy", np.array([2, 3, 4], np.int64))]), "lcnt.npy")
    expect_fail("key lengths float",
                sdpa(extra=["--key-lengths", d.save("lflt.npy", np.array([2, 3], np.float32))]), "lflt.npy")
    # Usage errors: CLI11's message, exit 2.
    expect_fail("missing --out", ["run", "sdpa", "--q", good["q"], "--k", good["k"], "--v", good["v"]], "--out")
    expect_fail("unknown flag", sdpa(extra=["--bogus"]), "--bogus")
    expect_fail("bad scale", sdpa(extra=["--scale", "-1"]), "--scale")
    expect_fail("no op", ["run"], "subcommand")
    expect_fail("nan scale", sdpa(extra=["--scale", "nan"]), "--scale")
    expect_fail("tiny scale", sdpa(extra=["--scale", "1e-50"]), "--scale 1e-50")
    # NaN/Inf inputs are not errors: the affected rows come out NaN, no crash.
    qn = q.copy()
    qn[0, 1, 2] = np.nan
    qn[1, 0, 0] = np.inf
    rc, _, err = run(*sdpa(qp=d.save("qnan.npy", qn)))
    check(rc == 0, f"NaN/Inf input runs: exit {rc} {err.strip()}")
    if rc == 0:
        o = np.load(d("o.npy"))
        check(np.isnan(o[0, 1]).all() and np.isfinite(o[0, 0]).all(),
              "NaN input row gives a NaN output row, other rows finite")
    # Write errors: an output in a missing directory; the other output is removed.
    expect_fail("unwritable --probs-out",
                ["run", "sdpa", "--q", good["q"], "--k", good["k"], "--v", good["v"],
                 "--out", d("o.npy"), "--probs-out", d("nodir/w.npy")], "nodir/w.npy")
    # Engine status errors: a dimension beyond the engine's limit (2^20).
    big = 1 << 20
    expect_fail("engine status",
                sdpa(qp=d.save("qbig.npy", np.zeros((1, big + 1), np.float32)),
                     kp=d.save("kbig.npy", np.zeros((1, big + 1), np.float32)),
                     vp=d.save("vbig.npy", np.zeros((1, 1), np.float32))),
                "sdpa: a dimension is zero, negative or over 2^20")
    for p in ("qbig.npy", "kbig.npy", "vbig.npy"):
        os.remove(d(p))

    # MHA weight directory problems.
    e = 8
    wdir = d("mha_bad")
    os.makedirs(wdir, exist_ok=True)
    xp = d.save("mx.npy", f32(rng, 2, 4, e))
    def mha_args(heads):
        return ["run", "mha", "--query", xp, "--weights", wdir, "--heads", str(heads),
                "--out", d("o.npy"), "--probs-out", d("w.npy")]
    mha = mha_args(2)
    expect_fail("mha empty weights dir", mha, "mha_bad")
    np.save(os.path.join(wdir, "in_proj_weight.npy"), f32(rng, 3 * e, e + 1))
    np.save(os.path.join(wdir, "out_proj.weight.npy"), f32(rng, e, e))
    expect_fail("mha in_proj wrong shape", mha, "in_proj_weight.npy")
    np.save(os.path.join(wdir, "in_proj_weight.npy"), f32(rng, 3 * e, e))
    np.save(os.path.join(wdir, "in_proj_bias.npy"), f32(rng, 3 * e).astype(np.float64))
    expect_fail("mha bias wrong dtype", mha, "in_proj_bias.npy")
    os.remove(os.path.join(wdir, "in_proj_bias.npy"))
    os.remove(os.path.join(wdir, "out_proj.weight.npy"))
    expect_fail("mha missing out_proj.weight", mha, "out_proj.weight.npy")
    np.save(os.path.join(wdir, "out_proj.weight.npy"), f32(rng, e, e))
    expect_fail("mha heads not dividing E", mha_args(3), "--heads 3")
    rc, _, err = run(*mha)
    check(rc == 0, f"mha with fixed weights runs: {err.strip()}")

    # Context ops: shapes that disagree.
    qp, hp = d.save("cq.npy", f32(rng, 2, 6)), d.save("ch.npy", f32(rng, 2, 9, 6))
    expect_fail("luong-dot keys rank", ["run", "luong-dot", "--query", qp, "--keys", d.save("ch2.npy", f32(rng, 9, 6)),
                                        "--out", d("o.npy"), "--probs-out", d("w.npy")], "ch2.npy")
    expect_fail("luong-general W shape",
                ["run", "luong-general", "--query", qp, "--keys", hp, "--w", d.save("lw.npy", f32(rng, 6, 5)),
                 "--out", d("o.npy"), "--probs-out", d("w.npy")], "lw.npy")
    expect_fail("bahdanau v shape",
                ["run", "bahdanau", "--query", qp, "--keys", hp, "--w1", d.save("bw1.npy", f32(rng, 6, 4)),
                 "--w2", d.save("bw2.npy", f32(rng, 6, 4)), "--v", d.save("bv.npy", f32(rng, 4, 2)),
                 "--out", d("o.npy"), "--probs-out", d("w.npy")], "bv.npy")


# ---------------------------------------------------------------- help
def test_help():
    expected = {
        ("run", "sdpa"): ["--q", "--k", "--v", "--scale", "--mask", "--additive-mask",
                          "--key-lengths", "--out", "--probs-out"],
        ("run", "mha"): ["--query", "--kv", "--value", "--weights", "--heads", "--mask",
                         "--additive-mask", "--key-lengths", "--out", "--probs-out",
                         "--per-head-probs"],
        ("run", "bahdanau"): ["--query", "--keys", "--w1", "--b1", "--w2", "--b2", "--v", "--bv",
                              "--key-lengths", "--out", "--probs-out"],
        ("run", "luong-dot"): ["--query", "--keys", "--key-lengths", "--out", "--probs-out"],
        ("run", "luong-general"): ["--query", "--keys", "--w", "--b", "--key-lengths", "--out",
                                   "--probs-out"],
        ("run", "general"): ["--x", "--wq", "--wk", "--wv", "--scale", "--mask", "--additive-mask",
                             "--key-lengths", "--out", "--probs-out"],
    }
    rc, out, _ = run("--help")
    check(rc == 0 and "demo" in out and "run" in out, "attn --help lists demo and run")
    # Every help text names the number formats and model blobs its command takes.
    check("int8" in out and "model" in out and "float32 ops on NumPy" not in out,
          f"attn --help names float32, int8 and model blobs: {out!r}")
    rc, out, _ = run("run", "--help")
    check(rc == 0 and "int8" in out and "--model" in out, "attn run --help names int8 and --model")
    for op, int8, model in (("sdpa", True, False), ("mha", True, True), ("bahdanau", True, True),
                            ("luong-dot", True, False), ("luong-general", True, True),
                            ("general", False, False), ("softmax-s8", True, False)):
        rc, out, _ = run("run", op, "--help")
        first = out.splitlines()[0] if out else ""
        check(rc == 0 and ("int8" in first) == int8 and ("--model" in out) == model,
              f"run {op} --help: int8 {int8}, --model {model}: {first!r}")
    for cmd, flags in expected.items():
        rc, out, _ = run(*cmd, "--help")
        check(rc == 0, f"{' '.join(cmd)} --help exits 0")
        for f in flags:
            check(f + " " in out or f + "\n" in out, f"{' '.join(cmd)} --help documents {f}")


def test_mask_words(d, rng):
    """--mask takes causal, none or an existing file; any other word is one exact error."""
    q, k, v = f32(rng, 2, 4, 8), f32(rng, 2, 6, 8), f32(rng, 2, 6, 5)
    io = ["--q", d.save("mq.npy", q), "--k", d.save("mk.npy", k), "--v", d.save("mv.npy", v)]
    rc, _, err = run("run", "sdpa", *io, "--out", d("plain.npy"))
    check(rc == 0, f"sdpa without a mask: {err}")
    rc, _, err = run("run", "sdpa", *io, "--mask", "none", "--out", d("none.npy"))
    check(rc == 0, f"sdpa --mask none: {err}")
    if rc == 0:
        check(np.array_equal(np.load(d("plain.npy")), np.load(d("none.npy"))),
              "--mask none gives the unmasked output bit for bit")
    x = d.save("mx.npy", f32(rng, 2, 4, 8))
    for args in (["run", "sdpa", *io], ["run", "general", "--x", x, "--wq", d.save("wq.npy", f32(rng, 8, 8)),
                                        "--wk", d("wq.npy"), "--wv", d("wq.npy")]):
        out = d("typo.npy")
        rc, _, err = run(*args, "--mask", "caual", "--out", out)
        check(rc == 2 and err == "attn: --mask: 'caual' is neither causal/none nor a file\n",
              f"{args[1]} --mask caual: rc {rc}, stderr {err!r}")
        check(not os.path.exists(out), f"{args[1]} --mask caual: no output file")
    empty = d("empty_input.npy")
    open(empty, "wb").close()
    rc, _, err = run("run", "sdpa", "--q", empty, "--k", io[3], "--v", io[5], "--out", d("e.npy"))
    check(rc == 2 and err == f"attn: {empty}: empty file\n", f"empty .npy: rc {rc}, {err!r}")
    rc, _, err = run("run", "sdpa", *io, "--mask", empty, "--out", d("e.npy"))
    check(rc == 2 and err == f"attn: {empty}: empty file\n", f"empty mask file: rc {rc}, {err!r}")


def main():
    with temp_dir("attn_cli_test.") as d:
        rng = np.random.default_rng(20261122)
        test_demo()
        test_help()
        test_mask_words(d, rng)
        test_sdpa(d, rng)
        test_mha(d, rng)
        test_context_ops(d, rng)
        test_errors(d, rng)
    return finish("all CLI checks passed")


if __name__ == "__main__":
    sys.exit(main())
