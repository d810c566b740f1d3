#!/usr/bin/python3
"""tools/attn-convert mha-decode and the mha_decode blob through `attn`.

    convert_decode_test.py ATTN_CLI

1. A Llama-style attention layer (a PyTorch module's state_dict under
   'model.layers.0.self_attn.', 4 heads, 2 kv heads, q/k/v biases) round trips:
   the blob holds the same float32 arrays bit for bit and kv heads 2 inferred
   from the shapes; `attn run mha-decode --model` (chunks 1, 5, all) equals the
   same run from the .npy weights bit for bit and the float64 NumPy decoder
   within 1e-5 * (1 + |ref|); `attn info` prints the configuration and the cache
   bytes 64 + 2 * align64(capacity * kv_heads * head_dim * element bytes).
2. int8 with calibration (window 16, 48 test tokens: the ring wraps): chunks 1,
   3 and all give the same int8 codes; they are within 3 output steps of the
   converter's quantize-dequantize simulation (measured: 1), and within 4% of
   max |y| (max abs) with cosine >= 0.999 of the float decoder (measured: 1.9%,
   0.99948);
   --raw-int8 gives the same codes. With RoPE (interleaved, 6 of 8 dims): the
   same chunk and simulation checks, the same bound against the float layer,
   and within 1.6% of the output range (mha_decode_s8.h's bound) of float
   decoding of the same dequantized layer and input.
3. The generated C++ header compiles, its kCacheBytes and kScratchBytes are
   what `attn info` prints, and its kBlob is the .attn file's bytes.
4. Bad converter inputs and hand-patched blobs (valid CRC, bad
   hyper-parameters) exit 2 with one line.
Exit 0 pass, 1 fail, 77 skipped (NumPy or PyTorch missing).
"""
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from missing_tool import skip  # noqa: E402

try:
    import numpy as np
except ImportError:
    skip("convert_decode_test", "NumPy missing")
try:
    import torch
except ImportError:
    skip("convert_decode_test", "PyTorch missing")
from convert import blob as blobfmt  # noqa: E402
from convert import quant, reference  # noqa: E402

CONVERT = os.path.join(ROOT, "tools", "attn-convert")
ATTN = os.path.abspath(sys.argv[1])
E, H, G = 32, 4, 2
HD = E // H
PREFIX = "model.layers.0.self_attn."
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(cmd, *args, cwd):
    exe = [sys.executable, CONVERT] if cmd == "convert" else [ATTN]
    p = subprocess.run(exe + list(args), cwd=cwd, capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def expect_error(cwd, cmd, args, needle):
    rc, _, err = run(cmd, *args, cwd=cwd)
    check(rc == 2 and needle in err and err.count("\n") == 1,
          f"{cmd} {' '.join(args)}: rc {rc}, stderr {err.strip()!r}, wanted {needle!r}")


class Attention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.q_proj = torch.nn.Linear(E, E, bias=True)
        self.k_proj = torch.nn.Linear(E, G * HD, bias=True)
        self.v_proj = torch.nn.Linear(E, G * HD, bias=True)
        self.o_proj = torch.nn.Linear(E, E, bias=False)


def llama_state_dict(d):
    torch.manual_seed(7)
    layer = torch.nn.Module()
    layer.self_attn = Attention()
    model = torch.nn.Module()
    model.layers = torch.nn.ModuleList([layer])
    outer = torch.nn.Module()
    outer.model = model
    sd = {k: v.detach().numpy() for k, v in outer.state_dict().items()}
    torch.save(outer.state_dict(), os.path.join(d, "llama.pt"))
    # The same layer as .npy files for `attn run mha-decode --weights`.
    os.makedirs(os.path.join(d, "w"))
    for k, v in sd.items():
        np.save(os.path.join(d, "w", k[len(PREFIX):] + ".npy"), v)
    names = {"q_proj.weight": "q_proj_weight", "k_proj.weight": "k_proj_weight",
             "v_proj.weight": "v_proj_weight", "o_proj.weight": "out_proj.weight",
             "q_proj.bias": "q_proj_bias", "k_proj.bias": "k_proj_bias",
             "v_proj.bias": "v_proj_bias"}
    return {names[k[len(PREFIX):]]: v for k, v in sd.items()}


def cache_bytes(capacity, item):
    block = (capacity * G * HD * item + 63) // 64 * 64
    return 64 + 2 * block


def float_round_trip(d, w, x):
    rc, out, err = run("convert", "mha-decode", "--from", "llama.pt", "--heads", str(H),
                       "--capacity", "64", "--rope-dim", "6", "--rope-theta", "500",
                       "--rope-style", "interleaved", "--out", "dec.attn", cwd=d)
    check(rc == 0, f"convert f32: rc {rc} {err.strip()}")
    if rc != 0:
        return
    b = blobfmt.read_blob(open(os.path.join(d, "dec.attn"), "rb").read())
    check(b.op == "mha_decode" and b.params["num_kv_heads"] == G and
          b.params["capacity"] == 64 and b.params["rope_dims"] == 6 and
          b.params["rope_style"] == 1 and b.params["rope_theta"] == 500.0,
          f"blob params {b.params}")
    for name, a in w.items():
        got = b.tensors.get(name)
        check(got is not None and got.dtype == np.float32 and np.array_equal(got, a),
              f"blob tensor {name} differs from the state_dict")
    check("out_proj.bias" not in b.tensors, "o_proj without bias gained one")
    ref = reference.mha_decode(w, H, G, x, rope_dims=6, rope_style="interleaved",
                               rope_theta=500.0)["out"]
    for chunk in ("1", "5", str(len(x))):
        rc, _, err = run("attn", "run", "mha-decode", "--model", "dec.attn", "--tokens", "x.npy",
                         "--chunk", chunk, "--out", "m.npy", cwd=d)
        rc2, _, err2 = run("attn", "run", "mha-decode", "--weights", "w", "--heads", str(H),
                           "--tokens", "x.npy", "--chunk", chunk, "--capacity", "64",
                           "--rope-dim", "6", "--rope-theta", "500", "--rope-style",
                           "interleaved", "--out", "n.npy", cwd=d)
        check(rc == 0 and rc2 == 0, f"run chunk {chunk}: {err.strip()} {err2.strip()}")
        if rc == 0 and rc2 == 0:
            got = np.load(os.path.join(d, "m.npy"))
            check(np.array_equal(got, np.load(os.path.join(d, "n.npy"))),
                  f"chunk {chunk}: --model and --weights differ")
            e = float(np.max(np.abs(got - ref) / (1 + np.abs(ref))))
            check(e <= 1e-5, f"chunk {chunk}: float error {e:.3g} > 1e-5")
            # A packed cache (K in 32-token transposed blocks): the same bound.
            rc, _, err = run("attn", "run", "mha-decode", "--model", "dec.attn", "--tokens",
                             "x.npy", "--chunk", chunk, "--cache-packed", "--out", "p.npy", cwd=d)
            check(rc == 0, f"--cache-packed chunk {chunk}: {err.strip()}")
            if rc == 0:
                e = float(np.max(np.abs(np.load(os.path.join(d, "p.npy")) - ref) /
                                 (1 + np.abs(ref))))
                check(e <= 1e-5, f"--cache-packed chunk {chunk}: float error {e:.3g} > 1e-5")
    rc, out, err = run("attn", "info", "dec.attn", cwd=d)
    for needle in ("mha_decode f32", "num_heads 4 (head_dim 8), num_kv_heads 2",
                   "cache: linear, 64 positions", "rope: 6 dims, interleaved, theta 500",
                   f"cache bytes: f32 {cache_bytes(64, 4)}, f16 {cache_bytes(64, 2)}",
                   "1 new tokens per call"):
        check(rc == 0 and needle in out, f"attn info lacks {needle!r}: {out}{err}")


def decode_chunks(d, blob, tokens, what):
    """x.npy decoded by `blob` in chunks of 1, 3 and all tokens: the chunk-1 output
    when every run succeeds (checked equal), else None."""
    outs = {}
    for chunk in ("1", "3", str(tokens)):
        out = f"{blob}.{chunk}.npy"
        rc, _, err = run("attn", "run", "mha-decode", "--model", blob, "--tokens", "x.npy",
                         "--chunk", chunk, "--out", out, cwd=d)
        check(rc == 0, f"{what} chunk {chunk}: {err.strip()}")
        if rc == 0:
            outs[chunk] = np.load(os.path.join(d, out))
    if len(outs) != 3:
        return None
    check(all(np.array_equal(outs["1"], o) for o in outs.values()), f"{what} chunkings differ")
    return outs["1"]


def int8_blob(d, w, x, blob, what, convert_flags, **rope):
    """Converts llama.pt to the int8 `blob` (window 16, calib.npy, convert_flags
    added), decodes x.npy with it in chunks, and checks it within 3 output steps
    of quant's simulation and near the float layer (max abs <= 4 % of max |y|,
    cosine >= 0.999). Returns the chunk-1 output, the blob's dequantized layer
    and activations, and the figures (steps, rel, cos); None when a run fails."""
    rc, _, err = run("convert", "mha-decode", "--from", "llama.pt", "--heads", str(H),
                     "--window", "16", *convert_flags, "--dtype", "int8", "--calibrate",
                     "calib.npy", "--out", blob, cwd=d)
    check(rc == 0, f"convert {what}: rc {rc} {err.strip()}")
    if rc != 0:
        return None
    first = decode_chunks(d, blob, len(x), what)
    if first is None:
        return None
    qw, acts = blob_layer(os.path.join(d, blob))
    sim = quant.simulate_mha_decode(qw, acts, H, G, x, 16, **rope)
    steps = np.max(np.abs(first - sim)) / acts["out"][0]
    check(steps <= 3.01, f"{what} vs simulation: {steps:.2f} output steps > 3")
    ref = reference.mha_decode(w, H, G, x, window=16, **rope)["out"]
    rel = np.max(np.abs(first - ref)) / np.max(np.abs(ref))
    cos = float(np.sum(first * ref) / (np.linalg.norm(first) * np.linalg.norm(ref)))
    check(rel <= 0.04 and cos >= 0.999, f"{what} vs float: {rel:.4f} of max |y|, cosine {cos:.5f}")
    return first, qw, acts, (steps, rel, cos)


def int8_case(d, w, x):
    rng = np.random.default_rng(3)
    np.save(os.path.join(d, "calib.npy"), rng.normal(size=(4, 40, E)).astype(np.float32))
    got = int8_blob(d, w, x, "dec8.attn", "int8", [])
    if got is None:
        return
    first, _, acts, (steps, rel, cos) = got
    print(f"int8 vs float: max abs {rel:.4f} of max |y|, cosine {cos:.5f}, "
          f"vs simulation {steps:.2f} steps")
    s, z = acts["input"]
    codes = np.clip(quant.round_away(x.astype(np.float64) / s) + z, -128, 127).astype(np.int8)
    np.save(os.path.join(d, "xq.npy"), codes)
    rc, _, err = run("attn", "run", "mha-decode", "--model", "dec8.attn", "--raw-int8",
                     "--tokens", "xq.npy", "--chunk", "4", "--out", "raw.npy", cwd=d)
    check(rc == 0, f"--raw-int8: {err.strip()}")
    if rc == 0:
        so, zo = acts["out"]
        raw = np.load(os.path.join(d, "raw.npy"))
        check(raw.dtype == np.int8 and np.array_equal(
            (so * (raw.astype(np.float32) - zo)).astype(np.float32), first),
            "--raw-int8 codes differ from the float run")
        # A packed cache (K/V also in the tile kernels' layouts): the same codes.
        for chunk in ("1", "5"):
            rc, _, err = run("attn", "run", "mha-decode", "--model", "dec8.attn", "--raw-int8",
                             "--cache-packed", "--tokens", "xq.npy", "--chunk", chunk,
                             "--out", "rawp.npy", cwd=d)
            check(rc == 0 and np.array_equal(np.load(os.path.join(d, "rawp.npy")), raw),
                  f"--cache-packed chunk {chunk}: {err.strip()}")
    rc, out, _ = run("attn", "info", "dec8.attn", cwd=d)
    # The host build's int8 core is query-tiled: the packed section is
    # G * 16 slots * (round4(hd) + round16(hd) + 4) bytes.
    packed = cache_bytes(16, 1) + G * 16 * ((HD + 3) // 4 * 4 + (HD + 15) // 16 * 16 + 4)
    check(rc == 0 and f"cache bytes: int8 {cache_bytes(16, 1)} (packed, --cache-packed: "
          f"{packed})" in out and
          "cache: sliding window, 16 positions" in out and "input (" in out,
          f"attn info int8: {out}")
    expect_error(d, "attn", ["run", "mha-decode", "--model", "dec8.attn", "--tokens", "x.npy",
                             "--cache-dtype", "f16", "--out", "bad.npy"], "int8 cache")


def blob_layer(path):
    """An int8 blob's dequantized weights (by reference.mha_decode name) and activations."""
    b = blobfmt.read_blob(open(path, "rb").read())
    acts = b.acts()
    qw = {}
    for wname, bname, inp in quant.DECODE_LAYERS:
        s = b.tensors[wname.replace("weight", "weight_scale")]
        qw[wname] = quant.dq_weight(b.tensors[wname], s, 0)
        if bname in b.tensors:
            qw[bname] = b.tensors[bname].astype(np.float64) * (
                np.float32(acts[inp][0]) * s).astype(np.float64)
    return qw, acts


def int8_rope_case(d, w, x):
    """int8 with RoPE (interleaved, 6 of 8 dims, theta 500; window 16: the ring wraps):
    the bounds of the int8 case above, and within 1.6 % of the output range of float
    decoding of the same dequantized layer and input (mha_decode_s8.h)."""
    rope = dict(rope_dims=6, rope_style="interleaved", rope_theta=500.0)
    got = int8_blob(d, w, x, "dec8r.attn", "int8 RoPE",
                    ["--rope-dim", "6", "--rope-theta", "500", "--rope-style", "interleaved"],
                    **rope)
    if got is None:
        return
    first, qw, acts, (steps, rel, cos) = got
    s, z = acts["input"]
    xq = s * (np.clip(quant.round_away(x.astype(np.float64) / s) + z, -128, 127) - z)
    ref_dq = reference.mha_decode(qw, H, G, xq, window=16, **rope)["out"]
    of_range = np.max(np.abs(first - ref_dq)) / (np.max(ref_dq) - np.min(ref_dq))
    print(f"int8 RoPE vs float: max abs {rel:.4f} of max |y|, cosine {cos:.5f}; "
          f"vs the dequantized layer {of_range:.4f} of the output range; "
          f"vs simulation {steps:.2f} steps")
    check(of_range <= 0.016, f"int8 RoPE vs the dequantized layer: {of_range:.4f} of the range")
    rc, out, _ = run("attn", "info", "dec8r.attn", cwd=d)
    check(rc == 0 and "rope: 6 dims, interleaved, theta 500" in out, f"attn info: {out}")


def header_case(d):
    rc, _, err = run("convert", "mha-decode", "--from", "llama.pt", "--heads", str(H),
                     "--window", "24", "--rope-dim", "8", "--seq", "2", "--out", "hdr.attn",
                     "--header", "hdr.h", "--quiet", cwd=d)
    check(rc == 0, f"convert --header: {err.strip()}")
    rc2, info, _ = run("attn", "info", "hdr.attn", "--seq", "2", cwd=d)
    if rc != 0 or rc2 != 0:
        return
    cache = int(info.split("cache bytes: f32 ")[1].split(",")[0])
    scratch = int(info.split("scratch: f32 cache ")[1].split()[0])
    blob = open(os.path.join(d, "hdr.attn"), "rb").read()
    build = os.path.dirname(os.path.dirname(ATTN))
    with open(os.path.join(d, "hdr_test.cpp"), "w") as f:
        f.write('#include "hdr.h"\n'
                f"static_assert(hdr::kCacheBytes == {cache}, \"cache bytes\");\n"
                f"static_assert(hdr::kScratchBytes == {scratch}, \"scratch bytes\");\n"
                f"static_assert(hdr::kBlobBytes == {len(blob)} && hdr::kBlob[{len(blob) - 1}] == "
                f"{blob[-1]} && hdr::kWindow == 1 && hdr::kRopeTheta == 10000.0f, \"blob\");\n")
    p = subprocess.run(["c++", "-std=c++17", "-fsyntax-only", "-I", d,
                        "-I", os.path.join(ROOT, "engine", "include"),
                        "-I", os.path.join(build, "engine", "include"), "hdr_test.cpp"],
                       cwd=d, capture_output=True, text=True)
    check(p.returncode == 0, f"generated header: {p.stderr.strip()[:2000]}")


def patched(d, name, index, value):
    """dec.attn with params[index] = value and a valid CRC."""
    data = bytearray(open(os.path.join(d, "dec.attn"), "rb").read())
    struct.pack_into("<i", data, 32 + 4 * index, value)
    struct.pack_into("<I", data, blobfmt.CRC_OFFSET, blobfmt.blob_crc(data))
    open(os.path.join(d, name), "wb").write(bytes(data))
    return name


def bad_inputs(d):
    base = ["mha-decode", "--from", "llama.pt", "--heads", str(H), "--out", "x.attn"]
    expect_error(d, "convert", base, "--capacity C")
    expect_error(d, "convert", base + ["--capacity", "8", "--window", "4"], "--window 4")
    expect_error(d, "convert", base + ["--capacity", "8", "--kv-heads", "4"], "--kv-heads 4")
    expect_error(d, "convert", base + ["--capacity", "8", "--rope-dim", "5"], "--rope-dim 5")
    expect_error(d, "convert", base + ["--capacity", "8", "--rope-theta", "9"], "--rope-dim")
    expect_error(d, "convert", ["mha-decode", "--from", "llama.pt", "--heads", "3",
                                "--capacity", "8"], "--heads 3")
    nan_bits = struct.unpack("<i", struct.pack("<f", float("nan")))[0]
    for name, index, value in (("kv3.attn", 2, 3), ("window2.attn", 4, 2),
                               ("odd_rope.attn", 5, 5), ("nan_theta.attn", 7, nan_bits),
                               ("cap0.attn", 3, 0)):
        expect_error(d, "attn", ["info", patched(d, name, index, value)],
                     "hyper-parameters invalid")


def main():
    with tempfile.TemporaryDirectory() as d:
        w = llama_state_dict(d)
        x = np.random.default_rng(11).normal(size=(48, E)).astype(np.float32)
        np.save(os.path.join(d, "x.npy"), x)
        float_round_trip(d, w, x)
        int8_case(d, w, x)
        int8_rope_case(d, w, x)
        header_case(d)
        if os.path.exists(os.path.join(d, "dec.attn")):
            bad_inputs(d)
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print("convert_decode_test: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
