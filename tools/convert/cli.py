"""attn-convert's command line."""
import argparse
import os
import sys

import numpy as np

from . import blob as blobfmt
from . import cost, header, quant, reference, sources
from .sources import ConvertError

DESCRIPTION = """\
Converts trained attention weights into an attn model blob (.attn) and/or a C++
header holding the same bytes, and prints a one-screen summary (parameter bytes,
scratch for a sequence length, estimated flash and RAM).

  attn-convert mha --from model.pt --heads 4 --out mha.attn --header mha.h
  attn-convert mha --from w.npz --heads 4 --dtype int8 --calibrate X.npy --out mha8.attn
  attn-convert bahdanau --from w.npz --out b.attn          (W1, b1, W2, b2, v[, bv])
  attn-convert luong-general --from w.npz --out l.attn     (W, b)
  attn-convert mha-decode --from llama_attn.pt --heads 8 --capacity 1024 \
      [--window W] [--rope-dim 64 --rope-theta 10000 --rope-style half] --out dec.attn
  attn-convert info model.attn [--seq N]

Exit status 0 on success, 2 on any input error (the message names the file and
the array), 1 on an internal error."""


def add_common(p, calib_help):
    p.add_argument("--from", dest="src", required=True, metavar="FILE",
                   help="weights: .npz, or a PyTorch .pt (state_dict or module; needs torch)")
    p.add_argument("--dtype", choices=["f32", "int8"], default="f32",
                   help="f32 (default) or int8 post-training quantization (needs --calibrate)")
    p.add_argument("--calibrate", metavar="X.npy", help=calib_help)
    p.add_argument("--percentile", type=float, metavar="P",
                   help="int8: activation ranges from the P-th / (100-P)-th percentiles of "
                        "the calibration data instead of min/max (e.g. 99.99)")
    p.add_argument("--out", metavar="MODEL.attn", help="write the blob here")
    p.add_argument("--header", metavar="MODEL.h", help="write a C++ header with the blob")
    p.add_argument("--name", help="model name stored in the blob and C++ namespace of the "
                                  "header (default: from --out / --header)")
    p.add_argument("--seq", type=int, default=64, metavar="N",
                   help="sequence length for the summary's scratch and RAM figures (default 64)")
    p.add_argument("--batch", type=int, default=1, metavar="B",
                   help="batch size for the summary's RAM figure (default 1)")
    p.add_argument("--quiet", action="store_true", help="no summary")
    add_tools(p)


def add_tools(p):
    p.add_argument("--tools", metavar="DIR",
                   help="directory of the build's attn-scratch-tile8/32 helpers, which give "
                        "the summary's scratch figures (default: beside `attn` on PATH, "
                        "else build/host/tools)")


def add_decode_parser(sub):
    d = sub.add_parser("mha-decode", help="a decoder layer (Llama-style attention) with its "
                                          "KV cache configuration",
                       description="Llama-style attention state_dict names: q_proj.weight [E,E], "
                                   "k_proj.weight and v_proj.weight [kv_heads*head_dim, E] (kv "
                                   "heads inferred from the shapes), o_proj.weight [E,E], "
                                   "optional .bias of each; or nn.MultiheadAttention names "
                                   "(kv heads = heads). A prefix (e.g. "
                                   "'model.layers.0.self_attn.') is found automatically when the "
                                   "file holds one such layer. The blob also holds the cache's "
                                   "capacity or window and the rotary configuration; `attn run "
                                   "mha-decode --model` decodes with it.")
    add_common(d, "int8: calibration token sequences [N, T, E] or [T, E], decoded causally "
                  "(with the window) as the device will")
    d.set_defaults(seq=1)
    d.add_argument("--heads", type=int, required=True, metavar="H", help="number of query heads")
    d.add_argument("--kv-heads", type=int, metavar="G", help="check: kv heads (from the shapes)")
    d.add_argument("--prefix", help="state_dict key prefix of the attention layer")
    d.add_argument("--capacity", type=int, metavar="C",
                   help="linear cache: positions it holds (a longer stream is an error)")
    d.add_argument("--window", type=int, metavar="W",
                   help="sliding window: each token sees the last W positions (a ring of W "
                        "slots; --capacity, if given, must be W)")
    d.add_argument("--rope-dim", type=int, default=0, metavar="D",
                   help="rotary dims per head (even, <= head_dim; default 0 = no RoPE)")
    d.add_argument("--rope-theta", type=float, metavar="THETA",
                   help="rotary base (default 10000; needs --rope-dim)")
    d.add_argument("--rope-style", choices=["half", "interleaved"],
                   help="half (Llama/NeoX, default) or interleaved (GPT-J); needs --rope-dim")


def decode_config(args, params):
    """The cache and rotary hyper-parameters of mha-decode, checked."""
    hd = params["embed_dim"] // params["num_heads"]
    if args.window is not None:
        if args.window <= 0:
            raise ConvertError("--window must be > 0")
        if args.capacity is not None and args.capacity != args.window:
            raise ConvertError(f"--capacity {args.capacity} with --window {args.window}: a "
                               "sliding-window cache holds exactly the window (give one)")
        capacity, window = args.window, 1
    elif args.capacity is not None:
        if args.capacity <= 0:
            raise ConvertError("--capacity must be > 0")
        capacity, window = args.capacity, 0
    else:
        raise ConvertError("mha-decode needs --capacity C (a linear cache) or --window W")
    d = args.rope_dim
    if d == 0 and (args.rope_theta is not None or args.rope_style is not None):
        raise ConvertError("--rope-theta and --rope-style need --rope-dim D")
    if d < 0 or d % 2 or d > hd:
        raise ConvertError(f"--rope-dim {d}: rotary dims must be even and <= head_dim {hd}")
    theta = args.rope_theta if args.rope_theta is not None else 10000.0
    if d and not (1.0 < np.float32(theta) < np.inf):
        raise ConvertError(f"--rope-theta {theta}: must be finite and > 1")
    params.update(capacity=capacity, window=window, rope_dims=d,
                  rope_style=1 if args.rope_style == "interleaved" else 0,
                  rope_theta=float(np.float32(theta)) if d else 0.0)
    return params


def rope_kwargs(params):
    """reference.mha_decode's rotary arguments from the blob parameters."""
    if not params["rope_dims"]:
        return {}
    return dict(rope_dims=params["rope_dims"], rope_theta=params["rope_theta"],
                rope_style="interleaved" if params["rope_style"] == 1 else "half")


def quantize_decode(args, w, params):
    """int8 decoder: calibration, quantization, simulated error. With RoPE the q and k
    codes hold the projections and their rotations (the int8 op rotates the codes in
    place, same scale and zero point): both are calibrated, and the simulation rounds
    the rotated values back to those parameters."""
    if params["capacity"] > 4095:
        raise ConvertError(f"--dtype int8: capacity {params['capacity']} above the int8 "
                           "attention's 4095 keys")
    x = sources.load_npy(args.calibrate, "calibration tokens", params["embed_dim"], (2, 3))
    x = x[None] if x.ndim == 2 else x
    h, g, win = params["num_heads"], params["num_kv_heads"], params["capacity"] * params["window"]
    rope = rope_kwargs(params)
    runs = [reference.mha_decode(w, h, g, seq, win, **rope) for seq in x]
    calib = {n: np.concatenate([r[n].reshape(-1) for r in runs]) for n in runs[0]}
    for n in ("q", "k"):
        if n + "_rot" in calib:
            calib[n] = np.concatenate([calib[n], calib.pop(n + "_rot")])
    tensors, acts, qw = quant.quantize_mha_decode(w, calib, args.percentile)
    sim = np.concatenate([quant.simulate_mha_decode(qw, acts, h, g, seq, win, **rope).reshape(-1)
                          for seq in x])
    tensors += quant.act_tensors(acts, blobfmt.ACTS["mha_decode"])
    error = quant.error_stats(sim, calib["out"])
    error["n"] = x.shape[0]
    return tensors, error


def parser():
    ap = argparse.ArgumentParser(prog="attn-convert", description=DESCRIPTION,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", metavar="{mha,mha-decode,bahdanau,luong-general,info}")
    sub.required = True
    m = sub.add_parser("mha", help="PyTorch nn.MultiheadAttention weights",
                       description="PyTorch nn.MultiheadAttention state_dict names: "
                                   "in_proj_weight [3E,E] (or q/k/v_proj_weight when kdim/vdim "
                                   "differ), in_proj_bias [3E], out_proj.weight [E,E], "
                                   "out_proj.bias [E]. A prefix (e.g. 'encoder.attn.') is found "
                                   "automatically when the file holds one such module.")
    add_common(m, "int8: calibration queries [N, S, E] (also the keys/values unless given)")
    m.add_argument("--heads", type=int, required=True, metavar="H", help="number of heads")
    m.add_argument("--kdim", type=int, help="check: key dimension (read from the weights)")
    m.add_argument("--vdim", type=int, help="check: value dimension (read from the weights)")
    m.add_argument("--prefix", help="state_dict key prefix of the attention module")
    m.add_argument("--calibrate-key", metavar="K.npy", help="int8: calibration keys [N, S, kdim]")
    m.add_argument("--calibrate-value", metavar="V.npy",
                   help="int8: calibration values [N, S, vdim] (default: the keys)")
    m.add_argument("--calibrate-causal", action="store_true",
                   help="int8: calibrate over both unmasked and causal (look-ahead masked) "
                        "runs; use it when the model runs with a causal mask (masked "
                        "attention is peakier and needs wider activation ranges)")
    m.add_argument("--seq-kv", type=int, metavar="N", help="key length for the summary "
                                                           "(default --seq)")
    add_decode_parser(sub)
    b = sub.add_parser("bahdanau", help="Keras-style Bahdanau (additive) attention",
                       description="NumPy .npz (or .pt) arrays: W1 [query_dim, units], b1 "
                                   "[units], W2 [key_dim, units], b2 [units], v [units] or "
                                   "[units, 1], optional bv [1] (Keras Dense layout, x @ W + b).")
    add_common(b, "int8: calibration queries [N, query_dim] (needs --calibrate-keys)")
    b.add_argument("--calibrate-keys", metavar="H.npy", help="int8: calibration keys "
                                                             "[N, T, key_dim]")
    lg = sub.add_parser("luong-general", help="Keras-style Luong general attention",
                        description="NumPy .npz (or .pt) arrays: W [key_dim, query_dim], "
                                    "b [query_dim] (Dense on the keys, x @ W + b).")
    add_common(lg, "int8: calibration queries [N, query_dim] (needs --calibrate-keys)")
    lg.add_argument("--calibrate-keys", metavar="H.npy", help="int8: calibration keys "
                                                              "[N, T, key_dim]")
    i = sub.add_parser("info", help="summary of an existing blob")
    i.add_argument("model", help="a .attn blob")
    i.add_argument("--seq", type=int, metavar="N",
                   help="sequence length (mha-decode: new tokens per call); default 64 (1)")
    i.add_argument("--batch", type=int, default=1, metavar="B")
    add_tools(i)
    return ap


def fmt_bytes(n):
    return f"{n:,} B" + (f" ({n / 1024:.1f} KiB)" if n >= 1024 else "")


def decode_memory_summary(info, tools, tokens, w):
    """A decoder layer: cache bytes per element and scratch per call, from the engine."""
    p = info.params
    q8 = info.dtype == "int8"
    kind = "sliding window of" if p["window"] else "linear,"
    w(f"  KV cache ({kind} {p['capacity']} positions, {p['num_kv_heads']} kv heads):\n")
    if q8:
        f = cost.engine_figures(tools, 32, info.op, "int8", p, 1, tokens, p["capacity"])
        w(f"    cache bytes: int8 {fmt_bytes(f['cache_bytes'])}\n")
        w(f"    scratch on this host for {tokens} new token(s) per call: "
          f"{fmt_bytes(f['scratch_bytes'])} + multipliers and parameters "
          f"{fmt_bytes(f['extra_bytes'])}\n")
        return
    f = cost.engine_figures(tools, 32, info.op, "f32", p, 1, tokens, p["capacity"])
    w(f"    cache bytes: f32 {fmt_bytes(f['cache_bytes'])}, f16 "
      f"{fmt_bytes(f['cache_f16_bytes'])}\n")
    for tile, what in cost.TILES:
        f = cost.engine_figures(tools, tile, info.op, "f32", p, 1, tokens, p["capacity"])
        w(f"    scratch for {tokens} new token(s) per call, query tile {tile} ({what}): "
          f"f32 cache {fmt_bytes(f['scratch_bytes'])}, f16 cache "
          f"{fmt_bytes(f['scratch_f16_bytes'])}\n")


def memory_summary(info, tools, sq, skv, batch, w):
    """Scratch and RAM lines, every engine figure from the scratch helpers (cost.py)."""
    p = info.params
    q8 = info.dtype == "int8"
    if info.op == "mha_decode":
        decode_memory_summary(info, tools, sq, w)
        return
    seqs = f"seq_q {sq}, seq_kv {skv}" if info.op == "mha" else f"seq {skv}"
    io = cost.io_bytes(info.op, p, batch, sq, skv, itemsize=1 if q8 else 4)
    w(f"  {'int8' if q8 else 'float'} inputs + outputs (batch {batch}, {seqs}): "
      f"{fmt_bytes(io)}\n")
    if q8:
        # The int8 figures do not depend on the float tile; they are this host's (its
        # pointer size and int8 query tile). A target's own: the header's kScratchBytes.
        f = cost.engine_figures(tools, 32, info.op, "int8", p, batch, sq, skv)
        w(f"  scratch on this host (int8 query tile {f['s8_query_tile']}): "
          f"{fmt_bytes(f['scratch_bytes'])} + multipliers and parameters "
          f"{fmt_bytes(f['extra_bytes'])}; a target's own: the header's kScratchBytes\n")
        ram = f["scratch_bytes"] + f["extra_bytes"] + io + f["model_bytes"]
        w(f"  RAM estimate: {fmt_bytes(ram)} = scratch + multipliers + inputs/outputs + "
          f"attn::Model ({f['model_bytes']:,} B here); flash: blob + engine code\n")
        return
    w(f"  scratch, from the engine's scratch functions:\n")
    model_bytes = 0
    for tile, what in cost.TILES:
        f = cost.engine_figures(tools, tile, info.op, "f32", p, batch, sq, skv)
        model_bytes = f["model_bytes"]
        w(f"    query tile {tile} ({what}): {fmt_bytes(f['scratch_bytes'])}, RAM estimate "
          f"{fmt_bytes(f['scratch_bytes'] + io + model_bytes)}\n")
    w(f"  RAM estimate = scratch + inputs/outputs + attn::Model ({model_bytes:,} B here, "
      "less on 32-bit targets); flash: blob + engine code\n")


def summary(info, source, seq, seq_kv, batch, error=None, out=sys.stdout, tools=None):
    p = info.params
    w = out.write
    w(f"{info.op} {info.dtype} model '{info.name}' from {source}\n")
    w("  " + ", ".join(f"{k} {v}" for k, v in p.items()))
    if info.op in ("mha", "mha_decode"):
        w(f" (head_dim {p['embed_dim'] // p['num_heads']})")
    w("\n")
    param_bytes = 0
    for tname, tdt, shape, off, nbytes in info.layout:
        w(f"  {tname:<22} {tdt:<5} {str(list(shape)):<12} @ {off:>7}  {nbytes:>9,} B\n")
        param_bytes += nbytes
    n_params = sum(int(np.prod(s)) for _, _, s, _, _ in info.layout)
    w(f"  parameters: {n_params:,} values, {fmt_bytes(param_bytes)}\n")
    w(f"  blob / flash for weights: {fmt_bytes(info.total)} "
      f"(header, table and alignment: {info.total - param_bytes:,} B)\n")
    sq = seq
    skv = seq_kv or seq
    try:
        memory_summary(info, tools, sq, skv, batch, w)
    except cost.FiguresUnavailable as e:
        w(f"  scratch and RAM: the engine's figures are unavailable: {e}\n")
    if info.dtype == "int8":
        acts = info.acts()
        w("  activations (scale, zero point): " +
          ", ".join(f"{k} ({s:.4g}, {z})" for k, (s, z) in acts.items()) + "\n")
    if error is not None:
        w(f"  int8 vs float on the calibration inputs ({error['n']} samples, simulated "
          f"int8 op sequence): max abs {error['max_abs']:.4g}, mean abs "
          f"{error['mean_abs']:.4g}, cosine {error['cosine']:.6f} "
          f"(float output max |y| {error['ref_max_abs']:.4g})\n")


def default_name(args):
    for f in (args.out, args.header):
        if f:
            return os.path.splitext(os.path.basename(f))[0]
    return "model"


def write_file(path, data, binary):
    tmp = path + ".tmp"
    try:
        with open(tmp, "wb" if binary else "w") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError as e:
        raise ConvertError(f"{path}: cannot write ({e.strerror})")


def calib_mha(args, params):
    e, kd, vd = params["embed_dim"], params["kdim"], params["vdim"]
    q = sources.load_npy(args.calibrate, "calibration queries", e, (2, 3))
    if args.calibrate_key:
        k = sources.load_npy(args.calibrate_key, "calibration keys", kd, (2, 3))
    elif kd == e:
        k = q
    else:
        raise ConvertError(f"kdim {kd} differs from embed_dim {e}: give --calibrate-key")
    if args.calibrate_value:
        v = sources.load_npy(args.calibrate_value, "calibration values", vd, (2, 3))
    elif vd == k.shape[-1]:
        v = k
    else:
        raise ConvertError(f"vdim {vd} differs from kdim: give --calibrate-value")
    q, k, v = (a[None] if a.ndim == 2 else a for a in (q, k, v))
    if k.shape[:2] != v.shape[:2] or k.shape[0] != q.shape[0]:
        raise ConvertError("calibration query/key/value batch or sequence sizes disagree")
    return q, k, v


def calib_qk(args, params):
    if not args.calibrate_keys:
        raise ConvertError(f"--dtype int8 needs --calibrate-keys H.npy as well")
    q = sources.load_npy(args.calibrate, "calibration queries", params["query_dim"], (1, 2))
    h = sources.load_npy(args.calibrate_keys, "calibration keys", params["key_dim"], (2, 3))
    q = q[None] if q.ndim == 1 else q
    h = h[None] if h.ndim == 2 else h
    if q.shape[0] != h.shape[0]:
        raise ConvertError(f"calibration queries ({q.shape[0]}) and keys ({h.shape[0]}) have "
                           "different batch sizes")
    return q, h


def convert(args):
    op = {"mha": "mha", "bahdanau": "bahdanau", "luong-general": "luong_general",
          "mha-decode": "mha_decode"}[args.cmd]
    arrays = sources.load_arrays(args.src)
    if op == "mha_decode":
        w, params = sources.decode_weights(arrays, args.src, args.heads, args.prefix,
                                           args.kv_heads)
        params = decode_config(args, params)
    elif op == "mha":
        w, params = sources.mha_weights(arrays, args.src, args.heads, args.prefix, args.kdim,
                                        args.vdim)
    elif op == "bahdanau":
        w, params = sources.bahdanau_weights(arrays, args.src)
    else:
        w, params = sources.luong_general_weights(arrays, args.src)
    if args.seq <= 0 or args.batch <= 0:
        raise ConvertError("--seq and --batch must be positive")
    if args.percentile is not None and not 50.0 < args.percentile <= 100.0:
        raise ConvertError("--percentile must be in (50, 100]")
    error = None
    if args.dtype == "f32":
        if args.calibrate:
            raise ConvertError("--calibrate is only used with --dtype int8")
        order = {"mha": ["in_proj_weight", "q_proj_weight", "k_proj_weight", "v_proj_weight",
                         "in_proj_bias", "out_proj.weight", "out_proj.bias"],
                 "mha_decode": ["q_proj_weight", "k_proj_weight", "v_proj_weight",
                                "q_proj_bias", "k_proj_bias", "v_proj_bias", "out_proj.weight",
                                "out_proj.bias"],
                 "bahdanau": ["W1", "b1", "W2", "b2", "v", "bv"],
                 "luong_general": ["W", "b"]}[op]
        tensors = [(n, "f32", w[n]) for n in order if n in w]
    else:
        if not args.calibrate:
            raise ConvertError("--dtype int8 needs --calibrate X.npy (sample inputs)")
        if op == "mha_decode":
            tensors, error = quantize_decode(args, w, params)
        elif op == "mha":
            q, k, v = calib_mha(args, params)
            h = params["num_heads"]
            masks = [None]
            if args.calibrate_causal:
                sq, skv = q.shape[1], k.shape[1]
                i, j = np.arange(sq)[:, None], np.arange(skv)[None, :]
                masks.append(np.where(j > i + (skv - sq), -np.inf, 0.0))
            runs = [reference.mha(w, h, q, k, v, mask) for mask in masks]
            calib = {n: np.concatenate([r[n].reshape(-1) for r in runs]) for n in runs[0]}
            tensors, acts, qw = quant.quantize_mha(w, h, calib, args.percentile)
            sim = np.concatenate([quant.simulate_mha(qw, acts, h, q, k, v, mask).reshape(-1)
                                  for mask in masks])
        elif op == "bahdanau":
            q, h = calib_qk(args, params)
            calib = reference.bahdanau(w, q, h)
            tensors, acts, qw = quant.quantize_bahdanau(w, calib, args.percentile)
            sim = quant.simulate_bahdanau(qw, acts, q, h)
        else:
            q, h = calib_qk(args, params)
            calib = reference.luong_general(w, q, h)
            tensors, acts, qw = quant.quantize_luong_general(w, calib, args.percentile)
            sim = quant.simulate_luong_general(qw, acts, q, h)
        if op != "mha_decode":
            tensors += quant.act_tensors(acts, blobfmt.ACTS[op])
            error = quant.error_stats(sim, calib["out"])
            error["n"] = q.shape[0]
    name = args.name or default_name(args)
    data = blobfmt.write_blob(op, args.dtype, params, tensors, name)
    info = blobfmt.read_blob(data)  # round trip: what we wrote parses
    if args.out:
        write_file(args.out, data, True)
    if args.header:
        ns = header.cxx_ident(name)
        write_file(args.header, header.make_header(data, info, ns, os.path.basename(args.src),
                                                   args.seq), False)
    if not args.quiet:
        summary(info, args.src, args.seq, getattr(args, "seq_kv", None), args.batch, error,
                tools=args.tools)
        for f, what in ((args.out, "blob"), (args.header, "header")):
            if f:
                print(f"  wrote {what}: {f}")
        if not args.out and not args.header:
            print("  (nothing written: give --out and/or --header)")


def info_cmd(args):
    if not os.path.exists(args.model):
        raise ConvertError(f"{args.model}: no such file")
    with open(args.model, "rb") as f:
        data = f.read()
    try:
        info = blobfmt.read_blob(data)
    except blobfmt.BlobError as e:
        raise ConvertError(f"{args.model}: {e}")
    seq = args.seq if args.seq is not None else (1 if info.op == "mha_decode" else 64)
    summary(info, args.model, seq, None, args.batch, tools=args.tools)


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        if args.cmd == "info":
            info_cmd(args)
        else:
            convert(args)
    except ConvertError as e:
        print(f"attn-convert: error: {e}", file=sys.stderr)
        return 2
    except blobfmt.BlobError as e:
        print(f"attn-convert: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. piped into head: the files are already written
        sys.stderr.close()
        return 0
    return 0
