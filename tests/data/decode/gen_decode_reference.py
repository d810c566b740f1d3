#!/usr/bin/python3
"""Float64 NumPy references for the decode op (mha_decode_f32), written as .npy.

Each case directory holds the float32 inputs (x [N, E], Llama-style weights
wq [E, E], wk / wv [G*hd, E], wo [E, E], biases), config.npy (int64: E, H, G,
rope dims, rope style 0 half-split / 1 interleaved, capacity, window 0/1,
lead, chunk, f16 cache 0/1), theta.npy (float64) and expected.npy (float64
[N, E]). The test feeds `lead` zero tokens first (positions 0 .. lead-1) and
then x, `chunk` tokens per call; expected holds the outputs of x's tokens.

Reference math, all in float64: Q/K/V projections; RoPE at absolute positions
(angles p * theta^(-2i/dims)); K/V rounded to float16 for an f16 cache
(numpy's own binary16 conversion); per query head h, kv head h // (H // G)
(K/V repeated per group); softmax over positions j <= p, or p - capacity < j
<= p with a window; output projection.

The half-split rotation is also computed with PyTorch, as Llama's
apply_rotary_pos_emb / rotate_half write it (in float64), and must agree.
Run: /usr/bin/python3 tests/data/decode/gen_decode_reference.py
"""
import os

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))


def rope_np(x, pos, dims, style, theta):
    """x [T, heads, hd] float64, pos [T] absolute positions."""
    if dims == 0:
        return x
    half = dims // 2
    inv = theta ** (-np.arange(half, dtype=np.float64) * 2.0 / dims)
    ang = pos.astype(np.float64)[:, None] * inv[None, :]
    c, s = np.cos(ang)[:, None, :], np.sin(ang)[:, None, :]
    y = x.copy()
    if style == 0:
        a, b = x[..., :half], x[..., half:dims]
        y[..., :half] = a * c - b * s
        y[..., half:dims] = b * c + a * s
    else:
        a, b = x[..., 0:dims:2], x[..., 1:dims:2]
        y[..., 0:dims:2] = a * c - b * s
        y[..., 1:dims:2] = b * c + a * s
    return y


def rope_torch_llama(x, pos, dims, theta):
    """Llama's formula: cat(freqs, freqs), x * cos + rotate_half(x) * sin (float64)."""
    t = torch.from_numpy(x[..., :dims].copy())
    inv_freq = 1.0 / (theta ** (torch.arange(0, dims, 2, dtype=torch.float64) / dims))
    freqs = torch.outer(torch.from_numpy(pos.astype(np.float64)), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos()[:, None, :], emb.sin()[:, None, :]

    def rotate_half(v):
        h = v.shape[-1] // 2
        return torch.cat((-v[..., h:], v[..., :h]), dim=-1)

    out = x.copy()
    out[..., :dims] = (t * cos + rotate_half(t) * sin).numpy()
    return out


def reference(cfg, theta, xs, w, first_pos):
    e, h, g, dims, style, cap, window = cfg[:7]
    f16 = cfg[9]
    hd = e // h
    x = xs.astype(np.float64)
    n = x.shape[0]
    pos = first_pos + np.arange(n)
    q = (x @ w["wq"].T.astype(np.float64) + w["bq"]).reshape(n, h, hd)
    k = (x @ w["wk"].T.astype(np.float64) + w["bk"]).reshape(n, g, hd)
    v = (x @ w["wv"].T.astype(np.float64) + w["bv"]).reshape(n, g, hd)
    q = rope_np(q, pos, dims, style, theta)
    k = rope_np(k, pos, dims, style, theta)
    if style == 0 and dims > 0:
        kt = rope_torch_llama((x @ w["wk"].T.astype(np.float64) + w["bk"]).reshape(n, g, hd),
                              pos, dims, theta)
        assert np.max(np.abs(kt - k)) < 1e-9, "NumPy and PyTorch Llama half-split disagree"
    if f16:
        # The cache stores K/V in binary16; the engine rounds its float32 values.
        k = k.astype(np.float32).astype(np.float16).astype(np.float64)
        v = v.astype(np.float32).astype(np.float16).astype(np.float64)
    grp = h // g
    o = np.zeros((n, h, hd))
    for i in range(n):
        lo = max(0, i - cap + 1) if window else 0
        for hh in range(h):
            kk, vv = k[lo:i + 1, hh // grp], v[lo:i + 1, hh // grp]
            s = kk @ q[i, hh] / np.sqrt(hd)
            p = np.exp(s - s.max())
            o[i, hh] = (p / p.sum()) @ vv
    return o.reshape(n, e) @ w["wo"].T.astype(np.float64) + w["bo"]


def make_case(name, e, h, g, dims, style, theta, cap, window, lead, rows, chunk, f16, seed):
    rng = np.random.default_rng(seed)
    hd = e // h
    kvd = g * hd
    w = {
        "wq": rng.uniform(-0.4, 0.4, (e, e)), "wk": rng.uniform(-0.4, 0.4, (kvd, e)),
        "wv": rng.uniform(-0.4, 0.4, (kvd, e)), "wo": rng.uniform(-0.4, 0.4, (e, e)),
        "bq": rng.uniform(-0.2, 0.2, e), "bk": rng.uniform(-0.2, 0.2, kvd),
        "bv": rng.uniform(-0.2, 0.2, kvd), "bo": rng.uniform(-0.2, 0.2, e),
    }
    w = {k: v.astype(np.float32) for k, v in w.items()}
    x = rng.uniform(-1, 1, (rows, e)).astype(np.float32)
    cfg = np.array([e, h, g, dims, style, cap, int(window), lead, chunk, int(f16)], np.int64)
    # The zero tokens a window still sees precede x in the reference.
    ctx = min(lead, cap - 1) if window else lead
    full = np.concatenate([np.zeros((ctx, e), np.float32), x])
    want = reference(cfg, theta, full, w, lead - ctx)[ctx:]
    if dims > 0 and lead >= 100000:
        # Control: float32 angles (Llama's inv_freq in float32) miss by far more
        # than the test's tolerance at these positions.
        pos = lead + np.arange(rows)
        inv32 = (theta ** (-np.arange(dims // 2) * 2.0 / dims)).astype(np.float32)
        err = np.max(np.abs((pos.astype(np.float32)[:, None] * inv32).astype(np.float64)
                            - pos[:, None] * theta ** (-np.arange(dims // 2) * 2.0 / dims)))
        assert err > 1e-4, err
        print(f"{name}: float32 angles off by up to {err:.3g} rad at positions >= {lead}")
    d = os.path.join(HERE, name)
    os.makedirs(d, exist_ok=True)
    np.save(os.path.join(d, "config.npy"), cfg)
    np.save(os.path.join(d, "theta.npy"), np.array([theta], np.float64))
    np.save(os.path.join(d, "x.npy"), x)
    for k, v in w.items():
        np.save(os.path.join(d, k + ".npy"), v)
    np.save(os.path.join(d, "expected.npy"), want)
    print(f"{name}: {rows} tokens, max |out| {np.max(np.abs(want)):.3f}")


def main():
    make_case("gqa_rope_half_window_large_pos", 32, 4, 2, 6, 0, 10000.0, 16, True, 100000, 40, 5,
              False, 1)
    make_case("mqa_rope_interleaved_partial", 24, 3, 1, 4, 1, 500.0, 40, False, 0, 40, 7, False, 2)
    make_case("gqa_f16_cache", 32, 4, 2, 0, 0, 10000.0, 30, False, 0, 30, 4, True, 3)
    make_case("mqa_f16_rope_half_window_large_pos", 16, 2, 1, 8, 0, 1e6, 12, True, 123457, 40, 3,
              True, 4)
    make_case("mha_rope_interleaved_window_large_pos", 16, 2, 2, 8, 1, 10000.0, 8, True, 250001,
              30, 1, False, 5)


if __name__ == "__main__":
    main()
