// Fuzz target: the model-blob loader (attn::model_load) and the runners of
// what it accepts.
//
// Each input is tried three ways:
//   1. as is, in an exactly sized 4-aligned copy (most mutations fail the CRC);
//   2. with its CRC field recomputed over total_bytes, so that mutations of
//      the header, the table and the tensors reach the structural checks;
//   3. one byte off 4-byte alignment (must be rejected).
// Checked: the loader never reads outside the buffer (ASan), a rejection
// resets the Model and names a reason, an accepted Model's tensor views lie
// inside the blob with consistent sizes, and running an accepted float model
// on small inputs stays inside every buffer the op's header documents (the
// loader must have checked every shape the runner relies on); int8 models go
// through model_*_s8_prepare (which may refuse scales whose multipliers are
// out of range, with a status) and, when prepared, the int8 op. A decoder
// layer (mha_decode) decodes kSeqQ tokens in two calls over a cache of the
// model's shape (a full linear cache is its kCacheFull).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "attn/model.h"
#include "attn/model_decode.h"
#include "attn/model_s8.h"
#include "fuzz_common.h"

namespace {

using attn::Model;
using attn::ModelError;
using attn::Status;
using attn_fuzz::Buf;

std::size_t itemsize(attn::TensorDtype d) {
  switch (d) {
    case attn::TensorDtype::kF32: return 4;
    case attn::TensorDtype::kInt8: return 1;
    case attn::TensorDtype::kInt32: return 4;
    default: return 0;
  }
}

void fill(Buf<float>& b) {
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 7) * 0.25f - 0.75f;
}

void fill_s8(Buf<int8_t>& b) {
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<int8_t>((i * 37u) % 256u);
}

constexpr int32_t kBatch = 2, kSeqQ = 3, kSeqKv = 5;
constexpr uint64_t kMaxElems = 1u << 20;

// Decodes n tokens in calls of 2 through `step(first, count, cache)` over a
// cache of the model's shape with `element`; false if the shape is too large.
template <class Step>
bool decode_in_chunks(const Model& m, attn::KvElement element, Step step) {
  const attn::KvCacheShape cs = attn::model_kv_cache_shape(m, element);
  const std::size_t bytes = attn::kv_cache_bytes(cs);
  if (bytes == 0 || bytes > kMaxElems) return false;
  Buf<unsigned char> storage(bytes);
  attn::KvCache cache;
  FUZZ_CHECK(attn::kv_cache_init(cs, storage.data(), bytes, &cache) == Status::kOk);
  for (int32_t t0 = 0; t0 < kSeqQ; t0 += 2) {
    const Status st = step(t0, t0 + 2 <= kSeqQ ? 2 : kSeqQ - t0, &cache);
    FUZZ_CHECK(st == Status::kOk || (st == Status::kCacheFull && !cs.window));
    if (st != Status::kOk) break;
  }
  return true;
}

void run_decode_f32(const Model& m) {
  const attn::MhaDecodeShape sh = attn::model_mha_decode_shape(m, 2, attn::KvElement::kF16);
  const uint64_t n = attn_fuzz::count({kSeqQ, sh.embed_dim}, kMaxElems);
  const std::size_t need = attn::mha_decode_f32_scratch_bytes(sh);
  if (n > kMaxElems || need > kMaxElems) return;
  attn::MhaDecodeF32Weights w;
  FUZZ_CHECK(attn::model_mha_decode_f32_weights(m, &w) == Status::kOk);
  Buf<float> x(n), out(n);
  fill(x);
  Buf<unsigned char> scratch(need);
  decode_in_chunks(m, attn::KvElement::kF16, [&](int32_t t0, int32_t tokens, attn::KvCache* c) {
    attn::MhaDecodeF32Args a;
    a.x = x.data() + static_cast<std::size_t>(t0) * static_cast<std::size_t>(sh.embed_dim);
    a.out = out.data() + static_cast<std::size_t>(t0) * static_cast<std::size_t>(sh.embed_dim);
    a.tokens = tokens;
    return attn::mha_decode_f32(sh, w, a, c, {scratch.data(), need});
  });
}

void run_decode_s8(const Model& m) {
  const attn::MhaDecodeShape sh = attn::model_mha_decode_shape(m, 2, attn::KvElement::kS8);
  const uint64_t n = attn_fuzz::count({kSeqQ, sh.embed_dim}, kMaxElems);
  const std::size_t nch = attn::mha_decode_s8_channel_count(sh);
  if (n > kMaxElems || nch > kMaxElems) return;
  Buf<attn::QuantizedMultiplier> ch(nch);
  attn::MhaDecodeS8Params params;
  const Status ps = attn::model_mha_decode_s8_prepare(m, 2, ch.data(), nch, &params);
  attn_fuzz::note("model_mha_decode_s8_prepare", attn::status_str(ps));
  if (ps != Status::kOk) return;
  const std::size_t need = attn::mha_decode_s8_scratch_bytes(params.shape, params.capacity);
  if (need > kMaxElems) return;
  Buf<int8_t> x(n), out(n);
  fill_s8(x);
  Buf<unsigned char> scratch(need);
  decode_in_chunks(m, attn::KvElement::kS8, [&](int32_t t0, int32_t tokens, attn::KvCache* c) {
    attn::MhaDecodeS8Args a;
    a.x = x.data() + static_cast<std::size_t>(t0) * static_cast<std::size_t>(sh.embed_dim);
    a.out = out.data() + static_cast<std::size_t>(t0) * static_cast<std::size_t>(sh.embed_dim);
    a.tokens = tokens;
    return attn::mha_decode_s8(&params, a, c, {scratch.data(), need});
  });
}

void run(const Model& m) {
  if (m.op == attn::ModelOp::kMhaDecode) {
    if (m.dtype == attn::ModelDtype::kF32) run_decode_f32(m);
    return;
  }
  const int32_t lengths[kBatch] = {kSeqKv, 2};
  const std::size_t need = attn::model_scratch_bytes(m, kBatch, kSeqQ, kSeqKv);
  Buf<unsigned char> scratch(need);
  const attn::Scratch s{scratch.data(), need};
  switch (m.op) {
    case attn::ModelOp::kMha: {
      const attn::MhaShape sh = attn::model_mha_shape(m, kBatch, kSeqQ, kSeqKv);
      const int32_t kdim = sh.kdim == 0 ? sh.embed_dim : sh.kdim;
      const int32_t vdim = sh.vdim == 0 ? sh.embed_dim : sh.vdim;
      const uint64_t nq = attn_fuzz::count({kBatch, kSeqQ, sh.embed_dim}, kMaxElems);
      const uint64_t nk = attn_fuzz::count({kBatch, kSeqKv, kdim}, kMaxElems);
      const uint64_t nv = attn_fuzz::count({kBatch, kSeqKv, vdim}, kMaxElems);
      if (nq > kMaxElems || nk > kMaxElems || nv > kMaxElems) return;
      Buf<float> q(nq), k(nk), v(nv), out(nq), w(kBatch * kSeqQ * kSeqKv);
      fill(q);
      fill(k);
      fill(v);
      attn::MhaF32Args a;
      a.query = q.data();
      a.key = k.data();
      a.value = v.data();
      a.out = out.data();
      a.probs = w.data();
      a.mask.key_lengths = lengths;
      const Status st = attn::model_run_mha_f32(m, kBatch, kSeqQ, kSeqKv, a, s);
      if (m.dtype == attn::ModelDtype::kF32) FUZZ_CHECK(st == Status::kOk);
      // Wrong-op runners refuse.
      attn::BahdanauF32Args ba;
      FUZZ_CHECK(attn::model_run_bahdanau_f32(m, kBatch, kSeqKv, ba, s) != Status::kOk);
      break;
    }
    case attn::ModelOp::kBahdanau: {
      const attn::BahdanauShape sh = attn::model_bahdanau_shape(m, kBatch, kSeqKv);
      const uint64_t nq = attn_fuzz::count({kBatch, sh.query_dim}, kMaxElems);
      const uint64_t nk = attn_fuzz::count({kBatch, kSeqKv, sh.key_dim}, kMaxElems);
      if (nq > kMaxElems || nk > kMaxElems) return;
      Buf<float> q(nq), k(nk), ctx(attn_fuzz::count({kBatch, sh.key_dim}, kMaxElems)),
          w(kBatch * kSeqKv);
      fill(q);
      fill(k);
      attn::BahdanauF32Args a;
      a.query = q.data();
      a.keys = k.data();
      a.context = ctx.data();
      a.probs = w.data();
      a.key_lengths = lengths;
      const Status st = attn::model_run_bahdanau_f32(m, kBatch, kSeqKv, a, s);
      if (m.dtype == attn::ModelDtype::kF32) {
        // A non-finite bv in the blob is the op's kBadArgument.
        FUZZ_CHECK(st == Status::kOk || st == Status::kBadArgument);
      }
      break;
    }
    case attn::ModelOp::kLuongGeneral: {
      const attn::LuongGeneralShape sh = attn::model_luong_general_shape(m, kBatch, kSeqKv);
      const uint64_t nq = attn_fuzz::count({kBatch, sh.query_dim}, kMaxElems);
      const uint64_t nk = attn_fuzz::count({kBatch, kSeqKv, sh.key_dim}, kMaxElems);
      if (nq > kMaxElems || nk > kMaxElems) return;
      Buf<float> q(nq), k(nk), ctx(attn_fuzz::count({kBatch, sh.key_dim}, kMaxElems)),
          w(kBatch * kSeqKv);
      fill(q);
      fill(k);
      attn::LuongF32Args a;
      a.query = q.data();
      a.keys = k.data();
      a.context = ctx.data();
      a.probs = w.data();
      a.key_lengths = lengths;
      const Status st = attn::model_run_luong_general_f32(m, kBatch, kSeqKv, a, s);
      if (m.dtype == attn::ModelDtype::kF32) FUZZ_CHECK(st == Status::kOk);
      break;
    }
    default: FUZZ_CHECK(false);
  }
}

// An int8 model through model_*_s8_prepare and the int8 op.
void run_s8(const Model& m) {
  if (m.op == attn::ModelOp::kMhaDecode) {
    run_decode_s8(m);
    return;
  }
  const int32_t lengths[kBatch] = {kSeqKv, 2};
  switch (m.op) {
    case attn::ModelOp::kMha: {
      const attn::MhaShape sh = attn::model_mha_shape(m, kBatch, kSeqQ, kSeqKv);
      const int32_t kdim = sh.kdim == 0 ? sh.embed_dim : sh.kdim;
      const int32_t vdim = sh.vdim == 0 ? sh.embed_dim : sh.vdim;
      const uint64_t nq = attn_fuzz::count({kBatch, kSeqQ, sh.embed_dim}, kMaxElems);
      const uint64_t nk = attn_fuzz::count({kBatch, kSeqKv, kdim}, kMaxElems);
      const uint64_t nv = attn_fuzz::count({kBatch, kSeqKv, vdim}, kMaxElems);
      const std::size_t nch = attn::mha_s8_channel_count(sh);
      if (nq > kMaxElems || nk > kMaxElems || nv > kMaxElems || nch > kMaxElems) return;
      Buf<attn::QuantizedMultiplier> ch(nch);
      attn::MhaS8Params params;
      const Status ps =
          attn::model_mha_s8_prepare(m, kBatch, kSeqQ, kSeqKv, ch.data(), nch, &params);
      attn_fuzz::note("model_mha_s8_prepare", attn::status_str(ps));
      if (ps != Status::kOk) return;
      Buf<int8_t> q(nq), k(nk), v(nv), out(nq),
          w(attn_fuzz::count({kBatch, sh.num_heads, kSeqQ, kSeqKv}, kMaxElems));
      fill_s8(q);
      fill_s8(k);
      fill_s8(v);
      attn::MhaS8Args a;
      a.query = q.data();
      a.key = k.data();
      a.value = v.data();
      a.out = out.data();
      a.probs = w.data();
      a.mask.key_lengths = lengths;
      const std::size_t need = attn::mha_s8_scratch_bytes(params.shape);
      Buf<unsigned char> scratch(need);
      FUZZ_CHECK(attn::mha_s8(params, a, {scratch.data(), need}) == Status::kOk);
      break;
    }
    case attn::ModelOp::kBahdanau: {
      const attn::BahdanauShape sh = attn::model_bahdanau_shape(m, kBatch, kSeqKv);
      const uint64_t nq = attn_fuzz::count({kBatch, sh.query_dim}, kMaxElems);
      const uint64_t nk = attn_fuzz::count({kBatch, kSeqKv, sh.key_dim}, kMaxElems);
      const std::size_t nch = attn::bahdanau_s8_channel_count(sh);
      if (nq > kMaxElems || nk > kMaxElems || nch > kMaxElems) return;
      Buf<attn::QuantizedMultiplier> ch(nch);
      attn::BahdanauS8Params params;
      const Status ps = attn::model_bahdanau_s8_prepare(m, kBatch, kSeqKv, ch.data(), nch, &params);
      attn_fuzz::note("model_bahdanau_s8_prepare", attn::status_str(ps));
      if (ps != Status::kOk) return;
      Buf<int8_t> q(nq), k(nk), ctx(attn_fuzz::count({kBatch, sh.key_dim}, kMaxElems)),
          w(kBatch * kSeqKv);
      fill_s8(q);
      fill_s8(k);
      attn::BahdanauS8Args a;
      a.query = q.data();
      a.keys = k.data();
      a.context = ctx.data();
      a.probs = w.data();
      a.key_lengths = lengths;
      const std::size_t need = attn::bahdanau_s8_scratch_bytes(params.shape);
      Buf<unsigned char> scratch(need);
      FUZZ_CHECK(attn::bahdanau_s8(params, a, {scratch.data(), need}) == Status::kOk);
      break;
    }
    case attn::ModelOp::kLuongGeneral: {
      const attn::LuongGeneralShape sh = attn::model_luong_general_shape(m, kBatch, kSeqKv);
      const uint64_t nq = attn_fuzz::count({kBatch, sh.query_dim}, kMaxElems);
      const uint64_t nk = attn_fuzz::count({kBatch, kSeqKv, sh.key_dim}, kMaxElems);
      const auto nch = static_cast<std::size_t>(nq > 0 ? sh.query_dim : 0);
      if (nq > kMaxElems || nk > kMaxElems) return;
      Buf<attn::QuantizedMultiplier> ch(nch);
      attn::LuongS8Params params;
      const Status ps =
          attn::model_luong_general_s8_prepare(m, kBatch, kSeqKv, ch.data(), nch, &params);
      attn_fuzz::note("model_luong_general_s8_prepare", attn::status_str(ps));
      if (ps != Status::kOk) return;
      Buf<int8_t> q(nq), k(nk), ctx(attn_fuzz::count({kBatch, sh.key_dim}, kMaxElems)),
          w(kBatch * kSeqKv);
      fill_s8(q);
      fill_s8(k);
      attn::LuongS8Args a;
      a.query = q.data();
      a.keys = k.data();
      a.context = ctx.data();
      a.probs = w.data();
      a.key_lengths = lengths;
      const std::size_t need = attn::luong_general_s8_scratch_bytes(params.shape);
      Buf<unsigned char> scratch(need);
      FUZZ_CHECK(attn::luong_s8(params, a, {scratch.data(), need}) == Status::kOk);
      break;
    }
    default: FUZZ_CHECK(false);
  }
}

void load_and_check(const unsigned char* p, std::size_t size, bool aligned) {
  Model m;
  ModelError err = ModelError::kNone;
  const Status st = attn::model_load(p, size, &m, &err);
  FUZZ_CHECK(attn::model_error_str(err) != nullptr);
  if (std::getenv("ATTN_FUZZ_VERBOSE") != nullptr) {
    std::fprintf(stderr, "model_load: %s (%s)\n", attn::status_str(st), attn::model_error_str(err));
  }
  if (st != Status::kOk) {
    FUZZ_CHECK(st == Status::kBadModel && err != ModelError::kNone);
    FUZZ_CHECK(m.op == attn::ModelOp::kNone && m.base == nullptr);
    if (!aligned && size >= attn::kModelHeaderBytes) {
      FUZZ_CHECK(err != ModelError::kNone);
    }
    return;
  }
  FUZZ_CHECK(aligned && err == ModelError::kNone);
  FUZZ_CHECK(m.base == p && m.total_bytes >= attn::kModelHeaderBytes && m.total_bytes <= size);
  FUZZ_CHECK(m.tensor_count >= 1 && m.tensor_count <= static_cast<int32_t>(attn::kModelMaxTensors));
  FUZZ_CHECK(std::strlen(m.name) <= 32);
  FUZZ_CHECK(attn::model_op_str(m.op) != nullptr && attn::model_dtype_str(m.dtype) != nullptr);
  int32_t present = 0;
  for (int32_t id = 0; id < attn::kModelTensorSlots; ++id) {
    const attn::ModelTensor& t = m.tensors[id];
    FUZZ_CHECK(attn::tensor_id_str(static_cast<attn::TensorId>(id)) != nullptr);
    if (t.data == nullptr) continue;
    ++present;
    FUZZ_CHECK(attn::tensor_dtype_str(t.dtype) != nullptr);
    const auto* d = static_cast<const unsigned char*>(t.data);
    FUZZ_CHECK(d >= p && d + t.bytes <= p + m.total_bytes);
    FUZZ_CHECK(d == p + t.offset && t.offset % attn::kModelTensorAlign == 0);
    FUZZ_CHECK(t.rank >= 1 && t.rank <= attn::kModelMaxRank);
    uint64_t n = itemsize(t.dtype);
    FUZZ_CHECK(n > 0);
    for (int32_t r = 0; r < t.rank; ++r) {
      FUZZ_CHECK(t.dims[r] >= 1);
      n *= static_cast<uint64_t>(t.dims[r]);
    }
    FUZZ_CHECK(n == t.bytes);
    // Touch every byte: any view past the buffer is an ASan report.
    unsigned sum = 0;
    for (uint32_t i = 0; i < t.bytes; ++i) sum += d[i];
    (void)sum;
  }
  FUZZ_CHECK(present == m.tensor_count);
  run(m);
  if (m.dtype == attn::ModelDtype::kInt8) run_s8(m);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  // 1. As is.
  Buf<unsigned char> blob(size);
  if (size > 0) std::memcpy(blob.data(), data, size);
  load_and_check(blob.data(), size, true);

  // 2. With a correct CRC over the total_bytes the header claims.
  if (size >= attn::kModelHeaderBytes) {
    uint32_t total = 0;
    std::memcpy(&total, blob.data() + attn::model_offset::kTotalBytes, 4);
    if (total >= 16 && total <= size) {
      const uint32_t crc = attn::model_blob_crc(blob.data(), total);
      uint32_t old = 0;
      std::memcpy(&old, blob.data() + attn::model_offset::kCrc, 4);
      if (crc != old) {
        std::memcpy(blob.data() + attn::model_offset::kCrc, &crc, 4);
        load_and_check(blob.data(), size, true);
      }
    }
  }

  // 3. Misaligned by one byte: rejected, never read out of bounds.
  Buf<unsigned char> shifted(size + 1);
  if (size > 0) std::memcpy(shifted.data() + 1, blob.data(), size);
  load_and_check(shifted.data() + 1, size, false);

  // Null arguments.
  Model m;
  ModelError err = ModelError::kNone;
  FUZZ_CHECK(attn::model_load(nullptr, size, &m, &err) == Status::kNullPointer);
  FUZZ_CHECK(attn::model_load(blob.data(), size, nullptr, &err) == Status::kNullPointer);
  return 0;
}
