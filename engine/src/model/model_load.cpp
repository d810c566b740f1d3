// Model blob validation and loading (see attn/model.h for the format).
#include <cmath>
#include <cstring>

#include "attn/model.h"
#include "model/model_views.h"

namespace attn {
namespace {

using model_views::act_count;

// Largest hyper-parameter the loader accepts (the ops' own limit).
constexpr int32_t kMaxModelDim = 1 << 20;

uint16_t rd16(const unsigned char* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }

uint32_t rd32(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

int32_t rd_i32(const unsigned char* p) {
  const uint32_t u = rd32(p);
  int32_t v;
  std::memcpy(&v, &u, sizeof v);
  return v;
}

float rd_f32(const unsigned char* p) {
  const uint32_t u = rd32(p);
  float v;
  std::memcpy(&v, &u, sizeof v);
  return v;
}

std::size_t itemsize(TensorDtype d) {
  switch (d) {
    case TensorDtype::kF32: return 4;
    case TensorDtype::kInt8: return 1;
    case TensorDtype::kInt32: return 4;
    default: return 0;
  }
}

bool dim_ok(int32_t d) { return d >= 1 && d <= kMaxModelDim; }

// What the op expects of one tensor id.
struct Spec {
  bool known = false;
  bool required = false;
  TensorDtype dtype = TensorDtype::kNone;
  int32_t rank = 0;
  int32_t dims[kModelMaxRank] = {0, 0, 0, 0};
};

Spec spec1(bool required, TensorDtype dt, int32_t d0) {
  Spec s;
  s.known = true;
  s.required = required;
  s.dtype = dt;
  s.rank = 1;
  s.dims[0] = d0;
  return s;
}

Spec spec2(bool required, TensorDtype dt, int32_t d0, int32_t d1) {
  Spec s = spec1(required, dt, d0);
  s.rank = 2;
  s.dims[1] = d1;
  return s;
}

// A decoder layer: separate projections, K/V rows G*hd (params validated).
Spec decode_spec(bool q8, const int32_t* p, TensorId id) {
  const TensorDtype w = q8 ? TensorDtype::kInt8 : TensorDtype::kF32;
  const TensorDtype b = q8 ? TensorDtype::kInt32 : TensorDtype::kF32;
  const TensorDtype f = TensorDtype::kF32;
  const int32_t e = p[0], kv = p[2] * (p[0] / p[1]);
  switch (id) {
    case TensorId::kMhaQProjWeight: return spec2(true, w, e, e);
    case TensorId::kMhaKProjWeight: return spec2(true, w, kv, e);
    case TensorId::kMhaVProjWeight: return spec2(true, w, kv, e);
    case TensorId::kMhaOutProjWeight: return spec2(true, w, e, e);
    case TensorId::kMhaQProjBias: return spec1(false, b, e);
    case TensorId::kMhaKProjBias: return spec1(false, b, kv);
    case TensorId::kMhaVProjBias: return spec1(false, b, kv);
    case TensorId::kMhaOutProjBias: return spec1(false, b, e);
    default: break;
  }
  if (q8) {
    switch (id) {
      case TensorId::kMhaQProjWeightScale:
      case TensorId::kMhaOutProjWeightScale: return spec1(true, f, e);
      case TensorId::kMhaKProjWeightScale:
      case TensorId::kMhaVProjWeightScale: return spec1(true, f, kv);
      default: break;
    }
  }
  return Spec{};
}

// mha_decode: heads divide E, kv heads divide heads, capacity, window 0/1,
// rotary dims even and <= head_dim, style 0/1, theta finite > 1 (all 0
// without rotary dims).
bool decode_params_ok(const int32_t* p) {
  if (!dim_ok(p[0]) || !dim_ok(p[1]) || !dim_ok(p[2]) || !dim_ok(p[3])) return false;
  if (p[0] % p[1] != 0 || p[1] % p[2] != 0 || (p[4] != 0 && p[4] != 1)) return false;
  const int32_t hd = p[0] / p[1];
  if (p[5] == 0) return p[6] == 0 && p[7] == 0;
  float theta;
  std::memcpy(&theta, &p[7], sizeof theta);
  return p[5] > 0 && p[5] % 2 == 0 && p[5] <= hd && (p[6] == 0 || p[6] == 1) &&
         std::isfinite(theta) && theta > 1.0f;
}

// The spec of `id` for a model of op/dtype with validated params.
Spec spec_for(ModelOp op, ModelDtype dtype, const int32_t* p, TensorId id) {
  const bool q8 = dtype == ModelDtype::kInt8;
  const TensorDtype w = q8 ? TensorDtype::kInt8 : TensorDtype::kF32;
  const TensorDtype b = q8 ? TensorDtype::kInt32 : TensorDtype::kF32;
  const TensorDtype f = TensorDtype::kF32;
  if (q8 && id == TensorId::kActScale) {
    return spec1(true, f, act_count(op));
  }
  if (q8 && id == TensorId::kActZeroPoint) return spec1(true, TensorDtype::kInt32, act_count(op));
  if (op == ModelOp::kMhaDecode) return decode_spec(q8, p, id);
  if (op == ModelOp::kMha) {
    const int32_t e = p[0], kd = p[2], vd = p[3];
    switch (id) {
      case TensorId::kMhaInProjWeight: return spec2(false, w, 3 * e, e);
      case TensorId::kMhaInProjBias: return spec1(false, b, 3 * e);
      case TensorId::kMhaQProjWeight: return spec2(false, w, e, e);
      case TensorId::kMhaKProjWeight: return spec2(false, w, e, kd);
      case TensorId::kMhaVProjWeight: return spec2(false, w, e, vd);
      case TensorId::kMhaOutProjWeight: return spec2(true, w, e, e);
      case TensorId::kMhaOutProjBias: return spec1(false, b, e);
      default: break;
    }
    if (q8) {
      switch (id) {
        case TensorId::kMhaInProjWeightScale: return spec1(false, f, 3 * e);
        case TensorId::kMhaQProjWeightScale:
        case TensorId::kMhaKProjWeightScale:
        case TensorId::kMhaVProjWeightScale: return spec1(false, f, e);
        case TensorId::kMhaOutProjWeightScale: return spec1(true, f, e);
        default: break;
      }
    }
  } else if (op == ModelOp::kBahdanau) {
    const int32_t qd = p[0], kd = p[1], u = p[2];
    switch (id) {
      // float: Keras kernels [in, out]; int8: TFLite FULLY_CONNECTED [out, in].
      case TensorId::kBahdanauW1: return q8 ? spec2(true, w, u, qd) : spec2(true, w, qd, u);
      case TensorId::kBahdanauB1: return spec1(false, b, u);
      case TensorId::kBahdanauW2: return q8 ? spec2(true, w, u, kd) : spec2(true, w, kd, u);
      case TensorId::kBahdanauB2: return spec1(false, b, u);
      case TensorId::kBahdanauV: return spec1(true, w, u);
      case TensorId::kBahdanauBv: return spec1(false, b, 1);
      default: break;
    }
    if (q8) {
      switch (id) {
        case TensorId::kBahdanauW1Scale:
        case TensorId::kBahdanauW2Scale: return spec1(true, f, u);
        case TensorId::kBahdanauVScale: return spec1(true, f, 1);
        default: break;
      }
    }
  } else if (op == ModelOp::kLuongGeneral) {
    const int32_t qd = p[0], kd = p[1];
    switch (id) {
      case TensorId::kLuongW: return q8 ? spec2(true, w, qd, kd) : spec2(true, w, kd, qd);
      case TensorId::kLuongB: return spec1(false, b, qd);
      default: break;
    }
    if (q8 && id == TensorId::kLuongWScale) return spec1(true, f, qd);
  }
  return Spec{};
}

// Checks the op's hyper-parameters; unused ones must be 0.
bool params_ok(ModelOp op, const int32_t* p) {
  int used = 0;
  switch (op) {
    case ModelOp::kMha:
      used = 4;
      if (!dim_ok(p[0]) || !dim_ok(p[1]) || !dim_ok(p[2]) || !dim_ok(p[3])) return false;
      if (p[0] % p[1] != 0) return false;
      break;
    case ModelOp::kBahdanau:
      used = 3;
      if (!dim_ok(p[0]) || !dim_ok(p[1]) || !dim_ok(p[2])) return false;
      break;
    case ModelOp::kLuongGeneral:
      used = 2;
      if (!dim_ok(p[0]) || !dim_ok(p[1])) return false;
      break;
    case ModelOp::kMhaDecode: return decode_params_ok(p);
    default: return false;
  }
  for (int i = used; i < kModelParamCount; ++i) {
    if (p[i] != 0) return false;
  }
  return true;
}

// Every 4-byte little-endian value of t, read by rd, passes ok (an absent
// tensor passes).
template <class T, class Ok>
bool each_value_ok(const ModelTensor& t, T (*rd)(const unsigned char*), Ok ok) {
  if (t.data == nullptr) return true;
  const auto* p = static_cast<const unsigned char*>(t.data);
  const uint32_t n = t.bytes / 4;
  for (uint32_t i = 0; i < n; ++i) {
    if (!ok(rd(p + 4 * std::size_t{i}))) return false;
  }
  return true;
}

bool scales_ok(const ModelTensor& t) {
  return each_value_ok(t, rd_f32, [](float s) { return s > 0.0f && std::isfinite(s); });
}

bool zero_points_ok(const ModelTensor& t) {
  return each_value_ok(t, rd_i32, [](int32_t z) { return z >= -128 && z <= 127; });
}

// Every float32 tensor finite: a NaN or infinite weight would silently
// poison every output row (the float ops propagate non-finite values).
bool f32_tensors_finite(const Model& m) {
  for (const ModelTensor& t : m.tensors) {
    if (t.dtype != TensorDtype::kF32) continue;
    if (!each_value_ok(t, rd_f32, [](float x) { return std::isfinite(x); })) return false;
  }
  return true;
}

// Cross-tensor checks once every entry is individually valid.
ModelError check_presence(const Model& m) {
  auto has = [&m](TensorId id) { return m.tensor(id).data != nullptr; };
  const bool q8 = m.dtype == ModelDtype::kInt8;
  if (m.op == ModelOp::kMha) {
    const bool packed = has(TensorId::kMhaInProjWeight);
    const int separate = int{has(TensorId::kMhaQProjWeight)} + int{has(TensorId::kMhaKProjWeight)} +
                         int{has(TensorId::kMhaVProjWeight)};
    if (packed ? separate != 0 : separate != 3) return ModelError::kMissingTensor;
    if (packed && (m.params[2] != m.params[0] || m.params[3] != m.params[0])) {
      return ModelError::kBadTensorShape;
    }
    if (q8) {
      const TensorId pairs[4][2] = {{TensorId::kMhaInProjWeight, TensorId::kMhaInProjWeightScale},
                                    {TensorId::kMhaQProjWeight, TensorId::kMhaQProjWeightScale},
                                    {TensorId::kMhaKProjWeight, TensorId::kMhaKProjWeightScale},
                                    {TensorId::kMhaVProjWeight, TensorId::kMhaVProjWeightScale}};
      for (const auto& pr : pairs) {
        if (has(pr[0]) != has(pr[1])) return ModelError::kMissingTensor;
      }
    }
  }
  for (int32_t i = 0; i < kModelTensorSlots; ++i) {
    const Spec s = spec_for(m.op, m.dtype, m.params, static_cast<TensorId>(i));
    if (s.known && s.required && m.tensors[i].data == nullptr) return ModelError::kMissingTensor;
  }
  if (q8) {
    const TensorId scale_ids[] = {TensorId::kMhaInProjWeightScale,  TensorId::kMhaQProjWeightScale,
                                  TensorId::kMhaKProjWeightScale,   TensorId::kMhaVProjWeightScale,
                                  TensorId::kMhaOutProjWeightScale, TensorId::kBahdanauW1Scale,
                                  TensorId::kBahdanauW2Scale,       TensorId::kBahdanauVScale,
                                  TensorId::kLuongWScale,           TensorId::kActScale};
    for (TensorId id : scale_ids) {
      if (!scales_ok(m.tensor(id))) return ModelError::kBadQuantParams;
    }
    if (!zero_points_ok(m.tensor(TensorId::kActZeroPoint))) return ModelError::kBadQuantParams;
  }
  if (!f32_tensors_finite(m)) return ModelError::kNonFiniteWeight;
  return ModelError::kNone;
}

// The pieces of load, in the order of its checks. Always inlined: load runs
// as one frame (each piece a function of its own would put its frame on the
// loader's deepest stack path, spec_for's, on Cortex-M).
#define ATTN_LOAD_STEP __attribute__((always_inline)) inline

// The fixed header fields up to the CRC: *total is the blob's length.
ATTN_LOAD_STEP ModelError check_header(const unsigned char* d, std::size_t size, uint32_t* total) {
  namespace o = model_offset;
  if (size < 8) return ModelError::kTooSmall;
  if (rd32(d + o::kMagic) != kModelMagic) return ModelError::kBadMagic;
  if (rd16(d + o::kVersion) != kModelVersion) return ModelError::kBadVersion;
  if (rd16(d + o::kHeaderBytes) != kModelHeaderBytes) return ModelError::kBadHeaderSize;
  if (size < kModelHeaderBytes) return ModelError::kTooSmall;
  if (reinterpret_cast<std::uintptr_t>(d) % 4u != 0) return ModelError::kMisalignedBuffer;
  *total = rd32(d + o::kTotalBytes);
  if (*total < kModelHeaderBytes) return ModelError::kBadTotalSize;
  if (*total > size) return ModelError::kTruncated;
  if (model_blob_crc(d, *total) != rd32(d + o::kCrc)) return ModelError::kBadCrc;
  return ModelError::kNone;
}

// The op, dtype, flags, reserved bytes, name and hyper-parameters, the op,
// dtype and parameters into m.
ATTN_LOAD_STEP ModelError read_op(const unsigned char* d, Model* m) {
  namespace o = model_offset;
  const uint16_t op = rd16(d + o::kOp);
  if (op < 1 || op > 4) return ModelError::kBadOp;
  const uint16_t dtype = rd16(d + o::kDtype);
  if (dtype < 1 || dtype > 2) return ModelError::kBadDtype;
  if (rd32(d + o::kFlags) != 0) return ModelError::kBadFlags;
  for (std::size_t i = o::kReserved; i < kModelHeaderBytes; ++i) {
    if (d[i] != 0) return ModelError::kBadFlags;
  }
  // Name: printable ASCII then only NULs.
  bool ended = false;
  for (std::size_t i = 0; i < 32; ++i) {
    const unsigned char c = d[o::kName + i];
    if (c == 0) {
      ended = true;
    } else if (ended || c < 0x20 || c > 0x7E) {
      return ModelError::kBadName;
    }
  }
  m->op = static_cast<ModelOp>(op);
  m->dtype = static_cast<ModelDtype>(dtype);
  for (int i = 0; i < kModelParamCount; ++i) {
    m->params[i] = rd_i32(d + o::kParams + 4 * static_cast<std::size_t>(i));
  }
  if (!params_ok(m->op, m->params)) return ModelError::kBadParams;
  return ModelError::kNone;
}

// One tensor table entry as read.
struct Entry {
  uint16_t id;
  TensorDtype dtype;
  int32_t rank;
  uint32_t offset;
  uint32_t bytes;
};

// The entry at e on its own: rank, dtype, reserved word, dims (unused ones
// 0) and a byte count that matches them.
ATTN_LOAD_STEP ModelError read_entry(const unsigned char* e, Entry* t, int32_t* dims) {
  namespace o = model_offset;
  t->id = rd16(e + o::kEntryId);
  t->dtype = static_cast<TensorDtype>(e[o::kEntryDtype]);
  t->rank = e[o::kEntryRank];
  t->offset = rd32(e + o::kEntryOffset);
  t->bytes = rd32(e + o::kEntryBytes);
  if (t->rank < 1 || t->rank > kModelMaxRank || itemsize(t->dtype) == 0 ||
      rd32(e + o::kEntryReserved) != 0) {
    return ModelError::kBadTensorEntry;
  }
  uint64_t elems = 1;
  for (int32_t r = 0; r < kModelMaxRank; ++r) {
    const uint32_t dim = rd32(e + o::kEntryDims + 4 * static_cast<std::size_t>(r));
    dims[r] = 0;
    if (r < t->rank) {
      if (dim < 1 || dim > static_cast<uint32_t>(kMaxModelDim) * 4u) {
        return ModelError::kBadTensorEntry;
      }
      elems *= dim;
      if (elems > 0xFFFFFFFFull) return ModelError::kBadTensorEntry;
      dims[r] = static_cast<int32_t>(dim);
    } else if (dim != 0) {
      return ModelError::kBadTensorEntry;
    }
  }
  if (elems * itemsize(t->dtype) != t->bytes) return ModelError::kBadTensorEntry;
  return ModelError::kNone;
}

// The entry against the op (a known id, once, its dtype and shape) and its
// placement (aligned, after the table, inside the blob, overlapping no other
// tensor), then into m's tensor slots.
ATTN_LOAD_STEP ModelError place_entry(const unsigned char* d, const Entry& t, const int32_t* dims,
                                      uint64_t table_end, uint32_t total, Model* m) {
  if (t.id >= kModelTensorSlots) return ModelError::kUnknownTensor;
  const Spec s = spec_for(m->op, m->dtype, m->params, static_cast<TensorId>(t.id));
  if (!s.known) return ModelError::kUnknownTensor;
  if (m->tensors[t.id].data != nullptr) return ModelError::kDuplicateTensor;
  if (t.dtype != s.dtype) return ModelError::kBadTensorDtype;
  if (t.rank != s.rank) return ModelError::kBadTensorShape;
  for (int32_t r = 0; r < t.rank; ++r) {
    if (dims[r] != s.dims[r]) return ModelError::kBadTensorShape;
  }
  if (t.offset % kModelTensorAlign != 0) return ModelError::kMisalignedTensor;
  if (t.offset < table_end || uint64_t{t.offset} + t.bytes > total) {
    return ModelError::kTensorOutOfBounds;
  }
  for (int32_t j = 0; j < kModelTensorSlots; ++j) {
    const ModelTensor& other = m->tensors[j];
    if (other.data == nullptr) continue;
    if (uint64_t{t.offset} < uint64_t{other.offset} + other.bytes &&
        uint64_t{other.offset} < uint64_t{t.offset} + t.bytes) {
      return ModelError::kTensorOverlap;
    }
  }
  ModelTensor& slot = m->tensors[t.id];
  slot.data = d + t.offset;
  slot.dtype = t.dtype;
  slot.rank = t.rank;
  for (int32_t r = 0; r < kModelMaxRank; ++r) slot.dims[r] = dims[r];
  slot.offset = t.offset;
  slot.bytes = t.bytes;
  return ModelError::kNone;
}

ModelError load(const unsigned char* d, std::size_t size, Model* m) {
  namespace o = model_offset;
  uint32_t total = 0;
  ModelError err = check_header(d, size, &total);
  if (err != ModelError::kNone) return err;
  err = read_op(d, m);
  if (err != ModelError::kNone) return err;

  const uint32_t count = rd32(d + o::kTensorCount);
  if (count == 0 || count > kModelMaxTensors) return ModelError::kBadTensorCount;
  const uint32_t table = rd32(d + o::kTableOffset);
  const uint64_t table_end = uint64_t{table} + uint64_t{count} * kModelTableEntryBytes;
  if (table % 4 != 0 || table < kModelHeaderBytes || table_end > total) {
    return ModelError::kBadTableOffset;
  }
  for (uint32_t i = 0; i < count; ++i) {
    Entry t;
    int32_t dims[kModelMaxRank];
    err = read_entry(d + table + std::size_t{i} * kModelTableEntryBytes, &t, dims);
    if (err == ModelError::kNone) err = place_entry(d, t, dims, table_end, total, m);
    if (err != ModelError::kNone) return err;
  }
  m->tensor_count = static_cast<int32_t>(count);
  const ModelError presence = check_presence(*m);
  if (presence != ModelError::kNone) return presence;

  m->base = d;
  m->total_bytes = total;
  m->version = kModelVersion;
  std::memcpy(m->name, d + o::kName, 32);
  m->name[32] = '\0';
  return ModelError::kNone;
}

#undef ATTN_LOAD_STEP

// Resets a Model field by field (GCC 12 has an internal compiler error on
// `*out = Model{}` for this aggregate).
void reset(Model* m) {
  m->base = nullptr;
  m->total_bytes = 0;
  m->version = 0;
  m->op = ModelOp::kNone;
  m->dtype = ModelDtype::kNone;
  for (int32_t& p : m->params) p = 0;
  for (char& c : m->name) c = '\0';
  m->tensor_count = 0;
  for (ModelTensor& t : m->tensors) {
    t.data = nullptr;
    t.dtype = TensorDtype::kNone;
    t.rank = 0;
    for (int32_t& dim : t.dims) dim = 0;
    t.offset = 0;
    t.bytes = 0;
  }
}

}  // namespace

Status model_load(const void* data, std::size_t size, Model* out, ModelError* error) {
  if (data == nullptr || out == nullptr) {
    if (out != nullptr) reset(out);
    if (error != nullptr) *error = ModelError::kNullArgument;
    return Status::kNullPointer;
  }
  reset(out);
  const ModelError e = load(static_cast<const unsigned char*>(data), size, out);
  if (error != nullptr) *error = e;
  if (e != ModelError::kNone) {
    reset(out);
    return Status::kBadModel;
  }
  return Status::kOk;
}

}  // namespace attn
