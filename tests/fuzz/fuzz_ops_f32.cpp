// Fuzz target: the float ops' validation and their contracts, driven by fuzzed
// descriptors (shapes, masks, key lengths, scales, weights modes, null
// pointers, scratch size and alignment, NaN/Inf inputs).
//
// Input: one selector byte (which op), then the op's descriptor, then tensor
// values; missing bytes read as 0. Buffers are allocated exactly to the sizes
// the op's header documents for the fuzzed shape, so AddressSanitizer reports
// any read or write outside them (capped at kMaxElems elements each; larger
// shapes are skipped). Checked for every call:
//   - an error status leaves every output untouched;
//   - kOk only for arguments the header calls valid (dims in [1, 2^20], key
//     lengths in [0, seq_kv], scale 0 or finite > 0, enough scratch, ...);
//   - with finite inputs (no NaN/Inf injected), kOk gives finite outputs,
//     attention weights that are 0 at masked keys and sum to 1 over each row,
//     or a zero row (output and weights) when every key of a row is masked;
//   - sdpa's output row lies within the range of the visible values.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>

#include "attn/attn.h"
#include "fuzz_common.h"

namespace {

using attn::Status;
using attn_fuzz::Buf;
using attn_fuzz::FuzzScratch;
using attn_fuzz::Reader;

constexpr uint64_t kMaxElems = 1u << 16;  // per buffer
constexpr uint64_t kMaxWork = 1u << 22;   // rough multiply-adds per call
constexpr std::size_t kMaxScratch = 1u << 22;
constexpr int32_t kMaxDim = 1 << 20;  // the engine's documented dimension limit

bool dim_valid(int32_t d) { return d >= 1 && d <= kMaxDim; }
std::size_t uz(int64_t v) { return static_cast<std::size_t>(v); }

// The fuzzed Mask and its buffers, and what it means for each (b, i, j).
struct MaskGen {
  attn::Mask mask{};
  Buf<int32_t> lengths;
  Buf<float> keras;
  Buf<float> additive;
  Buf<uint8_t> boolean;
  int32_t batch = 0, sq = 0, skv = 0;
  bool lengths_valid = true;
  bool too_big = false;

  // with_matrices: the op takes the matrix components (not Bahdanau/Luong).
  MaskGen(Reader& in, int32_t b, int32_t q, int32_t kv, bool with_matrices)
      : batch(b), sq(q), skv(kv) {
    const uint8_t what = in.u8();
    if (what & 1) {
      const uint64_t n = attn_fuzz::count({b}, kMaxElems);
      if (n > kMaxElems) {
        too_big = true;
        return;
      }
      lengths = Buf<int32_t>(n);
      for (std::size_t i = 0; i < lengths.size(); ++i) {
        const uint8_t c = in.u8();
        int32_t len;
        if (c < 200) {
          len = kv > 0 ? static_cast<int32_t>(c % (static_cast<uint32_t>(kv) + 1u)) : 0;
        } else {
          static constexpr int32_t kOdd[] = {-1, INT32_MIN, INT32_MAX, 0};
          len = (c & 4) && kv < INT32_MAX ? kv + 1 : kOdd[c % 4];
        }
        lengths[i] = len;
        if (len < 0 || len > kv) lengths_valid = false;
      }
      mask.key_lengths = lengths.data();
    }
    if (!with_matrices) return;
    mask.causal = (what & 2) != 0;
    const uint64_t mat = attn_fuzz::count({q, kv}, kMaxElems);
    if (what & 0x1c) {
      const uint8_t s = in.u8() % 3;
      const uint64_t stride = s == 0 ? 0 : mat + (s == 2 ? in.u8() % 5 : 0);
      mask.matrix_batch_stride = uz(static_cast<int64_t>(stride));
      // [(batch - 1) * stride + sq * skv], or nothing when a dim is <= 0.
      uint64_t total = mat;
      if (b > 1 && mat > 0) total += static_cast<uint64_t>(b - 1) * stride;
      if (mat > kMaxElems || total > kMaxElems) {
        too_big = true;
        return;
      }
      if (what & 4) {
        keras = Buf<float>(total);
        for (std::size_t i = 0; i < keras.size(); ++i) {
          const uint8_t c = in.u8();
          keras[i] = c < 160 ? 0.0f : (c < 240 ? 1.0f : static_cast<float>(c - 244) * 0.5f);
        }
        mask.keras = keras.data();
      }
      if (what & 8) {
        additive = Buf<float>(total);
        for (std::size_t i = 0; i < additive.size(); ++i) {
          const uint8_t c = in.u8();
          additive[i] = c < 64 ? -INFINITY : static_cast<float>(static_cast<int8_t>(c)) / 32.0f;
        }
        mask.additive = additive.data();
      }
      if (what & 16) {
        boolean = Buf<uint8_t>(total);
        for (std::size_t i = 0; i < boolean.size(); ++i) {
          const uint8_t c = in.u8();
          boolean[i] = c < 160 ? 0 : c;
        }
        mask.boolean = boolean.data();
      }
    }
  }

  std::size_t at(int32_t b, int32_t i, int32_t j) const {
    return uz(b) * mask.matrix_batch_stride + uz(i) * uz(skv) + uz(j);
  }
  // Masked for certain: weight exactly 0.
  bool hard(int32_t b, int32_t i, int32_t j) const {
    if (mask.causal && j > i + (skv - sq)) return true;
    if (mask.key_lengths != nullptr && j >= mask.key_lengths[b]) return true;
    if (mask.boolean != nullptr && mask.boolean[at(b, i, j)] != 0) return true;
    if (mask.additive != nullptr && std::isinf(mask.additive[at(b, i, j)])) return true;
    return false;
  }
  // Masked for the all-masked-row rule.
  bool masked(int32_t b, int32_t i, int32_t j) const {
    return hard(b, i, j) || (mask.keras != nullptr && mask.keras[at(b, i, j)] != 0.0f);
  }
  bool row_all_masked(int32_t b, int32_t i) const {
    for (int32_t j = 0; j < skv; ++j) {
      if (!masked(b, i, j)) return false;
    }
    return true;
  }
};

bool scale_valid(float s) { return s == 0.0f || (s > 0.0f && std::isfinite(s)); }

// Checks one [sq, skv] block of attention weights (row stride skv) against
// the mask of batch item b.
void check_weights(const MaskGen& m, int32_t b, const float* w, const float* out, int32_t out_cols,
                   std::size_t out_stride) {
  for (int32_t i = 0; i < m.sq; ++i) {
    const float* row = w + uz(i) * uz(m.skv);
    if (m.row_all_masked(b, i)) {
      for (int32_t j = 0; j < m.skv; ++j) FUZZ_CHECK(row[j] == 0.0f);
      if (out != nullptr) {
        for (int32_t c = 0; c < out_cols; ++c) FUZZ_CHECK(out[uz(i) * out_stride + uz(c)] == 0.0f);
      }
      continue;
    }
    double sum = 0;
    for (int32_t j = 0; j < m.skv; ++j) {
      FUZZ_CHECK(row[j] >= 0.0f && row[j] <= 1.0f + 1e-6f);
      if (m.hard(b, i, j)) FUZZ_CHECK(row[j] == 0.0f);
      sum += row[j];
    }
    FUZZ_CHECK(std::fabs(sum - 1.0) < 1e-4);
  }
}

void fuzz_sdpa(Reader& in) {
  attn::SdpaShape shape;
  shape.batch = in.dim();
  shape.seq_q = in.dim();
  shape.seq_kv = in.dim();
  shape.dim_k = in.dim();
  shape.dim_v = in.dim();
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
  const bool wild = (flags & 1) != 0;
  attn::SdpaF32Args args;
  args.scale = (flags & 2) ? in.param() : 0.0f;
  MaskGen m(in, B, sq, skv, true);
  if (m.too_big) return;
  args.mask = m.mask;
  FuzzScratch scratch(in, attn::sdpa_f32_scratch_bytes(shape), kMaxScratch);
  if (scratch.too_big()) return;

  Buf<float> q(nq), k(nk), v(nv), out(no), weights(nw);
  q.fill(in, wild);
  k.fill(in, wild);
  v.fill(in, wild);
  out.poison();
  weights.poison();
  args.q = (flags & 4) ? nullptr : q.data();
  args.k = (flags & 8) ? nullptr : k.data();
  args.v = v.data();
  args.out = out.data();
  args.probs = (flags & 16) ? weights.data() : nullptr;

  const Status st = attn::sdpa_f32(shape, args, {scratch.data(), scratch.bytes()});
  attn_fuzz::note("sdpa_f32", attn::status_str(st));
  if (st != Status::kOk) {
    FUZZ_CHECK(out.untouched() && weights.untouched());
    return;
  }
  FUZZ_CHECK(args.q != nullptr && args.k != nullptr);
  FUZZ_CHECK(dim_valid(B) && dim_valid(sq) && dim_valid(skv) && dim_valid(shape.dim_k) &&
             dim_valid(shape.dim_v));
  FUZZ_CHECK(scale_valid(args.scale) && m.lengths_valid);
  FUZZ_CHECK(!scratch.is_null() && scratch.bytes() >= attn::sdpa_f32_scratch_bytes(shape));
  if (args.probs == nullptr) FUZZ_CHECK(weights.untouched());
  if (wild || !(args.scale <= 4.0f)) return;  // a raw huge scale may overflow scores
  FUZZ_CHECK(attn_fuzz::all_finite(out.data(), out.size()));
  const auto dv = uz(shape.dim_v);
  for (int32_t b = 0; b < B; ++b) {
    const float* ob = out.data() + uz(b) * uz(sq) * dv;
    if (args.probs != nullptr) {
      check_weights(m, b, weights.data() + uz(b) * uz(sq) * uz(skv), ob, shape.dim_v, dv);
    }
    // Each output is a convex combination of the visible values.
    for (int32_t i = 0; i < sq; ++i) {
      const bool none = m.row_all_masked(b, i);
      for (std::size_t c = 0; c < dv; ++c) {
        const float o = ob[uz(i) * dv + c];
        if (none) {
          FUZZ_CHECK(o == 0.0f);
          continue;
        }
        float lo = INFINITY, hi = -INFINITY;
        for (int32_t j = 0; j < skv; ++j) {
          if (m.hard(b, i, j)) continue;
          const float x = v[(uz(b) * uz(skv) + uz(j)) * dv + c];
          lo = std::min(lo, x);
          hi = std::max(hi, x);
        }
        FUZZ_CHECK(o >= lo - 1e-4f * (1 + std::fabs(lo)) && o <= hi + 1e-4f * (1 + std::fabs(hi)));
      }
    }
  }
}

void fuzz_mha(Reader& in) {
  attn::MhaShape shape;
  shape.batch = in.dim();
  shape.seq_q = in.dim();
  shape.seq_kv = in.dim();
  shape.embed_dim = in.dim();
  shape.num_heads = in.dim();
  const uint8_t kv_mode = in.u8();
  shape.kdim = (kv_mode & 1) ? in.dim() : 0;
  shape.vdim = (kv_mode & 2) ? in.dim() : 0;
  const int32_t B = shape.batch, sq = shape.seq_q, skv = shape.seq_kv, E = shape.embed_dim;
  const int32_t H = shape.num_heads;
  const int32_t kdim = shape.kdim == 0 ? E : shape.kdim;
  const int32_t vdim = shape.vdim == 0 ? E : shape.vdim;

  const uint8_t flags = in.u8();
  const bool wild = (flags & 1) != 0;
  const bool packed = (flags & 2) != 0;
  const bool self = (flags & 4) != 0 && sq == skv && kdim == E && vdim == E;
  const uint64_t nq = attn_fuzz::count({B, sq, E}, kMaxElems);
  const uint64_t nk = attn_fuzz::count({B, skv, kdim}, kMaxElems);
  const uint64_t nv = attn_fuzz::count({B, skv, vdim}, kMaxElems);
  const uint64_t nwin = attn_fuzz::count({3 * static_cast<int64_t>(E), E}, kMaxElems);
  const uint64_t nwq = attn_fuzz::count({E, E}, kMaxElems);
  const uint64_t nwk = attn_fuzz::count({E, kdim}, kMaxElems);
  const uint64_t nwv = attn_fuzz::count({E, vdim}, kMaxElems);
  const uint64_t nbin = attn_fuzz::count({3 * static_cast<int64_t>(E)}, kMaxElems);
  const uint64_t nwts = attn_fuzz::count({B, H > 0 ? H : 1, sq, skv}, kMaxElems);
  const uint64_t work = attn_fuzz::count(
      {B, E, std::max({sq, skv, 1}), std::max({E, kdim, vdim, skv, 1}), 4}, kMaxWork);
  if (std::max({nq, nk, nv, nwin, nwq, nwk, nwv, nbin, nwts}) > kMaxElems || work > kMaxWork) {
    return;
  }
  const uint8_t wmode = in.u8();
  attn::MhaF32Args args;
  // Averaged, per head, or (2..7) a value outside the enum.
  const int32_t mode = wmode < 128 ? 0 : wmode < 250 ? 1 : static_cast<int32_t>(wmode) - 248;
  args.probs_mode = static_cast<attn::MhaProbsMode>(mode);
  MaskGen m(in, B, sq, skv, true);
  if (m.too_big) return;
  args.mask = m.mask;
  FuzzScratch scratch(in, attn::mha_f32_scratch_bytes(shape), kMaxScratch);
  if (scratch.too_big()) return;

  Buf<float> q(nq), k(nk), v(nv), out(nq), weights(nwts);
  Buf<float> w_in(packed ? nwin : 0), w_q(packed ? 0 : nwq), w_k(packed ? 0 : nwk),
      w_v(packed ? 0 : nwv), b_in(nbin), w_o(nwq), b_o(attn_fuzz::count({E}, kMaxElems));
  for (Buf<float>* b : {&q, &k, &v, &w_in, &w_q, &w_k, &w_v, &b_in, &w_o, &b_o}) b->fill(in, wild);
  out.poison();
  weights.poison();
  attn::MhaF32Weights w;
  if (packed) {
    w.in_proj_weight = w_in.data();
  } else {
    w.q_proj_weight = w_q.data();
    w.k_proj_weight = (flags & 8) ? nullptr : w_k.data();
    w.v_proj_weight = w_v.data();
  }
  w.in_proj_bias = (flags & 16) ? b_in.data() : nullptr;
  w.out_proj_weight = w_o.data();
  w.out_proj_bias = (flags & 32) ? b_o.data() : nullptr;
  args.query = q.data();
  args.key = self ? q.data() : k.data();
  args.value = self ? q.data() : v.data();
  args.out = out.data();
  args.probs = (flags & 64) ? weights.data() : nullptr;

  const Status st = attn::mha_f32(shape, w, args, {scratch.data(), scratch.bytes()});
  attn_fuzz::note("mha_f32", attn::status_str(st));
  if (st != Status::kOk) {
    FUZZ_CHECK(out.untouched() && weights.untouched());
    return;
  }
  FUZZ_CHECK(packed || w.k_proj_weight != nullptr);
  FUZZ_CHECK(dim_valid(B) && dim_valid(sq) && dim_valid(skv) && dim_valid(E) && dim_valid(H) &&
             dim_valid(kdim) && dim_valid(vdim));
  FUZZ_CHECK(E % H == 0 && (!packed || (kdim == E && vdim == E)));
  FUZZ_CHECK(args.probs_mode == attn::MhaProbsMode::kAveraged ||
             args.probs_mode == attn::MhaProbsMode::kPerHead);
  FUZZ_CHECK(m.lengths_valid);
  FUZZ_CHECK(!scratch.is_null() && scratch.bytes() >= attn::mha_f32_scratch_bytes(shape));
  if (args.probs == nullptr) FUZZ_CHECK(weights.untouched());
  if (wild) return;
  FUZZ_CHECK(attn_fuzz::all_finite(out.data(), uz(static_cast<int64_t>(nq))));
  if (args.probs == nullptr) return;
  const bool per_head = args.probs_mode == attn::MhaProbsMode::kPerHead;
  for (int32_t b = 0; b < B; ++b) {
    for (int32_t h = 0; h < (per_head ? H : 1); ++h) {
      const std::size_t blk = per_head ? uz(b) * uz(H) + uz(h) : uz(b);
      check_weights(m, b, weights.data() + blk * uz(sq) * uz(skv), nullptr, 0, 0);
    }
  }
}

// Bahdanau and Luong: one query per batch item, key lengths only.
void check_key_weights(const MaskGen& m, int32_t b, const float* w, const float* ctx,
                       int32_t ctx_cols) {
  const int32_t len = m.mask.key_lengths != nullptr ? m.mask.key_lengths[b] : m.skv;
  double sum = 0;
  for (int32_t j = 0; j < m.skv; ++j) {
    if (w != nullptr) {
      if (j >= len) FUZZ_CHECK(w[j] == 0.0f);
      FUZZ_CHECK(w[j] >= 0.0f && w[j] <= 1.0f + 1e-6f);
      sum += w[j];
    }
  }
  if (len == 0) {
    for (int32_t c = 0; c < ctx_cols; ++c) FUZZ_CHECK(ctx[c] == 0.0f);
    if (w != nullptr) FUZZ_CHECK(sum == 0.0);
  } else if (w != nullptr) {
    FUZZ_CHECK(std::fabs(sum - 1.0) < 1e-4);
  }
}

void fuzz_bahdanau(Reader& in) {
  attn::BahdanauShape shape;
  shape.batch = in.dim();
  shape.seq = in.dim();
  shape.query_dim = in.dim();
  shape.key_dim = in.dim();
  shape.units = in.dim();
  const int32_t B = shape.batch, S = shape.seq, dq = shape.query_dim, dk = shape.key_dim;
  const int32_t U = shape.units;
  const uint64_t n[] = {
      attn_fuzz::count({B, dq}, kMaxElems), attn_fuzz::count({B, S, dk}, kMaxElems),
      attn_fuzz::count({dq, U}, kMaxElems), attn_fuzz::count({dk, U}, kMaxElems),
      attn_fuzz::count({U}, kMaxElems),     attn_fuzz::count({B, dk}, kMaxElems),
      attn_fuzz::count({B, S}, kMaxElems)};
  const uint64_t work = attn_fuzz::count({B, S, std::max(dk, 1), std::max(U, 1), 2}, kMaxWork);
  if (*std::max_element(std::begin(n), std::end(n)) > kMaxElems || work > kMaxWork) return;
  const uint8_t flags = in.u8();
  const bool wild = (flags & 1) != 0;
  MaskGen m(in, B, 1, S, false);
  if (m.too_big) return;
  FuzzScratch scratch(in, attn::bahdanau_f32_scratch_bytes(shape), kMaxScratch);
  if (scratch.too_big()) return;
  Buf<float> q(n[0]), keys(n[1]), w1(n[2]), w2(n[3]), b1(n[4]), b2(n[4]), vv(n[4]), ctx(n[5]),
      weights(n[6]);
  for (Buf<float>* b : {&q, &keys, &w1, &w2, &b1, &b2, &vv}) b->fill(in, wild);
  ctx.poison();
  weights.poison();
  attn::BahdanauF32Weights w;
  w.w1 = w1.data();
  w.b1 = (flags & 2) ? b1.data() : nullptr;
  w.w2 = (flags & 4) ? nullptr : w2.data();
  w.b2 = (flags & 8) ? b2.data() : nullptr;
  w.v = vv.data();
  w.bv = (flags & 16) ? in.param() : 0.0f;
  attn::BahdanauF32Args args;
  args.query = q.data();
  args.keys = keys.data();
  args.context = ctx.data();
  args.probs = (flags & 32) ? weights.data() : nullptr;
  args.key_lengths = m.mask.key_lengths;

  const Status st = attn::bahdanau_f32(shape, w, args, {scratch.data(), scratch.bytes()});
  attn_fuzz::note("bahdanau_f32", attn::status_str(st));
  if (st != Status::kOk) {
    FUZZ_CHECK(ctx.untouched() && weights.untouched());
    return;
  }
  FUZZ_CHECK(w.w2 != nullptr && std::isfinite(w.bv) && m.lengths_valid);
  FUZZ_CHECK(dim_valid(B) && dim_valid(S) && dim_valid(dq) && dim_valid(dk) && dim_valid(U));
  FUZZ_CHECK(!scratch.is_null() && scratch.bytes() >= attn::bahdanau_f32_scratch_bytes(shape));
  if (args.probs == nullptr) FUZZ_CHECK(weights.untouched());
  if (wild) return;
  FUZZ_CHECK(attn_fuzz::all_finite(ctx.data(), ctx.size()));
  for (int32_t b = 0; b < B; ++b) {
    check_key_weights(m, b, args.probs ? weights.data() + uz(b) * uz(S) : nullptr,
                      ctx.data() + uz(b) * uz(dk), dk);
  }
}

void fuzz_luong(Reader& in, bool general) {
  const int32_t B = in.dim(), S = in.dim(), dq = in.dim();
  const int32_t dk = general ? in.dim() : dq;
  const uint64_t n[] = {
      attn_fuzz::count({B, dq}, kMaxElems),  attn_fuzz::count({B, S, dk}, kMaxElems),
      attn_fuzz::count({dk, dq}, kMaxElems), attn_fuzz::count({dq}, kMaxElems),
      attn_fuzz::count({B, dk}, kMaxElems),  attn_fuzz::count({B, S}, kMaxElems)};
  const uint64_t work = attn_fuzz::count({B, int64_t{S} + dq, std::max(dk, 1), 2}, kMaxWork);
  if (*std::max_element(std::begin(n), std::end(n)) > kMaxElems || work > kMaxWork) return;
  const uint8_t flags = in.u8();
  const bool wild = (flags & 1) != 0;
  MaskGen m(in, B, 1, S, false);
  if (m.too_big) return;
  const attn::LuongDotShape dshape{B, S, dq};
  const attn::LuongGeneralShape gshape{B, S, dq, dk};
  const std::size_t need = general ? attn::luong_general_f32_scratch_bytes(gshape)
                                   : attn::luong_dot_f32_scratch_bytes(dshape);
  FuzzScratch scratch(in, need, kMaxScratch);
  if (scratch.too_big()) return;
  Buf<float> q(n[0]), keys(n[1]), w(n[2]), bias(n[3]), ctx(n[4]), weights(n[5]);
  for (Buf<float>* b : {&q, &keys, &w, &bias}) b->fill(in, wild);
  ctx.poison();
  weights.poison();
  attn::LuongF32Args args;
  args.query = (flags & 2) ? nullptr : q.data();
  args.keys = keys.data();
  args.context = ctx.data();
  args.probs = (flags & 4) ? weights.data() : nullptr;
  args.key_lengths = m.mask.key_lengths;
  attn::LuongGeneralF32Weights gw;
  gw.w = (flags & 8) ? nullptr : w.data();
  gw.b = (flags & 16) ? bias.data() : nullptr;

  const Status st =
      general ? attn::luong_general_f32(gshape, gw, args, {scratch.data(), scratch.bytes()})
              : attn::luong_dot_f32(dshape, args, {scratch.data(), scratch.bytes()});
  attn_fuzz::note(general ? "luong_general_f32" : "luong_dot_f32", attn::status_str(st));
  if (st != Status::kOk) {
    FUZZ_CHECK(ctx.untouched() && weights.untouched());
    return;
  }
  FUZZ_CHECK(args.query != nullptr && (!general || gw.w != nullptr) && m.lengths_valid);
  FUZZ_CHECK(dim_valid(B) && dim_valid(S) && dim_valid(dq) && dim_valid(dk));
  FUZZ_CHECK(!scratch.is_null() && scratch.bytes() >= need);
  if (args.probs == nullptr) FUZZ_CHECK(weights.untouched());
  if (wild) return;
  FUZZ_CHECK(attn_fuzz::all_finite(ctx.data(), ctx.size()));
  for (int32_t b = 0; b < B; ++b) {
    check_key_weights(m, b, args.probs ? weights.data() + uz(b) * uz(S) : nullptr,
                      ctx.data() + uz(b) * uz(dk), dk);
  }
}

void fuzz_general(Reader& in) {
  attn::GeneralAttentionShape shape;
  shape.batch = in.dim();
  shape.seq = in.dim();
  shape.in_dim = in.dim();
  shape.dim_k = in.dim();
  shape.dim_v = in.dim();
  const int32_t B = shape.batch, S = shape.seq, din = shape.in_dim;
  const uint64_t n[] = {
      attn_fuzz::count({B, S, din}, kMaxElems), attn_fuzz::count({din, shape.dim_k}, kMaxElems),
      attn_fuzz::count({din, shape.dim_v}, kMaxElems),
      attn_fuzz::count({B, S, shape.dim_v}, kMaxElems), attn_fuzz::count({B, S, S}, kMaxElems)};
  const uint64_t work =
      attn_fuzz::count({B, S, std::max({din, S, 1}),
                        int64_t{std::max(shape.dim_k, 1)} + std::max(shape.dim_v, 1), 2},
                       kMaxWork);
  if (*std::max_element(std::begin(n), std::end(n)) > kMaxElems || work > kMaxWork) return;
  const uint8_t flags = in.u8();
  const bool wild = (flags & 1) != 0;
  attn::GeneralAttentionF32Args args;
  args.scale = (flags & 2) ? in.param() : 0.0f;
  MaskGen m(in, B, S, S, true);
  if (m.too_big) return;
  args.mask = m.mask;
  FuzzScratch scratch(in, attn::general_attention_f32_scratch_bytes(shape), kMaxScratch);
  if (scratch.too_big()) return;
  Buf<float> x(n[0]), wq(n[1]), wk(n[1]), wv(n[2]), out(n[3]), weights(n[4]);
  for (Buf<float>* b : {&x, &wq, &wk, &wv}) b->fill(in, wild);
  out.poison();
  weights.poison();
  attn::GeneralAttentionF32Weights w{wq.data(), (flags & 4) ? nullptr : wk.data(), wv.data()};
  args.x = x.data();
  args.out = out.data();
  args.probs = (flags & 8) ? weights.data() : nullptr;

  const Status st = attn::general_attention_f32(shape, w, args, {scratch.data(), scratch.bytes()});
  attn_fuzz::note("general_attention_f32", attn::status_str(st));
  if (st != Status::kOk) {
    FUZZ_CHECK(out.untouched() && weights.untouched());
    return;
  }
  FUZZ_CHECK(w.w_k != nullptr && scale_valid(args.scale) && m.lengths_valid);
  FUZZ_CHECK(dim_valid(B) && dim_valid(S) && dim_valid(din) && dim_valid(shape.dim_k) &&
             dim_valid(shape.dim_v));
  FUZZ_CHECK(!scratch.is_null() &&
             scratch.bytes() >= attn::general_attention_f32_scratch_bytes(shape));
  if (args.probs == nullptr) FUZZ_CHECK(weights.untouched());
  if (wild || !(args.scale <= 4.0f)) return;
  FUZZ_CHECK(attn_fuzz::all_finite(out.data(), out.size()));
  if (args.probs == nullptr) return;
  const auto dv = uz(shape.dim_v);
  for (int32_t b = 0; b < B; ++b) {
    check_weights(m, b, weights.data() + uz(b) * uz(S) * uz(S), out.data() + uz(b) * uz(S) * dv,
                  shape.dim_v, dv);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  Reader in(data, size);
  switch (in.u8() % 6) {
    case 0: fuzz_sdpa(in); break;
    case 1: fuzz_mha(in); break;
    case 2: fuzz_bahdanau(in); break;
    case 3: fuzz_luong(in, false); break;
    case 4: fuzz_luong(in, true); break;
    default: fuzz_general(in); break;
  }
  // status_str covers every value, including ones no op returns.
  FUZZ_CHECK(attn::status_str(static_cast<Status>(static_cast<int32_t>(in.u8()) - 2)) != nullptr);
  return 0;
}
