#!/usr/bin/python3
"""Generates tests/data/model: PyTorch nn.MultiheadAttention and NumPy Bahdanau /
Luong general weights, converted by tools/attn-convert into blobs, with inputs and
the frameworks' outputs for model_e2e_test (C++) to compare against.

    tests/model/gen_fixtures.py [OUT_DIR]      (default tests/data/model)

Seeds are fixed; re-running gives the same files. Needs NumPy and PyTorch.
"""
import os
import subprocess
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CONVERT = os.path.join(ROOT, "tools", "attn-convert")


def convert(out, *args):
    subprocess.run([sys.executable, CONVERT, *args, "--quiet"], check=True, cwd=out)


def save(dir_, case, **arrays):
    for k, v in arrays.items():
        np.save(os.path.join(dir_, f"{case}.{k}.npy"), v)


def causal_mask(sq, skv):
    # The engine's look-ahead convention: query i sees keys j <= i + (skv - sq).
    i = np.arange(sq)[:, None]
    j = np.arange(skv)[None, :]
    return j > i + (skv - sq)  # True = masked (PyTorch bool attn_mask)


def mha_cases(out):
    torch.manual_seed(1234)
    rng = np.random.RandomState(1234)
    models = {
        "mha": torch.nn.MultiheadAttention(64, 4, batch_first=True),
        "mha_kv": torch.nn.MultiheadAttention(64, 4, batch_first=True, kdim=48, vdim=40),
    }
    for name, m in models.items():
        m.eval()
        torch.save(m.state_dict(), os.path.join(out, f"{name}.pt"))
        convert(out, "mha", "--from", f"{name}.pt", "--heads", "4", "--out", f"{name}.attn")
        os.remove(os.path.join(out, f"{name}.pt"))
    # int8 blob (loader coverage now; the int8 engine path later).
    x = rng.randn(4, 8, 64).astype(np.float32)
    np.save(os.path.join(out, "mha_int8.calib.npy"), x)
    torch.save(models["mha"].state_dict(), os.path.join(out, "mha.pt"))
    convert(out, "mha", "--from", "mha.pt", "--heads", "4", "--dtype", "int8",
            "--calibrate", "mha_int8.calib.npy", "--out", "mha_int8.attn")
    convert(out, "mha", "--from", "mha.pt", "--heads", "4", "--dtype", "int8",
            "--calibrate", "mha_int8.calib.npy", "--calibrate-causal",
            "--out", "mha_int8_causal.attn")
    os.remove(os.path.join(out, "mha.pt"))

    # (case, model, batch, seq_q, seq_kv, self-attention, causal, key lengths)
    cases = [
        ("mha_self", "mha", 2, 6, 6, True, False, None),
        ("mha_causal", "mha", 2, 6, 6, True, True, None),
        ("mha_cross_pad", "mha", 2, 5, 7, False, False, [7, 4]),
        ("mha_kv_plain", "mha_kv", 2, 5, 7, False, False, None),
        ("mha_kv_causal_pad", "mha_kv", 2, 5, 7, False, True, [7, 5]),
    ]
    for case, model, b, sq, skv, self_attn, causal, lengths in cases:
        m = models[model]
        q = rng.randn(b, sq, 64).astype(np.float32)
        if self_attn:
            k = v = q
        else:
            k = rng.randn(b, skv, m.kdim).astype(np.float32)
            v = rng.randn(b, skv, m.vdim).astype(np.float32)
        kwargs = dict(need_weights=False)
        if causal:
            kwargs["attn_mask"] = torch.from_numpy(causal_mask(sq, skv))
        if lengths is not None:
            kwargs["key_padding_mask"] = torch.from_numpy(
                np.arange(skv)[None, :] >= np.array(lengths)[:, None])
        with torch.no_grad():
            o, _ = m(torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(v), **kwargs)
        arrays = dict(query=q, out=o.numpy().astype(np.float32))
        if not self_attn:
            arrays.update(key=k, value=v)
        if causal:
            arrays["causal"] = np.array([1], np.int32)
        if lengths is not None:
            arrays["lengths"] = np.array(lengths, np.int32)
        save(out, case, **arrays)
        with open(os.path.join(out, f"{case}.model"), "w") as f:
            f.write(model + "\n")


def c_array(name, a, ty="float"):
    vals = ", ".join(f"{float(x)!r}f" if ty == "float" else str(int(x))
                     for x in np.asarray(a).reshape(-1))
    return f"inline constexpr {ty} {name}[{np.asarray(a).size}] = {{{vals}}};\n"


def firmware_case(out):
    """A small PyTorch MHA (E=32, H=4) as generated headers (float and int8) with
    a causal self-attention input and PyTorch's output, for the firmware example
    (tests/model/firmware) that runs on the boards and on the host."""
    torch.manual_seed(77)
    rng = np.random.RandomState(77)
    m = torch.nn.MultiheadAttention(32, 4, batch_first=True)
    m.eval()
    torch.save(m.state_dict(), os.path.join(out, "mha_small.pt"))
    calib = rng.randn(32, 8, 32).astype(np.float32)
    np.save(os.path.join(out, "mha_small.calib.npy"), calib)
    convert(out, "mha", "--from", "mha_small.pt", "--heads", "4", "--out", "mha_small.attn",
            "--header", "mha_small_model.h", "--name", "mha_small_model", "--seq", "8")
    convert(out, "mha", "--from", "mha_small.pt", "--heads", "4", "--dtype", "int8",
            "--calibrate", "mha_small.calib.npy", "--calibrate-causal",
            "--header", "mha_small_int8_model.h", "--name", "mha_small_int8_model",
            "--seq", "8")
    os.remove(os.path.join(out, "mha_small.pt"))
    os.remove(os.path.join(out, "mha_small.calib.npy"))
    q = rng.randn(1, 8, 32).astype(np.float32)
    with torch.no_grad():
        o, _ = m(torch.from_numpy(q), torch.from_numpy(q), torch.from_numpy(q),
                 attn_mask=torch.from_numpy(causal_mask(8, 8)), need_weights=False)
    save(out, "mha_small_causal", query=q, out=o.numpy())
    with open(os.path.join(out, "mha_small_case.h"), "w") as f:
        f.write("// Generated by tests/model/gen_fixtures.py: a causal self-attention input for\n"
                "// mha_small_model.h / mha_small_int8_model.h and PyTorch's float output.\n"
                "#pragma once\n\nnamespace mha_small_case {\n\n"
                "inline constexpr int kSeq = 8;\n")
        f.write(c_array("kQuery", q) + c_array("kOut", o.numpy()))
        f.write("\n}  // namespace mha_small_case\n")


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def keras_cases(out):
    rng = np.random.RandomState(99)
    # Bahdanau (the seed's Keras layer): e_j = v . tanh(q W1 + b1 + h_j W2 + b2) + bv.
    qd, kd, units, b, t = 24, 32, 16, 3, 9
    w = dict(W1=rng.randn(qd, units) * 0.3, b1=rng.randn(units) * 0.1,
             W2=rng.randn(kd, units) * 0.3, b2=rng.randn(units) * 0.1,
             v=rng.randn(units, 1) * 0.3, bv=np.array([0.05]))
    w = {k: a.astype(np.float32) for k, a in w.items()}
    np.savez(os.path.join(out, "bahdanau.npz"), **w)
    convert(out, "bahdanau", "--from", "bahdanau.npz", "--out", "bahdanau.attn")
    # int8, calibrated on inputs of the test's distribution.
    crng = np.random.RandomState(5)
    np.save(os.path.join(out, "bq.npy"), crng.randn(32, qd).astype(np.float32))
    np.save(os.path.join(out, "bh.npy"), crng.randn(32, t, kd).astype(np.float32))
    convert(out, "bahdanau", "--from", "bahdanau.npz", "--dtype", "int8", "--calibrate",
            "bq.npy", "--calibrate-keys", "bh.npy", "--out", "bahdanau_int8.attn")
    for f in ("bahdanau.npz", "bq.npy", "bh.npy"):
        os.remove(os.path.join(out, f))
    q = rng.randn(b, qd).astype(np.float32)
    h = rng.randn(b, t, kd).astype(np.float32)
    f = {k: a.astype(np.float64) for k, a in w.items()}
    s = np.tanh((q @ f["W1"] + f["b1"])[:, None, :] + h @ f["W2"] + f["b2"])
    e = (s @ f["v"])[..., 0] + f["bv"][0]
    a = softmax(e)
    save(out, "bahdanau", query=q, keys=h, out=np.einsum("bt,btd->bd", a, h).astype(np.float32),
         weights=a.astype(np.float32))

    # Luong general: e_j = q . (h_j W + b).
    qd, kd = 20, 28
    w = dict(W=(rng.randn(kd, qd) * 0.3).astype(np.float32),
             b=(rng.randn(qd) * 0.1).astype(np.float32))
    np.savez(os.path.join(out, "luong.npz"), **w)
    convert(out, "luong-general", "--from", "luong.npz", "--out", "luong.attn",
            "--header", "luong_model.h", "--name", "luong_model", "--seq", "9")
    crng = np.random.RandomState(6)
    np.save(os.path.join(out, "lq.npy"), crng.randn(32, qd).astype(np.float32))
    np.save(os.path.join(out, "lh.npy"), crng.randn(32, t, kd).astype(np.float32))
    convert(out, "luong-general", "--from", "luong.npz", "--dtype", "int8", "--calibrate",
            "lq.npy", "--calibrate-keys", "lh.npy", "--out", "luong_int8.attn")
    for f in ("luong.npz", "lq.npy", "lh.npy"):
        os.remove(os.path.join(out, f))
    q = rng.randn(b, qd).astype(np.float32)
    h = rng.randn(b, t, kd).astype(np.float32)
    e = np.einsum("btq,bq->bt", h.astype(np.float64) @ w["W"].astype(np.float64) + w["b"], q)
    a = softmax(e)
    ctx = np.einsum("bt,btd->bd", a, h)
    save(out, "luong", query=q, keys=h, out=ctx.astype(np.float32), weights=a.astype(np.float32))
    # The same case as C++ arrays for the portable case (tests/cases/model_cases.cpp),
    # which runs luong_model.h on every target, Cortex-M boards included.
    def arr(name, a, ty="float"):
        vals = ", ".join(f"{float(x)!r}f" if ty == "float" else str(int(x))
                         for x in np.asarray(a).reshape(-1))
        return f"inline constexpr {ty} {name}[{a.size}] = {{{vals}}};\n"
    with open(os.path.join(out, "luong_case.h"), "w") as f:
        f.write("// Generated by tests/model/gen_fixtures.py: inputs and the float64 NumPy\n"
                "// Luong general result for luong_model.h. Do not edit.\n#pragma once\n\n"
                "namespace luong_case {\n\n")
        f.write(f"inline constexpr int kBatch = {b};\ninline constexpr int kSeq = {t};\n")
        f.write(arr("kQuery", q) + arr("kKeys", h))
        f.write(arr("kContext", ctx.astype(np.float64)) + arr("kWeights", a.astype(np.float64)))
        f.write("\n}  // namespace luong_case\n")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "tests", "data", "model")
    os.makedirs(out, exist_ok=True)
    mha_cases(out)
    keras_cases(out)
    firmware_case(out)
    print(f"fixtures written to {out}")


if __name__ == "__main__":
    main()
