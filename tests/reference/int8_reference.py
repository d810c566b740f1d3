#!/usr/bin/env -S /usr/bin/python3
"""Independent NumPy reference of the int8 path, written from docs/INT8.md.

It runs the UNFUSED TFLite op sequence (BATCH_MATMUL -> SOFTMAX ->
BATCH_MATMUL) on int64 NumPy arrays, with every primitive written from its
definition in INT8.md (and gemmlowp's fixed-point exp / reciprocal, element by
element, no exp table), so that it shares no code and no shortcut with the
C++ engine (which uses a fused kernel and a 256-entry exp table).

Inputs come from the same xorshift32 generator as tests/cases/case.h, seeded
per case, so the C++ tests regenerate identical inputs from the seed; the
data files only carry the parameters (float32 scales as exact bit patterns)
and the expected int8 outputs.

  int8_reference.py gen        writes tests/data/int8/{softmax,sdpa}_cases.txt
  int8_reference.py embedded   prints the small vectors of tests/cases/sdpa_s8_cases.cpp
  int8_reference.py embedded-ops  prints those of tests/cases/attention_s8_cases.cpp
  int8_reference.py selftest   checks the primitives against float math
"""
import math
import os
import struct
import sys

import numpy as np

INT32_MIN = -(1 << 31)
INT32_MAX = (1 << 31) - 1


# ---------------------------------------------------------------- numbers

def f32(x):
    """x rounded to float32, as a Python float (exact double)."""
    return float(np.float32(x))


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def wrap32(x):
    x = np.asarray(x, dtype=np.int64)
    return ((x + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


def quantize_multiplier(m):
    """INT8.md: q, e = frexp(m); mult = round-half-away(q * 2^31); fix-ups."""
    if m <= 0.0:
        return 0, 0
    q, e = math.frexp(m)
    mult = int(math.floor(q * 2.0 ** 31 + 0.5))  # q > 0: half away from zero
    if mult == 1 << 31:
        mult = 1 << 30
        e += 1
    if e < -31:
        mult, e = 0, 0
    return mult, e


def srdhm(a, b):
    """floor((a*b + 2^30) / 2^31), INT32_MIN*INT32_MIN -> INT32_MAX."""
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    r = (a * b + (1 << 30)) >> 31
    return np.where((a == INT32_MIN) & (b == INT32_MIN), INT32_MAX, r)


def rdbp(x, e):
    """RoundingDivideByPOT, ties away from zero (e may exceed 31: exact)."""
    x = np.asarray(x, dtype=np.int64)
    e = np.asarray(e, dtype=np.int64)
    mask = (np.int64(1) << e) - 1
    rem = x & mask
    thr = (mask >> 1) + (x < 0).astype(np.int64)
    return (x >> e) + (rem > thr).astype(np.int64)


def sat_mul_pot(x, e):
    """Saturating x * 2^e (gemmlowp SaturatingRoundingMultiplyByPOT, e > 0)."""
    return np.clip(np.asarray(x, dtype=np.int64) << e, INT32_MIN, INT32_MAX)


def requantize(acc, mult, shift, zp, lo=-128, hi=127):
    left = max(shift, 0)
    right = max(-shift, 0)
    v = rdbp(srdhm(wrap32(np.asarray(acc, dtype=np.int64) << left), mult), right)
    return np.clip(v + zp, lo, hi)


# ------------------------------------------------- gemmlowp fixed point

def exp_on_interval_neg_quarter_0(a):
    """a in Q0.31, [-1/4, 0) -> exp(a) Q0.31 (Taylor around -1/8)."""
    x = a + (1 << 28)
    x2 = srdhm(x, x)
    x3 = srdhm(x2, x)
    x4 = srdhm(x2, x2)
    x4_over_4 = rdbp(x4, 2)
    poly = rdbp(srdhm(x4_over_4 + x3, 715827883) + x2, 1)
    c = 1895147668  # exp(-1/8)
    return wrap32(c + srdhm(c, x + poly))


def exp_on_negative_values(a):
    """a in Q5.26 (<= 0) -> exp(a) in Q0.31."""
    a = np.asarray(a, dtype=np.int64)
    quarter = 1 << 24
    amod = (a & (quarter - 1)) - quarter
    result = exp_on_interval_neg_quarter_0(sat_mul_pot(amod, 5))
    remainder = amod - a
    consts = [(-2, 1672461947), (-1, 1302514674), (0, 790015084), (1, 290630308),
              (2, 39332535), (3, 720401), (4, 242)]
    for k, c in consts:
        bit = (remainder >> (26 + k)) & 1
        result = np.where(bit == 1, srdhm(result, c), result)
    return np.where(a == 0, INT32_MAX, result)


def one_over_one_plus_x(a):
    """a in Q0.31, [0, 1) -> 1/(1+a) in Q0.31."""
    a = np.asarray(a, dtype=np.int64)
    s = a + INT32_MAX
    half = np.where(s >= 0, (s + 1) // 2, -((-s + 1) // 2))  # (s + sign) / 2, truncated
    x = 1515870810 + srdhm(half, -1010580540)
    for _ in range(3):
        one_minus = (1 << 29) - srdhm(half, x)
        x = x + sat_mul_pot(srdhm(x, one_minus), 2)
    return sat_mul_pot(x, 1)


# ------------------------------------------------------------- ops

def softmax_params(input_scale, beta):
    real = min(f32(beta) * f32(input_scale) * 2.0 ** 26, 2.0 ** 31 - 1)
    mult, shift = quantize_multiplier(real)
    if shift < 1 or mult == 0:
        raise ValueError("beta * input_scale below 2^-26")
    diff_min = -int(math.floor(31 * 2.0 ** 26 / 2.0 ** shift))
    return mult, shift, diff_min


def softmax_row(row, params):
    """TFLite int8 SOFTMAX of one row (output scale 1/256, zero point -128)."""
    mult, shift, diff_min = params
    row = np.asarray(row, dtype=np.int64)
    d = row - row.max()
    ok = d >= diff_min
    scaled = srdhm(np.where(ok, d, 0) << shift, mult)
    e = exp_on_negative_values(scaled)
    total = int(np.sum(np.where(ok, rdbp(e, 12), 0)))
    assert 0 < total < (1 << 31)
    headroom = 32 - total.bit_length()  # leading zeros of a positive int32
    nbou = 12 - headroom
    shifted = ((total << headroom) - (1 << 31))
    recip = one_over_one_plus_x(shifted)
    out = rdbp(srdhm(recip, e), nbou + 31 - 8) - 128
    out = np.clip(out, -128, 127)
    return np.where(ok, out, -128)


def softmax_s8(x, input_scale, beta):
    params = softmax_params(input_scale, beta)
    x = np.asarray(x, dtype=np.int64)
    return np.stack([softmax_row(r, params) for r in x])


def batch_matmul(lhs, rhs_t, lhs_zp, rhs_zp, s_lhs, s_rhs, s_out, out_zp):
    """BATCH_MATMUL with rhs given as [.., n, k] (adj_y): out [.., m, n]."""
    acc = np.matmul(lhs.astype(np.int64) - lhs_zp,
                    np.swapaxes(rhs_t.astype(np.int64) - rhs_zp, -1, -2))
    assert np.all(np.abs(acc) <= INT32_MAX)
    mult, shift = quantize_multiplier(f32(f32(s_lhs) * f32(s_rhs)) / f32(s_out))
    return requantize(acc, mult, shift, out_zp)


def sdpa_s8(q, k, v, qp, kp, vp, sp, op, beta, keep):
    """Unfused int8 SDPA. q [B,Lq,dk], k [B,Lkv,dk], v [B,Lkv,dv]; *p = (scale, zp);
    keep [B, Lq, Lkv] bool (False = masked key). Returns (out, probs, scores)."""
    scores = batch_matmul(q, k, qp[1], kp[1], qp[0], kp[0], sp[0], sp[1])
    params = softmax_params(sp[0], beta)
    probs = np.full(scores.shape, -128, dtype=np.int64)
    B, Lq, _ = scores.shape
    for b in range(B):
        for i in range(Lq):
            cols = np.nonzero(keep[b, i])[0]
            if cols.size:  # masked columns are removed from the softmax
                probs[b, i, cols] = softmax_row(scores[b, i, cols], params)
    # BATCH_MATMUL(probs [B,Lq,Lkv], V [B,Lkv,dv]): rhs^T is V transposed.
    out = batch_matmul(probs, np.swapaxes(v, -1, -2), -128, vp[1], 1.0 / 256, vp[0], op[0], op[1])
    return out, probs, scores


def fully_connected(x, w, w_scales, bias, xp, yp):
    """TFLite int8 per-channel FULLY_CONNECTED: x [..., in], w [out, in] (zp 0),
    bias [out] int32 or None; multipliers in double (PopulateConvolutionQuantizationParams)."""
    acc = np.matmul(np.asarray(x, dtype=np.int64) - xp[1], np.asarray(w, dtype=np.int64).T)
    if bias is not None:
        acc = acc + np.asarray(bias, dtype=np.int64)
    acc = wrap32(acc)
    qm = [quantize_multiplier(f32(xp[0]) * f32(s) / f32(yp[0])) for s in w_scales]
    mult = np.array([m for m, _ in qm], dtype=np.int64)
    shift = np.array([e for _, e in qm], dtype=np.int64)
    left = np.maximum(shift, 0)
    right = np.maximum(-shift, 0)
    v = rdbp(srdhm(wrap32(acc << left), mult), right)
    return np.clip(v + yp[1], -128, 127)


def mha_s8(query, key, value, W, scales, biases, quant, heads, beta, keep):
    """Unfused int8 MHA: FC projections, per-head SDPA, FC out. W/scales/biases:
    dicts q, k, v, o; quant: dict of (scale, zp); keep [B, Sq, Skv]."""
    Q = fully_connected(query, W["q"], scales["q"], biases["q"], quant["query"], quant["q"])
    K = fully_connected(key, W["k"], scales["k"], biases["k"], quant["key"], quant["k"])
    V = fully_connected(value, W["v"], scales["v"], biases["v"], quant["value"], quant["v"])
    B, Sq, E = Q.shape
    hd = E // heads
    O = np.zeros_like(Q)
    probs = np.zeros((B, heads, Sq, K.shape[1]), dtype=np.int64)
    for h in range(heads):
        cols = slice(h * hd, (h + 1) * hd)
        o, p, _ = sdpa_s8(Q[:, :, cols], K[:, :, cols], V[:, :, cols], quant["q"], quant["k"],
                          quant["v"], quant["scores"], quant["attn"], beta, keep)
        O[:, :, cols] = o
        probs[:, h] = p
    out = fully_connected(O, W["o"], scales["o"], biases["o"], quant["attn"], quant["out"])
    return out, probs


def one_minus_x_over_one_plus_x(a):
    """a in Q0.31, [0, 1) -> (1-a)/(1+a) in Q0.31 (gemmlowp, Newton-Raphson in Q2.29)."""
    a = np.asarray(a, dtype=np.int64)
    s = a + INT32_MAX
    half = np.where(s >= 0, (s + 1) // 2, -((-s + 1) // 2))
    x = 1515870810 + srdhm(half, -1010580540)
    for _ in range(3):
        one_minus = (1 << 29) - srdhm(half, x)
        x = x + sat_mul_pot(srdhm(x, one_minus), 2)
    return sat_mul_pot(x - (1 << 29), 2)


def tanh_q4(a):
    """gemmlowp tanh, Q4.27 in -> Q0.31 out."""
    a = np.asarray(a, dtype=np.int64)
    n = np.where(a < 0, a, -a)
    t = one_minus_x_over_one_plus_x(exp_on_negative_values(n))  # raw n as Q5.26 = 2a
    return np.where(a == 0, 0, np.where(a < 0, -t, t))


def tanh_s8(x, in_q):
    """TFLite (Micro) int8 TANH; output scale 1/128, zero point 0."""
    q, shift = math.frexp(f32(in_q[0]) * 2.0 ** 27)
    mult = int(math.floor(q * 2.0 ** 31 + 0.5))
    assert shift >= 0 and mult < 2 ** 31
    radius = int(math.floor(15 * 2.0 ** 27 / 2.0 ** shift))
    inp = np.asarray(x, dtype=np.int64) - in_q[1]
    left, right = max(shift, 0), max(-shift, 0)
    in_q4 = rdbp(srdhm(wrap32(np.where(np.abs(inp) < radius, inp, 0) << left), mult), right)
    out = np.clip(rdbp(tanh_q4(in_q4), 24), -128, 127)
    return np.where(inp <= -radius, -128, np.where(inp >= radius, 127, out))


def add_s8(a, b, aq, bq, oq):
    """TFLite int8 ADD (left shift 20)."""
    twice_max = 2.0 * max(f32(aq[0]), f32(bq[0]))
    m1 = quantize_multiplier(f32(aq[0]) / twice_max)
    m2 = quantize_multiplier(f32(bq[0]) / twice_max)
    mo = quantize_multiplier(twice_max / (2.0 ** 20 * f32(oq[0])))
    def mbqm(x, m):
        return rdbp(srdhm(x, m[0]), -m[1]) if m[1] <= 0 else None
    sa = mbqm((np.asarray(a, dtype=np.int64) - aq[1]) << 20, m1)
    sb = mbqm((np.asarray(b, dtype=np.int64) - bq[1]) << 20, m2)
    return np.clip(mbqm(sa + sb, mo) + oq[1], -128, 127)


def bahdanau_s8(query, keys, W, scales, biases, quant, beta, lengths):
    """Unfused int8 Bahdanau: FC(query), FC(keys), ADD, TANH, FC(v), SOFTMAX, BATCH_MATMUL.
    query [B, qd], keys [B, seq, kd]; W/scales/biases dicts w1, w2, v."""
    A = fully_connected(query, W["w1"], scales["w1"], biases["w1"], quant["query"], quant["query_proj"])
    Bk = fully_connected(keys, W["w2"], scales["w2"], biases["w2"], quant["keys"], quant["keys_proj"])
    S = add_s8(A[:, None, :], Bk, quant["query_proj"], quant["keys_proj"], quant["sum"])
    T = tanh_s8(S, quant["sum"])
    E = fully_connected(T, W["v"], scales["v"], biases["v"], (1.0 / 128, 0), quant["scores"])[..., 0]
    B, seq, kd = keys.shape
    params = softmax_params(quant["scores"][0], beta)
    probs = np.full((B, seq), -128, dtype=np.int64)
    for b in range(B):
        n = seq if lengths is None else lengths[b]
        if n:
            probs[b, :n] = softmax_row(E[b, :n], params)
    ctx = batch_matmul(probs[:, None, :], np.swapaxes(keys, -1, -2), -128, quant["keys"][1],
                       1.0 / 256, quant["keys"][0], quant["context"][0], quant["context"][1])
    return ctx[:, 0, :], probs


# ---------------------------------------------------------- inputs

class Rng:
    """xorshift32, identical to attn_test::Rng in tests/cases/case.h."""

    def __init__(self, seed):
        self.s = seed if seed != 0 else 0x9E3779B9

    def next(self):
        s = self.s
        s ^= (s << 13) & 0xFFFFFFFF
        s ^= s >> 17
        s ^= (s << 5) & 0xFFFFFFFF
        self.s = s
        return s

    def int8s(self, n):
        return np.array([(self.next() % 256) - 128 for _ in range(n)], dtype=np.int64)

    def range(self, lo, hi):
        return lo + self.next() % (hi - lo + 1)


def sdpa_inputs(seed, B, Lq, Lkv, dk, dv, has_lengths, pattern):
    """The inputs of one case, in the order the C++ tests draw them."""
    r = Rng(seed)
    q = r.int8s(B * Lq * dk).reshape(B, Lq, dk)
    k = r.int8s(B * Lkv * dk).reshape(B, Lkv, dk)
    v = r.int8s(B * Lkv * dv).reshape(B, Lkv, dv)
    lengths = [r.range(0, Lkv) for _ in range(B)] if has_lengths else None
    masked = None
    if pattern:
        masked = np.array([r.next() % 4 == 0 for _ in range(Lq * Lkv)]).reshape(Lq, Lkv)
    return q, k, v, lengths, masked


def keep_matrix(B, Lq, Lkv, causal, lengths, masked):
    keep = np.ones((B, Lq, Lkv), dtype=bool)
    j = np.arange(Lkv)
    for b in range(B):
        for i in range(Lq):
            if causal:
                keep[b, i] &= j <= i + (Lkv - Lq)
            if lengths is not None:
                keep[b, i] &= j < lengths[b]
            if masked is not None:
                keep[b, i] &= ~masked[i]
    return keep


def hexs(a):
    return bytes((np.asarray(a).reshape(-1) & 0xFF).astype(np.uint8).tolist()).hex()


# ----------------------------------------------------------- cases

def random_sdpa_case(seed):
    """Draws a case's shape and quantization from a numpy generator seeded
    with `seed` (numpy only picks parameters; inputs come from Rng(seed))."""
    g = np.random.default_rng(seed)
    B = int(g.integers(1, 3))
    Lq = int(g.integers(1, 33))
    Lkv = int(g.integers(1, 201))
    dk = int(g.integers(1, 129))
    dv = int(g.integers(1, 129))
    zp = lambda: int(g.integers(-128, 128))
    qs = f32(10 ** g.uniform(-3, 0))
    ks = f32(10 ** g.uniform(-3, 0))
    vs = f32(10 ** g.uniform(-3, 0))
    # Scores: std of the int32 accumulator ~ sqrt(dk) * 74^2, spread over
    # 8..200 int8 steps; sometimes extreme (saturating or flat).
    spread = 10 ** g.uniform(math.log10(8), math.log10(200))
    kind = g.integers(0, 10)
    if kind == 0:
        spread = 10 ** g.uniform(3, 5)   # scores saturate at -128/127
    elif kind == 1:
        spread = 10 ** g.uniform(-2, 0)  # nearly flat scores
    ss = f32(qs * ks * math.sqrt(dk) * 74 * 74 / spread)
    os_ = f32(vs * 10 ** g.uniform(-0.5, 0.5))
    # beta: default (float)(1/sqrt(dk)); or chosen to hit the multiplier cap
    # (beta * ss >= 32) or diff_min cuts (beta * ss in [1/16, 32)).
    bk = g.integers(0, 6)
    if bk == 0:
        beta = f32(10 ** g.uniform(math.log10(32), 3) / ss)  # cap at 2^31 - 1
    elif bk == 1:
        beta = f32(10 ** g.uniform(math.log10(1 / 16), math.log10(32)) / ss)  # diff_min cut
    else:
        beta = f32(1 / math.sqrt(dk))
    if f32(beta) * ss * 2.0 ** 26 < 1.0:
        beta = f32(1 / math.sqrt(dk))
    causal = bool(g.integers(0, 3) == 0)
    has_lengths = bool(g.integers(0, 3) == 0)
    pattern = bool(g.integers(0, 3) == 0)
    return dict(seed=seed, B=B, Lq=Lq, Lkv=Lkv, dk=dk, dv=dv,
                q=(qs, zp()), k=(ks, zp()), v=(vs, zp()), s=(ss, zp()), o=(os_, zp()),
                beta=beta, causal=causal, has_lengths=has_lengths, pattern=pattern)


def run_sdpa_case(c):
    q, k, v, lengths, masked = sdpa_inputs(c["seed"], c["B"], c["Lq"], c["Lkv"], c["dk"],
                                           c["dv"], c["has_lengths"], c["pattern"])
    keep = keep_matrix(c["B"], c["Lq"], c["Lkv"], c["causal"], lengths, masked)
    return sdpa_s8(q, k, v, c["q"], c["k"], c["v"], c["s"], c["o"], c["beta"], keep)


def sdpa_case_line(c):
    qp = lambda p: "%08x %d" % (f32_bits(p[0]), p[1])
    return "sdpa %u %d %d %d %d %d %s %s %s %s %s %08x %d %d %d" % (
        c["seed"], c["B"], c["Lq"], c["Lkv"], c["dk"], c["dv"], qp(c["q"]), qp(c["k"]),
        qp(c["v"]), qp(c["s"]), qp(c["o"]), f32_bits(c["beta"]), int(c["causal"]),
        int(c["has_lengths"]), int(c["pattern"]))


def random_softmax_case(seed):
    g = np.random.default_rng(seed)
    rows = int(g.integers(1, 9))
    cols = int(g.integers(1, 301)) if g.integers(0, 8) else int(g.integers(300, 4096))
    scale = f32(10 ** g.uniform(-4, 1))
    bk = g.integers(0, 4)
    if bk == 0:
        beta = f32(10 ** g.uniform(math.log10(32), 4) / scale)  # multiplier cap
    elif bk == 1:
        beta = f32(10 ** g.uniform(-1.2, 1.5) / scale)  # diff_min cuts
    else:
        beta = f32(10 ** g.uniform(-1, 0.5))
    if beta * scale * 2.0 ** 26 < 1.0:
        beta = 1.0
    r = Rng(seed)
    lo = int(g.integers(-128, 100))
    x = np.array([lo + r.next() % (128 - lo) for _ in range(rows * cols)], dtype=np.int64)
    return dict(seed=seed, rows=rows, cols=cols, lo=lo, scale=scale, beta=beta,
                x=x.reshape(rows, cols))


MHA_QUANT_NAMES = ["query", "key", "value", "q", "k", "v", "scores", "attn", "out"]


def random_mha_case(seed):
    g = np.random.default_rng(seed)
    heads = int(g.integers(1, 5))
    hd = int(g.integers(1, 17))
    E = heads * hd
    self_attn = bool(g.integers(0, 2))
    B = int(g.integers(1, 3))
    Sq = int(g.integers(1, 13))
    Skv = Sq if self_attn else int(g.integers(1, 41))
    kdim = E if self_attn else int(g.integers(1, 49))
    vdim = E if self_attn else int(g.integers(1, 49))
    zp = lambda: int(g.integers(-128, 128))
    quant = {}
    for n in ["query", "key", "value"]:
        quant[n] = (f32(10 ** g.uniform(-2.5, -0.5)), zp())
    if self_attn:
        quant["key"] = quant["value"] = quant["query"]
    wbase = {}
    scales = {}
    for n, fan_in in [("q", E), ("k", kdim), ("v", vdim), ("o", E)]:
        wbase[n] = 10 ** g.uniform(-3, -1)
        scales[n] = [f32(wbase[n] * 10 ** g.uniform(-0.3, 0.3)) for _ in range(E)]
    spread = lambda: 10 ** g.uniform(math.log10(15), math.log10(80))
    for n, src, fan_in in [("q", "query", E), ("k", "key", kdim), ("v", "value", vdim)]:
        quant[n] = (f32(quant[src][0] * wbase[n] * math.sqrt(fan_in) * 74 * 73 / spread()), zp())
    quant["scores"] = (f32(quant["q"][0] * quant["k"][0] * math.sqrt(hd) * 74 * 74 / spread()), zp())
    quant["attn"] = (f32(quant["v"][0] * 10 ** g.uniform(-0.4, 0.4)), zp())
    quant["out"] = (f32(quant["attn"][0] * wbase["o"] * math.sqrt(E) * 74 * 73 / spread()), zp())
    beta = f32(1 / math.sqrt(hd)) if g.integers(0, 4) else f32(10 ** g.uniform(-1, 1.5) / quant["scores"][0])
    if beta * quant["scores"][0] * 2.0 ** 26 < 1:
        beta = f32(1 / math.sqrt(hd))
    return dict(seed=seed, B=B, Sq=Sq, Skv=Skv, E=E, heads=heads, kdim=kdim, vdim=vdim,
                self_attn=self_attn, bias=bool(g.integers(0, 4)), causal=bool(g.integers(0, 3) == 0),
                has_lengths=bool(g.integers(0, 3) == 0), pattern=bool(g.integers(0, 4) == 0),
                beta=beta, quant=quant, scales=scales)


def mha_inputs(c):
    """Inputs in the order the C++ tests draw them from Rng(seed)."""
    r = Rng(c["seed"])
    B, Sq, Skv, E = c["B"], c["Sq"], c["Skv"], c["E"]
    query = r.int8s(B * Sq * E).reshape(B, Sq, E)
    if c["self_attn"]:
        key = value = query
    else:
        key = r.int8s(B * Skv * c["kdim"]).reshape(B, Skv, c["kdim"])
        value = r.int8s(B * Skv * c["vdim"]).reshape(B, Skv, c["vdim"])
    W = {}
    for n, fan_in in [("q", E), ("k", c["kdim"]), ("v", c["vdim"]), ("o", E)]:
        W[n] = np.array([r.range(0, 254) - 127 for _ in range(E * fan_in)], dtype=np.int64).reshape(E, fan_in)
    biases = {n: None for n in "qkvo"}
    if c["bias"]:
        for n in "qkvo":
            biases[n] = np.array([r.range(0, 60000) - 30000 for _ in range(E)], dtype=np.int64)
    lengths = [r.range(0, Skv) for _ in range(B)] if c["has_lengths"] else None
    masked = None
    if c["pattern"]:
        masked = np.array([r.next() % 4 == 0 for _ in range(Sq * Skv)]).reshape(Sq, Skv)
    return query, key, value, W, biases, lengths, masked


def run_mha_case(c):
    query, key, value, W, biases, lengths, masked = mha_inputs(c)
    keep = keep_matrix(c["B"], c["Sq"], c["Skv"], c["causal"], lengths, masked)
    return mha_s8(query, key, value, W, c["scales"], biases, c["quant"], c["heads"], c["beta"], keep)


def mha_case_lines(c):
    head = "mha %u %d %d %d %d %d %d %d %d %d %d %d %d %08x" % (
        c["seed"], c["B"], c["Sq"], c["Skv"], c["E"], c["heads"], c["kdim"], c["vdim"],
        int(c["self_attn"]), int(c["bias"]), int(c["causal"]), int(c["has_lengths"]),
        int(c["pattern"]), f32_bits(c["beta"]))
    quant = "quant " + " ".join("%08x %d" % (f32_bits(c["quant"][n][0]), c["quant"][n][1])
                                for n in MHA_QUANT_NAMES)
    ws = "wscales " + " ".join("%08x" % f32_bits(x) for n in "qkvo" for x in c["scales"][n])
    return [head, quant, ws]


LUONG_QUANT_NAMES = ["query", "keys", "keys_proj", "scores", "context"]


def random_luong_case(seed):
    g = np.random.default_rng(seed)
    general = bool(seed % 2)
    B = int(g.integers(1, 4))
    seq = int(g.integers(1, 121))
    kd = int(g.integers(1, 97))
    qd = int(g.integers(1, 97)) if general else kd
    zp = lambda: int(g.integers(-128, 128))
    quant = {"query": (f32(10 ** g.uniform(-2.5, -0.5)), zp()),
             "keys": (f32(10 ** g.uniform(-2.5, -0.5)), zp())}
    wbase = 10 ** g.uniform(-3, -1)
    scales = [f32(wbase * 10 ** g.uniform(-0.3, 0.3)) for _ in range(qd)] if general else []
    spread = lambda: 10 ** g.uniform(math.log10(10), math.log10(120))
    quant["keys_proj"] = (f32(quant["keys"][0] * wbase * math.sqrt(kd) * 74 * 73 / spread()), zp())
    kq = quant["keys_proj"] if general else quant["keys"]
    quant["scores"] = (f32(quant["query"][0] * kq[0] * math.sqrt(qd) * 74 * 74 / spread()), zp())
    quant["context"] = (f32(quant["keys"][0] * 10 ** g.uniform(-0.4, 0.4)), zp())
    bk = g.integers(0, 3)
    beta = 1.0 if bk else f32(10 ** g.uniform(-1, 1.5) / quant["scores"][0])
    if beta * quant["scores"][0] * 2.0 ** 26 < 1:
        beta = 1.0
    return dict(seed=seed, general=general, B=B, seq=seq, qd=qd, kd=kd, quant=quant, scales=scales,
                bias=bool(g.integers(0, 2)) and general, has_lengths=bool(g.integers(0, 2)), beta=f32(beta))


def run_luong_case(c):
    r = Rng(c["seed"])
    B, seq, qd, kd = c["B"], c["seq"], c["qd"], c["kd"]
    query = r.int8s(B * qd).reshape(B, 1, qd)
    keys = r.int8s(B * seq * kd).reshape(B, seq, kd)
    kq = c["quant"]["keys"]
    kmat = keys
    if c["general"]:
        W = np.array([r.range(0, 254) - 127 for _ in range(qd * kd)], dtype=np.int64).reshape(qd, kd)
        bias = np.array([r.range(0, 60000) - 30000 for _ in range(qd)], dtype=np.int64) if c["bias"] else None
        kmat = fully_connected(keys, W, c["scales"], bias, c["quant"]["keys"], c["quant"]["keys_proj"])
        kq = c["quant"]["keys_proj"]
    lengths = [r.range(0, seq) for _ in range(B)] if c["has_lengths"] else None
    keep = keep_matrix(B, 1, seq, False, lengths, None)
    out, probs, _ = sdpa_s8(query, kmat, keys, c["quant"]["query"], kq, c["quant"]["keys"],
                            c["quant"]["scores"], c["quant"]["context"], c["beta"], keep)
    return out, probs


BAHDANAU_QUANT_NAMES = ["query", "keys", "query_proj", "keys_proj", "sum", "scores", "context"]


def random_bahdanau_case(seed):
    g = np.random.default_rng(seed)
    B = int(g.integers(1, 4))
    seq = int(g.integers(1, 65))
    qd = int(g.integers(1, 65))
    kd = int(g.integers(1, 65))
    units = int(g.integers(1, 49))
    zp = lambda: int(g.integers(-128, 128))
    quant = {"query": (f32(10 ** g.uniform(-2.5, -0.5)), zp()),
             "keys": (f32(10 ** g.uniform(-2.5, -0.5)), zp())}
    wb = {n: 10 ** g.uniform(-3, -1) for n in ["w1", "w2", "v"]}
    scales = {"w1": [f32(wb["w1"] * 10 ** g.uniform(-0.3, 0.3)) for _ in range(units)],
              "w2": [f32(wb["w2"] * 10 ** g.uniform(-0.3, 0.3)) for _ in range(units)],
              "v": [f32(wb["v"])]}
    spread = lambda: 10 ** g.uniform(math.log10(10), math.log10(100))
    quant["query_proj"] = (f32(quant["query"][0] * wb["w1"] * math.sqrt(qd) * 74 * 73 / spread()), zp())
    quant["keys_proj"] = (f32(quant["keys"][0] * wb["w2"] * math.sqrt(kd) * 74 * 73 / spread()), zp())
    # TANH input: |sum| spans about -4..4 (sometimes far beyond: saturation).
    quant["sum"] = (f32(10 ** g.uniform(-2.3, -0.5)), zp())
    quant["scores"] = (f32(wb["v"] / 128 * math.sqrt(units) * 64 * 73 / spread()), zp())
    quant["context"] = (f32(quant["keys"][0] * 10 ** g.uniform(-0.4, 0.4)), zp())
    beta = 1.0 if g.integers(0, 3) else f32(10 ** g.uniform(-1, 1.5) / quant["scores"][0])
    if beta * quant["scores"][0] * 2.0 ** 26 < 1:
        beta = 1.0
    return dict(seed=seed, B=B, seq=seq, qd=qd, kd=kd, units=units, quant=quant, scales=scales,
                bias=bool(g.integers(0, 3)), has_lengths=bool(g.integers(0, 2)), beta=f32(beta))


def run_bahdanau_case(c):
    r = Rng(c["seed"])
    B, seq, qd, kd, units = c["B"], c["seq"], c["qd"], c["kd"], c["units"]
    query = r.int8s(B * qd).reshape(B, qd)
    keys = r.int8s(B * seq * kd).reshape(B, seq, kd)
    W = {}
    for n, shape in [("w1", (units, qd)), ("w2", (units, kd)), ("v", (1, units))]:
        W[n] = np.array([r.range(0, 254) - 127 for _ in range(shape[0] * shape[1])], dtype=np.int64).reshape(shape)
    biases = {"w1": None, "w2": None, "v": None}
    if c["bias"]:
        for n, cnt in [("w1", units), ("w2", units), ("v", 1)]:
            biases[n] = np.array([r.range(0, 60000) - 30000 for _ in range(cnt)], dtype=np.int64)
    lengths = [r.range(0, seq) for _ in range(B)] if c["has_lengths"] else None
    return bahdanau_s8(query, keys, W, c["scales"], biases, c["quant"], c["beta"], lengths)


def gen(outdir):
    os.makedirs(outdir, exist_ok=True)
    path = os.path.join(outdir, "softmax_cases.txt")
    with open(path, "w") as f:
        f.write("# int8 SOFTMAX reference cases: tests/reference/int8_reference.py gen (seeds 1000..1099)\n")
        f.write("# softmax <seed> <rows> <cols> <lo> <scale bits> <beta bits>; inputs lo + Rng(seed).next() %% (128 - lo)\n")
        for seed in range(1000, 1100):
            c = random_softmax_case(seed)
            y = softmax_s8(c["x"], c["scale"], c["beta"])
            f.write("softmax %u %d %d %d %08x %08x\n" % (seed, c["rows"], c["cols"], c["lo"],
                                                       f32_bits(c["scale"]), f32_bits(c["beta"])))
            f.write("out %s\n" % hexs(y))
    print("wrote", path)
    path = os.path.join(outdir, "sdpa_cases.txt")
    with open(path, "w") as f:
        f.write("# int8 SDPA reference cases: tests/reference/int8_reference.py gen (seeds 1..120)\n")
        f.write("# sdpa <seed> <B> <Lq> <Lkv> <dk> <dv> then (scale bits, zp) of q k v scores out,\n")
        f.write("# beta bits, causal, key lengths, boolean pattern; inputs from Rng(seed) in that order\n")
        for seed in range(1, 121):
            c = random_sdpa_case(seed)
            out, probs, _ = run_sdpa_case(c)
            f.write(sdpa_case_line(c) + "\n")
            f.write("out %s\n" % hexs(out))
            f.write("probs %s\n" % hexs(probs))
    print("wrote", path)
    path = os.path.join(outdir, "luong_cases.txt")
    with open(path, "w") as f:
        f.write("# int8 Luong reference cases: tests/reference/int8_reference.py gen (seeds 700..759; odd = general)\n")
        f.write("# luong <seed> <general> <B> <seq> <query_dim> <key_dim> <bias> <lengths> <beta bits>\n")
        f.write("# quant: (scale bits, zp) of query keys keys_proj scores context; wscales per query_dim channel\n")
        f.write("# inputs from Rng(seed): query keys [W (range(0,254)-127) [bias]] [lengths]\n")
        for seed in range(700, 760):
            c = random_luong_case(seed)
            out, probs = run_luong_case(c)
            f.write("luong %u %d %d %d %d %d %d %d %08x\n" % (seed, int(c["general"]), c["B"], c["seq"], c["qd"],
                                                          c["kd"], int(c["bias"]), int(c["has_lengths"]), f32_bits(c["beta"])))
            f.write("quant " + " ".join("%08x %d" % (f32_bits(c["quant"][n][0]), c["quant"][n][1]) for n in LUONG_QUANT_NAMES) + "\n")
            f.write("wscales " + " ".join("%08x" % f32_bits(x) for x in c["scales"]) + "\n")
            f.write("out %s\n" % hexs(out))
            f.write("probs %s\n" % hexs(probs))
    print("wrote", path)
    path = os.path.join(outdir, "bahdanau_cases.txt")
    with open(path, "w") as f:
        f.write("# int8 Bahdanau reference cases: tests/reference/int8_reference.py gen (seeds 900..959)\n")
        f.write("# bahdanau <seed> <B> <seq> <query_dim> <key_dim> <units> <bias> <lengths> <beta bits>\n")
        f.write("# quant: (scale bits, zp) of query keys query_proj keys_proj sum scores context;\n")
        f.write("# wscales: w1 (units) w2 (units) v (1); inputs from Rng(seed): query keys W1 W2 v [b1 b2 bv] [lengths]\n")
        for seed in range(900, 960):
            c = random_bahdanau_case(seed)
            out, probs = run_bahdanau_case(c)
            f.write("bahdanau %u %d %d %d %d %d %d %d %08x\n" % (seed, c["B"], c["seq"], c["qd"], c["kd"], c["units"],
                                                            int(c["bias"]), int(c["has_lengths"]), f32_bits(c["beta"])))
            f.write("quant " + " ".join("%08x %d" % (f32_bits(c["quant"][n][0]), c["quant"][n][1]) for n in BAHDANAU_QUANT_NAMES) + "\n")
            f.write("wscales " + " ".join("%08x" % f32_bits(x) for n in ["w1", "w2", "v"] for x in c["scales"][n]) + "\n")
            f.write("out %s\n" % hexs(out))
            f.write("probs %s\n" % hexs(probs))
    print("wrote", path)
    path = os.path.join(outdir, "mha_cases.txt")
    with open(path, "w") as f:
        f.write("# int8 MHA reference cases: tests/reference/int8_reference.py gen (seeds 500..559)\n")
        f.write("# mha <seed> <B> <Sq> <Skv> <E> <heads> <kdim> <vdim> <self> <bias> <causal> <lengths> <pattern> <beta bits>\n")
        f.write("# quant: (scale bits, zp) of query key value q k v scores attn out; wscales: q k v o per channel\n")
        f.write("# inputs from Rng(seed): query [key value] Wq Wk Wv Wo (range(0,254)-127) [biases q k v o] [lengths] [pattern]\n")
        for seed in range(500, 560):
            c = random_mha_case(seed)
            out, probs = run_mha_case(c)
            for line in mha_case_lines(c):
                f.write(line + "\n")
            f.write("out %s\n" % hexs(out))
            f.write("probs %s\n" % hexs(probs))


def embedded():
    """Prints the small embedded vectors of tests/cases/sdpa_s8_cases.cpp."""
    rows = []
    for seed, B, Lq, Lkv, dk, dv, causal, has_len, pattern, beta_kind in [
            (7, 1, 4, 5, 8, 6, False, False, False, 0),
            (11, 2, 3, 9, 5, 7, True, True, False, 0),
            (13, 1, 5, 6, 16, 4, False, False, True, 1),
            (17, 1, 1, 33, 24, 8, False, True, False, 2),
            (19, 2, 6, 4, 3, 5, True, False, True, 0)]:
        qs, ks, vs = f32(0.02), f32(0.03), f32(0.05)
        ss = f32(qs * ks * math.sqrt(dk) * 74 * 74 / 40)
        beta = {0: f32(1 / math.sqrt(dk)), 1: f32(40.0 / ss), 2: f32(0.5 / ss)}[beta_kind]
        c = dict(seed=seed, B=B, Lq=Lq, Lkv=Lkv, dk=dk, dv=dv, q=(qs, 3), k=(ks, -7),
                 v=(vs, 5), s=(ss, 2), o=(f32(0.04), -4), beta=beta, causal=causal,
                 has_lengths=has_len, pattern=pattern)
        out, probs, _ = run_sdpa_case(c)
        print("// " + sdpa_case_line(c))
        print("const int8_t kOut%d[] = {%s};" % (seed, ", ".join(str(int(x)) for x in out.reshape(-1))))
        print("const int8_t kProbs%d[] = {%s};" % (seed, ", ".join(str(int(x)) for x in probs.reshape(-1))))
        qp = lambda p: "{0x%08xu, %d}" % (f32_bits(p[0]), p[1])
        rows.append("    {%d, {%d, %d, %d, %d, %d}, {%s, %s, %s, %s, %s}, 0x%08xu, %s, %s, %s, kOut%d, kProbs%d}," % (
            seed, B, Lq, Lkv, dk, dv, qp(c["q"]), qp(c["k"]), qp(c["v"]), qp(c["s"]), qp(c["o"]),
            f32_bits(beta), str(causal).lower(), str(has_len).lower(), str(pattern).lower(), seed, seed))
    print("const EmbeddedSdpaCase kEmbeddedSdpa[] = {")
    print("\n".join(rows))
    print("};")
    r = Rng(23)
    x = np.array([r.range(-128, 127) for _ in range(3 * 10)]).reshape(3, 10)
    y = softmax_s8(x, f32(0.1), f32(1.0))
    print("// softmax_s8: Rng(23) inputs [3, 10], input scale (float)0.1 = 0x%08x, beta 1" % f32_bits(f32(0.1)))
    print("const int8_t kSoftmaxOut23[] = {%s};" % ", ".join(str(int(v)) for v in y.reshape(-1)))


def embedded_ops():
    """Prints the embedded vectors of tests/cases/attention_s8_cases.cpp."""
    # MHA: cross-attention, 2 heads of 4, biases, causal mask.
    mq = {"query": (f32(0.02), 3), "key": (f32(0.03), -5), "value": (f32(0.025), 7),
          "q": (f32(0.05), -2), "k": (f32(0.06), 4), "v": (f32(0.04), -6),
          "scores": (f32(0.08), 1), "attn": (f32(0.035), -3), "out": (f32(0.045), 2)}
    scales = {n: [f32(0.004 + 0.0005 * i + 0.001 * j) for i in range(8)] for j, n in enumerate("qkvo")}
    c = dict(seed=31, B=2, Sq=3, Skv=5, E=8, heads=2, kdim=6, vdim=4, self_attn=False, bias=True,
             causal=True, has_lengths=False, pattern=False, beta=f32(1 / math.sqrt(4)), quant=mq,
             scales=scales)
    out, probs = run_mha_case(c)
    print("// " + " | ".join(mha_case_lines(c)))
    print("const uint32_t kMhaQuant31[9][2] = {%s};" % ", ".join(
        "{0x%08xu, %du}" % (f32_bits(mq[n][0]), mq[n][1] & 0xFFFFFFFF) for n in MHA_QUANT_NAMES))
    print("const uint32_t kMhaScales31[32] = {%s};" % ", ".join(
        "0x%08xu" % f32_bits(x) for n in "qkvo" for x in scales[n]))
    print("const int8_t kMhaOut31[] = {%s};" % ", ".join(str(int(x)) for x in out.reshape(-1)))
    print("const int8_t kMhaProbs31[] = {%s};" % ", ".join(str(int(x)) for x in probs.reshape(-1)))
    # Luong general (seed 41) and dot (seed 42).
    for seed, general in [(41, True), (42, False)]:
        lq = {"query": (f32(0.03), -4), "keys": (f32(0.02), 6), "keys_proj": (f32(0.05), -1),
              "scores": (f32(0.1), 3), "context": (f32(0.025), -2)}
        qd = 5 if general else 6
        c = dict(seed=seed, general=general, B=2, seq=7, qd=qd, kd=6, quant=lq,
                 scales=[f32(0.003 + 0.0007 * i) for i in range(qd)] if general else [],
                 bias=general, has_lengths=True, beta=1.0)
        out, probs = run_luong_case(c)
        print("// luong seed %d general %d: B 2 seq 7 query_dim %d key_dim 6, bias %d, key lengths, beta 1" % (
            seed, int(general), qd, int(general)))
        if general:
            print("const uint32_t kLuongScales41[5] = {%s};" % ", ".join("0x%08xu" % f32_bits(x) for x in c["scales"]))
        print("const int8_t kLuongOut%d[] = {%s};" % (seed, ", ".join(str(int(x)) for x in out.reshape(-1))))
        print("const int8_t kLuongProbs%d[] = {%s};" % (seed, ", ".join(str(int(x)) for x in probs.reshape(-1))))


def embedded_bahdanau():
    """Prints the Bahdanau vectors of tests/cases/attention_s8_cases.cpp."""
    bq = {"query": (f32(0.03), -4), "keys": (f32(0.02), 6), "query_proj": (f32(0.06), 3),
          "keys_proj": (f32(0.05), -2), "sum": (f32(0.04), 5), "scores": (f32(0.07), -3),
          "context": (f32(0.025), 1)}
    scales = {"w1": [f32(0.004 + 0.0003 * i) for i in range(6)],
              "w2": [f32(0.005 + 0.0002 * i) for i in range(6)], "v": [f32(0.006)]}
    c = dict(seed=51, B=2, seq=7, qd=5, kd=4, units=6, quant=bq, scales=scales, bias=True,
             has_lengths=True, beta=1.0)
    out, probs = run_bahdanau_case(c)
    print("// bahdanau seed 51: B 2 seq 7 query_dim 5 key_dim 4 units 6, biases, key lengths, beta 1")
    print("const uint32_t kBahdanauScales51[13] = {%s};" % ", ".join(
        "0x%08xu" % f32_bits(x) for n in ["w1", "w2", "v"] for x in scales[n]))
    print("const int8_t kBahdanauOut51[] = {%s};" % ", ".join(str(int(x)) for x in out.reshape(-1)))
    print("const int8_t kBahdanauProbs51[] = {%s};" % ", ".join(str(int(x)) for x in probs.reshape(-1)))


def print_generated(header, *printers):
    """Prints the header line, then what the printers print inside a
    clang-format off block: the generated tables keep one line per array, and
    a regeneration gives the checked-in (clang-format clean) source."""
    print(header)
    print("// clang-format off")
    for p in printers:
        p()
    print("// clang-format on")


def selftest():
    # exp on a grid against math.exp.
    a = np.arange(-31 * (1 << 26), 1, 12345, dtype=np.int64)
    e = exp_on_negative_values(a) / 2.0 ** 31
    ref = np.exp(a / 2.0 ** 26)
    assert np.max(np.abs(e - ref)) < 5e-7, np.max(np.abs(e - ref))  # gemmlowp: ~2.3e-7
    x = np.arange(0, INT32_MAX, 99991, dtype=np.int64)
    r = one_over_one_plus_x(x) / 2.0 ** 31
    assert np.max(np.abs(r - 1 / (1 + x / 2.0 ** 31))) < 1e-8
    y = softmax_s8(np.array([[0, 1, 2, 3]]), 1.0, 1.0)
    p = np.exp([0, 1, 2, 3]) / np.sum(np.exp([0, 1, 2, 3]))
    assert np.max(np.abs((y + 128) / 256.0 - p)) <= 1 / 256.0
    xs = np.arange(-(1 << 31) + 1, 1 << 31, 65537 * 31, dtype=np.int64)
    xs = xs[np.abs(xs) < 15 * (1 << 27)]
    t = tanh_q4(xs) / 2.0 ** 31
    assert np.max(np.abs(t - np.tanh(xs / 2.0 ** 27))) < 1e-6, np.max(np.abs(t - np.tanh(xs / 2.0 ** 27)))
    print("selftest ok")


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    cmd = sys.argv[1] if len(sys.argv) > 1 else "selftest"
    if cmd == "gen":
        gen(os.path.join(here, "..", "data", "int8"))
    elif cmd == "embedded":
        print_generated("// Generated by tests/reference/int8_reference.py embedded "
                        "(seeds stated per case).", embedded)
    elif cmd == "embedded-ops":
        print_generated("// Generated by tests/reference/int8_reference.py embedded-ops.",
                        embedded_ops, embedded_bahdanau)
    else:
        selftest()
