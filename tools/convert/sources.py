"""Reading and checking the user's weights (.npz, or .pt via PyTorch)."""
import os

import numpy as np


class ConvertError(Exception):
    """A problem with the user's input: printed as one line, exit status 2."""


def load_arrays(path):
    """{name: ndarray} from an .npz or a PyTorch .pt (state_dict, module or
    {"state_dict": ...})."""
    if not os.path.exists(path):
        raise ConvertError(f"{path}: no such file")
    ext = os.path.splitext(path)[1].lower()
    if ext == ".npz":
        try:
            with np.load(path, allow_pickle=False) as z:
                return {k: z[k] for k in z.files}
        except Exception as e:  # zipfile / format errors
            raise ConvertError(f"{path}: not a readable .npz ({e})")
    if ext in (".pt", ".pth", ".bin"):
        try:
            import torch
        except ImportError:
            raise ConvertError(f"{path}: reading a PyTorch file needs torch (python3-torch); "
                               "or save the weights with numpy.savez")
        try:
            obj = torch.load(path, map_location="cpu")
        except Exception as e:
            raise ConvertError(f"{path}: torch.load failed ({e})")
        if hasattr(obj, "state_dict") and callable(obj.state_dict):
            obj = obj.state_dict()
        if isinstance(obj, dict) and "state_dict" in obj and isinstance(obj["state_dict"], dict):
            obj = obj["state_dict"]
        if not isinstance(obj, dict):
            raise ConvertError(f"{path}: expected a state_dict, got {type(obj).__name__}")
        out = {}
        for k, v in obj.items():
            if hasattr(v, "detach"):
                out[str(k)] = v.detach().cpu().numpy()
            elif isinstance(v, np.ndarray):
                out[str(k)] = v
        return out
    raise ConvertError(f"{path}: unknown input type '{ext}' (expected .npz or .pt)")


def describe(arrays):
    return ", ".join(f"{k} {list(np.shape(v))}" for k, v in sorted(arrays.items())) or "nothing"


def get(arrays, name, src, required=True, display=None):
    """The array `name` as float32, checked for a float dtype and finite values."""
    display = display or name
    if name not in arrays:
        if required:
            raise ConvertError(f"{src}: missing array '{display}' (found: {describe(arrays)})")
        return None
    a = np.asarray(arrays[name])
    if a.dtype.kind != "f":
        raise ConvertError(f"{src}: array '{display}' has dtype {a.dtype}, expected a float "
                           "type (float16/32/64)")
    if not np.all(np.isfinite(a)):
        raise ConvertError(f"{src}: array '{display}' contains NaN or Inf")
    return a.astype(np.float32)


def expect_shape(a, shape, display, src, why=""):
    if a is not None and tuple(a.shape) != tuple(shape):
        raise ConvertError(f"{src}: array '{display}' has shape {list(a.shape)}, expected "
                           f"{list(shape)}{why}")


MHA_NAMES = ("in_proj_weight", "q_proj_weight", "out_proj.weight", "in_proj_bias")


def find_mha_prefix(arrays, src, prefix):
    if prefix is not None:
        return prefix
    found = sorted({k[:-len(n)] for k in arrays for n in MHA_NAMES if k.endswith(n)})
    if not found:
        raise ConvertError(f"{src}: no nn.MultiheadAttention weights (no '*in_proj_weight', "
                           f"'*q_proj_weight' or '*out_proj.weight'; found: {describe(arrays)})")
    if len(found) > 1:
        raise ConvertError(f"{src}: several attention modules "
                           f"({', '.join(repr(p) if p else '<root>' for p in found)}); "
                           "choose one with --prefix")
    return found[0]


def mha_weights(arrays, src, heads, prefix=None, kdim=None, vdim=None):
    """Checked PyTorch nn.MultiheadAttention weights -> (tensors dict, params dict)."""
    p = find_mha_prefix(arrays, src, prefix)
    for extra in ("bias_k", "bias_v"):
        if p + extra in arrays:
            raise ConvertError(f"{src}: array '{p + extra}': add_bias_kv=True is not supported "
                               "by the engine")
    wo = get(arrays, p + "out_proj.weight", src)
    if wo.ndim != 2 or wo.shape[0] != wo.shape[1]:
        raise ConvertError(f"{src}: array '{p}out_proj.weight' has shape {list(wo.shape)}, "
                           "expected [E, E]")
    e = wo.shape[0]
    if heads is None or heads <= 0:
        raise ConvertError("mha needs --heads H (the number of heads is not stored in the weights)")
    if e % heads != 0:
        raise ConvertError(f"--heads {heads} does not divide embed_dim {e} "
                           f"(from '{p}out_proj.weight')")
    t = {"out_proj.weight": wo}
    ip = get(arrays, p + "in_proj_weight", src, required=False)
    if ip is not None:
        expect_shape(ip, (3 * e, e), p + "in_proj_weight", src)
        for name, d in (("kdim", kdim), ("vdim", vdim)):
            if d is not None and d != e:
                raise ConvertError(f"--{name} {d}: '{p}in_proj_weight' is packed, so {name} = "
                                   f"embed_dim = {e}")
        t["in_proj_weight"] = ip
        kd = vd = e
    else:
        qw = get(arrays, p + "q_proj_weight", src, display=p + "q_proj_weight (or in_proj_weight)")
        kw = get(arrays, p + "k_proj_weight", src)
        vw = get(arrays, p + "v_proj_weight", src)
        expect_shape(qw, (e, e), p + "q_proj_weight", src)
        if kw.ndim != 2 or kw.shape[0] != e:
            raise ConvertError(f"{src}: array '{p}k_proj_weight' has shape {list(kw.shape)}, "
                               f"expected [{e}, kdim]")
        if vw.ndim != 2 or vw.shape[0] != e:
            raise ConvertError(f"{src}: array '{p}v_proj_weight' has shape {list(vw.shape)}, "
                               f"expected [{e}, vdim]")
        kd, vd = kw.shape[1], vw.shape[1]
        for name, d, have in (("kdim", kdim, kd), ("vdim", vdim, vd)):
            if d is not None and d != have:
                raise ConvertError(f"--{name} {d} but '{p}{name[0]}_proj_weight' has {name} {have}")
        t.update(q_proj_weight=qw, k_proj_weight=kw, v_proj_weight=vw)
    ib = get(arrays, p + "in_proj_bias", src, required=False)
    expect_shape(ib, (3 * e,), p + "in_proj_bias", src)
    ob = get(arrays, p + "out_proj.bias", src, required=False)
    expect_shape(ob, (e,), p + "out_proj.bias", src)
    if ib is not None:
        t["in_proj_bias"] = ib
    if ob is not None:
        t["out_proj.bias"] = ob
    return t, dict(embed_dim=e, num_heads=heads, kdim=kd, vdim=vd)


def bahdanau_weights(arrays, src):
    w1 = get(arrays, "W1", src)
    w2 = get(arrays, "W2", src)
    v = get(arrays, "v", src)
    if w1.ndim != 2:
        raise ConvertError(f"{src}: array 'W1' has shape {list(w1.shape)}, expected "
                           "[query_dim, units] (Keras Dense kernel)")
    qd, units = w1.shape
    if w2.ndim != 2 or w2.shape[1] != units:
        raise ConvertError(f"{src}: array 'W2' has shape {list(w2.shape)}, expected "
                           f"[key_dim, {units}] (units from W1)")
    kd = w2.shape[0]
    if v.shape not in ((units,), (units, 1)):
        raise ConvertError(f"{src}: array 'v' has shape {list(v.shape)}, expected [{units}] "
                           f"or [{units}, 1]")
    t = {"W1": w1, "W2": w2, "v": v.reshape(units)}
    for name in ("b1", "b2"):
        b = get(arrays, name, src, required=False)
        expect_shape(b, (units,), name, src)
        if b is not None:
            t[name] = b
    bv = get(arrays, "bv", src, required=False)
    if bv is not None:
        if bv.size != 1:
            raise ConvertError(f"{src}: array 'bv' has shape {list(bv.shape)}, expected a scalar "
                               "or [1]")
        t["bv"] = bv.reshape(1)
    return t, dict(query_dim=qd, key_dim=kd, units=units)


def luong_general_weights(arrays, src):
    w = get(arrays, "W", src)
    if w.ndim != 2:
        raise ConvertError(f"{src}: array 'W' has shape {list(w.shape)}, expected "
                           "[key_dim, query_dim] (Keras Dense kernel on the keys)")
    kd, qd = w.shape
    t = {"W": w}
    b = get(arrays, "b", src, required=False)
    expect_shape(b, (qd,), "b", src, " (query_dim from W)")
    if b is not None:
        t["b"] = b
    return t, dict(query_dim=qd, key_dim=kd)


def load_npy(path, what, last_dim=None, rank=None):
    """A calibration input as float64, checked."""
    if not os.path.exists(path):
        raise ConvertError(f"{path}: no such file ({what})")
    try:
        a = np.load(path, allow_pickle=False)
    except Exception as e:
        raise ConvertError(f"{path}: not a readable .npy ({e})")
    if a.dtype.kind != "f":
        raise ConvertError(f"{path}: {what} has dtype {a.dtype}, expected float")
    if rank is not None and a.ndim not in rank:
        raise ConvertError(f"{path}: {what} has shape {list(a.shape)}, expected rank "
                           f"{' or '.join(map(str, rank))}")
    if last_dim is not None and a.shape[-1] != last_dim:
        raise ConvertError(f"{path}: {what} has shape {list(a.shape)}, last dimension must be "
                           f"{last_dim}")
    if not np.all(np.isfinite(a)):
        raise ConvertError(f"{path}: {what} contains NaN or Inf")
    return a.astype(np.float64)


LLAMA_NAMES = ("q_proj.weight", "k_proj.weight", "v_proj.weight", "o_proj.weight")


def find_llama_prefix(arrays, src, prefix):
    """The state_dict prefix of a Llama-style attention (q/k/v/o_proj.weight), or None."""
    if prefix is not None:
        return prefix if prefix + "q_proj.weight" in arrays else None
    found = sorted({k[:-len("q_proj.weight")] for k in arrays if k.endswith("q_proj.weight")})
    if len(found) > 1:
        raise ConvertError(f"{src}: several attention layers "
                           f"({', '.join(repr(p) if p else '<root>' for p in found)}); "
                           "choose one with --prefix")
    return found[0] if found else None


def decode_weights(arrays, src, heads, prefix=None, kv_heads=None):
    """A decoder layer's weights -> (tensors by blob name, params dict): Llama-style
    q_proj/k_proj/v_proj/o_proj (.weight [out, in], .bias optional; kv heads from
    k_proj's rows), or nn.MultiheadAttention weights (kv heads = heads) split into
    separate projections."""
    if heads is None or heads <= 0:
        raise ConvertError("mha-decode needs --heads H (the number of heads is not stored in "
                           "the weights)")
    p = find_llama_prefix(arrays, src, prefix)
    if p is None:
        t, params = mha_weights(arrays, src, heads, prefix)
        e = params["embed_dim"]
        if params["kdim"] != e or params["vdim"] != e:
            raise ConvertError(f"{src}: kdim/vdim differ from embed_dim {e}: a decoder layer "
                               "attends to its own tokens")
        ip = t.pop("in_proj_weight", None)
        if ip is not None:
            t.update(q_proj_weight=ip[:e], k_proj_weight=ip[e:2 * e], v_proj_weight=ip[2 * e:])
        ib = t.pop("in_proj_bias", None)
        if ib is not None:
            t.update(q_proj_bias=ib[:e], k_proj_bias=ib[e:2 * e], v_proj_bias=ib[2 * e:])
        g = heads
    else:
        wq = get(arrays, p + "q_proj.weight", src)
        if wq.ndim != 2 or wq.shape[0] != wq.shape[1]:
            raise ConvertError(f"{src}: array '{p}q_proj.weight' has shape {list(wq.shape)}, "
                               "expected [E, E]")
        e = wq.shape[0]
        if e % heads != 0:
            raise ConvertError(f"--heads {heads} does not divide embed_dim {e} "
                               f"(from '{p}q_proj.weight')")
        hd = e // heads
        wk = get(arrays, p + "k_proj.weight", src)
        if wk.ndim != 2 or wk.shape[1] != e or wk.shape[0] % hd != 0 or \
                heads % (wk.shape[0] // hd or 1) != 0 or wk.shape[0] == 0:
            raise ConvertError(f"{src}: array '{p}k_proj.weight' has shape {list(wk.shape)}, "
                               f"expected [kv_heads*{hd}, {e}] with kv_heads dividing {heads}")
        g = wk.shape[0] // hd
        wv = get(arrays, p + "v_proj.weight", src)
        expect_shape(wv, wk.shape, p + "v_proj.weight", src, " (the shape of k_proj.weight)")
        wo = get(arrays, p + "o_proj.weight", src)
        expect_shape(wo, (e, e), p + "o_proj.weight", src)
        t = {"q_proj_weight": wq, "k_proj_weight": wk, "v_proj_weight": wv,
             "out_proj.weight": wo}
        for name, blob_name, n in (("q_proj.bias", "q_proj_bias", e),
                                   ("k_proj.bias", "k_proj_bias", g * hd),
                                   ("v_proj.bias", "v_proj_bias", g * hd),
                                   ("o_proj.bias", "out_proj.bias", e)):
            b = get(arrays, p + name, src, required=False)
            expect_shape(b, (n,), p + name, src)
            if b is not None:
                t[blob_name] = b
    if kv_heads is not None and kv_heads != g:
        raise ConvertError(f"--kv-heads {kv_heads} but the weights have {g} kv heads "
                           f"(k_proj rows / head_dim)")
    return t, dict(embed_dim=e, num_heads=heads, num_kv_heads=g)
