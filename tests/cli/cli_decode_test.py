#!/usr/bin/python3
"""End-to-end test of `attn run mha-decode`.

Usage: cli_decode_test.py path/to/attn

Checks, against the float64 NumPy decoder in tools/convert/reference.py
(mha_decode: the whole sequence at once with a causal or band mask):
  * the reference itself: grouped-query heads equal reference.mha with the kv
    heads repeated; the half-split rotation equals a PyTorch implementation of
    Llama's rotate_half formula and the interleaved one a complex-number
    rotation (Meta's Llama / GPT-J pairs), when torch is installed;
  * chunks of 1, 3, 7 and all tokens per call each within
    |attn - ref| <= 1e-5 * (1 + |ref|) (float32 cache): GQA (4 heads, 2 kv
    heads) with Llama-style weights and biases, MQA, PyTorch nn.MultiheadAttention
    names, a sliding window of 6 over 29 tokens (the ring wraps 4 times), RoPE
    half-split and interleaved on 6 of 8 dims with theta 500;
  * a float16 cache within the same bound of the reference whose K and V are
    rounded to float16, and within 8 u (1 + |ref|) of the float32 reference
    (u = 2^-11, binary16's unit roundoff; measured 3.5 u);
  * --weights-dtype f16 (weight matrices rounded to binary16, nearest even):
    within the same bound of the reference over the NumPy float16-rounded
    weights (Llama-style GQA with RoPE and a float16 cache, and the packed
    PyTorch in_proj_weight);
  * inconsistent flags and a full cache: exit 2, one line on stderr, no file;
  * --help lists every flag.
Exits 0 on success, 1 on failure, 77 (skipped) when NumPy is missing.
"""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
from cli_common import check, finish, runner  # noqa: E402
from missing_tool import skip  # noqa: E402

try:
    import numpy as np
except ImportError:
    skip("cli_decode_test", "NumPy missing")
from convert import reference  # noqa: E402

TOL = 1e-5
ATTN = os.path.abspath(sys.argv[1])
run = runner([ATTN])
E, H, T = 32, 4, 29
HD = E // H


def worst(got, ref):
    return float(np.max(np.abs(np.asarray(got, np.float64) - ref) / (1.0 + np.abs(ref))))


def llama_weights(rng, g, biases=True):
    """{file name: array} (Llama-style) and the same under reference.mha_decode's names."""
    files = {"q_proj.weight": rng.normal(0, 0.3, (E, E)),
             "k_proj.weight": rng.normal(0, 0.3, (g * HD, E)),
             "v_proj.weight": rng.normal(0, 0.3, (g * HD, E)),
             "o_proj.weight": rng.normal(0, 0.3, (E, E))}
    if biases:
        files.update({"q_proj.bias": rng.normal(0, 0.2, E),
                      "k_proj.bias": rng.normal(0, 0.2, g * HD),
                      "v_proj.bias": rng.normal(0, 0.2, g * HD),
                      "o_proj.bias": rng.normal(0, 0.2, E)})
    files = {k: v.astype(np.float32) for k, v in files.items()}
    names = {"q_proj.weight": "q_proj_weight", "k_proj.weight": "k_proj_weight",
             "v_proj.weight": "v_proj_weight", "o_proj.weight": "out_proj.weight",
             "q_proj.bias": "q_proj_bias", "k_proj.bias": "k_proj_bias",
             "v_proj.bias": "v_proj_bias", "o_proj.bias": "out_proj.bias"}
    ref = {names[k]: v for k, v in files.items()}
    return files, ref


def save_dir(tmp, name, files):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    for k, v in files.items():
        np.save(os.path.join(d, k + ".npy"), v)
    return d


def check_reference(rng):
    """The float64 reference against independent formulations."""
    _, w = llama_weights(rng, 2)
    x = rng.normal(size=(T, E))
    wk = np.repeat(w["k_proj_weight"].reshape(2, HD, E), 2, axis=0).reshape(E, E)
    wv = np.repeat(w["v_proj_weight"].reshape(2, HD, E), 2, axis=0).reshape(E, E)
    bk = np.repeat(w["k_proj_bias"].reshape(2, HD), 2, axis=0).reshape(E)
    bv = np.repeat(w["v_proj_bias"].reshape(2, HD), 2, axis=0).reshape(E)
    mw = {"q_proj_weight": w["q_proj_weight"], "k_proj_weight": wk, "v_proj_weight": wv,
          "in_proj_bias": np.concatenate([w["q_proj_bias"], bk, bv]),
          "out_proj.weight": w["out_proj.weight"], "out_proj.bias": w["out_proj.bias"]}
    for win in (0, 6):
        got = reference.mha_decode(w, H, 2, x, window=win)["out"]
        want = reference.mha(mw, H, x[None], mask=reference.band_mask(T, win))["out"][0]
        check(np.abs(got - want).max() < 1e-12, f"reference GQA (window {win}) != repeated MHA")
    try:
        import torch
    except ImportError:
        print("torch missing: the rotary reference is not checked against PyTorch")
        return
    q = rng.normal(size=(T, H, HD))
    pos = np.arange(T) + 100000  # large positions
    dims, theta = 6, 500.0
    inv = 1.0 / (theta ** (torch.arange(0, dims, 2, dtype=torch.float64) / dims))
    freqs = torch.outer(torch.tensor(pos, dtype=torch.float64), inv)
    # Llama (Hugging Face): cos/sin of cat(freqs, freqs), rotate_half.
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos()[:, None, :], emb.sin()[:, None, :]
    xr = torch.tensor(q[..., :dims])
    rot = torch.cat((-xr[..., dims // 2:], xr[..., :dims // 2]), dim=-1)
    half = torch.cat((xr * cos + rot * sin, torch.tensor(q[..., dims:])), dim=-1).numpy()
    check(np.abs(reference.rope(q, pos, dims, "half", theta) - half).max() < 1e-12,
          "reference half-split RoPE != PyTorch Llama rotate_half")
    # Meta's Llama / GPT-J: consecutive pairs as complex numbers times e^(i angle).
    xc = torch.view_as_complex(torch.tensor(q[..., :dims]).reshape(T, H, dims // 2, 2))
    turned = torch.view_as_real(xc * torch.polar(torch.ones_like(freqs), freqs)[:, None, :])
    inter = np.concatenate([turned.reshape(T, H, dims).numpy(), q[..., dims:]], axis=-1)
    check(np.abs(reference.rope(q, pos, dims, "interleaved", theta) - inter).max() < 1e-12,
          "reference interleaved RoPE != complex rotation")


def decode_cases(tmp, rng):
    x = rng.normal(size=(T, E)).astype(np.float32)
    xpath = os.path.join(tmp, "x.npy")
    np.save(xpath, x)
    gqa_files, gqa = llama_weights(rng, 2)
    mqa_files, mqa = llama_weights(rng, 1, biases=False)
    gqa_dir = save_dir(tmp, "gqa", gqa_files)
    mqa_dir = save_dir(tmp, "mqa", mqa_files)
    # PyTorch nn.MultiheadAttention names: packed in_proj (kv heads = heads).
    mha_w = rng.normal(0, 0.3, (3 * E, E)).astype(np.float32)
    mha_b = rng.normal(0, 0.2, 3 * E).astype(np.float32)
    mha_o = rng.normal(0, 0.3, (E, E)).astype(np.float32)
    torch_dir = save_dir(tmp, "torch", {"in_proj_weight": mha_w, "in_proj_bias": mha_b,
                                        "out_proj.weight": mha_o})
    torch_ref = {"q_proj_weight": mha_w[:E], "k_proj_weight": mha_w[E:2 * E],
                 "v_proj_weight": mha_w[2 * E:], "q_proj_bias": mha_b[:E],
                 "k_proj_bias": mha_b[E:2 * E], "v_proj_bias": mha_b[2 * E:],
                 "out_proj.weight": mha_o}
    cases = [  # name, weights dir, reference weights, kv heads, flags, reference kwargs
        ("gqa", gqa_dir, gqa, 2, [], {}),
        ("mqa", mqa_dir, mqa, 1, ["--kv-heads", "1"], {}),
        ("torch names", torch_dir, torch_ref, H, [], {}),
        ("window", gqa_dir, gqa, 2, ["--window", "6"], {"window": 6}),
        ("rope half", gqa_dir, gqa, 2, ["--rope-dim", "6", "--rope-theta", "500"],
         {"rope_dims": 6, "rope_theta": 500.0}),
        ("rope interleaved + window", mqa_dir, mqa, 1,
         ["--rope-dim", "6", "--rope-theta", "500", "--rope-style", "interleaved", "--window",
          "5"], {"rope_dims": 6, "rope_theta": 500.0, "rope_style": "interleaved",
                 "window": 5}),
        ("packed cache, rope + window", gqa_dir, gqa, 2,
         ["--cache-packed", "--rope-dim", "6", "--rope-theta", "500", "--window", "6"],
         {"rope_dims": 6, "rope_theta": 500.0, "window": 6}),
    ]
    for name, wdir, w, g, flags, kw in cases:
        ref = reference.mha_decode(w, H, g, x, **kw)["out"]
        for chunk in ("1", "3", "7", str(T)):
            out = os.path.join(tmp, "o.npy")
            rc, _, err = run("run", "mha-decode", "--weights", wdir, "--heads", str(H),
                             "--tokens", xpath, "--chunk", chunk, "--out", out, *flags)
            check(rc == 0, f"{name} chunk {chunk}: exit {rc}: {err.strip()}")
            if rc == 0:
                e = worst(np.load(out), ref)
                check(e <= TOL, f"{name} chunk {chunk}: relative error {e:.3g} > {TOL}")
                os.remove(out)
    # float16 cache: K and V rounded to binary16 as they are cached.
    f16 = lambda n, a: a.astype(np.float16).astype(np.float64) if n in ("k", "v") else a
    ref16 = reference.mha_decode(gqa, H, 2, x, window=6, fq=f16)["out"]
    ref32 = reference.mha_decode(gqa, H, 2, x, window=6)["out"]
    for chunk, packed in (("1", []), ("7", []), ("1", ["--cache-packed"]),
                          ("7", ["--cache-packed"])):
        out = os.path.join(tmp, "o16.npy")
        rc, _, err = run("run", "mha-decode", "--weights", gqa_dir, "--heads", str(H), "--tokens",
                         xpath, "--chunk", chunk, "--window", "6", "--cache-dtype", "f16",
                         "--out", out, *packed)
        name = f"f16{' packed' if packed else ''} chunk {chunk}"
        check(rc == 0, f"{name}: exit {rc}: {err.strip()}")
        if rc == 0:
            got = np.load(out)
            e16, e32 = worst(got, ref16), worst(got, ref32)
            check(e16 <= TOL, f"{name}: {e16:.3g} from the f16-rounded reference")
            check(e32 <= 8 * 2.0**-11, f"{name}: {e32:.3g} from the float32 reference")
            os.remove(out)
    # float16 weights: the matrices rounded to binary16 (NumPy: nearest even).
    half = lambda w: {k: (v.astype(np.float16).astype(np.float32) if "weight" in k else v)
                      for k, v in w.items()}
    # The cache holds the rotated K (reference.mha_decode's fq sees K before
    # the rotation as a 2-D array, the rotated one as 3-D) and V.
    f16_rot = lambda n, a: (a.astype(np.float16).astype(np.float64)
                            if n == "v" or (n == "k" and a.ndim == 3) else a)
    cases16 = [
        ("gqa rope f16 cache", gqa_dir, half(gqa), 2,
         ["--rope-dim", "6", "--rope-theta", "500", "--cache-dtype", "f16"],
         {"rope_dims": 6, "rope_theta": 500.0, "fq": f16_rot}),
        ("torch names", torch_dir, half(torch_ref), H, [], {}),
    ]
    for name, wdir, w, g, flags, kw in cases16:
        ref = reference.mha_decode(w, H, g, x, **kw)["out"]
        for chunk in ("1", str(T)):
            out = os.path.join(tmp, "ow16.npy")
            rc, _, err = run("run", "mha-decode", "--weights", wdir, "--heads", str(H),
                             "--tokens", xpath, "--chunk", chunk, "--weights-dtype", "f16",
                             "--out", out, *flags)
            check(rc == 0, f"f16 weights {name} chunk {chunk}: exit {rc}: {err.strip()}")
            if rc == 0:
                e = worst(np.load(out), ref)
                check(e <= TOL, f"f16 weights {name} chunk {chunk}: relative error {e:.3g}")
                os.remove(out)
    return xpath, gqa_dir


def error_cases(tmp, xpath, wdir):
    out = os.path.join(tmp, "bad.npy")
    base = ["run", "mha-decode", "--tokens", xpath, "--out", out]
    w = ["--weights", wdir, "--heads", str(H)]
    cases = [
        ("capacity exceeded", w + ["--capacity", "10", "--chunk", "3"], "capacity exceeded"),
        ("capacity exceeded at once", w + ["--capacity", str(T - 1)], "capacity exceeded"),
        ("kv heads disagree", w + ["--kv-heads", "4"], "kv heads"),
        ("window and capacity", w + ["--window", "4", "--capacity", "8"], "--window"),
        ("odd rope dim", w + ["--rope-dim", "5"], "--rope-dim"),
        ("rope dim above head dim", w + ["--rope-dim", "10"], "--rope-dim"),
        ("theta without rope dim", w + ["--rope-theta", "500"], "--rope-dim"),
        ("theta <= 1", w + ["--rope-dim", "4", "--rope-theta", "1"], "--rope-theta"),
        ("bad rope style", w + ["--rope-dim", "4", "--rope-style", "neox"], "--rope-style"),
        ("int8 cache with float weights", w + ["--cache-dtype", "int8"], "int8 model blob"),
        ("chunk 0", w + ["--chunk", "0"], "--chunk"),
        ("heads not dividing E", ["--weights", wdir, "--heads", "5"], "--heads"),
        ("no weights", ["--weights", os.path.join(tmp, "nowhere"), "--heads", str(H)],
         "nowhere"),
        ("weights and model", w + ["--model", xpath], "--model"),
        ("raw int8 without model", w + ["--raw-int8"], "--raw-int8"),
        ("bad weights dtype", w + ["--weights-dtype", "bf16"], "--weights-dtype"),
    ]
    for name, flags, needle in cases:
        rc, _, err = run(*base, *flags)
        lines = err.strip().splitlines()
        check(rc == 2, f"error '{name}': exit {rc}, expected 2")
        check(len(lines) == 1 and needle in err, f"error '{name}': stderr {err!r}")
        check(not os.path.exists(out), f"error '{name}': wrote {out}")


def help_case():
    rc, text, _ = run("run", "mha-decode", "--help")
    check(rc == 0, "mha-decode --help")
    for flag in ("--weights", "--model", "--heads", "--kv-heads", "--tokens", "--chunk",
                 "--capacity", "--window", "--rope-theta", "--rope-dim", "--rope-style",
                 "--cache-dtype", "--cache-packed", "--weights-dtype", "--out"):
        check(flag in text, f"mha-decode --help lacks {flag}")
    cli_md = open(os.path.join(HERE, "..", "..", "tools", "attn", "CLI.md")).read()
    check("attn run mha-decode" in cli_md, "CLI.md does not document mha-decode")


def main():
    rng = np.random.default_rng(20261125)
    check_reference(rng)
    with tempfile.TemporaryDirectory() as tmp:
        xpath, wdir = decode_cases(tmp, rng)
        error_cases(tmp, xpath, wdir)
    help_case()
    return finish("cli_decode_test: all checks passed")


if __name__ == "__main__":
    sys.exit(main())
