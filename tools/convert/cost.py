"""RAM figures for the summary. Scratch and descriptor sizes come from the engine
itself: the build's attn-scratch-tile8 / attn-scratch-tile32 helpers
(tools/convert/scratch_figures.cpp) evaluate the engine's constexpr scratch
functions for the two float query tiles; nothing here re-derives a formula."""

import json
import os
import shutil
import subprocess

from .blob import PARAMS

# Float query tiles the engine is built with: ref kernels (Cortex-M) and SIMD.
TILES = ((8, "ref kernels, as on Cortex-M"), (32, "SIMD kernels"))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))


class FiguresUnavailable(Exception):
    pass


def tools_dirs(explicit):
    """Where to look for the helpers: --tools, beside an `attn` on PATH, build/host/tools."""
    if explicit:
        return [explicit]
    dirs = []
    attn = shutil.which("attn")
    if attn:
        dirs.append(os.path.dirname(os.path.realpath(attn)))
    dirs.append(os.path.join(ROOT, "build", "host", "tools"))
    return dirs


def helper(tools, tile):
    for d in tools_dirs(tools):
        path = os.path.join(d, f"attn-scratch-tile{tile}")
        if os.access(path, os.X_OK):
            return path
    raise FiguresUnavailable(
        f"attn-scratch-tile{tile} not found (in {', '.join(tools_dirs(tools))}); build it with "
        "`cmake --build --preset host --target attn_scratch_tile8 attn_scratch_tile32` or give "
        "--tools DIR")


def engine_figures(tools, tile, op, dtype, params, batch, seq_q, seq_kv):
    """The helper's JSON for one tile: scratch_bytes, sdpa_scratch_bytes, extra_bytes,
    model_bytes, query_tile, s8_query_tile (mha_decode: also cache_bytes and, float,
    cache_f16_bytes and scratch_f16_bytes)."""
    if op == "mha_decode":  # seq_q: new tokens per call, seq_kv: the capacity
        p = [int(params[k]) for k in ("embed_dim", "num_heads", "num_kv_heads", "rope_dims")]
    else:
        p = [int(params[k]) for k in PARAMS[op]] + [0] * (4 - len(PARAMS[op]))
    args = [helper(tools, tile), op, dtype, str(batch), str(seq_q), str(seq_kv)] + \
        [str(v) for v in p]
    try:
        out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
        fig = json.loads(out)
    except (OSError, subprocess.CalledProcessError, ValueError) as e:
        raise FiguresUnavailable(f"{args[0]} failed: {e}")
    if fig.get("query_tile") != tile:
        raise FiguresUnavailable(f"{args[0]} reports query tile {fig.get('query_tile')}")
    return fig


def io_bytes(op, p, batch, seq_q, seq_kv, itemsize=4):
    """Bytes of the op's inputs and outputs (the caller's activation buffers)."""
    if op == "mha_decode":
        n = seq_q * p["embed_dim"] * 2
    elif op == "mha":
        n = batch * (seq_q * p["embed_dim"] * 2 + seq_kv * (p["kdim"] + p["vdim"]))
    else:
        n = batch * (p["query_dim"] + seq_kv * p["key_dim"] + p["key_dim"])
    return n * itemsize
