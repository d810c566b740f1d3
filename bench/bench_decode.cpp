// Decode-step benchmarks: one new token attending over a KV cache of `ctx`
// positions, H = 8 query heads, 2 kv heads, hd = 64 (E = 512), ctx 1,024 and
// 4,096 (int8: 4,095, the int8 core's key limit). Rows (family
// Decode_E512_H8_G2/<impl>/<ctx>):
//   attn_<be>_f32 / _f16   mha_decode_f32 over a float32 / float16 cache: one
//                          step (project the token's Q/K/V, append K/V at
//                          position ctx - 1, attend over the ctx cached
//                          positions with grouped-query attention, output
//                          projection)
//   attn_<be>_f16w         mha_decode_f32 over a float16 cache with the four
//                          weight matrices as binary16 (q/k/v/out_proj_weight_f16:
//                          1.3 MB of weights instead of 2.6 MB, float32 math)
//   attn_<be>_s8           mha_decode_s8 over an int8 cache (prepared layer)
//   attn_<be>_s8p          the same over a packed int8 cache (KvCacheShape::packed:
//                          K/V also kept in the tile kernels' layouts, updated
//                          a 16-slot block per append, so the step packs nothing)
//   ..._w2                 the same step with an attn::ThreadPool of 2 workers
//   attend_<be>_f32 / _f16 / _s8 / _s8p   the attention over the cache alone: the
//                          core call of one step (every kv head, its group's
//                          query heads as rows) on the last token's projected
//                          query, no projection, no append
//   recompute_mha_f32      no cache: one-shot mha_f32 with the new token as
//                          the query (seq_q = 1) re-projecting all ctx tokens'
//                          K/V (the last row of causal attention; the cheapest
//                          recomputation, as no other row is computed)
//   eigen_f32              an Eigen peer of the same cached step (own K/V arrays)
// and the step's parts (family Decode_E512_H8_G2_parts):
//   proj_<be>_f32/m<m>     the four float projections of m = 1 or 4 tokens
//                          (q, k, v, o: linear_f32 of every compiled backend,
//                          Eigen matrix-vector for m = 1), 2.6 MB of weights
//   proj_<be>_f16w/m1      the same four projections of one token with binary16
//                          weights (gemm_nt_f16w_f32 of every compiled backend),
//                          1.3 MB of weights
//   proj_s8_dot / _qk/m1   the four int8 projections of one token: fc_s8
//                          (one dot_s8 per channel, what mha_s8 runs) and the
//                          decode op's fc_s8_channels (qk_s8 over 64 weight
//                          rows per call), bit for bit the same
//   f32_to_f16_<be>/4096   a 64-key block of float rows narrowed to a
//                          float16 cache (64 x 64), as the append does
// Counters of the cache rows: us_per_token, cache_bytes (the K and V bytes
// of the ctx positions, each read once per step when a kv head's K/V serve all
// query heads of its group), cache_GBps and pct_read_bw: cache bytes per second
// as a percentage of ReadBW/<bytes>, a read-bandwidth loop over a buffer of
// the same size measured at the first use in this binary (1 MiB and below sits
// in L2 on current x86 cores, 4 MiB beyond it). The projection rows count
// their weight bytes the same way (weights_GBps, pct_read_bw of a buffer of
// 2.6 MB), the conversion rows their input bytes.
//
// Checks before timing: float rows against a double-precision reference of the
// step with the tests' error bounds (binary16 weights: the reference of the
// widened weights, exact; a float16 cache adds the half rounding of
// each K/V element to the bound; the attention rows' reference reads the
// cache's own values), int8 bit for bit against one-shot mha_s8 (the new
// token as the query over all ctx tokens, what the causal last row sees), the
// int8 attention row against sdpa_s8 per query head over the cached K/V, the
// projections against ref_double.h (float) or each other (int8), the
// conversions against the reference kernels bit for bit.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ctime>
#include <map>
#include <string>

#include "attn/attn.h"
#include "attn/thread_pool.h"
#include "bench_check.h"
#include "bench_common.h"
#include "core/attend_cache_f32.h"
#include "core/attend_cache_s8.h"
#include "kernels/f32/kernels_f32.h"
#include "ops/fc_s8.h"
#include "ops/fc_s8_channels.h"
#include "ref_double.h"
#if ATTN_BENCH_HAVE_HWY
#include "kernels/f32/hwy/kernels_f32_hwy.h"
#endif
#if ATTN_BENCH_HAVE_XSIMD
#include "kernels/f32/xsimd/kernels_f32_xsimd.h"
#endif

namespace attn_bench {
namespace {

constexpr int32_t kE = 512, kH = 8, kG = 2, kHd = kE / kH, kKvd = kG * kHd;
constexpr int32_t kChunk = 256;                                        // prefill tokens per call
constexpr int32_t kDecodeKeyBlockElems = attn::kDecodeKeyBlock * kHd;  // a float16 block
const std::string kFamily = "Decode_E512_H8_G2/";

// ---------------------------------------------------------------- read bandwidth
// Bytes per second of summing a buffer of `bytes` (float loads in 8 independent
// vector chains), the best of several passes in thread CPU time; memoized.
typedef float ReadVec __attribute__((vector_size(32)));

__attribute__((noinline)) float ReadPass(const ReadVec* p, std::size_t n) {
  ReadVec a[8] = {};
  for (std::size_t i = 0; i + 8 <= n; i += 8) {
    for (int c = 0; c < 8; ++c) a[c] += p[i + Z(c)];
  }
  const ReadVec s = a[0] + a[1] + a[2] + a[3] + a[4] + a[5] + a[6] + a[7];
  float sum = 0.0f;
  for (int i = 0; i < 8; ++i) sum += s[i];
  return sum;
}

double CpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

double ReadBandwidth(std::size_t bytes) {
  static std::map<std::size_t, double> memo;
  auto it = memo.find(bytes);
  if (it != memo.end()) return it->second;
  const FVec buf = Random(bytes / 4, 99);
  const auto* p = reinterpret_cast<const ReadVec*>(buf.data());
  const std::size_t n = bytes / sizeof(ReadVec);
  const int passes = static_cast<int>(std::max<std::size_t>(1, (std::size_t{64} << 20) / bytes));
  double best = 0.0;
  for (int t = 0; t < 5; ++t) {
    const double t0 = CpuSeconds();
    for (int r = 0; r < passes; ++r) benchmark::DoNotOptimize(ReadPass(p, n));
    const double s = CpuSeconds() - t0;
    if (s > 0) best = std::max(best, static_cast<double>(bytes) * passes / s);
  }
  return memo.emplace(bytes, best).first->second;
}

void BM_ReadBandwidth(benchmark::State& st, std::size_t bytes) {
  const FVec buf = Random(bytes / 4, 99);
  const auto* p = reinterpret_cast<const ReadVec*>(buf.data());
  for (auto _ : st) benchmark::DoNotOptimize(ReadPass(p, bytes / sizeof(ReadVec)));
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations()) * static_cast<int64_t>(bytes));
}

std::size_t CacheBytes(int32_t ctx, std::size_t elem) { return 2 * Z(ctx) * Z(kKvd) * elem; }

// us_per_token and <what>_bytes, <what>_GBps, pct_read_bw of `bytes` read
// per iteration (the read bandwidth of a buffer of that size).
void SetBytesCounters(benchmark::State& st, std::size_t bytes, const std::string& what) {
  using C = benchmark::Counter;
  const double b = static_cast<double>(bytes);
  st.counters["us_per_token"] = C(1e-6, C::kIsIterationInvariantRate | C::kInvert);
  st.counters[what + "_bytes"] = C(b);
  st.counters[what + "_GBps"] = C(b * 1e-9, C::kIsIterationInvariantRate);
  st.counters["pct_read_bw"] = C(b * 100.0 / ReadBandwidth(bytes), C::kIsIterationInvariantRate);
}
void SetDecodeCounters(benchmark::State& st, std::size_t cache_bytes) {
  SetBytesCounters(st, cache_bytes, "cache");
}

// The executor of a row: none (workers 1) or a pool of 2 workers.
attn::Executor RowExecutor(int32_t workers) {
  static attn::ThreadPool pool(2);
  return workers > 1 ? pool.executor() : attn::Executor{};
}

// ---------------------------------------------------------------- float model
// Llama-style weights (q/k/v/o_proj, PyTorch [out, in]) and ctx tokens.
// halves: the weight matrices rounded to binary16 (nearest even), their bits
// in wq16 .. wo16 and the widened values in wq .. wo (what the references use).
struct DecodeF32Data {
  explicit DecodeF32Data(int32_t n_ctx, bool halves_ = false)
      : ctx(n_ctx),
        halves(halves_),
        x(Random(Z(n_ctx) * Z(kE), 21)),
        wq(Random(Z(kE) * Z(kE), 22, -0.1f, 0.1f)),
        wk(Random(Z(kKvd) * Z(kE), 23, -0.1f, 0.1f)),
        wv(Random(Z(kKvd) * Z(kE), 24, -0.1f, 0.1f)),
        wo(Random(Z(kE) * Z(kE), 25, -0.1f, 0.1f)),
        bq(Random(Z(kE), 26)),
        bk(Random(Z(kKvd), 27)),
        bv(Random(Z(kKvd), 28)),
        bo(Random(Z(kE), 29)),
        out(Z(kE)) {
    if (!halves) return;
    const auto round = [](FVec* w, std::vector<uint16_t>* h) {
      const auto n = static_cast<int32_t>(w->size());
      h->resize(w->size());
      attn::ref::f32_to_f16(w->data(), n, h->data());
      attn::ref::f16_to_f32(h->data(), n, w->data());
    };
    round(&wq, &wq16);
    round(&wk, &wk16);
    round(&wv, &wv16);
    round(&wo, &wo16);
  }
  const float* last() const { return x.data() + Z(ctx - 1) * Z(kE); }
  // The step's output for the last token, double precision with its bound;
  // half_cache: K/V rounded to binary16 in the cache (relative 2^-11, and
  // 2^-25 absolute below the normal range).
  const Expected& expected(bool half_cache) const;
  int32_t ctx;
  bool halves;
  FVec x, wq, wk, wv, wo, bq, bk, bv, bo, out;
  std::vector<uint16_t> wq16, wk16, wv16, wo16;
};

// Attention of the projected last query over ctx projected K/V rows (values
// and bounds), then the output projection.
struct Projected {
  std::vector<double> q, q_err, k, k_err, v, v_err;
};

Expected AttendExpected(const Projected& pr, int32_t ctx, const float* wo, const float* bo) {
  std::vector<double> o(Z(kE)), o_err(Z(kE)), p(Z(ctx)), p_tol(Z(ctx));
  for (int32_t h = 0; h < kH; ++h) {
    const std::size_t qc = Z(h) * Z(kHd), kc = Z(h / (kH / kG)) * Z(kHd);
    attn_ref::attention<double>(1, ctx, kHd, kHd, 1.0 / std::sqrt(double{kHd}), attn_ref::kEps,
                                pr.q.data() + qc, Z(kE), pr.q_err.data() + qc, pr.k.data() + kc,
                                Z(kKvd), pr.k_err.data() + kc, pr.v.data() + kc, Z(kKvd),
                                pr.v_err.data() + kc, attn_ref::MaskView{}, p.data(), p_tol.data(),
                                o.data() + qc, o_err.data() + qc, Z(kE));
  }
  Expected y{std::vector<double>(Z(kE)), std::vector<double>(Z(kE))};
  attn_ref::project<double>(1, kE, kE, o.data(), Z(kE), o_err.data(), wo, Z(kE), 1, bo,
                            y.value.data(), y.tol.data(), Z(kE));
  return y;
}

// Both references share the projections (the costly part) and are made together.
const Expected& DecodeF32Data::expected(bool half_cache) const {
  const std::string key = "decode/" + std::to_string(ctx) + (halves ? "/f16w" : "");
  const Expected& f32 = Memo(key + "/f32", [&] {
    const std::size_t n = Z(ctx) * Z(kKvd);
    Projected pr{std::vector<double>(Z(kE)), std::vector<double>(Z(kE)), std::vector<double>(n),
                 std::vector<double>(n),     std::vector<double>(n),     std::vector<double>(n)};
    attn_ref::project<float>(1, kE, kE, last(), Z(kE), nullptr, wq.data(), Z(kE), 1, bq.data(),
                             pr.q.data(), pr.q_err.data(), Z(kE));
    attn_ref::project<float>(ctx, kE, kKvd, x.data(), Z(kE), nullptr, wk.data(), Z(kE), 1,
                             bk.data(), pr.k.data(), pr.k_err.data(), Z(kKvd));
    attn_ref::project<float>(ctx, kE, kKvd, x.data(), Z(kE), nullptr, wv.data(), Z(kE), 1,
                             bv.data(), pr.v.data(), pr.v_err.data(), Z(kKvd));
    Projected half = pr;
    for (std::size_t i = 0; i < n; ++i) {
      half.k_err[i] += (std::fabs(pr.k[i]) + pr.k_err[i]) * 0x1p-11 + 0x1p-25;
      half.v_err[i] += (std::fabs(pr.v[i]) + pr.v_err[i]) * 0x1p-11 + 0x1p-25;
    }
    Memo(key + "/f16", [&] { return AttendExpected(half, ctx, wo.data(), bo.data()); });
    return AttendExpected(pr, ctx, wo.data(), bo.data());
  });
  return half_cache ? Memo(key + "/f16", [] { return Expected{}; }) : f32;
}

// Puts the cache back to ctx - 1 positions (a linear cache's slot is its position).
void Rewind(attn::KvCache* c, int32_t ctx) {
  c->position = ctx - 1;
  c->next_slot = ctx - 1;
}

// The float op's shape and weights over m's data, with a cache of
// positions 0 .. filled - 1 written by the op in chunks of kChunk tokens
// (packed: K in 16-slot transposed blocks, attn/kv_cache.h); `status` is the
// first failure.
struct DecodeF32Op {
  DecodeF32Op(const DecodeF32Data& m, attn::KvElement el, int32_t workers, int32_t filled,
              bool packed)
      : cs{m.ctx, kG, kHd, el, false, packed} {
    s.embed_dim = kE;
    s.num_heads = kH;
    s.num_kv_heads = kG;
    s.max_tokens = kChunk;
    s.cache_element = el;
    w.q_proj_weight = m.wq.data();
    w.k_proj_weight = m.wk.data();
    w.v_proj_weight = m.wv.data();
    w.q_proj_bias = m.bq.data();
    w.k_proj_bias = m.bk.data();
    w.v_proj_bias = m.bv.data();
    w.out_proj_weight = m.wo.data();
    w.out_proj_bias = m.bo.data();
    if (m.halves) {
      w.q_proj_weight = w.k_proj_weight = w.v_proj_weight = w.out_proj_weight = nullptr;
      w.q_proj_weight_f16 = m.wq16.data();
      w.k_proj_weight_f16 = m.wk16.data();
      w.v_proj_weight_f16 = m.wv16.data();
      w.out_proj_weight_f16 = m.wo16.data();
    }
    ex = RowExecutor(workers);
    storage.resize(attn::kv_cache_bytes(cs));
    scratch.resize(attn::mha_decode_f32_scratch_bytes(s, ex.workers));
    status = attn::kv_cache_init(cs, storage.data(), storage.size(), &cache);
    FVec out(Z(kChunk) * Z(kE));
    for (int32_t t0 = 0; status == attn::Status::kOk && t0 < filled; t0 += kChunk) {
      status = Run(m.x.data() + Z(t0) * Z(kE), out.data(), std::min(kChunk, filled - t0));
    }
  }
  attn::Status Run(const float* x, float* out, int32_t tokens) {
    attn::MhaDecodeF32Args a{x, out, tokens};
    a.executor = ex;
    return attn::mha_decode_f32(s, w, a, &cache, {scratch.data(), scratch.size()});
  }
  attn::KvCacheShape cs;
  attn::MhaDecodeShape s;
  attn::MhaDecodeF32Weights w;
  attn::Executor ex;
  AlignedVec<unsigned char> storage, scratch;
  attn::KvCache cache;
  attn::Status status = attn::Status::kOk;
};

// f16w: binary16 weights; packed: a packed cache.
void BM_Decode_attn_f32(benchmark::State& st, int32_t ctx, attn::KvElement el, int32_t workers,
                        bool f16w, bool packed) {
  DecodeF32Data m(ctx, f16w);
  DecodeF32Op op(m, el, workers, ctx - 1, packed);
  if (!CheckStatus(st, op.status) || !CheckStatus(st, op.Run(m.last(), m.out.data(), 1)) ||
      !CheckClose(st, "out", m.out.data(), m.expected(el == attn::KvElement::kF16))) {
    return;
  }
  for (auto _ : st) {
    Rewind(&op.cache, ctx);
    benchmark::DoNotOptimize(op.Run(m.last(), m.out.data(), 1));
    benchmark::ClobberMemory();
  }
  SetDecodeCounters(st, CacheBytes(ctx, attn::kv_element_bytes(el)));
}

// The attention of q ([E], the last token's projected query) over the cached
// K/V of ctx positions (ctx a multiple of kKvCacheKtBlock), per query head in double
// precision from the cache's own values (a float16 cache widened exactly; a
// packed cache's K blocks read back into rows).
Expected CacheAttendExpected(const attn::KvCache& c, const float* q, int32_t ctx) {
  const std::size_t n = Z(kG) * Z(ctx) * Z(kHd);
  FVec k(n), v(n);
  if (c.shape.element == attn::KvElement::kF16) {
    attn::ref::f16_to_f32(static_cast<const uint16_t*>(c.k), static_cast<int32_t>(n), k.data());
    attn::ref::f16_to_f32(static_cast<const uint16_t*>(c.v), static_cast<int32_t>(n), v.data());
  } else {
    std::copy_n(static_cast<const float*>(c.k), n, k.data());
    std::copy_n(static_cast<const float*>(c.v), n, v.data());
  }
  if (attn::kv_cache_k_blocked(c.shape)) {  // [G][ctx / B][hd][B] -> [G][ctx][hd]
    const FVec kt = k;
    const std::size_t b = Z(attn::kKvCacheKtBlock);
    for (std::size_t g = 0; g < Z(kG); ++g) {
      for (std::size_t j = 0; j < Z(ctx); ++j) {
        for (std::size_t x = 0; x < Z(kHd); ++x) {
          k[(g * Z(ctx) + j) * Z(kHd) + x] = kt[(g * Z(ctx) + j / b * b) * Z(kHd) + x * b + j % b];
        }
      }
    }
  }
  Expected e{std::vector<double>(Z(kE)), std::vector<double>(Z(kE))};
  std::vector<double> p(Z(ctx)), pt(Z(ctx));
  for (int32_t h = 0; h < kH; ++h) {
    const std::size_t qc = Z(h) * Z(kHd), kc = Z(h / (kH / kG)) * Z(ctx) * Z(kHd);
    attn_ref::attention<float>(1, ctx, kHd, kHd, 1.0 / std::sqrt(double{kHd}), attn_ref::kEps,
                               q + qc, Z(kE), nullptr, k.data() + kc, Z(kHd), nullptr,
                               v.data() + kc, Z(kHd), nullptr, attn_ref::MaskView{}, p.data(),
                               pt.data(), e.value.data() + qc, e.tol.data() + qc, Z(kE));
  }
  return e;
}

// The attention over the cache alone: the core call of a step on a cache of
// all ctx positions (the last token's query, its K/V cached).
void BM_Decode_attend_f32(benchmark::State& st, int32_t ctx, attn::KvElement el, bool packed) {
  DecodeF32Data m(ctx);
  DecodeF32Op op(m, el, 1, ctx, packed);
  if (!CheckStatus(st, op.status)) return;
  FVec q(Z(kE));
  attn::kernels::linear_f32(m.last(), 1, kE, m.wq.data(), m.bq.data(), kE, q.data());
  AlignedVec<unsigned char> slice(attn::detail::attend_cache_f32_slice_bytes(op.cs));
  const attn::detail::CacheAttendF32 a{&op.cache, q.data(), m.out.data(), Z(kE), kH, 1, ctx - 1};
  const auto run = [&] { attn::detail::attend_cache_f32(attn::Executor{}, a, slice.data()); };
  run();
  if (!CheckClose(st, "out", m.out.data(), CacheAttendExpected(op.cache, q.data(), ctx))) return;
  for (auto _ : st) {
    run();
    benchmark::ClobberMemory();
  }
  SetDecodeCounters(st, CacheBytes(ctx, attn::kv_element_bytes(el)));
}

void BM_Decode_recompute(benchmark::State& st, int32_t ctx) {
  DecodeF32Data m(ctx);
  // MHA-shaped K/V weights: each kv head's rows repeated for its query heads.
  FVec wk(Z(kE) * Z(kE)), wv(Z(kE) * Z(kE)), b_in(3 * Z(kE));
  for (int32_t h = 0; h < kH; ++h) {
    const std::size_t src = Z(h / (kH / kG)) * Z(kHd), dst = Z(h) * Z(kHd);
    std::copy_n(m.wk.data() + src * Z(kE), Z(kHd) * Z(kE), wk.data() + dst * Z(kE));
    std::copy_n(m.wv.data() + src * Z(kE), Z(kHd) * Z(kE), wv.data() + dst * Z(kE));
    std::copy_n(m.bk.data() + src, Z(kHd), b_in.data() + Z(kE) + dst);
    std::copy_n(m.bv.data() + src, Z(kHd), b_in.data() + 2 * Z(kE) + dst);
  }
  std::copy_n(m.bq.data(), Z(kE), b_in.data());
  const attn::MhaShape shape{1, 1, ctx, kE, kH, 0, 0};
  attn::MhaF32Weights w;
  w.q_proj_weight = m.wq.data();
  w.k_proj_weight = wk.data();
  w.v_proj_weight = wv.data();
  w.in_proj_bias = b_in.data();
  w.out_proj_weight = m.wo.data();
  w.out_proj_bias = m.bo.data();
  attn::MhaF32Args a;
  a.query = m.last();
  a.key = a.value = m.x.data();
  a.out = m.out.data();
  AlignedVec<unsigned char> scratch(attn::mha_f32_scratch_bytes(shape));
  const auto run = [&] { return attn::mha_f32(shape, w, a, {scratch.data(), scratch.size()}); };
  if (!CheckStatus(st, run()) || !CheckClose(st, "out", m.out.data(), m.expected(false))) return;
  for (auto _ : st) {
    benchmark::DoNotOptimize(run());
    benchmark::ClobberMemory();
  }
}

// The Eigen peer: K/V per kv head in contiguous [ctx, hd] arrays; per kv head
// the group's query heads form one [group, hd] matrix, so a GEMM against
// K_g^T gives all the group's scores and K_g, V_g are read once per step.
// Matrix-vector projections; every buffer allocated outside the timed loop.
void BM_Decode_eigen(benchmark::State& st, int32_t ctx) {
  DecodeF32Data m(ctx);
  constexpr int32_t kGroup = kH / kG;
  MapC wq(m.wq.data(), kE, kE), wk(m.wk.data(), kKvd, kE), wv(m.wv.data(), kKvd, kE),
      wo(m.wo.data(), kE, kE);
  Eigen::Map<const VecF> bq(m.bq.data(), kE), bk(m.bk.data(), kKvd), bv(m.bv.data(), kKvd),
      bo(m.bo.data(), kE), xt(m.last(), kE);
  Eigen::Map<VecF> out(m.out.data(), kE);
  std::vector<RowMat> kc(kG, RowMat(ctx, kHd)), vc(kG, RowMat(ctx, kHd));
  {  // Prefill the first ctx - 1 positions.
    const RowMat kp = (MapC(m.x.data(), ctx - 1, kE) * wk.transpose()).rowwise() + bk.transpose();
    const RowMat vp = (MapC(m.x.data(), ctx - 1, kE) * wv.transpose()).rowwise() + bv.transpose();
    for (int32_t g = 0; g < kG; ++g) {
      kc[Z(g)].topRows(ctx - 1) = kp.middleCols(g * kHd, kHd);
      vc[Z(g)].topRows(ctx - 1) = vp.middleCols(g * kHd, kHd);
    }
  }
  VecF q(kE), knew(kKvd), vnew(kKvd), heads(kE);
  RowMat sc(kGroup, ctx);
  const float scale = 1.0f / std::sqrt(static_cast<float>(kHd));
  const auto run = [&] {
    q.noalias() = wq * xt;
    q = (q + bq) * scale;
    knew.noalias() = wk * xt;
    knew += bk;
    vnew.noalias() = wv * xt;
    vnew += bv;
    for (int32_t g = 0; g < kG; ++g) {
      kc[Z(g)].row(ctx - 1) = knew.segment(g * kHd, kHd).transpose();
      vc[Z(g)].row(ctx - 1) = vnew.segment(g * kHd, kHd).transpose();
      MapC qg(q.data() + g * kGroup * kHd, kGroup, kHd);
      sc.noalias() = qg * kc[Z(g)].transpose();
      EigenSoftmaxRows(MapM(sc.data(), kGroup, ctx));
      MapM(heads.data() + g * kGroup * kHd, kGroup, kHd).noalias() = sc * vc[Z(g)];
    }
    out.noalias() = wo * heads;
    out += bo;
  };
  run();
  if (!CheckClose(st, "out", m.out.data(), m.expected(false))) return;
  for (auto _ : st) {
    run();
    benchmark::ClobberMemory();
  }
  SetDecodeCounters(st, CacheBytes(ctx, 4));
}

// ---------------------------------------------------------------- int8
// Random int8 weights (per-channel scales), int32 biases and ctx int8 tokens;
// the scales keep projections and scores inside the int8 range.
struct DecodeS8Data {
  explicit DecodeS8Data(int32_t ctx)
      : x(Codes(Z(ctx) * Z(kE), 31)),
        wq(Codes(Z(kE) * Z(kE), 32)),
        wk(Codes(Z(kKvd) * Z(kE), 33)),
        wv(Codes(Z(kKvd) * Z(kE), 34)),
        wo(Codes(Z(kE) * Z(kE), 35)),
        scales(Random(Z(kE), 36, 0.0004f, 0.0006f)),
        bias(Z(kE)),
        out(Z(kE)) {
    for (std::size_t i = 0; i < bias.size(); ++i)
      bias[i] = static_cast<int32_t>(i % 61) * 50 - 1500;
    quant.input = {0.05f, 3};
    quant.q = {0.05f, -2};
    quant.k = {0.05f, 1};
    quant.v = {0.05f, -5};
    quant.scores = {2.0f, 4};
    quant.attn = {0.05f, -1};
    quant.out = {0.05f, 2};
  }
  static AlignedVec<int8_t> Codes(std::size_t n, uint32_t seed) {
    const FVec f = Random(n, seed, -127.0f, 127.0f);
    AlignedVec<int8_t> c(n);
    for (std::size_t i = 0; i < n; ++i) c[i] = static_cast<int8_t>(std::lround(f[i]));
    return c;
  }
  // Layers over the first `rows` weight rows (the K/V layers: kKvd rows).
  attn::MhaS8Weights Weights(const int8_t* k, const int8_t* v) const {
    attn::MhaS8Weights w;
    w.q = {wq.data(), scales.data(), bias.data()};
    w.k = {k, scales.data(), bias.data()};
    w.v = {v, scales.data(), bias.data()};
    w.out = {wo.data(), scales.data(), bias.data()};
    return w;
  }
  AlignedVec<int8_t> x, wq, wk, wv, wo;
  FVec scales;
  AlignedVec<int32_t> bias;
  AlignedVec<int8_t> out;
  attn::MhaDecodeS8Quant quant;
};

// One-shot mha_s8 of the last token over all ctx tokens, MHA-shaped K/V
// weights (each kv head's rows, scales and biases repeated for its query heads).
Expected DecodeS8Expected(const DecodeS8Data& m, int32_t ctx) {
  AlignedVec<int8_t> wk(Z(kE) * Z(kE)), wv(Z(kE) * Z(kE));
  for (int32_t h = 0; h < kH; ++h) {
    const std::size_t src = Z(h / (kH / kG)) * Z(kHd) * Z(kE), dst = Z(h) * Z(kHd) * Z(kE);
    std::copy_n(m.wk.data() + src, Z(kHd) * Z(kE), wk.data() + dst);
    std::copy_n(m.wv.data() + src, Z(kHd) * Z(kE), wv.data() + dst);
  }
  FVec sc(Z(kE));
  AlignedVec<int32_t> bi(Z(kE));
  for (int32_t c = 0; c < kE; ++c) {
    const std::size_t src = Z((c / kHd) / (kH / kG)) * Z(kHd) + Z(c % kHd);
    sc[Z(c)] = m.scales[src];
    bi[Z(c)] = m.bias[src];
  }
  attn::MhaS8Weights w = m.Weights(wk.data(), wv.data());
  w.k = {wk.data(), sc.data(), bi.data()};
  w.v = {wv.data(), sc.data(), bi.data()};
  attn::MhaS8Quant q;
  q.query = q.key = q.value = m.quant.input;
  q.q = m.quant.q;
  q.k = m.quant.k;
  q.v = m.quant.v;
  q.scores = m.quant.scores;
  q.attn = m.quant.attn;
  q.out = m.quant.out;
  const attn::MhaShape shape{1, 1, ctx, kE, kH, 0, 0};
  std::vector<attn::QuantizedMultiplier> channels(attn::mha_s8_channel_count(shape));
  attn::MhaS8Params params;
  Expected e{std::vector<double>(Z(kE), 1e9), std::vector<double>(Z(kE), 0.0)};
  if (attn::mha_s8_prepare(shape, q, w, channels.data(), &params) != attn::Status::kOk) return e;
  attn::MhaS8Args a;
  a.query = m.x.data() + Z(ctx - 1) * Z(kE);
  a.key = a.value = m.x.data();
  AlignedVec<int8_t> out(Z(kE));
  a.out = out.data();
  AlignedVec<unsigned char> scratch(attn::mha_s8_scratch_bytes(shape));
  if (attn::mha_s8(params, a, {scratch.data(), scratch.size()}) != attn::Status::kOk) return e;
  for (std::size_t i = 0; i < Z(kE); ++i) e.value[i] = out[i];
  return e;
}

// The int8 op prepared for capacity ctx over m's weights, with a cache of
// positions 0 .. filled - 1 written by the op; `status` the first failure.
struct DecodeS8Op {
  DecodeS8Op(const DecodeS8Data& m, int32_t ctx, int32_t workers, int32_t filled, bool packed)
      : cs{ctx, kG, kHd, attn::KvElement::kS8, false, packed} {
    s.embed_dim = kE;
    s.num_heads = kH;
    s.num_kv_heads = kG;
    s.max_tokens = kChunk;
    s.cache_element = attn::KvElement::kS8;
    channels.resize(attn::mha_decode_s8_channel_count(s));
    ex = RowExecutor(workers);
    status = attn::mha_decode_s8_prepare(s, ctx, m.quant, m.Weights(m.wk.data(), m.wv.data()),
                                         channels.data(), &params);
    storage.resize(attn::kv_cache_bytes(cs));
    scratch.resize(attn::mha_decode_s8_scratch_bytes(s, cs, ex.workers));
    if (status == attn::Status::kOk) {
      status = attn::kv_cache_init(cs, storage.data(), storage.size(), &cache);
    }
    AlignedVec<int8_t> out(Z(kChunk) * Z(kE));
    for (int32_t t0 = 0; status == attn::Status::kOk && t0 < filled; t0 += kChunk) {
      status = Run(m.x.data() + Z(t0) * Z(kE), out.data(), std::min(kChunk, filled - t0));
    }
  }
  attn::Status Run(const int8_t* x, int8_t* out, int32_t tokens) {
    attn::MhaDecodeS8Args a{x, out, tokens};
    a.executor = ex;
    return attn::mha_decode_s8(&params, a, &cache, {scratch.data(), scratch.size()});
  }
  attn::KvCacheShape cs;
  attn::MhaDecodeShape s;
  std::vector<attn::QuantizedMultiplier> channels;
  attn::MhaDecodeS8Params params;
  attn::Executor ex;
  AlignedVec<unsigned char> storage, scratch;
  attn::KvCache cache;
  attn::Status status = attn::Status::kOk;
};

void BM_Decode_attn_s8(benchmark::State& st, int32_t ctx, int32_t workers, bool packed) {
  DecodeS8Data m(ctx);
  DecodeS8Op op(m, ctx, workers, ctx - 1, packed);
  const int8_t* x = m.x.data() + Z(ctx - 1) * Z(kE);
  const Expected& want =
      Memo("decode_s8/" + std::to_string(ctx), [&] { return DecodeS8Expected(m, ctx); });
  if (!CheckStatus(st, op.status) || !CheckStatus(st, op.Run(x, m.out.data(), 1)) ||
      !CheckExact(st, "out", m.out.data(), want)) {
    return;
  }
  for (auto _ : st) {
    Rewind(&op.cache, ctx);
    benchmark::DoNotOptimize(op.Run(x, m.out.data(), 1));
    benchmark::ClobberMemory();
  }
  SetDecodeCounters(st, CacheBytes(ctx, 1));
}

// The int8 attention over the cache alone, checked against sdpa_s8 per query
// head (seq_q 1) over the same cached K/V.
void BM_Decode_attend_s8(benchmark::State& st, int32_t ctx, bool packed) {
  DecodeS8Data m(ctx);
  DecodeS8Op op(m, ctx, 1, ctx, packed);
  if (!CheckStatus(st, op.status)) return;
  AlignedVec<int8_t> q(Z(kE));
  attn::detail::fc_s8(op.params.q, m.x.data() + Z(ctx - 1) * Z(kE), Z(kE), 1, q.data(), Z(kE));
  Expected want{std::vector<double>(Z(kE)), std::vector<double>(Z(kE), 0.0)};
  attn::SdpaS8Params one = op.params.attend;
  one.shape = {1, 1, ctx, kHd, kHd};
  AlignedVec<unsigned char> ws(attn::sdpa_s8_scratch_bytes(one.shape));
  AlignedVec<int8_t> o(Z(kHd));
  for (int32_t h = 0; h < kH; ++h) {
    const std::size_t kv = Z(h / (kH / kG)) * Z(ctx) * Z(kHd);
    attn::SdpaS8Args a;
    a.q = q.data() + Z(h) * Z(kHd);
    a.k = static_cast<const int8_t*>(op.cache.k) + kv;
    a.v = static_cast<const int8_t*>(op.cache.v) + kv;
    a.out = o.data();
    if (!CheckStatus(st, attn::sdpa_s8(one, a, {ws.data(), ws.size()}))) return;
    for (int32_t c = 0; c < kHd; ++c) want.value[Z(h) * Z(kHd) + Z(c)] = o[Z(c)];
  }
  AlignedVec<unsigned char> slice(attn::sdpa_s8_core_bytes(ctx, kHd, kHd));
  const attn::detail::CacheAttendS8 a{&op.cache, q.data(), m.out.data(), Z(kE), kH, 1, ctx - 1};
  const auto run = [&] {
    attn::detail::attend_cache_s8(attn::Executor{}, op.params.attend, a, slice.data());
  };
  run();
  if (!CheckExact(st, "out", m.out.data(), want)) return;
  for (auto _ : st) {
    run();
    benchmark::ClobberMemory();
  }
  SetDecodeCounters(st, CacheBytes(ctx, 1));
}

// ---------------------------------------------------------------- the step's parts
const std::string kParts = "Decode_E512_H8_G2_parts/";
// The weight elements of the four projections (bytes: 4x for float, 2x
// binary16, 1x int8).
constexpr std::size_t kProjWeights = static_cast<std::size_t>(2 * kE * kE + 2 * kKvd * kE);

using LinearFn = void (*)(const float*, int32_t, int32_t, const float*, const float*, int32_t,
                          float*);
using GemmF16wFn = void (*)(const float*, std::size_t, int32_t, int32_t, const uint16_t*,
                            std::size_t, int32_t, const float*, bool, float*, std::size_t);

// The four projections of m tokens (o on the same input rows), into y
// ([m, E] q, [m, kvd] k, v, [m, E] o): one(i, n_out, bias, y) projects
// matrix i (q, k, v, o).
template <class One>
void Project(const DecodeF32Data& d, int32_t m, float* y, const One& one) {
  const std::size_t e = Z(m) * Z(kE), kv = Z(m) * Z(kKvd);
  one(0, kE, d.bq.data(), y);
  one(1, kKvd, d.bk.data(), y + e);
  one(2, kKvd, d.bv.data(), y + e + kv);
  one(3, kE, d.bo.data(), y + e + 2 * kv);
}

Expected ProjectExpected(const DecodeF32Data& d, int32_t m) {
  const std::size_t e = Z(m) * Z(kE), kv = Z(m) * Z(kKvd);
  Expected y{std::vector<double>(2 * e + 2 * kv), std::vector<double>(2 * e + 2 * kv)};
  const float* w[4] = {d.wq.data(), d.wk.data(), d.wv.data(), d.wo.data()};
  const float* b[4] = {d.bq.data(), d.bk.data(), d.bv.data(), d.bo.data()};
  const int32_t n[4] = {kE, kKvd, kKvd, kE};
  std::size_t at = 0;
  for (int i = 0; i < 4; ++i) {
    attn_ref::project<float>(m, kE, n[i], d.x.data(), Z(kE), nullptr, w[i], Z(kE), 1, b[i],
                             y.value.data() + at, y.tol.data() + at, Z(n[i]));
    at += Z(m) * Z(n[i]);
  }
  return y;
}

// The projection rows: checked against ProjectExpected (of the widened
// weights for binary16 ones), then timed; bytes: the weights'.
template <class One>
void ProjRow(benchmark::State& st, const DecodeF32Data& d, int32_t m, std::size_t weight_bytes,
             const One& one) {
  FVec y(2 * Z(m) * (Z(kE) + Z(kKvd)));
  Project(d, m, y.data(), one);
  const std::string key = "decode_proj/" + std::to_string(m) + (d.halves ? "/f16w" : "");
  const Expected& want = Memo(key, [&] { return ProjectExpected(d, m); });
  if (!CheckClose(st, "y", y.data(), want)) return;
  for (auto _ : st) {
    Project(d, m, y.data(), one);
    benchmark::ClobberMemory();
  }
  SetBytesCounters(st, weight_bytes * kProjWeights, "weights");
}

void BM_Proj_f32(benchmark::State& st, LinearFn f, int32_t m) {
  const DecodeF32Data d(m);
  const float* w[4] = {d.wq.data(), d.wk.data(), d.wv.data(), d.wo.data()};
  ProjRow(st, d, m, 4, [&](int i, int32_t n_out, const float* bias, float* y) {
    f(d.x.data(), m, kE, w[i], bias, n_out, y);
  });
}

void BM_Proj_f16w(benchmark::State& st, GemmF16wFn f, int32_t m) {
  const DecodeF32Data d(m, true);
  const uint16_t* w[4] = {d.wq16.data(), d.wk16.data(), d.wv16.data(), d.wo16.data()};
  ProjRow(st, d, m, 2, [&](int i, int32_t n_out, const float* bias, float* y) {
    f(d.x.data(), Z(kE), m, kE, w[i], Z(kE), n_out, bias, false, y, Z(n_out));
  });
}

// The Eigen peer of the m = 1 projections: four matrix-vector products.
void BM_Proj_eigen(benchmark::State& st) {
  const DecodeF32Data d(1);
  FVec y(2 * (Z(kE) + Z(kKvd)));
  const auto run = [&] {
    const Eigen::Map<const VecF> x(d.x.data(), kE);
    Eigen::Map<VecF> q(y.data(), kE), k(y.data() + kE, kKvd), v(y.data() + kE + kKvd, kKvd),
        o(y.data() + kE + 2 * kKvd, kE);
    q.noalias() = MapC(d.wq.data(), kE, kE) * x + Eigen::Map<const VecF>(d.bq.data(), kE);
    k.noalias() = MapC(d.wk.data(), kKvd, kE) * x + Eigen::Map<const VecF>(d.bk.data(), kKvd);
    v.noalias() = MapC(d.wv.data(), kKvd, kE) * x + Eigen::Map<const VecF>(d.bv.data(), kKvd);
    o.noalias() = MapC(d.wo.data(), kE, kE) * x + Eigen::Map<const VecF>(d.bo.data(), kE);
  };
  run();
  const Expected& want = Memo("decode_proj/1", [&] { return ProjectExpected(d, 1); });
  if (!CheckClose(st, "y", y.data(), want)) return;
  for (auto _ : st) {
    run();
    benchmark::ClobberMemory();
  }
  SetBytesCounters(st, 4 * kProjWeights, "weights");
}

// The int8 projections of one token: fc_s8 (per-channel dot_s8) or the
// decode op's fc_s8_channels (qk_s8 over 64 weight rows per call).
void BM_Proj_s8(benchmark::State& st, bool channels) {
  const DecodeS8Data m(16);
  DecodeS8Op op(m, 16, 1, 0, false);
  if (!CheckStatus(st, op.status)) return;
  const attn::FcS8Layer* layers[4] = {&op.params.q, &op.params.k, &op.params.v, &op.params.out};
  AlignedVec<int8_t> y(2 * (Z(kE) + Z(kKvd))), y_dot(y.size());
  AlignedVec<unsigned char> ws(attn::align_up(2 * Z(kE) + 4) + 4 * attn::kMhaDecodeS8Channels);
  const auto run = [&](bool by_channels, int8_t* out) {
    for (const attn::FcS8Layer* l : layers) {
      if (by_channels) {
        attn::detail::fc_s8_channels(*l, m.x.data(), Z(kE), 1, out, Z(l->out_features), 0,
                                     l->out_features, ws.data());
      } else {
        attn::detail::fc_s8(*l, m.x.data(), Z(kE), 1, out, Z(l->out_features));
      }
      out += l->out_features;
    }
  };
  run(false, y_dot.data());
  run(channels, y.data());
  Expected want{std::vector<double>(y.size()), std::vector<double>(y.size(), 0.0)};
  for (std::size_t i = 0; i < y.size(); ++i) want.value[i] = y_dot[i];
  if (!CheckExact(st, "y", y.data(), want)) return;
  for (auto _ : st) {
    run(channels, y.data());
    benchmark::ClobberMemory();
  }
  SetBytesCounters(st, kProjWeights, "weights");
}

// One 64-key block of float rows (64 x 64 elements) narrowed to binary16, bit
// for bit the reference kernel's.
void BM_F16Block(benchmark::State& st, void (*to_f16)(const float*, int32_t, uint16_t*)) {
  const int32_t n = kDecodeKeyBlockElems;
  const FVec src = Random(Z(n), 41, -30.0f, 30.0f);
  AlignedVec<uint16_t> h(Z(n)), h_ref(Z(n));
  attn::ref::f32_to_f16(src.data(), n, h_ref.data());
  to_f16(src.data(), n, h.data());
  if (h != h_ref) {
    Fail(st, "f32_to_f16: bits differ from the reference kernel's");
    return;
  }
  for (auto _ : st) {
    to_f16(src.data(), n, h.data());
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations()) * n * 4);
}

}  // namespace

void RegisterDecodeBenchmarks() {
  const std::string be = ATTN_BENCH_BACKEND;
  for (int32_t ctx : {1024, 4096}) {
    const std::string c = "/" + std::to_string(ctx);
    const int32_t ctx_s8 = std::min(ctx, attn::kSdpaS8MaxSeqKv);
    const std::string c8 = "/" + std::to_string(ctx_s8);
    for (int32_t workers : {1, 2}) {
      const std::string w = workers > 1 ? "_w2" : "";
      for (bool packed : {false, true}) {
        const std::string p = packed ? "p" : "";
        Register(kFamily + "attn_" + be + "_f32" + p + w + c, BM_Decode_attn_f32, ctx,
                 attn::KvElement::kF32, workers, false, packed);
        Register(kFamily + "attn_" + be + "_f16" + p + w + c, BM_Decode_attn_f32, ctx,
                 attn::KvElement::kF16, workers, false, packed);
      }
      Register(kFamily + "attn_" + be + "_s8" + w + c8, BM_Decode_attn_s8, ctx_s8, workers, false);
      Register(kFamily + "attn_" + be + "_s8p" + w + c8, BM_Decode_attn_s8, ctx_s8, workers, true);
    }
    for (bool packed : {false, true}) {
      const std::string p = packed ? "p" : "";
      Register(kFamily + "attn_" + be + "_f16w" + p + c, BM_Decode_attn_f32, ctx,
               attn::KvElement::kF16, 1, true, packed);
      Register(kFamily + "attend_" + be + "_f32" + p + c, BM_Decode_attend_f32, ctx,
               attn::KvElement::kF32, packed);
      Register(kFamily + "attend_" + be + "_f16" + p + c, BM_Decode_attend_f32, ctx,
               attn::KvElement::kF16, packed);
    }
    Register(kFamily + "attend_" + be + "_s8" + c8, BM_Decode_attend_s8, ctx_s8, false);
    Register(kFamily + "attend_" + be + "_s8p" + c8, BM_Decode_attend_s8, ctx_s8, true);
    Register(kFamily + "recompute_mha_f32" + c, BM_Decode_recompute, ctx);
    Register(kFamily + "eigen_f32" + c, BM_Decode_eigen, ctx);
    for (std::size_t elem : {4, 2, 1}) {
      const std::size_t bytes = CacheBytes(ctx, elem);
      Register("ReadBW/" + std::to_string(bytes), BM_ReadBandwidth, bytes);
    }
  }
  struct Backend {
    std::string name;
    LinearFn linear;
    GemmF16wFn gemm_f16w;
    void (*to_f16)(const float*, int32_t, uint16_t*);
  };
  std::vector<Backend> backends = {
      {"ref", attn::ref::linear_f32, attn::ref::gemm_nt_f16w_f32, attn::ref::f32_to_f16}};
#if ATTN_BENCH_HAVE_HWY
  backends.push_back(
      {"hwy", attn::hwy::linear_f32, attn::hwy::gemm_nt_f16w_f32, attn::hwy::f32_to_f16});
#endif
#if ATTN_BENCH_HAVE_XSIMD
  backends.push_back(
      {"xsimd", attn::xsimd::linear_f32, attn::xsimd::gemm_nt_f16w_f32, attn::xsimd::f32_to_f16});
#endif
  for (const Backend& b : backends) {
    for (int32_t m : {1, 4}) {
      Register(kParts + "proj_" + b.name + "_f32/m" + std::to_string(m), BM_Proj_f32, b.linear, m);
    }
    Register(kParts + "proj_" + b.name + "_f16w/m1", BM_Proj_f16w, b.gemm_f16w, 1);
    const std::string n = "/" + std::to_string(kDecodeKeyBlockElems);
    Register(kParts + "f32_to_f16_" + b.name + n, BM_F16Block, b.to_f16);
  }
  Register(kParts + "proj_eigen_f32/m1", BM_Proj_eigen);
  Register(kParts + "proj_s8_dot/m1", BM_Proj_s8, false);
  Register(kParts + "proj_s8_qk/m1", BM_Proj_s8, true);
  for (std::size_t elem : {4, 2}) {
    Register("ReadBW/" + std::to_string(elem * kProjWeights), BM_ReadBandwidth,
             elem * kProjWeights);
  }
}

}  // namespace attn_bench
