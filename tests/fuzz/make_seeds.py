#!/usr/bin/python3
"""Writes the seed corpora of the fuzz targets to tests/fuzz/corpus/<target>/.

Deterministic (fixed random seed): rerunning it rewrites the same files.
    /usr/bin/python3 tests/fuzz/make_seeds.py   (Debian python3-numpy)
Seeds: .npy files of every supported dtype and format version plus broken
ones; small valid model blobs of every op (float and int8, packed and
separate MHA weights); descriptors that reach each op's evaluation with
masks, key lengths and odd sizes (see fuzz_ops_*.cpp for the byte layout).
"""
import io
import os
import random
import struct
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(7)


def write(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


# ---------------------------------------------------------------- npy
def npy_bytes(a, version=None):
    b = io.BytesIO()
    if version is None:
        np.save(b, a)
    else:
        np.lib.format.write_array(b, a, version=version)
    return b.getvalue()


def npy_seeds():
    r = np.random.RandomState(1)
    arrays = {
        "f4_2x3": r.randn(2, 3).astype("<f4"),
        "f8_4": r.randn(4).astype("<f8"),
        "f2_3x1": r.randn(3, 1).astype("<f2"),
        "i1_5": r.randint(-128, 127, 5).astype("|i1"),
        "u1_2x2": r.randint(0, 255, (2, 2)).astype("|u1"),
        "i4_3": r.randint(-9, 9, 3).astype("<i4"),
        "i8_2": r.randint(-9, 9, 2).astype("<i8"),
        "i2_2": np.array([1, -2], "<i2"),
        "u2_1": np.array([7], "<u2"),
        "u4_1": np.array([7], "<u4"),
        "u8_1": np.array([7], "<u8"),
        "b1_4": np.array([True, False, True, True]),
        "scalar": np.array(3.5, "<f4"),
        "empty": np.zeros((0, 3), "<f4"),
        "rank4": r.randn(1, 2, 1, 3).astype("<f4"),
    }
    for name, a in arrays.items():
        write("npy", name + ".npy", npy_bytes(a))
    write("npy", "v2.npy", npy_bytes(arrays["f4_2x3"], (2, 0)))
    write("npy", "v3.npy", npy_bytes(arrays["i4_3"], (3, 0)))
    good = npy_bytes(arrays["f4_2x3"])
    write("npy", "bad_truncated.npy", good[:-3])
    write("npy", "bad_fortran.npy", npy_bytes(np.asfortranarray(r.randn(2, 3).astype("<f4"))))
    write("npy", "bad_bigendian.npy", npy_bytes(r.randn(3).astype(">f4")))
    write("npy", "bad_magic.npy", b"\x93NUMPX" + good[6:])
    hdr = b"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999), }"
    hdr += b" " * (63 - (10 + len(hdr)) % 64) + b"\n"
    write("npy", "bad_huge.npy", b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr)


# ---------------------------------------------------------------- model
F32, I8, I32 = 1, 2, 3
OPS = {"mha": 1, "bahdanau": 2, "luong_general": 3, "mha_decode": 4}


def blob(op, dtype, params, tensors, name):
    """tensors: list of (id, dtype, dims, bytes)."""
    table_off = 128
    table_end = table_off + 32 * len(tensors)
    off = (table_end + 63) // 64 * 64
    entries, body = b"", b""
    cursor = off
    for tid, tdt, dims, data in tensors:
        dims4 = list(dims) + [0] * (4 - len(dims))
        entries += struct.pack("<HBB4III I", tid, tdt, len(dims), *dims4, cursor, len(data), 0)
        pad_to = cursor - off
        body += b"\0" * (pad_to - len(body)) + data
        cursor = (cursor + len(data) + 63) // 64 * 64
    total = off + len(body)
    total = (total + 3) // 4 * 4
    params8 = list(params) + [0] * (8 - len(params))
    header = struct.pack("<IHHIIHHIII", 0x4D4E5441, 1, 128, total, 0, OPS[op], dtype, 0,
                         len(tensors), table_off)
    header += struct.pack("<8i", *params8) + name.encode().ljust(32, b"\0") + b"\0" * 32
    b = bytearray(header + entries)
    b += b"\0" * (off - len(b)) + body
    b += b"\0" * (total - len(b))
    crc = zlib.crc32(bytes(b)) & 0xFFFFFFFF
    b[12:16] = struct.pack("<I", crc)
    return bytes(b)


def f32(*shape):
    n = int(np.prod(shape))
    return np.array([rng.uniform(-1, 1) for _ in range(n)], "<f4").tobytes()


def s8(*shape):
    return bytes(rng.randrange(256) for _ in range(int(np.prod(shape))))


def i32(n, lo=-100, hi=100):
    return np.array([rng.randint(lo, hi) for _ in range(n)], "<i4").tobytes()


def scales(n):
    return np.array([rng.uniform(0.01, 0.1) for _ in range(n)], "<f4").tobytes()


def model_seeds():
    E, H = 4, 2
    write("model", "mha_packed.attn", blob("mha", F32, [E, H, E, E], [
        (1, F32, [3 * E, E], f32(3 * E, E)), (2, F32, [3 * E], f32(3 * E)),
        (6, F32, [E, E], f32(E, E)), (7, F32, [E], f32(E))], "mha packed"))
    kd, vd = 3, 2
    write("model", "mha_separate.attn", blob("mha", F32, [E, H, kd, vd], [
        (3, F32, [E, E], f32(E, E)), (4, F32, [E, kd], f32(E, kd)), (5, F32, [E, vd], f32(E, vd)),
        (6, F32, [E, E], f32(E, E))], "mha kv"))
    qd, kd, u = 3, 2, 4
    write("model", "bahdanau.attn", blob("bahdanau", F32, [qd, kd, u], [
        (16, F32, [qd, u], f32(qd, u)), (17, F32, [u], f32(u)), (18, F32, [kd, u], f32(kd, u)),
        (19, F32, [u], f32(u)), (20, F32, [u], f32(u)), (21, F32, [1], f32(1))], "bahdanau"))
    write("model", "luong.attn", blob("luong_general", F32, [qd, kd], [
        (28, F32, [kd, qd], f32(kd, qd)), (29, F32, [qd], f32(qd))], "luong"))
    # int8 models (weights in TFLite FULLY_CONNECTED layout [out, in]).
    write("model", "luong_int8.attn", blob("luong_general", I8, [qd, kd], [
        (28, I8, [qd, kd], s8(qd, kd)), (29, I32, [qd], i32(qd)), (30, F32, [qd], scales(qd)),
        (32, F32, [6], scales(6)), (33, I32, [6], i32(6, -128, 127))], "luong int8"))
    write("model", "bahdanau_int8.attn", blob("bahdanau", I8, [qd, kd, u], [
        (16, I8, [u, qd], s8(u, qd)), (18, I8, [u, kd], s8(u, kd)), (20, I8, [u], s8(u)),
        (22, F32, [u], scales(u)), (23, F32, [u], scales(u)), (24, F32, [1], scales(1)),
        (32, F32, [9], scales(9)), (33, I32, [9], i32(9, -128, 127))], "bahdanau int8"))
    write("model", "mha_int8.attn", blob("mha", I8, [E, H, E, E], [
        (1, I8, [3 * E, E], s8(3 * E, E)), (2, I32, [3 * E], i32(3 * E)),
        (6, I8, [E, E], s8(E, E)), (8, F32, [3 * E], scales(3 * E)), (12, F32, [E], scales(E)),
        (32, F32, [10], scales(10)), (33, I32, [10], i32(10, -128, 127))], "mha int8"))
    write("model", "header_only.attn", blob("luong_general", F32, [qd, kd], [], "x")[:128])


# ---------------------------------------------------------------- ops
def d(x):
    """The byte Reader::dim() maps to a small dimension x (-1..12)."""
    return x + 1


def tail(n):
    return bytes(rng.randrange(256) for _ in range(n))


def ops_seeds():
    # sdpa: sel, B, sq, skv, dk, dv, flags, [scale], mask what, ...
    for i, (B, sq, skv, dk, dv, flags, what) in enumerate([
            (1, 4, 4, 3, 3, 0x10, 0x00), (2, 3, 5, 4, 2, 0x12, 0x03), (2, 5, 3, 2, 4, 0x10, 0x1f),
            (1, 9, 12, 5, 7, 0x10, 0x0a), (3, 2, 2, 1, 1, 0x11, 0x1d), (0, 2, 2, 2, 2, 0x10, 0)]):
        write("ops_f32", f"sdpa_{i}", bytes([0, d(B), d(sq), d(skv), d(dk), d(dv), flags])
              + (bytes([9]) if flags & 2 else b"") + bytes([what]) + tail(600))
    # mha: sel, B, sq, skv, E, H, kv_mode, [kdim], [vdim], flags, wmode, mask...
    for i, (B, sq, skv, E, H, kvm, kdv, flags) in enumerate([
            (1, 3, 3, 4, 2, 0, [], 0x76), (2, 2, 4, 6, 3, 3, [5, 2], 0x70), (1, 2, 2, 4, 3, 0, [], 0x40),
            (2, 3, 3, 4, 1, 0, [], 0x56)]):
        write("ops_f32", f"mha_{i}", bytes([1, d(B), d(sq), d(skv), d(E), d(H), kvm])
              + bytes(d(x) for x in kdv) + bytes([flags, 200]) + tail(900))
    # bahdanau: sel, B, S, qd, kd, U, flags, mask...
    for i, (B, S, qd, kd, U, flags) in enumerate([(2, 5, 3, 2, 4, 0x2a), (1, 7, 1, 1, 1, 0x20),
                                                  (3, 2, 4, 3, 2, 0x3a)]):
        write("ops_f32", f"bahdanau_{i}",
              bytes([2, d(B), d(S), d(qd), d(kd), d(U), flags, 1]) + tail(400))
    # luong dot / general
    for i, (B, S, dq) in enumerate([(2, 5, 3), (1, 1, 1), (3, 12, 7)]):
        write("ops_f32", f"luong_dot_{i}", bytes([3, d(B), d(S), d(dq), 0x04, 1]) + tail(400))
    for i, (B, S, dq, dk) in enumerate([(2, 5, 3, 2), (1, 4, 1, 6)]):
        write("ops_f32", f"luong_general_{i}",
              bytes([4, d(B), d(S), d(dq), d(dk), 0x14, 1]) + tail(400))
    # general attention: sel, B, S, din, dk, dv, flags, [scale], mask...
    for i, (B, S, din, dk, dv, flags, what) in enumerate([(1, 4, 3, 3, 3, 0x08, 0x02),
                                                          (2, 5, 2, 4, 1, 0x0a, 0x1d)]):
        write("ops_f32", f"general_{i}", bytes([5, d(B), d(S), d(din), d(dk), d(dv), flags])
              + (bytes([9]) if flags & 2 else b"") + bytes([what]) + tail(500))

    # int8 softmax: sel (odd), input_scale, beta, rows, cols, flags, values
    write("ops_s8", "softmax_0", bytes([1, 8, 0x11, 0x22, 0x33, 0x44, 8, 0x10, 0, 0, 0, d(3), d(9), 0x08])
          + tail(64))
    write("ops_s8", "softmax_1", bytes([1, 8, 0xff, 0x00, 0x00, 0x00, 8, 0x10, 0, 0, 0, d(2), d(12), 0x09])
          + tail(64))
    # int8 sdpa: sel (even), B, sq, skv, dk, dv, qmode (tame), zp, scores scale, scores zp,
    # flags, mask what, ...
    for i, (B, sq, skv, dk, dv, flags, what) in enumerate([
            (1, 4, 4, 3, 3, 0xfa, 0x00), (2, 3, 5, 4, 2, 0xfa, 0x03), (2, 5, 3, 2, 4, 0xfa, 0x1f),
            (1, 9, 12, 5, 7, 0xfa, 0x0e), (1, 2, 6, 3, 2, 0x02, 0x10)]):
        write("ops_s8", f"sdpa_{i}", bytes([0, d(B), d(sq), d(skv), d(dk), d(dv), 0, 130, 5, 120,
                                            flags, what]) + tail(600))


    # int8 Luong: sel 2 (dot) / 3 (general), B, S, dq, [dk], qmode (tame), zp, scores
    # scale, scores zp, weight flags, [weights, scales, bias], flags, ...
    for i, (B, S, dq) in enumerate([(2, 5, 3), (1, 12, 7)]):
        write("ops_s8", f"luong_dot_{i}", bytes([2, d(B), d(S), d(dq), 0, 140, 3, 128, 0, 0x81])
              + tail(300))
    for i, (B, S, dq, dk) in enumerate([(2, 5, 3, 4), (1, 9, 2, 6)]):
        write("ops_s8", f"luong_general_{i}",
              bytes([3, d(B), d(S), d(dq), d(dk), 0, 140, 3, 128, 0x0a]) + tail(400))


def model_decode_seeds():
    """Decoder layers (mha_decode): E 4, 2 heads, 1 kv head (head_dim 2, kv rows 2)."""
    E, H, G, kv = 4, 2, 1, 2
    theta = struct.unpack("<i", struct.pack("<f", 100.0))[0]
    # capacity 2, linear: the third token finds the cache full.
    write("model", "mha_decode.attn", blob("mha_decode", F32, [E, H, G, 2, 0, 2, 0, theta], [
        (3, F32, [E, E], f32(E, E)), (4, F32, [kv, E], f32(kv, E)), (5, F32, [kv, E], f32(kv, E)),
        (6, F32, [E, E], f32(E, E)), (13, F32, [E], f32(E)), (14, F32, [kv], f32(kv))],
        "decoder"))
    write("model", "mha_decode_int8.attn", blob("mha_decode", I8, [E, H, G, 2, 1], [
        (3, I8, [E, E], s8(E, E)), (4, I8, [kv, E], s8(kv, E)), (5, I8, [kv, E], s8(kv, E)),
        (6, I8, [E, E], s8(E, E)), (9, F32, [E], scales(E)), (10, F32, [kv], scales(kv)),
        (11, F32, [kv], scales(kv)), (12, F32, [E], scales(E)), (15, I32, [kv], i32(kv)),
        (32, F32, [8], scales(8)), (33, I32, [8], i32(8, -128, 127))], "decoder int8"))


def decode_seeds():
    """Chunk sequences for fuzz_decode.cpp: flags (1 int8, 2 window, 4 RoPE,
    8 interleaved, 16 float16 cache), heads - 1, kv divisor - 1, head dim - 1,
    rotary byte (dims 2 * (r % (hd / 2 + 1)), bit 7: theta 10000 else 7.5),
    tokens - 1, capacity - 1, max tokens - 1, one byte per call (chunk - 1;
    248 / 249: a chunk above max tokens / of 0), then values."""
    r = random.Random(13)
    cases = [  # name, flags, heads, div, hd, rope byte, tokens, capacity, max tokens, chunks
        ("f32_mha", 0x00, 2, 1, 4, 0, 10, 10, 3, [1, 3, 2, 3, 1]),
        ("f32_gqa_window", 0x02, 4, 2, 3, 0, 21, 7, 3, [1] * 6 + [3] * 5),
        ("f32_mqa_rope_half", 0x04, 4, 4, 8, 0x80, 12, 13, 7, [7, 1, 4]),
        ("f32_f16_rope_interleaved_window", 0x1e, 4, 2, 4, 0x02, 17, 5, 4, [4, 4, 1, 4, 4]),
        ("f32_full_and_bad_chunks", 0x00, 2, 2, 2, 0, 12, 8, 4, [3, 248, 4, 249, 2, 3]),
        ("s8_mha", 0x01, 2, 1, 4, 0, 10, 10, 3, [1, 3, 3, 3]),
        ("s8_gqa_window", 0x03, 4, 2, 4, 0, 22, 6, 5, [1, 5, 2, 5, 5, 4]),
        ("s8_full_and_bad_chunks", 0x01, 4, 4, 2, 0, 9, 6, 3, [2, 249, 3, 3]),
        ("s8_rope_half_gqa", 0x05, 4, 2, 6, 0x82, 13, 14, 4, [1, 4, 2, 4, 2]),
        ("s8_rope_interleaved_window", 0x0f, 2, 1, 8, 0x03, 18, 5, 3, [3, 1, 3, 2, 3, 3, 3]),
    ]
    for name, flags, heads, div, hd, rb, tokens, cap, mt, chunks in cases:
        head = bytes([flags, heads - 1, div - 1, hd - 1, rb, tokens - 1, cap - 1, mt - 1])
        calls = bytes(c if c >= 248 else c - 1 for c in chunks)
        values = bytes(r.randrange(256) for _ in range(3000))
        write("decode", name, head + calls + values)


npy_seeds()
model_seeds()
ops_seeds()
model_decode_seeds()  # after the seeds above: they keep their bytes
decode_seeds()
