#!/usr/bin/python3
"""`attn info` and `attn run <op> --model` against the committed fixtures
(or those in $ATTN_MODEL_DATA_DIR: convert_test.py regenerates them from PyTorch).

    cli_model_test.py ATTN_BINARY

Float models must match PyTorch / NumPy within 1e-5 relative (+1e-6 absolute);
the int8 MHA model's dequantized output stays within the int8 bound (cosine >=
0.999, mean error <= 5% of mean |y|) and --raw-int8 gives the same codes. Bad
inputs exit 2 with one line naming the file. Exit 0 pass, 1 fail, 77 skipped
(no NumPy; a failure under CI=true).
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
from missing_tool import skip  # noqa: E402

try:
    import numpy as np
except ImportError:
    skip("cli_model_test", "NumPy missing")

HERE = os.path.dirname(os.path.realpath(__file__))
DATA = os.environ.get("ATTN_MODEL_DATA_DIR") or os.path.join(os.path.dirname(HERE), "data",
                                                              "model")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def attn(*args):
    p = subprocess.run([ATTN, *args], capture_output=True, text=True, cwd=DATA)
    return p.returncode, p.stdout, p.stderr


def close(got, want, what):
    ok = got.shape == want.shape and np.all(np.abs(got - want) <= 1e-5 * np.abs(want) + 1e-6)
    check(ok, f"{what}: max |diff| "
              f"{np.abs(got - want).max() if got.shape == want.shape else got.shape}")


def expect_error(args, *needles):
    rc, out, err = attn(*args)
    check(rc == 2 and all(n in err for n in needles),
          f"attn {' '.join(args)}: rc {rc}, stderr {err.strip()!r}, wanted {needles}")


def main(d):
    rc, out, err = attn("info", "mha.attn", "--seq", "16")
    check(rc == 0 and "mha f32" in out and "in_proj_weight" in out and "scratch" in out,
          f"info mha.attn: {rc} {err}")
    rc, out, err = attn("info", "mha_int8.attn")
    check(rc == 0 and "probs (0.00390625, -128)" in out, f"info int8: {out} {err}")
    o = os.path.join(d, "o.npy")
    w = os.path.join(d, "w.npy")

    # Float MHA cases (the same fixtures as model_e2e_test).
    for case in ("mha_self", "mha_causal", "mha_cross_pad", "mha_kv_plain", "mha_kv_causal_pad"):
        model = open(os.path.join(DATA, case + ".model")).read().strip()
        args = ["run", "mha", "--model", model + ".attn", "--query", case + ".query.npy",
                "--out", o]
        if os.path.exists(os.path.join(DATA, case + ".key.npy")):
            args += ["--kv", case + ".key.npy", "--value", case + ".value.npy"]
        if os.path.exists(os.path.join(DATA, case + ".causal.npy")):
            args += ["--mask", "causal"]
        if os.path.exists(os.path.join(DATA, case + ".lengths.npy")):
            args += ["--key-lengths", case + ".lengths.npy"]
        rc, out, err = attn(*args)
        check(rc == 0, f"{case}: {err.strip()}")
        if rc == 0:
            close(np.load(o), np.load(os.path.join(DATA, case + ".out.npy")), case)

    for op, name in (("bahdanau", "bahdanau"), ("luong-general", "luong")):
        rc, out, err = attn("run", op, "--model", name + ".attn", "--query", name + ".query.npy",
                            "--keys", name + ".keys.npy", "--out", o, "--probs-out", w)
        check(rc == 0, f"{name}: {err.strip()}")
        if rc == 0:
            close(np.load(o), np.load(os.path.join(DATA, name + ".out.npy")), name)
            close(np.load(w), np.load(os.path.join(DATA, name + ".weights.npy")), name + " w")

    # int8 MHA: float in/out, then --raw-int8 with the same quantization.
    rc, out, err = attn("run", "mha", "--model", "mha_int8_causal.attn", "--query",
                        "mha_causal.query.npy", "--mask", "causal", "--out", o)
    check(rc == 0, f"int8 mha: {err.strip()}")
    if rc == 0:
        got = np.load(o).astype(np.float64)
        want = np.load(os.path.join(DATA, "mha_causal.out.npy")).astype(np.float64)
        cos = float(got.reshape(-1) @ want.reshape(-1) /
                    (np.linalg.norm(got) * np.linalg.norm(want)))
        rel = float(np.abs(got - want).mean() / np.abs(want).mean())
        print(f"int8 mha via the CLI: cosine {cos:.6f}, mean error {rel:.4f} of mean |y|")
        check(0.999 < cos < 0.99995 and 0.005 < rel < 0.05, f"int8 bound: {cos} {rel}")
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools"))
        from convert import blob as blobfmt
        acts = blobfmt.read_blob(open(os.path.join(DATA, "mha_int8_causal.attn"), "rb").read()).acts()
        s, z = acts["query"]
        x = np.load(os.path.join(DATA, "mha_causal.query.npy")).astype(np.float64)
        xq = np.clip(np.sign(x / s) * np.floor(np.abs(x / s) + 0.5) + z, -128, 127).astype(np.int8)
        np.save(os.path.join(d, "xq.npy"), xq)
        rc, out, err = attn("run", "mha", "--model", "mha_int8_causal.attn", "--raw-int8",
                            "--query", os.path.join(d, "xq.npy"), "--mask", "causal", "--out",
                            os.path.join(d, "yq.npy"))
        check(rc == 0, f"--raw-int8: {err.strip()}")
        if rc == 0:
            yq = np.load(os.path.join(d, "yq.npy"))
            so, zo = acts["out"]
            # The converter's int8 simulation (its error report) vs the engine's codes.
            from convert import quant
            qw = quant.mha_qw_from_blob(
                blobfmt.read_blob(open(os.path.join(DATA, "mha_int8_causal.attn"),
                                       "rb").read()).tensors, acts)
            sq = x.shape[1]
            mask = np.where(np.triu(np.ones((sq, sq)), 1) > 0, -np.inf, 0.0)
            simq = np.round(quant.simulate_mha(qw, acts, 4, x, mask=mask) / so) + zo
            diff = np.abs(yq.astype(np.float64) - simq)
            print(f"engine int8 vs converter simulation: max {diff.max():.0f} code, "
                  f"{(diff == 0).mean():.3f} identical")
            check(diff.max() <= 1 and (diff == 0).mean() > 0.9,
                  f"simulation within 1 code of the engine: max {diff.max()}")
            check(yq.dtype == np.int8 and
                  np.allclose((yq.astype(np.float64) - zo) * so, got, rtol=0, atol=1e-6),
                  "--raw-int8 codes are the float run's output")

    # int8 Bahdanau and Luong general through the CLI (float in/out).
    for op, name, lo in (("bahdanau", "bahdanau", 0.998), ("luong-general", "luong", 0.997)):
        rc, out, err = attn("run", op, "--model", name + "_int8.attn", "--query",
                            name + ".query.npy", "--keys", name + ".keys.npy", "--out", o)
        check(rc == 0, f"int8 {name}: {err.strip()}")
        if rc == 0:
            got = np.load(o).astype(np.float64).reshape(-1)
            want = np.load(os.path.join(DATA, name + ".out.npy")).astype(np.float64).reshape(-1)
            cos = float(got @ want / (np.linalg.norm(got) * np.linalg.norm(want)))
            check(lo < cos < 0.99995, f"int8 {name} cosine {cos}")

    # Errors: exit 2, one line naming the file.
    expect_error(["info", "mha_self.query.npy"], "mha_self.query.npy", "bad magic")
    expect_error(["info", "missing.attn"], "missing.attn")
    expect_error(["run", "bahdanau", "--model", "luong.attn", "--query", "luong.query.npy",
                  "--keys", "luong.keys.npy", "--out", o], "luong.attn", "luong-general")
    expect_error(["run", "mha", "--model", "mha.attn", "--query", "luong.query.npy", "--out", o],
                 "luong.query.npy", "embed_dim")
    expect_error(["run", "mha", "--model", "mha.attn", "--raw-int8", "--query",
                  "mha_self.query.npy", "--out", o], "--raw-int8")
    expect_error(["run", "mha", "--query", "mha_self.query.npy", "--out", o], "--model")
    trunc = os.path.join(d, "trunc.attn")
    with open(os.path.join(DATA, "luong.attn"), "rb") as f:
        open(trunc, "wb").write(f.read()[:1000])
    expect_error(["info", trunc], "trunc.attn", "truncated")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print("usage: cli_model_test.py ATTN_BINARY")
        sys.exit(2)
    ATTN = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        main(tmp)
    if failures:
        print(f"cli_model_test: {len(failures)} failure(s)")
        sys.exit(1)
    print("cli_model_test: all passed")
