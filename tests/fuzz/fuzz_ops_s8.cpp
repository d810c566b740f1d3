// Fuzz target: the int8 ops' prepare (scales, zero points, beta, shapes,
// exactness limits) and eval (masks, key lengths, scratch size and
// alignment, extreme int8 values).
//
// Buffers are allocated exactly to the documented sizes (ASan catches any
// access outside them); UBSan catches a signed int32 overflow in the
// accumulations, so shapes up to the documented exactness limits
// (kSdpaS8MaxDimK, kSoftmaxS8MaxCols) with all-extreme inputs test the
// limits' claims. Checked for every call:
//   - prepare's kOk only for parameters the header calls valid, and never for
//     a shape past the exactness limits;
//   - an error status from eval leaves every output untouched;
//   - probabilities: masked keys give -128, a fully masked row gives -128
//     weights and the output zero point, and each row's probabilities add
//     up to 1 (256 codes) within rounding.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "attn/luong_s8.h"
#include "attn/sdpa_s8.h"
#include "attn/softmax_s8.h"
#include "fuzz_common.h"

namespace {

using attn::Status;
using attn_fuzz::Buf;
using attn_fuzz::FuzzScratch;
using attn_fuzz::Reader;

constexpr uint64_t kMaxElems = 1u << 16;
constexpr uint64_t kMaxWork = 1u << 22;
constexpr std::size_t kMaxScratch = 1u << 20;
constexpr int32_t kMaxDim = 1 << 20;

std::size_t uz(int64_t v) { return static_cast<std::size_t>(v); }
bool dim_valid(int32_t d) { return d >= 1 && d <= kMaxDim; }
bool scale_ok(float s) { return std::isfinite(s) && s > 0.0f; }
bool zp_ok(int32_t z) { return z >= -128 && z <= 127; }

// int8 tensor contents: fuzzed bytes, or every element at one extreme.
void fill_s8(Reader& in, Buf<int8_t>& b, uint8_t mode) {
  for (std::size_t i = 0; i < b.size(); ++i) {
    switch (mode % 4) {
      case 0: b[i] = -128; break;
      case 1: b[i] = 127; break;
      default: b[i] = static_cast<int8_t>(in.u8()); break;
    }
  }
}

attn::QuantParams quant(Reader& in) {
  attn::QuantParams p;
  p.scale = in.param();
  const uint8_t z = in.u8();
  p.zero_point = z < 240 ? static_cast<int32_t>(z) - 128 : (z & 1 ? 128 : -129);
  return p;
}

// Sum of a row's probability codes, as multiples of 1/256.
void check_probs(const int8_t* row, int32_t cols) {
  int64_t sum = 0;
  for (int32_t j = 0; j < cols; ++j) sum += row[j] + 128;
  FUZZ_CHECK(sum >= 256 - cols - 2 && sum <= 256 + cols + 2);
}

void fuzz_softmax(Reader& in) {
  const float input_scale = in.param();
  const float beta = in.param();
  attn::SoftmaxS8Params params;
  const Status ps = attn::softmax_s8_prepare(input_scale, beta, &params);
  attn_fuzz::note("softmax_s8_prepare", attn::status_str(ps));
  if (ps != Status::kOk) return;
  FUZZ_CHECK(scale_ok(input_scale) && scale_ok(beta));
  const int32_t rows = in.dim(), cols = in.dim();
  const uint64_t n = attn_fuzz::count({rows, cols}, kMaxElems);
  if (n > kMaxElems) return;
  const uint8_t flags = in.u8();
  Buf<int8_t> x(n), y(n);
  fill_s8(in, x, flags >> 2);
  y.poison();
  const bool in_place = (flags & 1) != 0;
  const Status st =
      attn::softmax_s8({rows, cols}, params, {x.data(), in_place ? x.data() : y.data()});
  attn_fuzz::note("softmax_s8", attn::status_str(st));
  if (st != Status::kOk) {
    if (!in_place) FUZZ_CHECK(y.untouched());
    return;
  }
  FUZZ_CHECK(dim_valid(rows) && dim_valid(cols) && cols <= attn::kSoftmaxS8MaxCols);
  const int8_t* out = in_place ? x.data() : y.data();
  for (int32_t r = 0; r < rows; ++r) check_probs(out + uz(r) * uz(cols), cols);
}

void fuzz_sdpa(Reader& in) {
  attn::SdpaShape shape;
  shape.batch = in.dim();
  shape.seq_q = in.dim();
  shape.seq_kv = in.dim();
  shape.dim_k = in.dim();
  shape.dim_v = in.dim();
  attn::SdpaS8Quant qp;
  const uint8_t qmode = in.u8();
  if (qmode & 1) {
    qp.q = quant(in);
    qp.k = quant(in);
    qp.v = quant(in);
    qp.scores = quant(in);
    qp.out = quant(in);
    qp.beta = (qmode & 2) ? in.param() : 0.0f;
  } else {
    // Tame parameters, so that most inputs reach eval.
    const int32_t zp = static_cast<int32_t>(in.u8()) - 128;
    qp.q = {0.05f, zp};
    qp.k = {0.04f, -zp / 2};
    qp.v = {0.03f, 0};
    qp.scores = {0.1f + static_cast<float>(in.u8() % 16) * 0.1f,
                 static_cast<int32_t>(in.u8()) - 128};
    qp.out = {0.02f, 3};
  }
  attn::SdpaS8Params params;
  const Status ps = attn::sdpa_s8_prepare(shape, qp, &params);
  attn_fuzz::note("sdpa_s8_prepare", attn::status_str(ps));
  if (ps != Status::kOk) return;
  FUZZ_CHECK(dim_valid(shape.batch) && dim_valid(shape.seq_q) && dim_valid(shape.seq_kv) &&
             dim_valid(shape.dim_k) && dim_valid(shape.dim_v));
  FUZZ_CHECK(shape.dim_k <= attn::kSdpaS8MaxDimK && shape.seq_kv <= attn::kSdpaS8MaxSeqKv);
  for (const attn::QuantParams* p : {&qp.q, &qp.k, &qp.v, &qp.scores, &qp.out}) {
    FUZZ_CHECK(scale_ok(p->scale) && zp_ok(p->zero_point));
  }
  FUZZ_CHECK(qp.beta == 0.0f || scale_ok(qp.beta));

  const int32_t B = shape.batch, sq = shape.seq_q, skv = shape.seq_kv;
  const uint64_t nq = attn_fuzz::count({B, sq, shape.dim_k}, kMaxElems);
  const uint64_t nk = attn_fuzz::count({B, skv, shape.dim_k}, kMaxElems);
  const uint64_t nv = attn_fuzz::count({B, skv, shape.dim_v}, kMaxElems);
  const uint64_t no = attn_fuzz::count({B, sq, shape.dim_v}, kMaxElems);
  const uint64_t nw = attn_fuzz::count({B, sq, skv}, kMaxElems);
  const uint64_t work =
      attn_fuzz::count({B, sq, skv, int64_t{shape.dim_k} + shape.dim_v}, kMaxWork);
  if (std::max({nq, nk, nv, no, nw}) > kMaxElems || work > kMaxWork) return;

  const uint8_t flags = in.u8();
  attn::SdpaS8Args args;
  // Mask: key lengths, causal, boolean, keras and additive (bit patterns).
  const uint64_t mat = attn_fuzz::count({sq, skv}, kMaxElems);
  Buf<int32_t> lengths(attn_fuzz::count({B}, kMaxElems));
  Buf<uint8_t> boolean(mat);
  Buf<float> keras(mat), additive(mat);
  bool lengths_valid = true;
  const uint8_t what = in.u8();
  args.mask.causal = (what & 1) != 0;
  if (what & 2) {
    for (std::size_t i = 0; i < lengths.size(); ++i) {
      const uint8_t c = in.u8();
      lengths[i] = c < 240 ? static_cast<int32_t>(c % (static_cast<uint32_t>(skv) + 1u))
                           : (c & 1 ? skv + 1 : -1);
      if (lengths[i] < 0 || lengths[i] > skv) lengths_valid = false;
    }
    args.mask.key_lengths = lengths.data();
  }
  if (what & 4) {
    for (std::size_t i = 0; i < boolean.size(); ++i) boolean[i] = in.u8() < 160 ? 0 : 1;
    args.mask.boolean = boolean.data();
  }
  if (what & 8) {
    for (std::size_t i = 0; i < keras.size(); ++i) {
      const uint8_t c = in.u8();
      keras[i] = c < 160 ? 0.0f : (c < 250 ? 1.0f : (c & 1 ? NAN : -0.0f));
    }
    args.mask.keras = keras.data();
  }
  bool additive_ok = true;
  if (what & 16) {
    for (std::size_t i = 0; i < additive.size(); ++i) {
      const uint8_t c = in.u8();
      static constexpr float kVals[] = {0.0f, -0.0f, -INFINITY, -1e9f, -2e30f, -1.0f, 1e9f, NAN};
      additive[i] = c < 128 ? 0.0f : kVals[c % 8];
      if (!(additive[i] == 0.0f || additive[i] <= -1e9f)) additive_ok = false;
    }
    args.mask.additive = additive.data();
  }
  FuzzScratch scratch(in, attn::sdpa_s8_scratch_bytes(shape), kMaxScratch);
  if (scratch.too_big()) return;
  Buf<int8_t> q(nq), k(nk), v(nv), out(no), weights(nw);
  fill_s8(in, q, flags >> 2);
  fill_s8(in, k, flags >> 4);
  fill_s8(in, v, flags >> 6);
  out.poison();
  weights.poison();
  args.q = q.data();
  args.k = (flags & 1) ? nullptr : k.data();
  args.v = v.data();
  args.out = out.data();
  args.probs = (flags & 2) ? weights.data() : nullptr;

  const Status st = attn::sdpa_s8(params, args, {scratch.data(), scratch.bytes()});
  attn_fuzz::note("sdpa_s8", attn::status_str(st));
  if (st != Status::kOk) {
    FUZZ_CHECK(out.untouched() && weights.untouched());
    return;
  }
  FUZZ_CHECK(args.k != nullptr && lengths_valid && additive_ok);
  FUZZ_CHECK(!scratch.is_null() && scratch.bytes() >= attn::sdpa_s8_scratch_bytes(shape));
  if (args.probs == nullptr) {
    FUZZ_CHECK(weights.untouched());
    return;
  }
  for (int32_t b = 0; b < B; ++b) {
    for (int32_t i = 0; i < sq; ++i) {
      const int8_t* row = weights.data() + (uz(b) * uz(sq) + uz(i)) * uz(skv);
      bool any = false;
      for (int32_t j = 0; j < skv; ++j) {
        const std::size_t m = uz(i) * uz(skv) + uz(j);
        bool masked = args.mask.causal && j > i + (skv - sq);
        if (args.mask.key_lengths != nullptr && j >= lengths[uz(b)]) masked = true;
        if (args.mask.boolean != nullptr && boolean[m] != 0) masked = true;
        if (args.mask.keras != nullptr && !(keras[m] == 0.0f)) masked = true;
        if (args.mask.additive != nullptr && additive[m] != 0.0f) masked = true;
        if (masked) FUZZ_CHECK(row[j] == -128);
        any = any || !masked;
      }
      if (any) {
        check_probs(row, skv);
      } else {
        const int8_t* o = out.data() + (uz(b) * uz(sq) + uz(i)) * uz(shape.dim_v);
        for (int32_t c = 0; c < shape.dim_v; ++c) FUZZ_CHECK(o[c] == qp.out.zero_point);
      }
    }
  }
}

void fuzz_luong(Reader& in, bool general) {
  const int32_t B = in.dim(), S = in.dim(), dq = in.dim();
  const int32_t dk = general ? in.dim() : dq;
  attn::LuongS8Quant qp;
  const uint8_t qmode = in.u8();
  if (qmode & 1) {
    qp.query = quant(in);
    qp.keys = quant(in);
    qp.keys_proj = quant(in);
    qp.scores = quant(in);
    qp.context = quant(in);
    qp.beta = (qmode & 2) ? in.param() : 0.0f;
  } else {
    const int32_t zp = static_cast<int32_t>(in.u8()) - 128;
    qp.query = {0.05f, zp};
    qp.keys = {0.04f, -zp / 2};
    qp.keys_proj = {0.08f, 1};
    qp.scores = {0.1f + static_cast<float>(in.u8() % 16) * 0.1f,
                 static_cast<int32_t>(in.u8()) - 128};
    qp.context = {0.03f, -5};
  }
  const uint64_t nw = attn_fuzz::count({dq, dk}, kMaxElems);
  const uint64_t nc = attn_fuzz::count({dq}, kMaxElems);
  if (nw > kMaxElems) return;
  Buf<int8_t> w(general ? nw : 0);
  Buf<float> wscale(general ? nc : 0);
  Buf<int32_t> bias(general ? nc : 0);
  Buf<attn::QuantizedMultiplier> storage(general ? nc : 0);
  const uint8_t wflags = in.u8();
  fill_s8(in, w, wflags >> 2);
  for (std::size_t i = 0; i < wscale.size(); ++i) {
    wscale[i] = (wflags & 1) ? in.param() : 0.001f * static_cast<float>(in.u8() % 50 + 1);
  }
  for (std::size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<int32_t>(in.u16()) - 32768;
  attn::FcS8Weights fw{w.data(), wscale.data(), (wflags & 2) ? bias.data() : nullptr};
  attn::LuongS8Params params;
  const Status ps =
      general ? attn::luong_general_s8_prepare({B, S, dq, dk}, qp, fw, storage.data(), &params)
              : attn::luong_dot_s8_prepare({B, S, dq}, qp, &params);
  attn_fuzz::note(general ? "luong_general_s8_prepare" : "luong_dot_s8_prepare",
                  attn::status_str(ps));
  if (ps != Status::kOk) return;
  FUZZ_CHECK(dim_valid(B) && dim_valid(S) && dim_valid(dq) && dim_valid(dk));
  FUZZ_CHECK(S <= attn::kSdpaS8MaxSeqKv);
  for (const attn::QuantParams* p : {&qp.query, &qp.keys, &qp.scores, &qp.context}) {
    FUZZ_CHECK(scale_ok(p->scale) && zp_ok(p->zero_point));
  }
  if (general) {
    FUZZ_CHECK(scale_ok(qp.keys_proj.scale) && zp_ok(qp.keys_proj.zero_point));
    for (std::size_t i = 0; i < wscale.size(); ++i) FUZZ_CHECK(scale_ok(wscale[i]));
  }

  const uint64_t nq = attn_fuzz::count({B, dq}, kMaxElems);
  const uint64_t nk = attn_fuzz::count({B, S, dk}, kMaxElems);
  const uint64_t no = attn_fuzz::count({B, dk}, kMaxElems);
  const uint64_t nwt = attn_fuzz::count({B, S}, kMaxElems);
  const uint64_t work = attn_fuzz::count({B, S, int64_t{dk} + dq, 2}, kMaxWork);
  if (std::max({nq, nk, no, nwt}) > kMaxElems || work > kMaxWork) return;
  const uint8_t flags = in.u8();
  Buf<int32_t> lengths(attn_fuzz::count({B}, kMaxElems));
  bool lengths_valid = true;
  if (flags & 1) {
    for (std::size_t i = 0; i < lengths.size(); ++i) {
      const uint8_t c = in.u8();
      lengths[i] = c < 240 ? static_cast<int32_t>(c % (static_cast<uint32_t>(S) + 1u))
                           : (c & 1 ? S + 1 : -1);
      if (lengths[i] < 0 || lengths[i] > S) lengths_valid = false;
    }
  }
  const std::size_t need = general ? attn::luong_general_s8_scratch_bytes(params.shape)
                                   : attn::luong_dot_s8_scratch_bytes({B, S, dq});
  FuzzScratch scratch(in, need, kMaxScratch);
  if (scratch.too_big()) return;
  Buf<int8_t> q(nq), k(nk), ctx(no), weights(nwt);
  fill_s8(in, q, flags >> 2);
  fill_s8(in, k, flags >> 4);
  ctx.poison();
  weights.poison();
  attn::LuongS8Args args;
  args.query = q.data();
  args.keys = (flags & 2) && (flags & 64) ? nullptr : k.data();
  args.context = ctx.data();
  args.probs = (flags & 128) ? weights.data() : nullptr;
  args.key_lengths = (flags & 1) ? lengths.data() : nullptr;
  const Status st = attn::luong_s8(params, args, {scratch.data(), scratch.bytes()});
  attn_fuzz::note("luong_s8", attn::status_str(st));
  if (st != Status::kOk) {
    FUZZ_CHECK(ctx.untouched() && weights.untouched());
    return;
  }
  FUZZ_CHECK(args.keys != nullptr && lengths_valid);
  FUZZ_CHECK(!scratch.is_null() && scratch.bytes() >= need);
  if (args.probs == nullptr) FUZZ_CHECK(weights.untouched());
  for (int32_t b = 0; b < B; ++b) {
    const int32_t len = args.key_lengths != nullptr ? lengths[uz(b)] : S;
    if (len == 0) {
      for (int32_t c = 0; c < dk; ++c)
        FUZZ_CHECK(ctx[uz(b) * uz(dk) + uz(c)] == qp.context.zero_point);
    }
    if (args.probs == nullptr) continue;
    const int8_t* row = weights.data() + uz(b) * uz(S);
    for (int32_t j = len; j < S; ++j) FUZZ_CHECK(row[j] == -128);
    if (len > 0) check_probs(row, S);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  Reader in(data, size);
  switch (in.u8() % 4) {
    case 0: fuzz_sdpa(in); break;
    case 1: fuzz_softmax(in); break;
    case 2: fuzz_luong(in, false); break;
    default: fuzz_luong(in, true); break;
  }
  return 0;
}
