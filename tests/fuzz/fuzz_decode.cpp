// Fuzz target: random chunk sequences through the decoder-step ops
// (mha_decode_f32 over a float32 or float16 cache, mha_decode_s8 over an int8
// cache) against one-shot attention over the whole sequence.
//
// Input: a flags byte (bit 0 int8, bit 1 sliding window, bit 2 RoPE, bit 3
// interleaved RoPE, bit 4 float16 cache, bit 5 packed cache: int8 blocks beside the rows, or a
// float cache's K in transposed blocks), heads, kv-head divisor, head dim,
// rotary dims, tokens, capacity, max tokens per call, then one byte per call
// (its chunk size), then weight and token values; missing bytes read as 0.
// Shapes stay small (E <= 32, 24 tokens) so every input runs the whole check:
//   - float: each output element within the bound of a double-precision
//     reference of causal (band, with a window) attention over the whole
//     sequence, RoPE at each token's absolute position, computed with the
//     error bounds of tests/cases/ref_double.h (a float16 cache adds the half
//     rounding of every cached element, the rotation its float rounding);
//   - int8: every byte equal to one-shot mha_s8 with a causal (band) mask and
//     the kv heads' weights repeated per query head; with RoPE (which mha_s8
//     lacks) equal to the same op over the whole sequence in one call;
//   - a call with a chunk of 0 or above max_tokens returns kBadShape, one that
//     does not fit a linear cache kCacheFull, and then neither its output rows
//     nor the cache (storage bytes and state) change; the sequence continues
//     after a bad chunk size and stops at a full cache (the rows decoded so
//     far are still checked: a causal row depends only on earlier tokens).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "attn/attn.h"
#include "fuzz_common.h"
#include "ref_double.h"

namespace {

using attn::Status;
using attn_fuzz::Reader;

constexpr int kMaxT = 24;
std::size_t uz(int v) { return static_cast<std::size_t>(v); }

struct Case {
  bool s8 = false, window = false, f16 = false, packed = false;
  int heads = 1, kv_heads = 1, hd = 1, e = 1, kvd = 1, tokens = 1, capacity = 1, max_tokens = 1;
  attn::RopeConfig rope{};
  std::vector<int> chunks;  // the chunk of each call, possibly invalid
};

Case read_case(Reader& in) {
  Case c;
  const uint8_t f = in.u8();
  c.s8 = (f & 1) != 0;
  c.window = (f & 2) != 0;
  c.f16 = !c.s8 && (f & 16) != 0;
  c.packed = (f & 32) != 0;
  c.heads = 1 + in.u8() % 4;
  const int div = 1 + in.u8() % 4;
  c.kv_heads = c.heads % div == 0 ? c.heads / div : c.heads;
  c.hd = 1 + in.u8() % 8;
  c.e = c.heads * c.hd;
  c.kvd = c.kv_heads * c.hd;
  const uint8_t r = in.u8();
  if ((f & 4) != 0) {
    c.rope.dims = 2 * (r % (c.hd / 2 + 1));
    c.rope.style = (f & 8) != 0 ? attn::RopeStyle::kInterleaved : attn::RopeStyle::kHalfSplit;
    c.rope.theta = (r & 0x80) != 0 ? 10000.0f : 7.5f;
  }
  c.tokens = 1 + in.u8() % kMaxT;
  // Linear caches: sometimes too small for the sequence. Windows: any size.
  c.capacity = 1 + in.u8() % (c.window ? c.tokens : c.tokens + 2);
  c.max_tokens = 1 + in.u8() % 8;
  for (int done = 0; done < c.tokens;) {
    const uint8_t b = in.u8();
    const int n = b >= 248 ? (b & 1 ? 0 : c.max_tokens + 1) : 1 + b % c.max_tokens;
    c.chunks.push_back(n);
    if (n >= 1 && n <= c.max_tokens) done += n;
  }
  return c;
}

// Band (window) or causal mask of the one-shot references: query i sees j <= i,
// and with a window also j > i - capacity.
std::vector<uint8_t> band_mask(const Case& c) {
  std::vector<uint8_t> m(uz(c.tokens) * uz(c.tokens));
  for (int i = 0; i < c.tokens; ++i) {
    for (int j = 0; j < c.tokens; ++j) {
      m[uz(i) * uz(c.tokens) + uz(j)] = (j <= i && (!c.window || j > i - c.capacity)) ? 0 : 1;
    }
  }
  return m;
}

// Rotates one head row (value and bound) at position p in double: the engine's
// float rotation adds at most 3 eps (|a| + |b|) per element of a pair.
void rope_ref(const attn::RopeConfig& rope, int p, double* x, double* err) {
  const int half = rope.dims / 2;
  for (int i = 0; i < half; ++i) {
    const double ang = p * std::pow(static_cast<double>(rope.theta), -2.0 * i / rope.dims);
    const int ia = rope.style == attn::RopeStyle::kHalfSplit ? i : 2 * i;
    const int ib = rope.style == attn::RopeStyle::kHalfSplit ? i + half : 2 * i + 1;
    const double a = x[ia], b = x[ib], co = std::cos(ang), si = std::sin(ang);
    const double e = err[ia] + err[ib] + 3.0 * attn_ref::kEps * (std::fabs(a) + std::fabs(b));
    x[ia] = a * co - b * si;
    x[ib] = b * co + a * si;
    err[ia] = err[ib] = e;
  }
}

struct F32Model {
  std::vector<float> wq, wk, wv, wo, bq, bk, bv, bo, x;
};

// The float reference of the whole sequence: out [T, E] and its bound.
void reference_f32(const Case& c, const F32Model& m, std::vector<double>* out,
                   std::vector<double>* tol) {
  const int t = c.tokens;
  std::vector<double> q(uz(t * c.e)), qe(q.size()), k(uz(t * c.kvd)), ke(k.size()), v(k.size()),
      ve(k.size());
  attn_ref::project<float>(t, c.e, c.e, m.x.data(), uz(c.e), nullptr, m.wq.data(), uz(c.e), 1,
                           m.bq.data(), q.data(), qe.data(), uz(c.e));
  attn_ref::project<float>(t, c.e, c.kvd, m.x.data(), uz(c.e), nullptr, m.wk.data(), uz(c.e), 1,
                           m.bk.data(), k.data(), ke.data(), uz(c.kvd));
  attn_ref::project<float>(t, c.e, c.kvd, m.x.data(), uz(c.e), nullptr, m.wv.data(), uz(c.e), 1,
                           m.bv.data(), v.data(), ve.data(), uz(c.kvd));
  for (int p = 0; p < t && c.rope.dims > 0; ++p) {
    for (int h = 0; h < c.heads; ++h) {
      rope_ref(c.rope, p, &q[uz(p * c.e + h * c.hd)], &qe[uz(p * c.e + h * c.hd)]);
    }
    for (int g = 0; g < c.kv_heads; ++g) {
      rope_ref(c.rope, p, &k[uz(p * c.kvd + g * c.hd)], &ke[uz(p * c.kvd + g * c.hd)]);
    }
  }
  for (std::size_t i = 0; c.f16 && i < k.size(); ++i) {
    ke[i] += (std::fabs(k[i]) + ke[i]) * 0x1p-11 + 0x1p-25;
    ve[i] += (std::fabs(v[i]) + ve[i]) * 0x1p-11 + 0x1p-25;
  }
  const std::vector<uint8_t> mask = band_mask(c);
  attn_ref::MaskView view;
  view.boolean = mask.data();
  std::vector<double> o(uz(t * c.e)), oe(o.size()), p(uz(t * t)), pt(p.size());
  for (int h = 0; h < c.heads; ++h) {
    const std::size_t qc = uz(h * c.hd), kc = uz(h / (c.heads / c.kv_heads) * c.hd);
    attn_ref::attention<double>(
        t, t, c.hd, c.hd, 1.0 / std::sqrt(static_cast<double>(c.hd)), attn_ref::kEps, q.data() + qc,
        uz(c.e), qe.data() + qc, k.data() + kc, uz(c.kvd), ke.data() + kc, v.data() + kc, uz(c.kvd),
        ve.data() + kc, view, p.data(), pt.data(), o.data() + qc, oe.data() + qc, uz(c.e));
  }
  out->assign(uz(t * c.e), 0.0);
  tol->assign(out->size(), 0.0);
  attn_ref::project<double>(t, c.e, c.e, o.data(), uz(c.e), oe.data(), m.wo.data(), uz(c.e), 1,
                            m.bo.data(), out->data(), tol->data(), uz(c.e));
}

// Runs the chunk sequence through `step` (one call: x row, out row, n -> status),
// checking the statuses and that failed calls write nothing. Returns the tokens
// decoded.
template <class T, class Step>
int run_sequence(const Case& c, const attn::KvCache& cache,
                 const std::vector<unsigned char>& storage, std::vector<T>* out, Step step) {
  int done = 0;
  for (int n : c.chunks) {
    if (done >= c.tokens) break;
    const bool bad_size = n < 1 || n > c.max_tokens;
    const int rows = bad_size ? 1 : (n < c.tokens - done ? n : c.tokens - done);
    const bool full = !bad_size && !c.window && done + rows > c.capacity;
    const attn::KvCache before = cache;
    const std::vector<unsigned char> bytes = storage;
    std::memset(out->data() + uz(done * c.e), 0x5a, uz(rows * c.e) * sizeof(T));
    const Status s = step(done, bad_size ? n : rows);
    if (!bad_size && !full) {
      FUZZ_CHECK(s == Status::kOk);
      FUZZ_CHECK(cache.position == done + rows);
      done += rows;
      continue;
    }
    FUZZ_CHECK(s == (bad_size ? Status::kBadShape : Status::kCacheFull));
    FUZZ_CHECK(before.position == cache.position && before.next_slot == cache.next_slot &&
               before.k == cache.k && before.v == cache.v && bytes == storage);
    const auto* o = reinterpret_cast<const unsigned char*>(out->data() + uz(done * c.e));
    for (std::size_t i = 0; i < uz(rows * c.e) * sizeof(T); ++i) FUZZ_CHECK(o[i] == 0x5a);
    if (full) break;
  }
  return done;
}

void fuzz_f32(Reader& in, const Case& c) {
  F32Model m;
  const auto fill = [&](std::vector<float>* v, std::size_t n, float scale) {
    v->resize(n);
    for (float& f : *v) f = in.value(false) * scale;
  };
  fill(&m.wq, uz(c.e * c.e), 0.1f);
  fill(&m.wk, uz(c.kvd * c.e), 0.1f);
  fill(&m.wv, uz(c.kvd * c.e), 0.1f);
  fill(&m.wo, uz(c.e * c.e), 0.1f);
  fill(&m.bq, uz(c.e), 0.1f);
  fill(&m.bk, uz(c.kvd), 0.1f);
  fill(&m.bv, uz(c.kvd), 0.1f);
  fill(&m.bo, uz(c.e), 0.1f);
  fill(&m.x, uz(c.tokens * c.e), 1.0f);
  attn::MhaDecodeShape s;
  s.embed_dim = c.e;
  s.num_heads = c.heads;
  s.num_kv_heads = c.kv_heads;
  s.max_tokens = c.max_tokens;
  s.cache_element = c.f16 ? attn::KvElement::kF16 : attn::KvElement::kF32;
  s.rope = c.rope;
  const attn::MhaDecodeF32Weights w{m.wq.data(), m.wk.data(), m.wv.data(), m.bq.data(),
                                    m.bk.data(), m.bv.data(), nullptr,     nullptr,
                                    m.wo.data(), m.bo.data()};
  const attn::KvCacheShape cs{c.capacity, c.kv_heads, c.hd, s.cache_element, c.window, c.packed};
  std::vector<unsigned char> storage(attn::kv_cache_bytes(cs)),
      scratch(attn::mha_decode_f32_scratch_bytes(s));
  attn::KvCache cache;
  FUZZ_CHECK(attn::kv_cache_init(cs, storage.data(), storage.size(), &cache) == Status::kOk);
  std::vector<float> out(uz(c.tokens * c.e));
  const int done = run_sequence(c, cache, storage, &out, [&](int t0, int n) {
    const attn::MhaDecodeF32Args a{m.x.data() + uz(t0 * c.e), out.data() + uz(t0 * c.e), n};
    return attn::mha_decode_f32(s, w, a, &cache, {scratch.data(), scratch.size()});
  });
  std::vector<double> ref, tol;
  reference_f32(c, m, &ref, &tol);
  for (std::size_t i = 0; i < uz(done * c.e); ++i) {
    FUZZ_CHECK(std::fabs(static_cast<double>(out[i]) - ref[i]) <= tol[i]);
  }
  attn_fuzz::note("decode f32", done == c.tokens ? "whole sequence" : "stopped at a full cache");
}

// int8 weights of `rows` output channels, their scales and biases.
struct FcS8 {
  std::vector<int8_t> w;
  std::vector<float> scales;
  std::vector<int32_t> bias;
  FcS8(Reader& in, int rows, int cols) : w(uz(rows * cols)), scales(uz(rows)), bias(uz(rows)) {
    for (int8_t& v : w) v = static_cast<int8_t>(in.u8() % 255 - 127);
    for (float& s : scales) s = 0.002f + 0.00001f * static_cast<float>(in.u8() % 200);
    for (int32_t& b : bias) b = (static_cast<int32_t>(in.u8()) - 128) * 20;
  }
  // Each kv head's rows repeated for the query heads of its group.
  FcS8 repeated(const Case& c) const {
    FcS8 r = *this;
    r.w.resize(uz(c.e * c.e));
    r.scales.resize(uz(c.e));
    r.bias.resize(uz(c.e));
    for (int ch = 0; ch < c.e; ++ch) {
      const int src = ch / c.hd / (c.heads / c.kv_heads) * c.hd + ch % c.hd;
      std::memcpy(&r.w[uz(ch * c.e)], &w[uz(src * c.e)], uz(c.e));
      r.scales[uz(ch)] = scales[uz(src)];
      r.bias[uz(ch)] = bias[uz(src)];
    }
    return r;
  }
  attn::FcS8Weights weights() const { return {w.data(), scales.data(), bias.data()}; }
};

attn::MhaDecodeS8Quant quant_s8() {
  attn::MhaDecodeS8Quant q;
  q.input = {0.05f, 3};
  q.q = {0.06f, -2};
  q.k = {0.05f, 1};
  q.v = {0.04f, -5};
  q.scores = {0.08f, 4};
  q.attn = {0.03f, -1};
  q.out = {0.05f, 2};
  return q;
}

// One-shot mha_s8 over the whole sequence with the case's band mask.
std::vector<int8_t> reference_s8(const Case& c, const FcS8& q, const FcS8& k, const FcS8& v,
                                 const FcS8& o, const std::vector<int8_t>& x) {
  const attn::MhaDecodeS8Quant d = quant_s8();
  attn::MhaS8Quant mq;
  mq.query = mq.key = mq.value = d.input;
  mq.q = d.q;
  mq.k = d.k;
  mq.v = d.v;
  mq.scores = d.scores;
  mq.attn = d.attn;
  mq.out = d.out;
  const FcS8 kr = k.repeated(c), vr = v.repeated(c);
  const attn::MhaS8Weights w{q.weights(), kr.weights(), vr.weights(), o.weights()};
  const attn::MhaShape shape{1, c.tokens, c.tokens, c.e, c.heads, 0, 0};
  std::vector<attn::QuantizedMultiplier> channels(attn::mha_s8_channel_count(shape));
  attn::MhaS8Params params;
  FUZZ_CHECK(attn::mha_s8_prepare(shape, mq, w, channels.data(), &params) == Status::kOk);
  const std::vector<uint8_t> mask = band_mask(c);
  std::vector<int8_t> out(uz(c.tokens * c.e));
  attn::MhaS8Args a;
  a.query = a.key = a.value = x.data();
  a.out = out.data();
  a.mask.boolean = mask.data();
  std::vector<unsigned char> scratch(attn::mha_s8_scratch_bytes(shape));
  FUZZ_CHECK(attn::mha_s8(params, a, {scratch.data(), scratch.size()}) == Status::kOk);
  return out;
}

// A prepared mha_decode_s8 with its cache (capacity, window) and scratch.
struct DecoderS8 {
  attn::MhaDecodeShape s;
  std::vector<attn::QuantizedMultiplier> channels;
  attn::MhaDecodeS8Params params;
  std::vector<unsigned char> storage, scratch;
  attn::KvCache cache;
  DecoderS8(const Case& c, const attn::MhaS8Weights& w, int max_tokens, int capacity) {
    s.embed_dim = c.e;
    s.num_heads = c.heads;
    s.num_kv_heads = c.kv_heads;
    s.max_tokens = max_tokens;
    s.cache_element = attn::KvElement::kS8;
    s.rope = c.rope;
    channels.resize(attn::mha_decode_s8_channel_count(s));
    FUZZ_CHECK(attn::mha_decode_s8_prepare(s, capacity, quant_s8(), w, channels.data(), &params) ==
               Status::kOk);
    const attn::KvCacheShape cs{capacity, c.kv_heads, c.hd, attn::KvElement::kS8,
                                c.window, c.packed};
    storage.resize(attn::kv_cache_bytes(cs));
    scratch.resize(attn::mha_decode_s8_scratch_bytes(s, cs));
    FUZZ_CHECK(attn::kv_cache_init(cs, storage.data(), storage.size(), &cache) == Status::kOk);
  }
  Status step(const int8_t* x, int8_t* out, int n) {
    return attn::mha_decode_s8(&params, {x, out, n}, &cache, {scratch.data(), scratch.size()});
  }
};

void fuzz_s8(Reader& in, const Case& c) {
  const FcS8 q(in, c.e, c.e), k(in, c.kvd, c.e), v(in, c.kvd, c.e), o(in, c.e, c.e);
  std::vector<int8_t> x(uz(c.tokens * c.e));
  for (int8_t& b : x) b = static_cast<int8_t>(in.u8());
  const attn::MhaS8Weights w{q.weights(), k.weights(), v.weights(), o.weights()};
  DecoderS8 dec(c, w, c.max_tokens, c.capacity);
  std::vector<int8_t> out(uz(c.tokens * c.e));
  const int done = run_sequence(c, dec.cache, dec.storage, &out, [&](int t0, int n) {
    return dec.step(x.data() + uz(t0 * c.e), out.data() + uz(t0 * c.e), n);
  });
  std::vector<int8_t> ref;
  if (c.rope.dims == 0) {
    ref = reference_s8(c, q, k, v, o, x);
  } else {
    // mha_s8 has no rotation: the promise checked is that the chunking does
    // not change the bits (one call over the whole sequence).
    DecoderS8 whole(c, w, c.tokens, c.window ? c.capacity : c.tokens);
    ref.resize(out.size());
    FUZZ_CHECK(whole.step(x.data(), ref.data(), c.tokens) == Status::kOk);
  }
  FUZZ_CHECK(std::memcmp(out.data(), ref.data(), uz(done * c.e)) == 0);
  attn_fuzz::note("decode s8", done == c.tokens ? "whole sequence" : "stopped at a full cache");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  Reader in(data, size);
  const Case c = read_case(in);
  if (c.s8) {
    fuzz_s8(in, c);
  } else {
    fuzz_f32(in, c);
  }
  return 0;
}
