// Decode-step benchmarks: one new token attending over a KV cache of `ctx`
// positions, H = 8 query heads, 2 kv heads, hd = 64 (E = 512), ctx 1,024 and
// 4,096 (int8: 4,095, the int8 core's key limit). One iteration is one step:
// project the token's Q/K/V, append K/V at position ctx - 1, attend over the
// ctx cached positions with grouped-query attention, output projection. Rows
// (family Decode_E512_H8_G2/<impl>/<ctx>):
//   attn_<be>_f32 / _f16   mha_decode_f32 over a float32 / float16 cache
//   attn_<be>_s8           mha_decode_s8 over an int8 cache (prepared layer)
//   recompute_mha_f32      no cache: one-shot mha_f32 with the new token as
//                          the query (seq_q = 1) re-projecting all ctx tokens'
//                          K/V (the last row of causal attention; the cheapest
//                          recomputation, as no other row is computed)
//   eigen_f32              an Eigen peer of the same cached step (own K/V arrays)
// Counters of the cached rows: us_per_token, cache_bytes (the K and V bytes
// of the ctx positions, each read once per step when a kv head's K/V serve all
// query heads of its group), cache_GBps and pct_read_bw: cache bytes per second
// as a percentage of ReadBW/<bytes>, a read-bandwidth loop over a buffer of
// the same size measured at the first use in this binary (1 MiB and below sits
// in L2 on current x86 cores, 4 MiB beyond it).
//
// Checks before timing: float rows against a double-precision reference of the
// step with the tests' error bounds (a float16 cache adds the half rounding of
// each K/V element to the bound); int8 bit for bit against one-shot mha_s8
// (the new token as the query over all ctx tokens, what the causal last row
// sees).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ctime>
#include <map>
#include <string>

#include "attn/attn.h"
#include "bench_check.h"
#include "bench_common.h"
#include "ref_double.h"

namespace attn_bench {
namespace {

constexpr int32_t kE = 512, kH = 8, kG = 2, kHd = kE / kH, kKvd = kG * kHd;
constexpr int32_t kChunk = 256;  // prefill tokens per call
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

void SetDecodeCounters(benchmark::State& st, std::size_t cache_bytes) {
  using C = benchmark::Counter;
  const double b = static_cast<double>(cache_bytes);
  st.counters["us_per_token"] = C(1e-6, C::kIsIterationInvariantRate | C::kInvert);
  st.counters["cache_bytes"] = C(b);
  st.counters["cache_GBps"] = C(b * 1e-9, C::kIsIterationInvariantRate);
  st.counters["pct_read_bw"] =
      C(b * 100.0 / ReadBandwidth(cache_bytes), C::kIsIterationInvariantRate);
}

// ---------------------------------------------------------------- float model
// Llama-style weights (q/k/v/o_proj, PyTorch [out, in]) and ctx tokens.
struct DecodeF32Data {
  explicit DecodeF32Data(int32_t n_ctx)
      : ctx(n_ctx),
        x(Random(Z(n_ctx) * Z(kE), 21)),
        wq(Random(Z(kE) * Z(kE), 22, -0.1f, 0.1f)),
        wk(Random(Z(kKvd) * Z(kE), 23, -0.1f, 0.1f)),
        wv(Random(Z(kKvd) * Z(kE), 24, -0.1f, 0.1f)),
        wo(Random(Z(kE) * Z(kE), 25, -0.1f, 0.1f)),
        bq(Random(Z(kE), 26)),
        bk(Random(Z(kKvd), 27)),
        bv(Random(Z(kKvd), 28)),
        bo(Random(Z(kE), 29)),
        out(Z(kE)) {}
  const float* last() const { return x.data() + Z(ctx - 1) * Z(kE); }
  // The step's output for the last token, double precision with its bound;
  // half_cache: K/V rounded to binary16 in the cache (relative 2^-11, and
  // 2^-25 absolute below the normal range).
  const Expected& expected(bool half_cache) const;
  int32_t ctx;
  FVec x, wq, wk, wv, wo, bq, bk, bv, bo, out;
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
  const std::string key = "decode/" + std::to_string(ctx);
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

void BM_Decode_attn_f32(benchmark::State& st, int32_t ctx, attn::KvElement el) {
  DecodeF32Data m(ctx);
  attn::MhaDecodeShape s;
  s.embed_dim = kE;
  s.num_heads = kH;
  s.num_kv_heads = kG;
  s.max_tokens = kChunk;
  s.cache_element = el;
  attn::MhaDecodeF32Weights w;
  w.q_proj_weight = m.wq.data();
  w.k_proj_weight = m.wk.data();
  w.v_proj_weight = m.wv.data();
  w.q_proj_bias = m.bq.data();
  w.k_proj_bias = m.bk.data();
  w.v_proj_bias = m.bv.data();
  w.out_proj_weight = m.wo.data();
  w.out_proj_bias = m.bo.data();
  const attn::KvCacheShape cs{ctx, kG, kHd, el, false};
  AlignedVec<unsigned char> storage(attn::kv_cache_bytes(cs)),
      scratch(attn::mha_decode_f32_scratch_bytes(s));
  FVec prefill_out(Z(kChunk) * Z(kE));
  attn::KvCache cache;
  const attn::Scratch scr{scratch.data(), scratch.size()};
  if (!CheckStatus(st, attn::kv_cache_init(cs, storage.data(), storage.size(), &cache))) return;
  for (int32_t t0 = 0; t0 < ctx - 1; t0 += kChunk) {
    const attn::MhaDecodeF32Args a{m.x.data() + Z(t0) * Z(kE), prefill_out.data(),
                                   std::min(kChunk, ctx - 1 - t0)};
    if (!CheckStatus(st, attn::mha_decode_f32(s, w, a, &cache, scr))) return;
  }
  const attn::MhaDecodeF32Args step{m.last(), m.out.data(), 1};
  if (!CheckStatus(st, attn::mha_decode_f32(s, w, step, &cache, scr)) ||
      !CheckClose(st, "out", m.out.data(), m.expected(el == attn::KvElement::kF16))) {
    return;
  }
  for (auto _ : st) {
    Rewind(&cache, ctx);
    benchmark::DoNotOptimize(attn::mha_decode_f32(s, w, step, &cache, scr));
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

void BM_Decode_attn_s8(benchmark::State& st, int32_t ctx) {
  DecodeS8Data m(ctx);
  attn::MhaDecodeShape s;
  s.embed_dim = kE;
  s.num_heads = kH;
  s.num_kv_heads = kG;
  s.max_tokens = kChunk;
  s.cache_element = attn::KvElement::kS8;
  std::vector<attn::QuantizedMultiplier> channels(attn::mha_decode_s8_channel_count(s));
  attn::MhaDecodeS8Params params;
  if (!CheckStatus(st,
                   attn::mha_decode_s8_prepare(s, ctx, m.quant, m.Weights(m.wk.data(), m.wv.data()),
                                               channels.data(), &params))) {
    return;
  }
  const attn::KvCacheShape cs{ctx, kG, kHd, attn::KvElement::kS8, false};
  AlignedVec<unsigned char> storage(attn::kv_cache_bytes(cs)),
      scratch(attn::mha_decode_s8_scratch_bytes(s, ctx));
  AlignedVec<int8_t> prefill_out(Z(kChunk) * Z(kE));
  const attn::Scratch scr{scratch.data(), scratch.size()};
  attn::KvCache cache;
  if (!CheckStatus(st, attn::kv_cache_init(cs, storage.data(), storage.size(), &cache))) return;
  for (int32_t t0 = 0; t0 < ctx - 1; t0 += kChunk) {
    const attn::MhaDecodeS8Args a{m.x.data() + Z(t0) * Z(kE), prefill_out.data(),
                                  std::min(kChunk, ctx - 1 - t0)};
    if (!CheckStatus(st, attn::mha_decode_s8(&params, a, &cache, scr))) return;
  }
  const attn::MhaDecodeS8Args step{m.x.data() + Z(ctx - 1) * Z(kE), m.out.data(), 1};
  const Expected& want =
      Memo("decode_s8/" + std::to_string(ctx), [&] { return DecodeS8Expected(m, ctx); });
  if (!CheckStatus(st, attn::mha_decode_s8(&params, step, &cache, scr)) ||
      !CheckExact(st, "out", m.out.data(), want)) {
    return;
  }
  for (auto _ : st) {
    Rewind(&cache, ctx);
    benchmark::DoNotOptimize(attn::mha_decode_s8(&params, step, &cache, scr));
    benchmark::ClobberMemory();
  }
  SetDecodeCounters(st, CacheBytes(ctx, 1));
}

}  // namespace

void RegisterDecodeBenchmarks() {
  const std::string be = ATTN_BENCH_BACKEND;
  for (int32_t ctx : {1024, 4096}) {
    const std::string c = "/" + std::to_string(ctx);
    Register(kFamily + "attn_" + be + "_f32" + c, BM_Decode_attn_f32, ctx, attn::KvElement::kF32);
    Register(kFamily + "attn_" + be + "_f16" + c, BM_Decode_attn_f32, ctx, attn::KvElement::kF16);
    const int32_t ctx_s8 = std::min(ctx, attn::kSdpaS8MaxSeqKv);
    Register(kFamily + "attn_" + be + "_s8/" + std::to_string(ctx_s8), BM_Decode_attn_s8, ctx_s8);
    Register(kFamily + "recompute_mha_f32" + c, BM_Decode_recompute, ctx);
    Register(kFamily + "eigen_f32" + c, BM_Decode_eigen, ctx);
    for (std::size_t elem : {4, 2, 1}) {
      const std::size_t bytes = CacheBytes(ctx, elem);
      Register("ReadBW/" + std::to_string(bytes), BM_ReadBandwidth, bytes);
    }
  }
}

}  // namespace attn_bench
