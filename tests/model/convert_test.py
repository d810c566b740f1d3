#!/usr/bin/python3
"""Tests of tools/attn-convert.

    convert_test.py [ATTN_MODEL_TEST [ATTN_CLI]]

1. bad inputs: exit status 2 and one line naming the file and the array;
2. the blob writer against the format (header fields, alignment, CRC) and the
   int8 quantization math (TFLite conventions) on small known cases;
3. the int8 error report holds within stated ranges (a range, so that a
   suspicious improvement is noticed too);
4. with PyTorch: regenerate every fixture into a temporary directory, check the
   committed tests/data/model files are what the converter makes today (float
   outputs within a derived bound, see FIXTURE_REL_TOL; the rest bit for bit), and run
   ATTN_MODEL_TEST (the C++ end-to-end test) and, given ATTN_CLI, `attn run
   --model` (cli_model_test.py) on the fresh files.
Exit 0 pass, 1 fail, 77 skipped (no NumPy; a failure under CI=true).
"""
import os
import re
import struct
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
from missing_tool import part_missing, skip  # noqa: E402

try:
    import numpy as np
except ImportError:
    skip("convert_test", "NumPy missing")

HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CONVERT = os.path.join(ROOT, "tools", "attn-convert")
sys.path.insert(0, os.path.join(ROOT, "tools"))
from convert import blob as blobfmt  # noqa: E402
from convert import quant, reference  # noqa: E402

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(*args, cwd):
    p = subprocess.run([sys.executable, CONVERT, *args], cwd=cwd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def expect_error(cwd, args, *needles):
    rc, out, err = run(*args, cwd=cwd)
    ok = rc == 2 and all(n in err for n in needles) and err.count("\n") == 1 and \
        not os.path.exists(os.path.join(cwd, "x.attn"))
    check(ok, f"{' '.join(args)}: rc {rc}, stderr {err.strip()!r}, wanted {needles}")


def bad_inputs(d):
    rng = np.random.RandomState(0)
    e = 16
    good = {"in_proj_weight": rng.randn(3 * e, e).astype(np.float32),
            "in_proj_bias": rng.randn(3 * e).astype(np.float32),
            "out_proj.weight": rng.randn(e, e).astype(np.float32),
            "out_proj.bias": rng.randn(e).astype(np.float32)}

    def npz(name, **changes):
        a = dict(good)
        for k, v in changes.items():
            if v is None:
                a.pop(k)
            else:
                a[k] = v
        np.savez(os.path.join(d, name), **a)
        return name

    rc, out, err = run("mha", "--from", npz("ok.npz"), "--heads", "4", "--out", "ok.attn", cwd=d)
    check(rc == 0 and "parameters:" in out and os.path.exists(os.path.join(d, "ok.attn")),
          f"good mha converts ({err.strip()})")
    expect_error(d, ["mha", "--from", npz("a.npz", **{"out_proj.weight": None}), "--heads", "4",
                     "--out", "x.attn"], "a.npz", "missing array 'out_proj.weight'")
    expect_error(d, ["mha", "--from", npz("b.npz", in_proj_weight=good["in_proj_weight"][:40]),
                     "--heads", "4", "--out", "x.attn"], "b.npz", "'in_proj_weight'", "[40, 16]",
                 "[48, 16]")
    expect_error(d, ["mha", "--from", npz("c.npz", in_proj_bias=np.arange(48)), "--heads", "4",
                     "--out", "x.attn"], "c.npz", "'in_proj_bias'", "int64")
    expect_error(d, ["mha", "--from", npz("d.npz", in_proj_weight=None), "--heads", "4",
                     "--out", "x.attn"], "d.npz", "'q_proj_weight (or in_proj_weight)'")
    nan = good["out_proj.bias"].copy()
    nan[3] = np.nan
    expect_error(d, ["mha", "--from", npz("e.npz", **{"out_proj.bias": nan}), "--heads", "4",
                     "--out", "x.attn"], "'out_proj.bias'", "NaN")
    expect_error(d, ["mha", "--from", "ok.npz", "--heads", "3", "--out", "x.attn"],
                 "--heads 3 does not divide embed_dim 16")
    expect_error(d, ["mha", "--from", "ok.npz", "--heads", "4", "--dtype", "int8",
                     "--out", "x.attn"], "--calibrate")
    np.save(os.path.join(d, "cal_bad.npy"), rng.randn(2, 5, 15).astype(np.float32))
    expect_error(d, ["mha", "--from", "ok.npz", "--heads", "4", "--dtype", "int8",
                     "--calibrate", "cal_bad.npy", "--out", "x.attn"], "cal_bad.npy",
                 "last dimension must be 16")
    expect_error(d, ["mha", "--from", "missing.npz", "--heads", "4"], "missing.npz",
                 "no such file")
    with open(os.path.join(d, "junk.npz"), "wb") as f:
        f.write(b"not a zip")
    expect_error(d, ["mha", "--from", "junk.npz", "--heads", "4"], "junk.npz", "not a readable")
    np.savez(os.path.join(d, "bah.npz"), W1=np.ones((3, 5), np.float32),
             W2=np.ones((4, 6), np.float32), v=np.ones(5, np.float32))
    expect_error(d, ["bahdanau", "--from", "bah.npz", "--out", "x.attn"], "bah.npz",
                 "'W2'", "[4, 6]", "[key_dim, 5]")
    np.savez(os.path.join(d, "bah2.npz"), W1=np.ones((3, 5), np.float32),
             W2=np.ones((4, 5), np.float32))
    expect_error(d, ["bahdanau", "--from", "bah2.npz", "--out", "x.attn"], "missing array 'v'")
    np.savez(os.path.join(d, "lg.npz"), W=np.ones((4, 3), np.float32),
             b=np.ones(4, np.float32))
    expect_error(d, ["luong-general", "--from", "lg.npz", "--out", "x.attn"], "lg.npz", "'b'",
                 "[4]", "[3]")
    np.savez(os.path.join(d, "lg2.npz"), W=np.ones((4, 3), np.int8))
    expect_error(d, ["luong-general", "--from", "lg2.npz", "--out", "x.attn"], "'W'", "int8")
    rc, out, err = run("info", "ok.attn", cwd=d)
    check(rc == 0 and "mha f32" in out, "info on a good blob")
    data = bytearray(open(os.path.join(d, "ok.attn"), "rb").read())
    data[300] ^= 1
    open(os.path.join(d, "bad.attn"), "wb").write(data)
    expect_error(d, ["info", "bad.attn"], "bad.attn", "CRC")
    rc, out, err = run("--help", cwd=d)
    check(rc == 0 and "attn-convert mha" in out, "--help")


def format_and_quant():
    w = np.arange(12, dtype=np.float32).reshape(4, 3)
    b = blobfmt.write_blob("luong_general", "f32", {"query_dim": 3, "key_dim": 4},
                           [("W", "f32", w)], "t")
    magic, ver, hb, total, crc = struct.unpack_from("<4sHHII", b)
    check(magic == b"ATNM" and ver == 1 and hb == 128 and total == len(b) == 256,
          "header fields")
    check(crc == zlib.crc32(b[:12] + b"\0" * 4 + b[16:]), "CRC covers the blob with crc = 0")
    tid, dt, rank, d0, d1, d2, d3, off, nbytes, res = struct.unpack_from("<HBB4IIII", b, 128)
    check((tid, dt, rank, d0, d1, off, nbytes) == (28, 1, 2, 4, 3, 192, 48), "table entry")
    check(np.array_equal(np.frombuffer(b, np.float32, 12, 192).reshape(4, 3), w), "tensor data")

    # Activation parameters: [-1, 3] -> scale 4/255, zero point -128 + 1/scale rounded.
    s, z = quant.choose_qparams(-1.0, 3.0)
    check(abs(s - 4 / 255) < 1e-7 and z == -128 + round(255 / 4), f"qparams {s} {z}")
    s, z = quant.choose_qparams(0.5, 2.0)  # widened to include 0
    check(z == -128 and abs(s - 2 / 255) < 1e-7, "range widened to 0")
    s, z = quant.choose_qparams(-2.0, -1.0)
    check(z == 127, "all-negative range")
    x = np.concatenate([np.linspace(-1, 1, 10000), [50.0]])
    lo, hi = quant.value_range(x, 99.9)
    check(hi < 2.0 and lo > -1.01, "percentile drops the outlier")
    # Weights: symmetric per output channel, q in [-127, 127].
    wq, ws = quant.quantize_weight(np.array([[1.0, -0.5], [0.0, 0.0], [0.01, -2.0]]), 0)
    check(np.allclose(ws, [1 / 127, 1.0, 2 / 127]) and wq[0, 0] == 127 and wq[2, 1] == -127 and
          np.all(wq[1] == 0), f"per-channel weights {ws} {wq}")
    qb = quant.quantize_bias(np.array([0.1, -0.2]), 0.05, np.array([0.01, 0.02], np.float32))
    check(list(qb) == [200, -200], f"bias int32 at input_scale*weight_scale: {qb}")


def int8_error_ranges():
    # The int8 simulation vs float on the calibration inputs, asserted as ranges.
    rng = np.random.RandomState(7)
    e, h = 64, 4
    w = {"in_proj_weight": (rng.randn(3 * e, e) / 8).astype(np.float32),
         "in_proj_bias": (rng.randn(3 * e) * 0.02).astype(np.float32),
         "out_proj.weight": (rng.randn(e, e) / 8).astype(np.float32),
         "out_proj.bias": (rng.randn(e) * 0.02).astype(np.float32)}
    x = rng.randn(8, 16, e)
    cal = reference.mha(w, h, x)
    tensors, acts, qw = quant.quantize_mha(w, h, cal, None)
    st = quant.error_stats(quant.simulate_mha(qw, acts, h, x), cal["out"])
    print("int8 mha vs float:", st)
    check(0.995 < st["cosine"] < 0.99999, f"mha int8 cosine {st['cosine']}")
    rel = st["mean_abs"] / np.mean(np.abs(cal["out"]))
    check(0.002 < rel < 0.05, f"mha int8 mean relative error {rel}")
    # The bias scale follows the activation: in_proj_bias * (s_in * s_w) round-trips.
    names = [t[0] for t in tensors]
    check(names == ["in_proj_weight", "in_proj_weight_scale", "in_proj_bias", "out_proj.weight",
                    "out_proj.weight_scale", "out_proj.bias"], f"int8 tensors {names}")
    # Luong general and Bahdanau.
    wl = {"W": (rng.randn(24, 16) * 0.3).astype(np.float32),
          "b": (rng.randn(16) * 0.1).astype(np.float32)}
    q, keys = rng.randn(6, 16), rng.randn(6, 12, 24)
    cal = reference.luong_general(wl, q, keys)
    _, acts, qw = quant.quantize_luong_general(wl, cal, None)
    st = quant.error_stats(quant.simulate_luong_general(qw, acts, q, keys), cal["out"])
    print("int8 luong general vs float:", st)
    check(0.99 < st["cosine"] < 0.99999, f"luong int8 cosine {st['cosine']}")
    wb = {"W1": (rng.randn(16, 8) * 0.3).astype(np.float32), "b1": np.zeros(8, np.float32),
          "W2": (rng.randn(24, 8) * 0.3).astype(np.float32), "b2": np.zeros(8, np.float32),
          "v": (rng.randn(8) * 0.5).astype(np.float32)}
    cal = reference.bahdanau(wb, q, keys)
    _, acts, qw = quant.quantize_bahdanau(wb, cal, 99.99)
    st = quant.error_stats(quant.simulate_bahdanau(qw, acts, q, keys), cal["out"])
    print("int8 bahdanau vs float:", st)
    check(0.99 < st["cosine"] < 0.99999, f"bahdanau int8 cosine {st['cosine']}")


# Regenerated float outputs depend on the machine's BLAS (NumPy's and
# PyTorch's GEMMs sum in a library-chosen order: Debian's reference BLAS and
# OpenBLAS differ), so they are compared within a bound, not bit for bit.
# Every float fixture is at most S = 4 chained GEMM stages (MHA: in
# projection, Q K^T, P V, out projection; Luong/Bahdanau: fewer) of dot
# products of length K <= 64, inputs and weights of magnitude ~1. A length-K
# dot product summed in any order lies within gamma_K * sum|terms| ~= K * u *
# sum|terms| of the exact value (u = 2^-24, float32; the float64 NumPy
# references are stored as float32-precision constants), so two orders differ
# by at most 2 K u sum|terms| per stage, and the stages add:
#   max|new - committed| <= 2 * S * K * u * max|committed|  (= 3.05e-5 max|.|)
# (measured with OpenBLAS against the reference BLAS: at most 3.5e-7 max|.|).
# Everything else (blobs, int8 data, integer arrays, the C text around the
# numbers) must stay bit-identical.
FIXTURE_STAGES, FIXTURE_DOT_LEN, FIXTURE_U = 4, 64, 2.0 ** -24
FIXTURE_REL_TOL = 2 * FIXTURE_STAGES * FIXTURE_DOT_LEN * FIXTURE_U
C_FLOAT = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")


def within_fixture_bound(new, old):
    """None if new is within the bound of old (float arrays), else why not."""
    if new.shape != old.shape:
        return f"shape {new.shape} != {old.shape}"
    err = float(np.max(np.abs(new.astype(np.float64) - old.astype(np.float64)), initial=0.0))
    bound = FIXTURE_REL_TOL * float(np.max(np.abs(old.astype(np.float64)), initial=0.0))
    return None if err <= bound else f"max |difference| {err:.3g} > bound {bound:.3g}"


def fixture_differs(new_path, old_path):
    """None if the regenerated fixture matches the committed one: float .npy
    arrays and the float constants of generated headers within the bound
    above, everything else bit for bit."""
    if not os.path.exists(old_path):
        return "not committed"
    new, old = open(new_path, "rb").read(), open(old_path, "rb").read()
    if new == old:
        return None
    if new_path.endswith(".npy"):
        a, b = np.load(new_path), np.load(old_path)
        if a.dtype != b.dtype or a.dtype.kind != "f":
            return "differs (not a float array: must be bit-identical)"
        return within_fixture_bound(a, b)
    if new_path.endswith(".h"):
        ta, tb = new.decode(), old.decode()
        if C_FLOAT.sub("#", ta) != C_FLOAT.sub("#", tb):
            return "text other than float constants differs"
        return within_fixture_bound(np.array([float(x) for x in C_FLOAT.findall(ta)]),
                                    np.array([float(x) for x in C_FLOAT.findall(tb)]))
    return "differs (must be bit-identical)"


def pipeline(test_binary, attn_binary):
    try:
        import torch  # noqa: F401
    except ImportError:
        check(not part_missing("convert_test", "PyTorch missing: pipeline part"),
              "PyTorch installed (CI=true)")
        return
    import torch
    with tempfile.TemporaryDirectory() as d:
        # Attention modules inside larger models, whole modules, checkpoints.
        torch.manual_seed(0)
        torch.save(torch.nn.TransformerEncoderLayer(32, 4, batch_first=True).state_dict(),
                   os.path.join(d, "enc.pt"))
        torch.save(torch.nn.TransformerDecoderLayer(32, 4, batch_first=True).state_dict(),
                   os.path.join(d, "dec.pt"))
        torch.save(torch.nn.MultiheadAttention(16, 2), os.path.join(d, "module.pt"))
        torch.save({"state_dict": torch.nn.MultiheadAttention(16, 2).state_dict(), "epoch": 3},
                   os.path.join(d, "ckpt.pt"))
        for f in ("enc.pt", "module.pt", "ckpt.pt"):
            rc, out, err = run("mha", "--from", f, "--heads", "2", "--out", f + ".attn", cwd=d)
            check(rc == 0, f"{f} converts: {err.strip()}")
        expect_error(d, ["mha", "--from", "dec.pt", "--heads", "4", "--out", "x.attn"],
                     "several attention modules", "'multihead_attn.'", "'self_attn.'",
                     "--prefix")
        rc, out, err = run("mha", "--from", "dec.pt", "--heads", "4", "--prefix",
                           "multihead_attn.", "--out", "dec.attn", cwd=d)
        check(rc == 0 and "embed_dim 32" in out, f"--prefix picks a module: {err.strip()}")
        m = torch.nn.MultiheadAttention(8, 2, bias=False, add_bias_kv=True)
        torch.save(m.state_dict(), os.path.join(d, "biaskv.pt"))
        expect_error(d, ["mha", "--from", "biaskv.pt", "--heads", "2", "--out", "x.attn"],
                     "'bias_k'", "add_bias_kv")
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([sys.executable, os.path.join(HERE, "gen_fixtures.py"), d], check=True,
                       capture_output=True)
        committed = os.path.join(ROOT, "tests", "data", "model")
        for f in sorted(os.listdir(d)):
            why = fixture_differs(os.path.join(d, f), os.path.join(committed, f))
            check(why is None, f"tests/data/model/{f} is what gen_fixtures.py makes today: {why}")
        env = dict(os.environ, ATTN_MODEL_DATA_DIR=d)
        if test_binary:
            p = subprocess.run([test_binary, "--gtest_brief=1"], env=env, capture_output=True,
                               text=True)
            check(p.returncode == 0, "C++ end-to-end test on freshly converted blobs:\n" +
                  p.stdout[-3000:])
        if attn_binary:
            # PyTorch -> attn-convert -> `attn run --model` -> compare, all fresh.
            p = subprocess.run([sys.executable, os.path.join(HERE, "cli_model_test.py"),
                                attn_binary], env=env, capture_output=True, text=True)
            check(p.returncode == 0, "attn run --model on freshly converted blobs:\n" +
                  p.stdout[-3000:])


def main():
    with tempfile.TemporaryDirectory() as d:
        bad_inputs(d)
    format_and_quant()
    int8_error_ranges()
    pipeline(sys.argv[1] if len(sys.argv) > 1 else None,
             sys.argv[2] if len(sys.argv) > 2 else None)
    if failures:
        print(f"convert_test: {len(failures)} failure(s)")
        return 1
    print("convert_test: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
