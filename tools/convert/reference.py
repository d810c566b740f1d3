"""Float forward passes of the ops in NumPy (float64), returning every
intermediate tensor the int8 path quantizes (names as in blob.ACTS).

Layouts follow the engine: MHA weights in PyTorch layout (y = x W^T + b),
Bahdanau / Luong kernels in Keras layout (y = x W + b).
"""
import numpy as np


def softmax(x, axis=-1):
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(x - m)
    s = np.sum(e, axis=axis, keepdims=True)
    return np.divide(e, s, out=np.zeros_like(e), where=s > 0)


def mha_weights(w, e, kdim, vdim):
    """(Wq, Wk, Wv, bq, bk, bv, Wo, bo) from a dict of MHA tensors (None biases -> 0)."""
    if "in_proj_weight" in w:
        ip = w["in_proj_weight"]
        wq, wk, wv = ip[:e], ip[e:2 * e], ip[2 * e:]
    else:
        wq, wk, wv = w["q_proj_weight"], w["k_proj_weight"], w["v_proj_weight"]
    ib = w.get("in_proj_bias")
    if ib is None:
        ib = np.zeros(3 * e)
    bo = w.get("out_proj.bias")
    if bo is None:
        bo = np.zeros(e)
    return wq, wk, wv, ib[:e], ib[e:2 * e], ib[2 * e:], w["out_proj.weight"], bo


def mha(w, heads, query, key=None, value=None, mask=None):
    """query [B, Sq, E], key [B, Skv, kdim], value [B, Skv, vdim]; mask additive
    [Sq, Skv] or [B, Sq, Skv] (or None). Returns dict of intermediates; "out" is the result."""
    key = query if key is None else key
    value = key if value is None else value
    q_in, k_in, v_in = (np.asarray(a, np.float64) for a in (query, key, value))
    e = q_in.shape[-1]
    wq, wk, wv, bq, bk, bv, wo, bo = (np.asarray(a, np.float64) for a in
                                      mha_weights(w, e, k_in.shape[-1], v_in.shape[-1]))
    hd = e // heads
    q = q_in @ wq.T + bq
    k = k_in @ wk.T + bk
    v = v_in @ wv.T + bv
    b, sq, skv = q.shape[0], q.shape[1], k.shape[1]
    qh = q.reshape(b, sq, heads, hd).transpose(0, 2, 1, 3)
    kh = k.reshape(b, skv, heads, hd).transpose(0, 2, 1, 3)
    vh = v.reshape(b, skv, heads, hd).transpose(0, 2, 1, 3)
    scores = qh @ kh.transpose(0, 1, 3, 2)
    logits = scores / np.sqrt(hd)
    if mask is not None:
        m = np.asarray(mask, np.float64)
        logits = logits + (m[:, None] if m.ndim == 3 else m)
    probs = softmax(logits)
    attn = (probs @ vh).transpose(0, 2, 1, 3).reshape(b, sq, e)
    out = attn @ wo.T + bo
    return dict(query=q_in, key=k_in, value=v_in, q=q, k=k, v=v, scores=scores, probs=probs,
                attn=attn, out=out)


def bahdanau(w, query, keys):
    """query [B, query_dim], keys [B, T, key_dim]."""
    query = np.asarray(query, np.float64)
    keys = np.asarray(keys, np.float64)
    f = {k: np.asarray(v, np.float64) for k, v in w.items()}
    units = f["W1"].shape[1]
    qp = query @ f["W1"] + f.get("b1", np.zeros(units))
    kp = keys @ f["W2"] + f.get("b2", np.zeros(units))
    s = qp[:, None, :] + kp
    t = np.tanh(s)
    scores = t @ f["v"].reshape(-1) + float(f.get("bv", np.zeros(1)).reshape(-1)[0])
    probs = softmax(scores)
    context = np.einsum("bt,btd->bd", probs, keys)
    return dict(query=query, keys=keys, query_proj=qp, keys_proj=kp, sum=s, tanh=t,
                scores=scores, probs=probs, context=context, out=context)


def luong_general(w, query, keys):
    """query [B, query_dim], keys [B, T, key_dim]; W [key_dim, query_dim]."""
    query = np.asarray(query, np.float64)
    keys = np.asarray(keys, np.float64)
    wm = np.asarray(w["W"], np.float64)
    b = np.asarray(w["b"], np.float64) if "b" in w else np.zeros(wm.shape[1])
    kp = keys @ wm + b
    scores = np.einsum("btq,bq->bt", kp, query)
    probs = softmax(scores)
    context = np.einsum("bt,btd->bd", probs, keys)
    return dict(query=query, keys=keys, keys_proj=kp, scores=scores, probs=probs,
                context=context, out=context)


def rope(x, positions, dims, style="half", theta=10000.0):
    """Rotary position embedding of x [..., T, heads, hd] at integer positions [T]:
    pair i < dims/2 turns by angle p * theta^(-2i/dims); half-split pairs
    (x[i], x[i + dims/2]) (Llama, GPT-NeoX), interleaved (x[2i], x[2i + 1]) (GPT-J);
    (a, b) -> (a cos - b sin, b cos + a sin); elements from dims on unchanged."""
    x = np.array(x, np.float64)
    if dims == 0:
        return x
    inv = float(theta) ** (-2.0 * np.arange(dims // 2) / dims)
    ang = np.asarray(positions, np.float64)[:, None] * inv  # [T, dims/2]
    cos, sin = np.cos(ang)[:, None, :], np.sin(ang)[:, None, :]
    if style == "half":
        ia, ib = np.arange(dims // 2), np.arange(dims // 2) + dims // 2
    else:
        ia, ib = np.arange(0, dims, 2), np.arange(1, dims, 2)
    a, b = x[..., ia].copy(), x[..., ib].copy()
    x[..., ia] = a * cos - b * sin
    x[..., ib] = b * cos + a * sin
    return x


def band_mask(t, window=0):
    """Additive [T, T] mask: causal, and with a window W only the last W positions
    (j > i - W) of each query i."""
    i, j = np.arange(t)[:, None], np.arange(t)[None, :]
    keep = j <= i
    if window:
        keep &= j > i - window
    return np.where(keep, 0.0, -np.inf)


def mha_decode(w, heads, kv_heads, x, window=0, rope_dims=0, rope_style="half",
               rope_theta=10000.0, fq=None):
    """A decoder layer over one whole sequence x [T, E] (what token-by-token
    decoding must equal): Llama-style weights (q/k/v_proj_weight [out, in],
    out_proj.weight, q/k/v_proj_bias and out_proj.bias optional), kv head g serves
    query heads g*H/G .. (g+1)*H/G - 1, RoPE on Q and K at positions 0..T-1,
    causal (band with a window) softmax. fq(name, array) is applied at every
    int8 op boundary (quantize-dequantize for the simulation; identity here),
    the rotated Q and K included: the int8 op rotates the q and k codes and
    rounds them back to the same (scale, zero point).
    Returns the intermediates by blob.ACTS["mha_decode"] name; "scores" holds only
    the scores a query sees. With RoPE also q_rot and k_rot, the rotated Q and K
    (before that rounding; [T, heads, hd] and [T, kv_heads, hd]): the q and k
    codes hold both, so calibration covers both."""
    fq = fq or (lambda name, a: a)
    f = {k: np.asarray(v, np.float64) for k, v in w.items()}
    x = fq("input", np.asarray(x, np.float64))
    t, e = x.shape
    hd, g = e // heads, kv_heads

    def proj(name, bias, rows):
        return x @ f[name].T + f.get(bias, np.zeros(rows))

    q = fq("q", proj("q_proj_weight", "q_proj_bias", e))
    k = fq("k", proj("k_proj_weight", "k_proj_bias", g * hd))
    v = fq("v", proj("v_proj_weight", "v_proj_bias", g * hd))
    pos = np.arange(t)
    q_rot = rope(q.reshape(t, heads, hd), pos, rope_dims, rope_style, rope_theta)
    k_rot = rope(k.reshape(t, g, hd), pos, rope_dims, rope_style, rope_theta)
    if rope_dims:
        qh, kh = fq("q", q_rot).transpose(1, 0, 2), fq("k", k_rot).transpose(1, 0, 2)
    else:
        qh, kh = q_rot.transpose(1, 0, 2), k_rot.transpose(1, 0, 2)
    vh = v.reshape(t, g, hd).transpose(1, 0, 2)
    group = np.arange(heads) // (heads // g)
    scores = fq("scores", qh @ kh[group].transpose(0, 2, 1))  # [H, T, T]
    mask = band_mask(t, window)
    probs = fq("probs", softmax(scores / np.sqrt(hd) + mask))
    attn = fq("attn", (probs @ vh[group]).transpose(1, 0, 2).reshape(t, e))
    out = fq("out", attn @ f["out_proj.weight"].T + f.get("out_proj.bias", np.zeros(e)))
    r = dict(input=x, q=q, k=k, v=v, scores=scores[:, np.isfinite(mask)], probs=probs,
             attn=attn, out=out)
    if rope_dims:
        r.update(q_rot=q_rot, k_rot=k_rot)
    return r
