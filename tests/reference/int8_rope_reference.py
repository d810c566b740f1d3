#!/usr/bin/env -S /usr/bin/python3
"""Independent reference of the int8 rotary position embedding and of int8
decoder-step attention with it, written from docs/INT8.md ("Rotary position
embedding"). Python integers (no 64-bit wrap-around helpers, no shared code
with the C++ engine); the int8 FULLY_CONNECTED and SDPA come from
tests/reference/int8_reference.py.

  int8_rope_reference.py embedded   prints the vectors of tests/cases/decode_s8_rope_cases.cpp
  int8_rope_reference.py selftest   checks ratio, cos/sin and phase against mpmath
"""
import math
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import int8_reference as ref  # noqa: E402

M64 = (1 << 64) - 1
INV_2PI_Q64 = 0x28BE60DB9391054A  # round(2^64 / (2 pi))
LN2_Q64 = 0xB17217F7D1CF79AC      # round(2^64 ln 2)
HALF_PI_Q30 = 1686629713          # round(2^30 pi / 2)
ONE_Q30 = 1 << 30


def rope_ratio(theta, dims):
    """r = theta^(-2/dims) in Q0.64 (INT8.md): log2(theta) bit by bit in Q7.57,
    x = log2(theta) / (dims/2) (floor), 2^-x = 2^-whole * exp(-frac ln2) by 20
    Horner steps in Q1.63 (products and divisions floored)."""
    bits = struct.unpack("<I", struct.pack("<f", theta))[0]
    e = ((bits >> 23) & 0xFF) - 127
    m = ((bits & 0x7FFFFF) | 0x800000) << 40  # Q1.63, in [1, 2)
    frac = 0
    for _ in range(57):
        sq = (m * m) >> 64  # Q2.62
        frac = frac * 2 + (1 if sq >= 1 << 63 else 0)
        m = sq if sq >= 1 << 63 else sq * 2
    x = ((e << 57) + frac) // (dims // 2)
    whole, phi = x >> 57, x & ((1 << 57) - 1)
    if whole >= 64:
        return 0
    y = (((phi << 7) * LN2_Q64) >> 64) >> 1  # phi ln2, Q1.63
    s = 1 << 63
    for k in range(20, 0, -1):
        s = (1 << 63) - ((((y * s) >> 64) << 1) // k)
    r = M64 if s >= 1 << 63 else s << 1
    return r >> whole


def mul_q30(a, b):
    return (a * b + (1 << 29)) >> 30


def horner(x2, dens):
    s = ONE_Q30
    for d in reversed(dens):
        s = ONE_Q30 - (mul_q30(x2, s) + d // 2) // d
    return s


def sincos(phase):
    """(cos, sin) in Q1.30 of a phase in Q0.64 turns."""
    quadrant = phase >> 62
    u = (phase >> 30) & 0xFFFFFFFF
    upper = u > 1 << 31
    v = (1 << 32) - u if upper else u
    x = (v * HALF_PI_Q30 + (1 << 31)) >> 32  # radians, Q2.30, <= pi/4
    x2 = mul_q30(x, x)
    sin_a = mul_q30(x, horner(x2, [6, 20, 42, 72, 110]))
    cos_a = horner(x2, [2, 12, 30, 56, 90, 132])
    if upper:
        sin_a, cos_a = cos_a, sin_a
    return [(cos_a, sin_a), (-sin_a, cos_a), (-cos_a, -sin_a), (sin_a, -cos_a)][quadrant]


def angles(position, dims, ratio):
    """[(cos_i, sin_i)] for pairs i < dims/2 at an absolute position."""
    f = INV_2PI_Q64
    out = []
    for _ in range(dims // 2):
        out.append(sincos((position * f) & M64))
        f = (f * ratio) >> 64
    return out


def round_shift30(x):
    """RoundingDivideByPOT(x, 30): to nearest, ties away from zero."""
    q = abs(x) >> 30
    rem = abs(x) - (q << 30)
    q += 1 if rem >= 1 << 29 else 0
    return q if x >= 0 else -q


def rotate(row, zp, cs, dims, style):
    """Rotates the int8 codes of one head's row (a copy is returned)."""
    row = [int(c) for c in row]
    half = dims // 2
    for i, (c, s) in enumerate(cs):
        ia, ib = (i, i + half) if style == "half" else (2 * i, 2 * i + 1)
        a, b = row[ia] - zp, row[ib] - zp
        row[ia] = min(127, max(-128, round_shift30(a * c - b * s) + zp))
        row[ib] = min(127, max(-128, round_shift30(b * c + a * s) + zp))
    return row


def decode_reference(x, W, scales, biases, quant, heads, kv_heads, rope, p0, window):
    """One-shot int8 decoder attention with RoPE over tokens x [T, E] at
    positions p0 .. p0 + T - 1: FC q/k/v, rotation, causal (band with a window)
    int8 SDPA per query head on its kv head, FC out. rope: (dims, style, theta)."""
    T, E = x.shape
    hd = E // heads
    group = heads // kv_heads
    Q = ref.fully_connected(x, W["q"], scales["q"], biases["q"], quant["input"], quant["q"])
    K = ref.fully_connected(x, W["k"], scales["k"], biases["k"], quant["input"], quant["k"])
    V = ref.fully_connected(x, W["v"], scales["v"], biases["v"], quant["input"], quant["v"])
    dims, style, theta = rope
    if dims:
        r = rope_ratio(theta, dims)
        for t in range(T):
            cs = angles(p0 + t, dims, r)
            for h in range(heads):
                Q[t, h * hd:(h + 1) * hd] = rotate(Q[t, h * hd:(h + 1) * hd], quant["q"][1], cs, dims, style)
            for g in range(kv_heads):
                K[t, g * hd:(g + 1) * hd] = rotate(K[t, g * hd:(g + 1) * hd], quant["k"][1], cs, dims, style)
    i, j = np.meshgrid(np.arange(T), np.arange(T), indexing="ij")
    keep = (j <= i) & ((j > i - window) if window else True)
    O = np.zeros((T, E), dtype=np.int64)
    for h in range(heads):
        g = h // group
        o, _, _ = ref.sdpa_s8(Q[None, :, h * hd:(h + 1) * hd], K[None, :, g * hd:(g + 1) * hd],
                              V[None, :, g * hd:(g + 1) * hd], quant["q"], quant["k"], quant["v"],
                              quant["scores"], quant["attn"], ref.f32(1 / math.sqrt(hd)), keep[None])
        O[:, h * hd:(h + 1) * hd] = o[0]
    return ref.fully_connected(O, W["o"], scales["o"], biases["o"], quant["attn"], quant["out"])


# The cases of tests/cases/decode_s8_rope_cases.cpp: seed, E, heads, kv heads,
# rope dims, style, theta, window (0: linear cache), first position.
CASES = [
    (61, 32, 4, 2, 6, "half", 10000.0, 0, 0),
    (62, 32, 4, 1, 8, "interleaved", 500000.0, 0, 0),
    (63, 32, 4, 2, 8, "half", 10000.0, 7, 100003),
    (64, 32, 4, 2, 6, "interleaved", 1000000.0, 5, (1 << 40) + 11),
]
T = 24
# The decode quantization of the case file (float literals, same bits in C++).
QUANT = {"input": (0.05, 3), "q": (0.06, -2), "k": (0.05, 1), "v": (0.04, -5),
         "scores": (0.08, 4), "attn": (0.03, -1), "out": (0.05, 2)}


def case_data(seed, E, kv_heads, heads):
    """Inputs in the order the C++ case draws them from Rng(seed); weight
    scales from NumPy (printed as float32 bits)."""
    kvd = kv_heads * (E // heads)
    r = ref.Rng(seed)
    x = np.array([r.range(0, 255) - 128 for _ in range(T * E)], dtype=np.int64).reshape(T, E)
    W, biases = {}, {}
    for n, rows in [("q", E), ("k", kvd), ("v", kvd), ("o", E)]:
        W[n] = np.array([r.range(0, 254) - 127 for _ in range(rows * E)], dtype=np.int64).reshape(rows, E)
    for n, rows in [("q", E), ("k", kvd), ("v", kvd), ("o", E)]:
        biases[n] = np.array([r.range(0, 6000) - 3000 for _ in range(rows)], dtype=np.int64)
    g = np.random.default_rng(seed)
    scales = {n: [ref.f32(v) for v in g.uniform(0.0015, 0.003, rows)]
              for n, rows in [("q", E), ("k", kvd), ("v", kvd), ("o", E)]}
    return x, W, biases, scales


def embedded():
    quant = {k: (ref.f32(v[0]), v[1]) for k, v in QUANT.items()}
    for seed, E, heads, kv_heads, dims, style, theta, window, p0 in CASES:
        x, W, biases, scales = case_data(seed, E, kv_heads, heads)
        out = decode_reference(x, W, scales, biases, quant, heads, kv_heads, (dims, style, ref.f32(theta)),
                               p0, window)
        print("// seed %d: E %d heads %d kv heads %d, rope dims %d %s theta %g, window %d, first position %d"
              % (seed, E, heads, kv_heads, dims, style, theta, window, p0))
        print("const uint32_t kScales%d[] = {%s};" % (seed, ", ".join(
            "0x%08xu" % ref.f32_bits(v) for n in "qkvo" for v in scales[n])))
        print("const int8_t kOut%d[] = {%s};" % (seed, ", ".join(str(int(v)) for v in out.reshape(-1))))


def selftest():
    import mpmath
    mpmath.mp.prec = 160
    worst_ratio = 0.0
    for theta in [1.0000001, 2.0, 10000.0, 500000.0, 1e6, 3e38]:
        for dims in [2, 4, 6, 8, 64, 128, 256]:
            exact = mpmath.mpf(ref.f32(theta)) ** (mpmath.mpf(-2) / dims)
            got = mpmath.mpf(rope_ratio(ref.f32(theta), dims)) / 2 ** 64
            worst_ratio = max(worst_ratio, float(abs(got - exact) * 2 ** 64))
    assert worst_ratio < 128, worst_ratio  # within 2^-57 (log2 carries 57 fraction bits)
    g = np.random.default_rng(5)
    worst_cs = 0.0
    phases = [int(v) for v in g.integers(0, 1 << 63, 20000, dtype=np.int64)] + [0, 1 << 62, 1 << 63, 3 << 62, M64]
    for ph in phases + [(p * 2) & M64 for p in phases]:
        c, s = sincos(ph)
        a = 2 * mpmath.pi * mpmath.mpf(ph) / 2 ** 64
        worst_cs = max(worst_cs, float(abs(c / 2.0 ** 30 - mpmath.cos(a))), float(abs(s / 2.0 ** 30 - mpmath.sin(a))))
    assert worst_cs < 2.0 ** -28, worst_cs
    # Phase of the last pair at large positions against p theta^(-2i/dims) / 2pi.
    worst_phase = 0.0
    for theta, dims in [(10000.0, 128), (500000.0, 64), (1e6, 6)]:
        r = rope_ratio(ref.f32(theta), dims)
        f = INV_2PI_Q64
        for i in range(dims // 2):
            exact = mpmath.mpf(ref.f32(theta)) ** (mpmath.mpf(-2 * i) / dims) / (2 * mpmath.pi)
            worst_phase = max(worst_phase, float(abs(mpmath.mpf(f) / 2 ** 64 - exact) * 2 ** 64) / (i + 1))
            f = (f * r) >> 64
    # per position and pair: |f_i - exact| <= (i + 1) * worst_phase * 2^-64 turns
    assert worst_phase < 128, worst_phase
    print("selftest ok: ratio within %.1f * 2^-64, cos/sin within %.2e (2^-28 = %.2e), "
          "f_i within %.1f * (i + 1) * 2^-64 turns" % (worst_ratio, worst_cs, 2.0 ** -28, worst_phase))


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else "selftest"
    if cmd == "embedded":
        ref.print_generated("// Generated by tests/reference/int8_rope_reference.py embedded.",
                            embedded)
    else:
        selftest()
