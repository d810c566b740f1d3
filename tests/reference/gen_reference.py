#!/usr/bin/python3
"""Generates the reference data the engine is checked against (tests/reference).

  tests/reference/gen_reference.py [--out tests/data/reference]

Needs NumPy and PyTorch (Debian: python3-numpy, python3-torch 1.13). Writes one
directory per case holding small .npy files (float32 C order; masks uint8;
lengths int32) and manifest.json listing every case: op, shapes, flags, files,
tolerance, seed. Deterministic: every case draws from its own stated seed, so
rerunning rewrites identical bytes.

Sources of truth:
  mha       torch.nn.MultiheadAttention(batch_first=True), its float32 weights
            (state_dict, one .npy per key, named after the key) and float32
            inputs, run in float64 (module.double()) so the expected values carry
            no float32 rounding of their own. The same module run in float32 is
            recorded as torch_f32_max_abs_diff (how far PyTorch itself is from
            its float64 result).
  sdpa      softmax(Q K^T * scale + mask) V computed with torch in float64 from
            float32 inputs (torch 1.13 has no F.scaled_dot_product_attention).
  bahdanau, luong_dot, luong_general
            NumPy float64 from the seed Keras layers' formulas (Dense: x @ W + b).

PyTorch returns NaN for a query row whose keys are all masked; the engine
defines zeros there. No case here has such a row (the engine's own tests cover it).
"""

import argparse
import json
import os
import shutil
import sys

import numpy as np
import torch

DEFAULT_OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "reference")

# Tolerance every case is checked with: |got - want| <= abs + rel * |want|.
# See tests/reference/reference_test.cpp for the reasoning.
TOL = {"rel": 1e-5, "abs": 2e-6}


class Case:
    def __init__(self, out_root, name, op, seed, description):
        self.name = name
        self.op = op
        self.seed = seed
        self.description = description
        self.dir = os.path.join(out_root, name)
        os.makedirs(self.dir)
        self.shape = {}
        self.flags = {}
        self.inputs = {}
        self.expected = {}
        self.extra = {}
        self.rng = np.random.default_rng(seed)
        torch.manual_seed(seed)

    def save(self, role_map, key, array, dtype):
        arr = np.ascontiguousarray(np.asarray(array).astype(dtype))
        fname = key + ".npy"
        np.save(os.path.join(self.dir, fname), arr, allow_pickle=False)
        role_map[key] = fname
        return arr

    def inp(self, key, array, dtype=np.float32):
        return self.save(self.inputs, key, array, dtype)

    def exp(self, key, array):
        return self.save(self.expected, key, array, np.float32)

    def randn(self, *shape):
        return self.rng.standard_normal(shape).astype(np.float32)

    def manifest(self):
        m = {
            "name": self.name,
            "op": self.op,
            "seed": self.seed,
            "description": self.description,
            "dir": self.name,
            "shape": self.shape,
            "flags": self.flags,
            "inputs": self.inputs,
            "expected": self.expected,
            "tolerance": TOL,
        }
        m.update(self.extra)
        return m


def check_no_empty_rows(masked):
    """masked: bool [..., Sq, Skv], True = masked. Fails on a fully masked row."""
    if np.any(np.all(masked, axis=-1)):
        sys.exit("generator bug: a fully masked query row")


def causal_masked(sq, skv):
    """True where the decode-offset look-ahead mask hides a key: j > i + skv - sq."""
    i = np.arange(sq)[:, None]
    j = np.arange(skv)[None, :]
    return j > i + (skv - sq)


def lengths_masked(lengths, sq, skv):
    """[B, Sq, Skv] True where j >= lengths[b]."""
    j = np.arange(skv)[None, None, :]
    return np.broadcast_to(j >= np.asarray(lengths)[:, None, None], (len(lengths), sq, skv))


def random_bool_mask(rng, shape, p):
    """Random True = masked with probability p, column 0 always visible."""
    m = rng.random(shape) < p
    m[..., 0] = False
    return m


# ----------------------------------------------------------------------------- MHA

def mha_case(out, name, seed, description, *, batch, seq_q, seq_kv, embed_dim, num_heads,
             kdim=None, vdim=None, bias=True, self_attention=False, causal=False,
             lengths=None, bool_mask=None, float_mask=None, batched_mask=False,
             average=True):
    """bool_mask / float_mask: 'random' builds one ([Sq,Skv], or [B,Sq,Skv] if batched_mask)."""
    c = Case(out, name, "mha", seed, description)
    kd = kdim if kdim is not None else embed_dim
    vd = vdim if vdim is not None else embed_dim
    module = torch.nn.MultiheadAttention(embed_dim, num_heads, bias=bias, batch_first=True,
                                         kdim=kdim, vdim=vdim)
    module.eval()
    # Non-zero biases (PyTorch initialises in_proj_bias and out_proj.bias to 0).
    with torch.no_grad():
        if bias:
            module.in_proj_bias.copy_(torch.from_numpy(0.1 * c.randn(3 * embed_dim)))
            module.out_proj.bias.copy_(torch.from_numpy(0.1 * c.randn(embed_dim)))
    for key, tensor in module.state_dict().items():
        c.inp(key, tensor.numpy())

    query = c.randn(batch, seq_q, embed_dim)
    if self_attention:
        assert seq_kv == seq_q and kd == embed_dim and vd == embed_dim
        key_in = value_in = query
        c.inp("query", query)
        c.inputs["key"] = c.inputs["value"] = c.inputs["query"]
    else:
        key_in = c.randn(batch, seq_kv, kd)
        value_in = c.randn(batch, seq_kv, vd)
        c.inp("query", query)
        c.inp("key", key_in)
        c.inp("value", value_in)

    masked = np.zeros((batch, seq_q, seq_kv), dtype=bool)
    attn_mask = None  # what PyTorch gets, float32 version
    attn_mask_is_float = False
    if causal:
        cm = causal_masked(seq_q, seq_kv)
        masked |= cm
        attn_mask = cm
    mshape = (batch, seq_q, seq_kv) if batched_mask else (seq_q, seq_kv)
    if bool_mask == "random":
        assert attn_mask is None
        bm = random_bool_mask(c.rng, mshape, 0.3)
        masked |= bm
        attn_mask = bm
        c.inp("attn_mask_bool", bm, np.uint8)
    if float_mask == "random":
        assert attn_mask is None
        fm = (0.5 * c.rng.standard_normal(mshape)).astype(np.float32)
        hide = random_bool_mask(c.rng, mshape, 0.2)
        fm[hide] = -np.inf
        masked |= hide
        attn_mask = fm
        attn_mask_is_float = True
        c.inp("attn_mask_float", fm)
    kpm = None
    if lengths is not None:
        lengths = np.asarray(lengths, dtype=np.int32)
        assert lengths.shape == (batch,)
        masked |= lengths_masked(lengths, seq_q, seq_kv)
        c.inp("key_lengths", lengths, np.int32)
        kpm = np.arange(seq_kv)[None, :] >= lengths[:, None]
        c.inp("key_padding_mask", kpm, np.uint8)
    check_no_empty_rows(masked)

    def run(dtype):
        m = module.to(dtype)
        q = torch.from_numpy(query).to(dtype)
        k = torch.from_numpy(key_in).to(dtype)
        v = torch.from_numpy(value_in).to(dtype)
        am = None
        if attn_mask is not None:
            am = torch.from_numpy(np.ascontiguousarray(attn_mask))
            am = am.to(dtype) if attn_mask_is_float else am.bool()
            if batched_mask:  # PyTorch's 3-D mask is [B*H, Sq, Skv]
                am = am.repeat_interleave(num_heads, dim=0)
        kp = torch.from_numpy(kpm) if kpm is not None else None
        with torch.no_grad():
            o, w = m(q, k, v, key_padding_mask=kp, need_weights=True, attn_mask=am,
                     average_attn_weights=average)
        return o.numpy().astype(np.float64), w.numpy().astype(np.float64)

    o32, w32 = run(torch.float32)
    o64, w64 = run(torch.float64)
    module.float()
    assert np.all(np.isfinite(o64)) and np.all(np.isfinite(w64))
    c.exp("out", o64)
    c.exp("attn_weights", w64)
    c.shape = {"batch": batch, "seq_q": seq_q, "seq_kv": seq_kv, "embed_dim": embed_dim,
               "num_heads": num_heads, "kdim": kd, "vdim": vd}
    c.flags = {"bias": bias, "self_attention": self_attention, "causal": causal,
               "key_lengths": lengths is not None, "bool_mask": bool_mask is not None,
               "float_mask": float_mask is not None, "batched_mask": batched_mask,
               "average_attn_weights": average,
               "packed_in_proj": "in_proj_weight" in c.inputs}
    c.extra["torch_f32_max_abs_diff"] = {
        "out": float(np.max(np.abs(o32 - o64))),
        "attn_weights": float(np.max(np.abs(w32 - w64)))}
    return c


# ---------------------------------------------------------------------------- SDPA

def sdpa_case(out, name, seed, description, *, batch, seq_q, seq_kv, dim_k, dim_v,
              scale=None, causal=False, lengths=None, keras=None, bool_mask=None,
              additive=None, batched_mask=False, q_scale=1.0):
    c = Case(out, name, "sdpa", seed, description)
    q = c.inp("q", q_scale * c.randn(batch, seq_q, dim_k))
    k = c.inp("k", c.randn(batch, seq_kv, dim_k))
    v = c.inp("v", c.randn(batch, seq_kv, dim_v))
    mshape = (batch, seq_q, seq_kv) if batched_mask else (seq_q, seq_kv)

    add = np.zeros((batch, seq_q, seq_kv))  # float64 term added to the scores
    masked = np.zeros((batch, seq_q, seq_kv), dtype=bool)
    if causal:
        cm = causal_masked(seq_q, seq_kv)
        masked |= cm
    if lengths is not None:
        lengths = c.inp("key_lengths", np.asarray(lengths), np.int32)
        assert lengths.shape == (batch,)
        masked |= lengths_masked(lengths, seq_q, seq_kv)
    if keras is not None:
        # Keras tutorial convention: 1 = masked, added to the logits as -1e9 * mask.
        if keras == "look_ahead":
            assert not batched_mask
            km = causal_masked(seq_q, seq_kv).astype(np.float32)
        else:
            km = random_bool_mask(c.rng, mshape, 0.3).astype(np.float32)
        c.inp("keras_mask", km)
        add = add + (-1e9) * km.astype(np.float64)
    if bool_mask is not None:
        bm = random_bool_mask(c.rng, mshape, 0.35)
        c.inp("bool_mask", bm, np.uint8)
        masked |= bm
    if additive is not None:
        am = (0.7 * c.rng.standard_normal(mshape)).astype(np.float32)
        hide = random_bool_mask(c.rng, mshape, 0.2)
        am[hide] = -np.inf
        c.inp("additive_mask", am)
        add = add + am.astype(np.float64)
        masked |= hide
    keras_masked = np.broadcast_to((add <= -1e8), masked.shape)
    check_no_empty_rows(masked | keras_masked)

    s = 1.0 / np.sqrt(dim_k) if scale is None else float(np.float32(scale))
    qd, kd, vd = (torch.from_numpy(x).double() for x in (q, k, v))
    scores = torch.matmul(qd, kd.transpose(-1, -2)) * s + torch.from_numpy(add)
    scores = scores.masked_fill(torch.from_numpy(np.ascontiguousarray(masked)), float("-inf"))
    w = torch.softmax(scores, dim=-1)
    o = torch.matmul(w, vd)
    assert torch.all(torch.isfinite(o))
    c.exp("out", o.numpy())
    c.exp("weights", w.numpy())
    c.shape = {"batch": batch, "seq_q": seq_q, "seq_kv": seq_kv, "dim_k": dim_k,
               "dim_v": dim_v}
    c.flags = {"scale": 0.0 if scale is None else float(np.float32(scale)), "causal": causal,
               "key_lengths": lengths is not None, "keras_mask": keras is not None,
               "bool_mask": bool_mask is not None, "additive_mask": additive is not None,
               "batched_mask": batched_mask}
    return c


# ------------------------------------------------------------- Bahdanau and Luong

def softmax_rows(e, lengths):
    """e [B, T] float64; keys t >= lengths[b] excluded."""
    e = e.copy()
    if lengths is not None:
        t = np.arange(e.shape[1])[None, :]
        e[t >= np.asarray(lengths)[:, None]] = -np.inf
    e -= np.max(e, axis=1, keepdims=True)
    a = np.exp(e)
    return a / np.sum(a, axis=1, keepdims=True)


def keyed_case(c, batch, seq, lengths):
    if lengths is not None:
        lengths = c.inp("key_lengths", np.asarray(lengths), np.int32)
        assert lengths.shape == (batch,) and np.all(lengths >= 1)
    return lengths


def bahdanau_case(out, name, seed, description, *, batch, seq, query_dim, key_dim, units,
                  lengths=None):
    """Keras BahdanauAttention: score = V(tanh(W1(query[:, None]) + W2(values))),
    weights = softmax(score, axis=1), context = sum(weights * values, axis=1)."""
    c = Case(out, name, "bahdanau", seed, description)
    query = c.inp("query", c.randn(batch, query_dim))
    keys = c.inp("keys", c.randn(batch, seq, key_dim))
    w1 = c.inp("w1", c.randn(query_dim, units) / np.sqrt(query_dim))
    b1 = c.inp("b1", 0.1 * c.randn(units))
    w2 = c.inp("w2", c.randn(key_dim, units) / np.sqrt(key_dim))
    b2 = c.inp("b2", 0.1 * c.randn(units))
    v = c.inp("v", c.randn(units, 1) / np.sqrt(units))
    bv = c.inp("bv", 0.1 * c.randn(1))
    lengths = keyed_case(c, batch, seq, lengths)
    f = np.float64
    qp = query.astype(f) @ w1.astype(f) + b1.astype(f)                     # [B, U]
    kp = keys.astype(f) @ w2.astype(f) + b2.astype(f)                      # [B, T, U]
    score = (np.tanh(qp[:, None, :] + kp) @ v.astype(f))[..., 0] + f(bv[0])  # [B, T]
    a = softmax_rows(score, lengths)
    context = np.sum(a[..., None] * keys.astype(f), axis=1)
    c.exp("context", context)
    c.exp("weights", a)
    c.shape = {"batch": batch, "seq": seq, "query_dim": query_dim, "key_dim": key_dim,
               "units": units}
    c.flags = {"key_lengths": lengths is not None}
    return c


def luong_dot_case(out, name, seed, description, *, batch, seq, dim, lengths=None):
    c = Case(out, name, "luong_dot", seed, description)
    query = c.inp("query", c.randn(batch, dim))
    keys = c.inp("keys", c.randn(batch, seq, dim))
    lengths = keyed_case(c, batch, seq, lengths)
    f = np.float64
    score = np.einsum("bd,btd->bt", query.astype(f), keys.astype(f))
    a = softmax_rows(score, lengths)
    c.exp("context", np.sum(a[..., None] * keys.astype(f), axis=1))
    c.exp("weights", a)
    c.shape = {"batch": batch, "seq": seq, "dim": dim}
    c.flags = {"key_lengths": lengths is not None}
    return c


def luong_general_case(out, name, seed, description, *, batch, seq, query_dim, key_dim,
                       lengths=None):
    """score_j = q . (h_j @ W + b), W [key_dim, query_dim] (Keras Dense on the keys)."""
    c = Case(out, name, "luong_general", seed, description)
    query = c.inp("query", c.randn(batch, query_dim))
    keys = c.inp("keys", c.randn(batch, seq, key_dim))
    w = c.inp("w", c.randn(key_dim, query_dim) / np.sqrt(key_dim))
    b = c.inp("b", 0.5 * c.randn(query_dim))
    lengths = keyed_case(c, batch, seq, lengths)
    f = np.float64
    hw = keys.astype(f) @ w.astype(f) + b.astype(f)                        # [B, T, Dq]
    score = np.einsum("bq,btq->bt", query.astype(f), hw)
    a = softmax_rows(score, lengths)
    c.exp("context", np.sum(a[..., None] * keys.astype(f), axis=1))
    c.exp("weights", a)
    c.shape = {"batch": batch, "seq": seq, "query_dim": query_dim, "key_dim": key_dim}
    c.flags = {"key_lengths": lengths is not None}
    return c


# --------------------------------------------------------------------------- cases

def build(out):
    cases = []
    add = cases.append

    # MHA, E=64 / H=4.
    add(mha_case(out, "mha_e64h4_self_nomask", 101,
                 "self-attention, no mask, head-averaged weights",
                 batch=2, seq_q=5, seq_kv=5, embed_dim=64, num_heads=4, self_attention=True))
    add(mha_case(out, "mha_e64h4_self_causal", 102,
                 "self-attention, causal bool attn_mask (upper triangle), per-head weights",
                 batch=2, seq_q=6, seq_kv=6, embed_dim=64, num_heads=4, self_attention=True,
                 causal=True, average=False))
    add(mha_case(out, "mha_e64h4_cross_keypad", 103,
                 "cross-attention Sq=4 Skv=9, key_padding_mask from lengths [9, 5]",
                 batch=2, seq_q=4, seq_kv=9, embed_dim=64, num_heads=4, lengths=[9, 5]))
    add(mha_case(out, "mha_e64h4_cross_nobias", 104,
                 "cross-attention Sq=3 Skv=7, bias=False (no in_proj_bias, no out_proj.bias)",
                 batch=2, seq_q=3, seq_kv=7, embed_dim=64, num_heads=4, bias=False,
                 average=False))
    # MHA, E=16 / H=2.
    add(mha_case(out, "mha_e16h2_self_nomask", 201,
                 "self-attention, no mask, head-averaged weights",
                 batch=3, seq_q=7, seq_kv=7, embed_dim=16, num_heads=2, self_attention=True))
    add(mha_case(out, "mha_e16h2_cross_causal_offset", 202,
                 "cross-attention Sq=3 Skv=8, causal with decode offset (j <= i + Skv - Sq)",
                 batch=2, seq_q=3, seq_kv=8, embed_dim=16, num_heads=2, causal=True))
    add(mha_case(out, "mha_e16h2_kvdim", 203,
                 "kdim=12, vdim=10 (separate q/k/v_proj_weight), cross Sq=5 Skv=6, "
                 "per-head weights",
                 batch=2, seq_q=5, seq_kv=6, embed_dim=16, num_heads=2, kdim=12, vdim=10,
                 average=False))
    add(mha_case(out, "mha_e16h2_kvdim_nobias_keypad", 204,
                 "kdim=8, vdim=20, bias=False, key_padding_mask from lengths [3, 6, 1]",
                 batch=3, seq_q=4, seq_kv=6, embed_dim=16, num_heads=2, kdim=8, vdim=20,
                 bias=False, lengths=[3, 6, 1]))
    add(mha_case(out, "mha_e16h2_bool_mask", 205,
                 "self-attention, random bool attn_mask [Sq, Skv] (True = masked)",
                 batch=2, seq_q=6, seq_kv=6, embed_dim=16, num_heads=2, self_attention=True,
                 bool_mask="random", average=False))
    add(mha_case(out, "mha_e16h2_float_mask", 206,
                 "cross-attention, float additive attn_mask [Sq, Skv] with some -inf",
                 batch=2, seq_q=5, seq_kv=7, embed_dim=16, num_heads=2, float_mask="random"))
    add(mha_case(out, "mha_e16h2_bool_mask_batched_keypad", 207,
                 "cross-attention, bool attn_mask per batch item [B, Sq, Skv] (given to "
                 "PyTorch repeated per head) and key_padding_mask from lengths [7, 4]",
                 batch=2, seq_q=5, seq_kv=7, embed_dim=16, num_heads=2, bool_mask="random",
                 batched_mask=True, lengths=[7, 4]))
    add(mha_case(out, "mha_e16h2_float_mask_batched", 208,
                 "self-attention, float additive attn_mask per batch item [B, Sq, Skv]",
                 batch=2, seq_q=6, seq_kv=6, embed_dim=16, num_heads=2, self_attention=True,
                 float_mask="random", batched_mask=True, average=False))

    # SDPA.
    add(sdpa_case(out, "sdpa_seed_b64_s5_d64", 301,
                  "the Keras seed's batch: B=64, S=5, d_k=d_v=64, no mask",
                  batch=64, seq_q=5, seq_kv=5, dim_k=64, dim_v=64))
    add(sdpa_case(out, "sdpa_keras_look_ahead", 302,
                  "Keras look-ahead mask (float, 1 = masked, applied as -1e9 * mask), "
                  "S=5, d=64",
                  batch=8, seq_q=5, seq_kv=5, dim_k=64, dim_v=64, keras="look_ahead"))
    add(sdpa_case(out, "sdpa_keras_random_batched", 303,
                  "Keras float mask per batch item [B, Sq, Skv], 1 = masked",
                  batch=3, seq_q=4, seq_kv=6, dim_k=8, dim_v=5, keras="random",
                  batched_mask=True))
    add(sdpa_case(out, "sdpa_bool", 304,
                  "bool mask [Sq, Skv] (nonzero = masked), Dk != Dv",
                  batch=4, seq_q=6, seq_kv=9, dim_k=16, dim_v=24, bool_mask=True))
    add(sdpa_case(out, "sdpa_causal", 305, "causal, Sq = Skv = 7",
                  batch=3, seq_q=7, seq_kv=7, dim_k=12, dim_v=12, causal=True))
    add(sdpa_case(out, "sdpa_causal_offset", 306,
                  "causal with decode offset, Sq=3 < Skv=8: j <= i + Skv - Sq",
                  batch=2, seq_q=3, seq_kv=8, dim_k=16, dim_v=8, causal=True))
    add(sdpa_case(out, "sdpa_lengths", 307, "key padding from lengths [9, 1, 5, 3]",
                  batch=4, seq_q=5, seq_kv=9, dim_k=16, dim_v=16, lengths=[9, 1, 5, 3]))
    add(sdpa_case(out, "sdpa_custom_scale", 308, "custom scale 0.3, no mask",
                  batch=2, seq_q=4, seq_kv=6, dim_k=32, dim_v=16, scale=0.3))
    add(sdpa_case(out, "sdpa_additive_batched", 309,
                  "float additive mask per batch item [B, Sq, Skv] with some -inf",
                  batch=3, seq_q=5, seq_kv=7, dim_k=8, dim_v=8, additive=True,
                  batched_mask=True))
    add(sdpa_case(out, "sdpa_combined", 310,
                  "causal + lengths [6, 2] + bool mask + custom scale 0.25",
                  batch=2, seq_q=6, seq_kv=6, dim_k=16, dim_v=8, causal=True, lengths=[6, 2],
                  bool_mask=True, scale=0.25))
    add(sdpa_case(out, "sdpa_long_odd", 311,
                  "Sq=19, Skv=150 (more than two key blocks, odd query tile), lengths "
                  "[150, 131], peaked scores (queries x3)",
                  batch=2, seq_q=19, seq_kv=150, dim_k=7, dim_v=5, lengths=[150, 131],
                  q_scale=3.0))

    # Bahdanau and Luong (NumPy float64 from the seed formulas).
    add(bahdanau_case(out, "bahdanau_basic", 401, "Keras BahdanauAttention, units=8",
                      batch=4, seq=7, query_dim=12, key_dim=10, units=8))
    add(bahdanau_case(out, "bahdanau_lengths", 402, "with key lengths [7, 3, 5, 1]",
                      batch=4, seq=7, query_dim=12, key_dim=10, units=8, lengths=[7, 3, 5, 1]))
    add(bahdanau_case(out, "bahdanau_long", 403, "T=150 (several key blocks), lengths [150, 77]",
                      batch=2, seq=150, query_dim=16, key_dim=16, units=12, lengths=[150, 77]))
    add(luong_dot_case(out, "luong_dot_basic", 501, "Luong dot, D=10",
                       batch=4, seq=7, dim=10))
    add(luong_dot_case(out, "luong_dot_lengths", 502, "with key lengths [2, 7, 1, 4]",
                       batch=4, seq=7, dim=10, lengths=[2, 7, 1, 4]))
    add(luong_dot_case(out, "luong_dot_long", 503, "T=150, D=9, lengths [150, 65]",
                       batch=2, seq=150, dim=9, lengths=[150, 65]))
    add(luong_general_case(out, "luong_general_basic", 601,
                           "Luong general, W [Dk=10, Dq=12], bias b [12]",
                           batch=4, seq=7, query_dim=12, key_dim=10))
    add(luong_general_case(out, "luong_general_lengths", 602, "with key lengths [7, 1, 4, 6]",
                           batch=4, seq=7, query_dim=12, key_dim=10, lengths=[7, 1, 4, 6]))
    add(luong_general_case(out, "luong_general_long", 603, "T=150, Dq=6, Dk=11, lengths "
                           "[150, 100]",
                           batch=2, seq=150, query_dim=6, key_dim=11, lengths=[150, 100]))
    return cases


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=DEFAULT_OUT, help="output directory (replaced)")
    args = parser.parse_args()
    out = os.path.abspath(args.out)
    torch.set_num_threads(1)
    # Only the generated entries are replaced: README.md stays.
    if os.path.isdir(out):
        for entry in os.listdir(out):
            path = os.path.join(out, entry)
            if os.path.isdir(path):
                shutil.rmtree(path)
            elif entry == "manifest.json":
                os.remove(path)
    os.makedirs(out, exist_ok=True)
    cases = build(out)
    manifest = {
        "generator": "tests/reference/gen_reference.py",
        "torch": torch.__version__,
        "numpy": np.__version__,
        "comparison": "|got - want| <= tolerance.abs + tolerance.rel * |want|, elementwise",
        "cases": [c.manifest() for c in cases],
    }
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")
    total = sum(os.path.getsize(os.path.join(dp, fn))
                for dp, _, fns in os.walk(out) for fn in fns)
    print(f"{len(cases)} cases, {total} bytes in {out}")


if __name__ == "__main__":
    main()
