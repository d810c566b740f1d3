"""Post-training int8 quantization, TensorFlow Lite conventions (docs/INT8.md).

- activations: asymmetric per tensor, real = scale * (q - zero_point), q in [-128, 127],
  the range [min, max] widened to include 0, from calibration data (min/max or percentile);
- weights: symmetric per output channel, q in [-127, 127], zero point 0;
- biases: int32 at scale input_scale * weight_scale[channel], zero point 0;
- fixed by the int8 kernels: softmax output 1/256, -128; tanh output 1/128, 0.

simulate_*() run the int8 op sequence as quantize-dequantize at every TFLite op
boundary (float math in between), which estimates the int8 error; the engine's
integer kernels are bit-exact to TFLite and differ from the simulation by rounding
inside the requantization (about one output LSB per op).
"""
import numpy as np

from . import reference

PROBS_QPARAMS = (1.0 / 256.0, -128)
TANH_QPARAMS = (1.0 / 128.0, 0)


def value_range(x, percentile=None):
    x = np.asarray(x, np.float64).reshape(-1)
    x = x[np.isfinite(x)]
    if x.size == 0:
        return 0.0, 0.0
    if percentile is None or percentile >= 100.0:
        return float(x.min()), float(x.max())
    return (float(np.percentile(x, 100.0 - percentile)), float(np.percentile(x, percentile)))


def choose_qparams(lo, hi):
    """(scale, zero_point) for int8 covering [lo, hi] widened to include 0 (TFLite's
    nudged zero point)."""
    lo, hi = min(float(lo), 0.0), max(float(hi), 0.0)
    if hi - lo < 1e-30:
        return 1.0, 0
    scale = float(np.float32((hi - lo) / 255.0))
    zp_real = -128.0 - lo / scale
    zp = int(np.clip(np.round(zp_real), -128, 127))
    return scale, zp


def round_away(x):
    """Round half away from zero (std::round, as TFLite's QUANTIZE)."""
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def quantize(x, scale, zp):
    return np.clip(round_away(np.asarray(x, np.float64) / scale) + zp, -128, 127).astype(np.int8)


def dequantize(q, scale, zp):
    return (np.asarray(q, np.float64) - zp) * scale


def fake(x, qp):
    return dequantize(quantize(x, *qp), *qp)


def quantize_weight(w, channel_axis):
    """Symmetric per channel: returns (int8 weights, float32 scales)."""
    w = np.asarray(w, np.float64)
    red = tuple(a for a in range(w.ndim) if a != channel_axis)
    amax = np.max(np.abs(w), axis=red) if red else np.abs(w)
    scale = np.where(amax > 0, amax / 127.0, 1.0).astype(np.float32)
    shape = [1] * w.ndim
    shape[channel_axis] = -1
    q = np.clip(np.round(w / scale.astype(np.float64).reshape(shape)), -127, 127)
    return q.astype(np.int8), scale


def quantize_bias(b, input_scale, weight_scale):
    s = np.float32(input_scale) * np.asarray(weight_scale, np.float32)
    q = np.round(np.asarray(b, np.float64) / s.astype(np.float64))
    return np.clip(q, -2**31, 2**31 - 1).astype(np.int32)


def dq_weight(q, scale, channel_axis):
    shape = [1] * q.ndim
    shape[channel_axis] = -1
    return q.astype(np.float64) * np.asarray(scale, np.float64).reshape(shape)


def calibrate(acts, names, percentile, fixed):
    """{name: (scale, zp)} for every activation name from a dict of float intermediates."""
    out = {}
    for n in names:
        out[n] = fixed[n] if n in fixed else choose_qparams(*value_range(acts[n], percentile))
    return out


# ---- MHA ------------------------------------------------------------------------

def quantize_mha(w, heads, calib, percentile):
    """w: float MHA tensors by name; calib: dict of float intermediates (reference.mha).
    Returns (tensors list [(name, dtype, array)], act qparams dict, quantized dict for simulation)."""
    acts = calibrate(calib, ["query", "key", "value", "q", "k", "v", "scores", "probs",
                             "attn", "out"], percentile, {"probs": PROBS_QPARAMS})
    e = w["out_proj.weight"].shape[0]
    tensors = []
    qw = {}
    if "in_proj_weight" in w:
        q, s = quantize_weight(w["in_proj_weight"], 0)
        tensors += [("in_proj_weight", "int8", q), ("in_proj_weight_scale", "f32", s)]
        qw["in_proj_weight"] = dq_weight(q, s, 0)
        ws = {"q": s[:e], "k": s[e:2 * e], "v": s[2 * e:]}
    else:
        ws = {}
        for p in "qkv":
            q, s = quantize_weight(w[f"{p}_proj_weight"], 0)
            tensors += [(f"{p}_proj_weight", "int8", q), (f"{p}_proj_weight_scale", "f32", s)]
            qw[f"{p}_proj_weight"] = dq_weight(q, s, 0)
            ws[p] = s
    if "in_proj_bias" in w:
        ib = w["in_proj_bias"]
        qb = np.concatenate([quantize_bias(ib[:e], acts["query"][0], ws["q"]),
                             quantize_bias(ib[e:2 * e], acts["key"][0], ws["k"]),
                             quantize_bias(ib[2 * e:], acts["value"][0], ws["v"])])
        tensors.append(("in_proj_bias", "int32", qb))
        in_s = np.concatenate([np.float32(acts[n][0]) * ws[p].astype(np.float32)
                               for n, p in (("query", "q"), ("key", "k"), ("value", "v"))])
        qw["in_proj_bias"] = qb.astype(np.float64) * in_s.astype(np.float64)
    q, s = quantize_weight(w["out_proj.weight"], 0)
    tensors += [("out_proj.weight", "int8", q), ("out_proj.weight_scale", "f32", s)]
    qw["out_proj.weight"] = dq_weight(q, s, 0)
    if "out_proj.bias" in w:
        qb = quantize_bias(w["out_proj.bias"], acts["attn"][0], s)
        tensors.append(("out_proj.bias", "int32", qb))
        qw["out_proj.bias"] = qb.astype(np.float64) * (np.float32(acts["attn"][0]) * s).astype(
            np.float64)
    return tensors, acts, qw


def mha_qw_from_blob(t, acts):
    """The dequantized weights simulate_mha takes, from an int8 blob's tensors."""
    e = t["out_proj.weight"].shape[0]
    qw = {}
    if "in_proj_weight" in t:
        s = t["in_proj_weight_scale"]
        qw["in_proj_weight"] = dq_weight(t["in_proj_weight"], s, 0)
        ws = {"q": s[:e], "k": s[e:2 * e], "v": s[2 * e:]}
    else:
        ws = {p: t[f"{p}_proj_weight_scale"] for p in "qkv"}
        for p in "qkv":
            qw[f"{p}_proj_weight"] = dq_weight(t[f"{p}_proj_weight"], ws[p], 0)
    if "in_proj_bias" in t:
        in_s = np.concatenate([np.float32(acts[n][0]) * np.asarray(ws[p], np.float32)
                               for n, p in (("query", "q"), ("key", "k"), ("value", "v"))])
        qw["in_proj_bias"] = t["in_proj_bias"].astype(np.float64) * in_s.astype(np.float64)
    so = t["out_proj.weight_scale"]
    qw["out_proj.weight"] = dq_weight(t["out_proj.weight"], so, 0)
    if "out_proj.bias" in t:
        qw["out_proj.bias"] = t["out_proj.bias"].astype(np.float64) * (
            np.float32(acts["attn"][0]) * np.asarray(so, np.float32)).astype(np.float64)
    return qw


def simulate_mha(qw, acts, heads, query, key=None, value=None, mask=None):
    key = query if key is None else key
    value = key if value is None else value
    q_in = fake(query, acts["query"])
    k_in = fake(key, acts["key"])
    v_in = fake(value, acts["value"])
    e = q_in.shape[-1]
    wq, wk, wv, bq, bk, bv, wo, bo = reference.mha_weights(qw, e, k_in.shape[-1],
                                                           v_in.shape[-1])
    hd = e // heads
    q = fake(q_in @ wq.T + bq, acts["q"])
    k = fake(k_in @ wk.T + bk, acts["k"])
    v = fake(v_in @ wv.T + bv, acts["v"])
    b, sq, skv = q.shape[0], q.shape[1], k.shape[1]
    qh = q.reshape(b, sq, heads, hd).transpose(0, 2, 1, 3)
    kh = k.reshape(b, skv, heads, hd).transpose(0, 2, 1, 3)
    vh = v.reshape(b, skv, heads, hd).transpose(0, 2, 1, 3)
    scores = fake(qh @ kh.transpose(0, 1, 3, 2), acts["scores"])
    logits = scores / np.sqrt(hd)
    if mask is not None:
        m = np.asarray(mask, np.float64)
        logits = logits + (m[:, None] if m.ndim == 3 else m)
    probs = fake(reference.softmax(logits), acts["probs"])
    attn = fake((probs @ vh).transpose(0, 2, 1, 3).reshape(b, sq, e), acts["attn"])
    return fake(attn @ wo.T + bo, acts["out"])


# ---- Bahdanau -----------------------------------------------------------------------

def quantize_bahdanau(w, calib, percentile):
    acts = calibrate(calib, ["query", "keys", "query_proj", "keys_proj", "sum", "tanh",
                             "scores", "probs", "context"], percentile,
                     {"probs": PROBS_QPARAMS, "tanh": TANH_QPARAMS})
    tensors, qw = [], {}
    q1, s1 = quantize_weight(w["W1"], 1)
    q2, s2 = quantize_weight(w["W2"], 1)
    qv, sv = quantize_weight(np.asarray(w["v"]).reshape(-1, 1), 1)
    # Stored in TFLite FULLY_CONNECTED layout [out, in] (the Keras kernels transposed).
    tensors += [("W1", "int8", q1.T), ("W1_scale", "f32", s1), ("W2", "int8", q2.T),
                ("W2_scale", "f32", s2), ("v", "int8", qv.reshape(-1)), ("v_scale", "f32", sv)]
    qw["W1"], qw["W2"] = dq_weight(q1, s1, 1), dq_weight(q2, s2, 1)
    qw["v"] = dq_weight(qv, sv, 1).reshape(-1)
    for bn, inp, s in (("b1", "query", s1), ("b2", "keys", s2), ("bv", "tanh", sv)):
        if bn in w:
            qb = quantize_bias(np.asarray(w[bn]).reshape(-1), acts[inp][0], s)
            tensors.append((bn, "int32", qb))
            qw[bn] = qb.astype(np.float64) * (np.float32(acts[inp][0]) * s).astype(np.float64)
    return tensors, acts, qw


def simulate_bahdanau(qw, acts, query, keys):
    q_in = fake(query, acts["query"])
    k_in = fake(keys, acts["keys"])
    units = qw["W1"].shape[1]
    qp = fake(q_in @ qw["W1"] + qw.get("b1", np.zeros(units)), acts["query_proj"])
    kp = fake(k_in @ qw["W2"] + qw.get("b2", np.zeros(units)), acts["keys_proj"])
    s = fake(qp[:, None, :] + kp, acts["sum"])
    t = fake(np.tanh(s), acts["tanh"])
    bv = float(qw["bv"].reshape(-1)[0]) if "bv" in qw else 0.0
    scores = fake(t @ qw["v"] + bv, acts["scores"])
    probs = fake(reference.softmax(scores), acts["probs"])
    return fake(np.einsum("bt,btd->bd", probs, k_in), acts["context"])


# ---- Luong general -----------------------------------------------------------------

def quantize_luong_general(w, calib, percentile):
    acts = calibrate(calib, ["query", "keys", "keys_proj", "scores", "probs", "context"],
                     percentile, {"probs": PROBS_QPARAMS})
    q, s = quantize_weight(w["W"], 1)
    tensors = [("W", "int8", q.T), ("W_scale", "f32", s)]  # [out, in] = [query_dim, key_dim]
    qw = {"W": dq_weight(q, s, 1)}
    if "b" in w:
        qb = quantize_bias(w["b"], acts["keys"][0], s)
        tensors.append(("b", "int32", qb))
        qw["b"] = qb.astype(np.float64) * (np.float32(acts["keys"][0]) * s).astype(np.float64)
    return tensors, acts, qw


def simulate_luong_general(qw, acts, query, keys):
    q_in = fake(query, acts["query"])
    k_in = fake(keys, acts["keys"])
    kp = fake(k_in @ qw["W"] + qw.get("b", np.zeros(qw["W"].shape[1])), acts["keys_proj"])
    scores = fake(np.einsum("btq,bq->bt", kp, q_in), acts["scores"])
    probs = fake(reference.softmax(scores), acts["probs"])
    return fake(np.einsum("bt,btd->bd", probs, k_in), acts["context"])


def act_tensors(op_acts, names):
    scales = np.array([op_acts[n][0] for n in names], np.float32)
    zps = np.array([op_acts[n][1] for n in names], np.int32)
    return [("act_scale", "f32", scales), ("act_zero_point", "int32", zps)]


def error_stats(got, want):
    got = np.asarray(got, np.float64).reshape(-1)
    want = np.asarray(want, np.float64).reshape(-1)
    d = np.abs(got - want)
    denom = np.linalg.norm(got) * np.linalg.norm(want)
    cos = float(got @ want / denom) if denom > 0 else 1.0
    return dict(max_abs=float(d.max()), mean_abs=float(d.mean()), cosine=cos,
                ref_max_abs=float(np.abs(want).max()))


# ---- decoder layer (mha_decode) -----------------------------------------------------

DECODE_LAYERS = (("q_proj_weight", "q_proj_bias", "input"), ("k_proj_weight", "k_proj_bias", "input"),
                 ("v_proj_weight", "v_proj_bias", "input"), ("out_proj.weight", "out_proj.bias",
                                                             "attn"))


def quantize_mha_decode(w, calib, percentile):
    """w: float decoder tensors by blob name; calib: intermediates (reference.mha_decode,
    concatenated over the calibration sequences). Returns (tensors, act qparams,
    dequantized weights for the simulation)."""
    from .blob import ACTS
    acts = calibrate(calib, ACTS["mha_decode"], percentile, {"probs": PROBS_QPARAMS})
    tensors, qw = [], {}
    for wname, bname, inp in DECODE_LAYERS:
        q, s = quantize_weight(w[wname], 0)
        sname = wname.replace("weight", "weight_scale")
        tensors += [(wname, "int8", q), (sname, "f32", s)]
        qw[wname] = dq_weight(q, s, 0)
        if bname in w:
            qb = quantize_bias(w[bname], acts[inp][0], s)
            tensors.append((bname, "int32", qb))
            qw[bname] = qb.astype(np.float64) * (np.float32(acts[inp][0]) * s).astype(np.float64)
    return tensors, acts, qw


def simulate_mha_decode(qw, acts, heads, kv_heads, x, window, **rope):
    """The int8 decoder as quantize-dequantize at every op boundary, one sequence x [T, E];
    rope: reference.mha_decode's rope_dims, rope_style, rope_theta (the rotated q and k
    rounded back to their own parameters, as the int8 op does)."""
    return reference.mha_decode(qw, heads, kv_heads, x, window,
                                fq=lambda name, a: fake(a, acts[name]), **rope)["out"]
