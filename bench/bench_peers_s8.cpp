// The composed int8 peer of the int8 SDPA rows: oneDNN matmul primitives, as
// a performance engineer would build int8 attention from them on a CPU
// without AMX (Debian's oneDNN picks its VNNI kernels where the CPU has them;
// the chosen implementation is the row's label):
//   1. S8 = sat(round(Q Kᵀ * q_scale k_scale / (sqrt(d) s_scale)))  s8 x s8 -> s8
//      (Kᵀ read strided)
//   2. a row softmax of S8 to u8 probabilities at scale 1/256 (AVX-512, below)
//   3. O8 = sat(round(P V * v_scale / (256 o_scale)))              u8 x s8 -> s8
// Its job is easier than sdpa_s8's: no zero points (symmetric tensors) and no
// TFLite fixed-point requantization; the same random codes and scales as the
// attn_s8 rows (bench_s8.cpp), zero points dropped.
//
// Checked before timing: each matmul's int8 output against a scalar
// computation of the same formula from the same inputs (within 1: oneDNN
// rounds a float product, the scalar check rounds a double), and the
// probabilities against the softmax in double (within 1).
//
// Registered only on CPUs with VNNI (AVX512-VNNI or AVX-VNNI). Without it,
// oneDNN's int8 matmul adds pairs of u8 x s8 products in saturating int16
// (vpmaddubsw): measured on an AMD Zen 4 with AVX2 only, 11% of the scores
// of these full-range codes come out 2 or more codes off, and the check
// rejects it. A peer that computes something else is not timed.
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <dnnl.hpp>
#include <random>
#include <string>
#include <vector>

#include "bench_check.h"
#include "bench_common.h"
#include "kernels/s8/kernels_s8.h"

namespace attn_bench {
namespace {

constexpr int32_t kD = 64;
constexpr float kQScale = 0.014f, kKScale = 0.012f, kVScale = 0.03f, kSScale = 0.2f,
                kOScale = 0.02f;

template <class T>
AlignedVec<T> RandomCodes(std::size_t n, uint32_t seed, int lo, int hi) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  AlignedVec<T> v(n);
  for (auto& x : v) x = static_cast<T>(dist(rng));
  return v;
}

// Row softmax of int8 scores (scale kSScale) to u8 probabilities (scale
// 1/256): e_j = exp(-kSScale (max - s_j)), p_j = min(255, round(256 e_j / sum e)).
// With AVX-512 (the VNNI machines the peer runs on) 16 scores a step:
// d = max - s in [0, 255] splits as 16 hi + lo, so e = A[hi] B[lo] with
// A[h] = exp(-16 kSScale h) and B[l] = exp(-kSScale l): two 16-entry
// vpermps lookups and a multiply; the rounding is vcvtps2dq (to nearest
// even, as nearbyint) and the saturating vpmovusdb. Elsewhere the scalar
// loop below. e holds n floats.
struct SoftmaxU8 {
  SoftmaxU8() {
    for (int i = 0; i < 16; ++i) {
      hi[i] = std::exp(-kSScale * 16.0f * static_cast<float>(i));
      lo[i] = std::exp(-kSScale * static_cast<float>(i));
    }
  }
#if defined(__AVX512F__) && defined(__AVX512BW__)
  void row(const int8_t* s, int32_t n, float* e, uint8_t* p) const {
    __m512i mx = _mm512_set1_epi8(-128);
    int32_t j = 0;
    for (; j + 64 <= n; j += 64) mx = _mm512_max_epi8(mx, _mm512_loadu_si512(s + j));
    if (j < n) {
      const __mmask64 tail = _cvtu64_mask64((~0ULL) >> (64 - (n - j)));
      mx = _mm512_max_epi8(mx, _mm512_mask_loadu_epi8(_mm512_set1_epi8(-128), tail, s + j));
    }
    // Horizontal max of the 64 bytes, as 16 int32 lanes of sign-extended bytes.
    // (vextracti32x4 takes an immediate: Clang wants the lane as a constant.)
    __m512i m32 = _mm512_cvtepi8_epi32(_mm512_castsi512_si128(mx));
    m32 = _mm512_max_epi32(m32, _mm512_cvtepi8_epi32(_mm512_extracti32x4_epi32(mx, 1)));
    m32 = _mm512_max_epi32(m32, _mm512_cvtepi8_epi32(_mm512_extracti32x4_epi32(mx, 2)));
    m32 = _mm512_max_epi32(m32, _mm512_cvtepi8_epi32(_mm512_extracti32x4_epi32(mx, 3)));
    const __m512i m = _mm512_set1_epi32(_mm512_reduce_max_epi32(m32));
    const __m512 a = _mm512_loadu_ps(hi), b = _mm512_loadu_ps(lo);
    const __m512i k15 = _mm512_set1_epi32(15);
    __m512 sum = _mm512_setzero_ps();
    for (j = 0; j < n; j += 16) {
      const __mmask16 k = n - j >= 16 ? __mmask16{0xFFFF} : _cvtu32_mask16((1u << (n - j)) - 1);
      const __m512i d = _mm512_sub_epi32(m, _mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(k, s + j)));
      const __m512 ej = _mm512_mul_ps(_mm512_permutexvar_ps(_mm512_srli_epi32(d, 4), a),
                                      _mm512_permutexvar_ps(_mm512_and_si512(d, k15), b));
      _mm512_mask_storeu_ps(e + j, k, ej);
      sum = _mm512_mask_add_ps(sum, k, sum, ej);
    }
    const __m512 scale = _mm512_set1_ps(256.0f / _mm512_reduce_add_ps(sum));
    const __m512i top = _mm512_set1_epi32(255);
    for (j = 0; j < n; j += 16) {
      const __mmask16 k = n - j >= 16 ? __mmask16{0xFFFF} : _cvtu32_mask16((1u << (n - j)) - 1);
      const __m512i q = _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_maskz_loadu_ps(k, e + j), scale));
      _mm512_mask_cvtusepi32_storeu_epi8(p + j, k, _mm512_min_epi32(q, top));
    }
  }
#else
  void row(const int8_t* s, int32_t n, float* e, uint8_t* p) const {
    int32_t m = -128;
    for (int32_t j = 0; j < n; ++j) m = std::max<int32_t>(m, s[j]);
    float sum = 0.0f;
    for (int32_t j = 0; j < n; ++j) {
      const int32_t d = m - s[j];
      sum += e[j] = hi[d >> 4] * lo[d & 15];
    }
    const float k = 256.0f / sum;
    for (int32_t j = 0; j < n; ++j) {
      p[j] = static_cast<uint8_t>(std::min(255.0f, std::nearbyint(e[j] * k)));
    }
  }
#endif
  float hi[16], lo[16];
};

// The probabilities' check: round(256 exp(-kSScale (max - s_j)) / sum) in
// double, clamped to 255 (within 1: the peer's exp is a product of two
// rounded floats, its sum a float sum).
Expected ScalarSoftmax(const int8_t* s, int32_t rows, int32_t n) {
  Expected e{std::vector<double>(Z(rows) * Z(n)), std::vector<double>(Z(rows) * Z(n), 1.0)};
  for (int32_t i = 0; i < rows; ++i) {
    const int8_t* r = s + Z(i) * Z(n);
    const int32_t m = *std::max_element(r, r + n);
    double sum = 0.0;
    for (int32_t j = 0; j < n; ++j) sum += std::exp(-double{kSScale} * (m - r[j]));
    for (int32_t j = 0; j < n; ++j) {
      e.value[Z(i) * Z(n) + Z(j)] =
          std::min(255.0, std::nearbyint(256.0 * std::exp(-double{kSScale} * (m - r[j])) / sum));
    }
  }
  return e;
}

// out[i, c] = sat8(round(scale * sum_j a[i, j] b[j, c])): the scalar check of
// one matmul (b[j, c] at b[j * bs_row + c * bs_col]).
template <class A>
Expected ScalarMatmul(const A* a, const int8_t* b, int64_t bs_row, int64_t bs_col, int32_t m,
                      int32_t kk, int32_t n, double scale) {
  Expected e{std::vector<double>(Z(m) * Z(n)), std::vector<double>(Z(m) * Z(n), 1.0)};
  for (int32_t i = 0; i < m; ++i) {
    for (int32_t c = 0; c < n; ++c) {
      int64_t acc = 0;
      for (int32_t j = 0; j < kk; ++j) {
        acc += int64_t{a[Z(i) * Z(kk) + Z(j)]} * b[j * bs_row + c * bs_col];
      }
      e.value[Z(i) * Z(n) + Z(c)] =
          std::clamp(std::nearbyint(static_cast<double>(acc) * scale), -128.0, 127.0);
    }
  }
  return e;
}

bool CheckWithinOne(benchmark::State& st, const char* what, const AlignedVec<int8_t>& got,
                    const Expected& want) {
  FVec f(got.size());
  std::copy(got.begin(), got.end(), f.begin());
  return CheckClose(st, what, f.data(), want);
}

dnnl::memory::desc Desc2(int32_t rows, int32_t cols, dnnl::memory::data_type t, int64_t rs,
                         int64_t cs) {
  return dnnl::memory::desc({rows, cols}, t, {rs, cs});
}

void BM_SdpaS8_onednn(benchmark::State& st, int32_t sq, int32_t skv) {
  using dt = dnnl::memory::data_type;
  static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  const auto q = RandomCodes<int8_t>(Z(sq) * Z(kD), 1, -128, 127);
  const auto k = RandomCodes<int8_t>(Z(skv) * Z(kD), 2, -128, 127);
  const auto v = RandomCodes<int8_t>(Z(skv) * Z(kD), 3, -128, 127);
  AlignedVec<int8_t> s(Z(sq) * Z(skv)), out(Z(sq) * Z(kD));
  AlignedVec<uint8_t> p(Z(sq) * Z(skv));
  FVec e(Z(skv));
  const SoftmaxU8 softmax;
  const float qk_scale = kQScale * kKScale / (std::sqrt(static_cast<float>(kD)) * kSScale);
  const float pv_scale = kVScale / (256.0f * kOScale);
  const auto q_md = Desc2(sq, kD, dt::s8, kD, 1), kt_md = Desc2(kD, skv, dt::s8, 1, kD);
  const auto s_md = Desc2(sq, skv, dt::s8, skv, 1), p_md = Desc2(sq, skv, dt::u8, skv, 1);
  const auto v_md = Desc2(skv, kD, dt::s8, kD, 1), o_md = Desc2(sq, kD, dt::s8, kD, 1);
  dnnl::primitive_attr qk_attr, pv_attr;
  qk_attr.set_output_scales(0, {qk_scale});
  pv_attr.set_output_scales(0, {pv_scale});
  const dnnl::matmul::primitive_desc qk_pd(dnnl::matmul::desc(q_md, kt_md, s_md), qk_attr, eng);
  const dnnl::matmul::primitive_desc pv_pd(dnnl::matmul::desc(p_md, v_md, o_md), pv_attr, eng);
  const dnnl::matmul qk(qk_pd), pv(pv_pd);
  dnnl::memory q_m(q_md, eng, const_cast<int8_t*>(q.data()));
  dnnl::memory kt_m(kt_md, eng, const_cast<int8_t*>(k.data()));
  dnnl::memory s_m(s_md, eng, s.data()), p_m(p_md, eng, p.data());
  dnnl::memory v_m(v_md, eng, const_cast<int8_t*>(v.data())), o_m(o_md, eng, out.data());
  st.SetLabel(std::string("qk:") + qk_pd.impl_info_str() + " pv:" + pv_pd.impl_info_str());
  const auto run = [&] {
    qk.execute(strm, {{DNNL_ARG_SRC, q_m}, {DNNL_ARG_WEIGHTS, kt_m}, {DNNL_ARG_DST, s_m}});
    strm.wait();
    for (int32_t i = 0; i < sq; ++i) {
      softmax.row(s.data() + Z(i) * Z(skv), skv, e.data(), p.data() + Z(i) * Z(skv));
    }
    pv.execute(strm, {{DNNL_ARG_SRC, p_m}, {DNNL_ARG_WEIGHTS, v_m}, {DNNL_ARG_DST, o_m}});
    strm.wait();
  };
  run();
  const Expected want_s = ScalarMatmul(q.data(), k.data(), 1, kD, sq, kD, skv, qk_scale);
  const Expected want_o = ScalarMatmul(p.data(), v.data(), kD, 1, sq, skv, kD, pv_scale);
  const Expected want_p = ScalarSoftmax(s.data(), sq, skv);
  FVec pf(p.size());
  std::copy(p.begin(), p.end(), pf.begin());
  if (!CheckWithinOne(st, "scores", s, want_s) ||
      !CheckClose(st, "probabilities", pf.data(), want_p) ||
      !CheckWithinOne(st, "out", out, want_o)) {
    return;
  }
  for (auto _ : st) {
    run();
    benchmark::ClobberMemory();
  }
  st.counters["GOPS"] =
      benchmark::Counter(4.0 * sq * skv * kD * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

void RegisterPeerS8Benchmarks() {
#if defined(ATTN_S8_KERNELS_X86)
  const bool vnni = attn::detail::kernels_s8_supported(2) || attn::detail::kernels_s8_supported(3);
#else
  const bool vnni = false;
#endif
  benchmark::AddCustomContext("onednn_s8_peer", vnni ? "registered" : "not run: no VNNI");
  if (!vnni) return;
  omp_set_num_threads(1);  // single-threaded, like the rows it sits beside
  for (int32_t s : {16, 64, 256, 1024}) {
    Register("SDPA_d64/onednn_s8/" + std::to_string(s), BM_SdpaS8_onednn, s, s);
  }
  for (int32_t s : {1024, 4095}) {
    Register("Decode_d64/onednn_s8/" + std::to_string(s), BM_SdpaS8_onednn, 1, s);
  }
}

}  // namespace attn_bench
