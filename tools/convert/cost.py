"""RAM / flash estimates, mirroring the engine's constexpr scratch functions
(engine/include/attn/{sdpa,mha,bahdanau,luong}.h). `attn info MODEL --seq N`
computes the same numbers with the engine's own functions."""

import os
import re

ALIGN = 64


def _engine_constant(name, default):
    """A constant of engine/include/attn/sdpa.h when the converter runs from the
    source tree (so the estimate follows the engine's tiling), else `default`."""
    path = os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "engine",
                        "include", "attn", "sdpa.h")
    try:
        with open(path) as f:
            m = re.search(r"constexpr\s+int32_t\s+" + name + r"\s*=\s*(\d+)", f.read())
        return int(m.group(1)) if m else default
    except OSError:
        return default


SDPA_QUERY_TILE = _engine_constant("kSdpaQueryTile", 16)
SDPA_KEY_BLOCK = _engine_constant("kSdpaKeyBlock", 64)
# sizeof(attn::Model) on a 32-bit target (pointers 4 bytes): the loader's descriptor.
MODEL_DESCRIPTOR_BYTES_32 = 1312


def f32_bytes(n):
    return (4 * n + ALIGN - 1) // ALIGN * ALIGN


def sdpa_scratch(dk, dv):
    t = SDPA_QUERY_TILE
    return ALIGN + f32_bytes(t * dk) + f32_bytes(t * SDPA_KEY_BLOCK) + f32_bytes(t * dv) + \
        3 * f32_bytes(t)


def scratch_bytes(op, p, seq_q, seq_kv):
    if op == "mha":
        hd = p["embed_dim"] // p["num_heads"]
        return 2 * f32_bytes(seq_q * hd) + 2 * f32_bytes(seq_kv * hd) + sdpa_scratch(hd, hd)
    if op == "bahdanau":
        return ALIGN + 2 * f32_bytes(p["units"]) + f32_bytes(SDPA_KEY_BLOCK) + \
            f32_bytes(p["key_dim"])
    if op == "luong_general":
        return sdpa_scratch(p["key_dim"], p["key_dim"]) + f32_bytes(p["key_dim"])
    raise ValueError(op)


def io_bytes(op, p, batch, seq_q, seq_kv, itemsize=4):
    """Bytes of the op's inputs and outputs (the caller's activation buffers)."""
    if op == "mha":
        n = batch * (seq_q * p["embed_dim"] * 2 + seq_kv * (p["kdim"] + p["vdim"]))
    elif op == "bahdanau":
        n = batch * (p["query_dim"] + seq_kv * p["key_dim"] + p["key_dim"])
    else:
        n = batch * (p["query_dim"] + seq_kv * p["key_dim"] + p["key_dim"])
    return n * itemsize


def mha_s8_bytes(p, seq_q, seq_kv):
    """(scratch, channel multiplier storage) of mha_s8, an estimate: the int8 core's row
    buffers are approximated by 2 * align64(seq_kv) + align64(4 * head_dim)."""
    e, hd = p["embed_dim"], p["embed_dim"] // p["num_heads"]

    def a(n):
        return (n + ALIGN - 1) // ALIGN * ALIGN
    scratch = ALIGN + 2 * a(seq_q * e) + 2 * a(seq_kv * e) + 2 * a(seq_kv) + a(4 * hd)
    return scratch, 4 * e * 8
