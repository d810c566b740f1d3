"""The model blob format, version 1 (see FORMAT.md and engine/include/attn/model.h).

write_blob() lays tensors out at 64-byte-aligned offsets and fills the CRC;
read_blob() parses and validates a blob (used by tests and by `attn-convert info`).
"""
import struct
import zlib

import numpy as np

MAGIC = b"ATNM"
VERSION = 1
HEADER_BYTES = 128
ENTRY_BYTES = 32
ALIGN = 64
MAX_TENSORS = 32
CRC_OFFSET = 12

OPS = {"mha": 1, "bahdanau": 2, "luong_general": 3, "mha_decode": 4}
OP_NAMES = {v: k for k, v in OPS.items()}
MODEL_DTYPES = {"f32": 1, "int8": 2}
MODEL_DTYPE_NAMES = {v: k for k, v in MODEL_DTYPES.items()}
TENSOR_DTYPES = {"f32": (1, np.dtype("<f4")), "int8": (2, np.dtype("i1")),
                 "int32": (3, np.dtype("<i4"))}
TENSOR_DTYPE_BY_CODE = {code: (name, dt) for name, (code, dt) in TENSOR_DTYPES.items()}

# Tensor ids (TensorId in model.h): never renumber.
TENSOR_IDS = {
    "in_proj_weight": 1, "in_proj_bias": 2, "q_proj_weight": 3, "k_proj_weight": 4,
    "v_proj_weight": 5, "out_proj.weight": 6, "out_proj.bias": 7,
    "in_proj_weight_scale": 8, "q_proj_weight_scale": 9, "k_proj_weight_scale": 10,
    "v_proj_weight_scale": 11, "out_proj.weight_scale": 12,
    "q_proj_bias": 13, "k_proj_bias": 14, "v_proj_bias": 15,
    "W1": 16, "b1": 17, "W2": 18, "b2": 19, "v": 20, "bv": 21,
    "W1_scale": 22, "W2_scale": 23, "v_scale": 24,
    "W": 28, "b": 29, "W_scale": 30,
    "act_scale": 32, "act_zero_point": 33,
}
TENSOR_NAMES = {v: k for k, v in TENSOR_IDS.items()}

# Activation tables of int8 models (MhaAct / BahdanauAct / LuongAct in model.h).
ACTS = {
    "mha": ["query", "key", "value", "q", "k", "v", "scores", "probs", "attn", "out"],
    "bahdanau": ["query", "keys", "query_proj", "keys_proj", "sum", "tanh", "scores",
                 "probs", "context"],
    "luong_general": ["query", "keys", "keys_proj", "scores", "probs", "context"],
    "mha_decode": ["input", "q", "k", "v", "scores", "probs", "attn", "out"],
}

# Hyper-parameters by op, in header order.
PARAMS = {
    "mha": ["embed_dim", "num_heads", "kdim", "vdim"],
    "bahdanau": ["query_dim", "key_dim", "units"],
    "luong_general": ["query_dim", "key_dim"],
    # rope_theta is stored as its float32 bits (write_blob / read_blob convert).
    "mha_decode": ["embed_dim", "num_heads", "num_kv_heads", "capacity", "window",
                   "rope_dims", "rope_style", "rope_theta"],
}
ROPE_STYLES = ("half", "interleaved")


def param_word(name, value):
    """A hyper-parameter as the header's int32 (rope_theta: its float32 bits)."""
    if name == "rope_theta":
        return struct.unpack("<i", struct.pack("<f", float(value)))[0] if value else 0
    return int(value)


def param_value(name, word):
    if name == "rope_theta":
        return float(struct.unpack("<f", struct.pack("<i", word))[0])
    return word


class BlobError(ValueError):
    pass


def align(n, a=ALIGN):
    return (n + a - 1) // a * a


def blob_crc(data):
    """CRC-32 (zlib) of the blob with its 4 CRC bytes read as zero."""
    return zlib.crc32(bytes(data[:CRC_OFFSET]) + b"\0\0\0\0" + bytes(data[CRC_OFFSET + 4:])) \
        & 0xFFFFFFFF


def write_blob(op, dtype, params, tensors, name=""):
    """op: "mha" | "bahdanau" | "luong_general"; dtype: "f32" | "int8";
    params: dict of PARAMS[op]; tensors: list of (tensor name, tensor dtype name, ndarray).
    Returns the blob as bytes."""
    if not 1 <= len(tensors) <= MAX_TENSORS:
        raise BlobError(f"{len(tensors)} tensors (1..{MAX_TENSORS} allowed)")
    name_bytes = name.encode("ascii", "replace")[:32]
    if any(c < 0x20 or c > 0x7E for c in name_bytes):
        raise BlobError("model name must be printable ASCII")
    table_end = HEADER_BYTES + ENTRY_BYTES * len(tensors)
    pos = align(table_end)
    entries = []
    payload = []
    for tname, tdtype, arr in tensors:
        code, npdt = TENSOR_DTYPES[tdtype]
        a = np.ascontiguousarray(arr, dtype=npdt)
        if not 1 <= a.ndim <= 4:
            raise BlobError(f"{tname}: rank {a.ndim} (1..4 allowed)")
        dims = list(a.shape) + [0] * (4 - a.ndim)
        raw = a.tobytes()
        entries.append(struct.pack("<HBB4IIII", TENSOR_IDS[tname], code, a.ndim, *dims, pos,
                                   len(raw), 0))
        payload.append((pos, raw))
        pos = align(pos + len(raw))
    total = pos
    buf = bytearray(total)
    p = [param_word(k, params[k]) for k in PARAMS[op]] + [0] * (8 - len(PARAMS[op]))
    struct.pack_into("<4sHHII", buf, 0, MAGIC, VERSION, HEADER_BYTES, total, 0)
    struct.pack_into("<HHIII8i", buf, 16, OPS[op], MODEL_DTYPES[dtype], 0, len(tensors),
                     HEADER_BYTES, *p)
    buf[64:64 + len(name_bytes)] = name_bytes
    for i, e in enumerate(entries):
        buf[HEADER_BYTES + i * ENTRY_BYTES:HEADER_BYTES + (i + 1) * ENTRY_BYTES] = e
    for off, raw in payload:
        buf[off:off + len(raw)] = raw
    struct.pack_into("<I", buf, CRC_OFFSET, blob_crc(buf))
    return bytes(buf)


class Blob:
    """A parsed blob: op, dtype, params (dict), name, tensors (name -> ndarray), total."""

    def __init__(self, op, dtype, params, name, tensors, total, layout):
        self.op, self.dtype, self.params, self.name = op, dtype, params, name
        self.tensors, self.total, self.layout = tensors, total, layout

    def acts(self):
        """int8: {activation name: (scale, zero_point)}."""
        if "act_scale" not in self.tensors:
            return {}
        return {n: (float(s), int(z)) for n, s, z in
                zip(ACTS[self.op], self.tensors["act_scale"], self.tensors["act_zero_point"])}


def read_blob(data):
    """Parses a blob; raises BlobError naming the first problem (a subset of the
    engine's checks: the engine's model_load is the authority)."""
    data = bytes(data)
    if len(data) < 8 or data[:4] != MAGIC:
        raise BlobError("not an attn model blob (bad magic)")
    magic, version, hbytes, total, crc = struct.unpack_from("<4sHHII", data, 0)
    if version != VERSION:
        raise BlobError(f"format version {version}, this tool reads {VERSION}")
    if hbytes != HEADER_BYTES or len(data) < HEADER_BYTES:
        raise BlobError("bad header size or truncated header")
    if total < HEADER_BYTES or total > len(data):
        raise BlobError(f"total_bytes {total} but the file has {len(data)} bytes (truncated?)")
    if blob_crc(data[:total]) != crc:
        raise BlobError("CRC-32 mismatch: the blob is corrupt")
    op, dtype, flags, count, table = struct.unpack_from("<HHIII", data, 16)
    params = struct.unpack_from("<8i", data, 32)
    if op not in OP_NAMES:
        raise BlobError(f"unknown op kind {op}")
    if dtype not in MODEL_DTYPE_NAMES:
        raise BlobError(f"unknown model dtype {dtype}")
    opn = OP_NAMES[op]
    name = data[64:96].split(b"\0")[0].decode("ascii", "replace")
    if not 1 <= count <= MAX_TENSORS or table + count * ENTRY_BYTES > total:
        raise BlobError("bad tensor table")
    tensors = {}
    layout = []
    for i in range(count):
        tid, tdt, rank, d0, d1, d2, d3, off, nbytes, _ = struct.unpack_from(
            "<HBB4IIII", data, table + i * ENTRY_BYTES)
        if tdt not in TENSOR_DTYPE_BY_CODE or not 1 <= rank <= 4:
            raise BlobError(f"tensor entry {i}: bad dtype or rank")
        tname = TENSOR_NAMES.get(tid, f"id{tid}")
        tdn, npdt = TENSOR_DTYPE_BY_CODE[tdt]
        shape = (d0, d1, d2, d3)[:rank]
        if off % ALIGN or off + nbytes > total or int(np.prod(shape)) * npdt.itemsize != nbytes:
            raise BlobError(f"tensor {tname}: bad offset or size")
        tensors[tname] = np.frombuffer(data, dtype=npdt, count=int(np.prod(shape)),
                                       offset=off).reshape(shape)
        layout.append((tname, tdn, shape, off, nbytes))
    return Blob(opn, MODEL_DTYPE_NAMES[dtype],
                {k: param_value(k, v) for k, v in zip(PARAMS[opn], params)}, name, tensors, total,
                layout)
