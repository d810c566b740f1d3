// Kernel benchmarks: the softmax and the SDPA core's tiles of every compiled
// float backend side by side (ref, hwy, xsimd), and an Eigen row softmax.
//
// Each first checks one call against the attn::ref kernel on the same input,
// within the bounds tests/simd/kernels_test.cpp states (eps = FLT_EPSILON,
// tiny = 2^-126, kMaxUlp the polynomial exp's bound):
//   softmax row:      (2 (kMaxUlp + 1) + 2 (n + 2) + 4) eps |ref| + tiny
//   qk tiles:         2 (d + 2) eps sum_x |q_x k_x|
//   pv tiles:         2 (nk + 2) eps (|acc| + sum_j |p_j v_j|)
//   softmax_t:        m exact, p within (kMaxUlp + 1) eps |ref| + tiny
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bench_check.h"
#include "bench_common.h"
#include "kernels/f32/exp_poly.h"
#include "kernels/f32/kernels_f32.h"
#if ATTN_BENCH_HAVE_HWY
#include "kernels/f32/hwy/kernels_f32_hwy.h"
#endif
#if ATTN_BENCH_HAVE_XSIMD
#include "kernels/f32/xsimd/kernels_f32_xsimd.h"
#endif

namespace attn_bench {
namespace {

constexpr double kEps = FLT_EPSILON;
constexpr double kTiny = FLT_MIN;
constexpr double kExpRel = (attn::exp_poly::kMaxUlp + 1) * kEps;

struct KernelSet {
  void (*softmax)(float*, int32_t);
  void (*qk_tile)(const float*, std::size_t, int32_t, const float*, std::size_t, int32_t, int32_t,
                  float*, std::size_t);
  void (*pv_tile)(const float*, std::size_t, int32_t, int32_t, const float*, std::size_t, int32_t,
                  float*, std::size_t);
  void (*qk_tile_t)(const float*, int32_t, int32_t, const float*, std::size_t, int32_t, float*);
  void (*softmax_t)(float*, int32_t, int32_t, float*, float*, int32_t, float*, std::size_t,
                    int32_t);
  void (*pv_tile_t)(const float*, int32_t, int32_t, int32_t, const float*, std::size_t, int32_t,
                    float*, std::size_t);
};
#define ATTN_KERNEL_SET(ns)                                                                       \
  KernelSet {                                                                                     \
    &ns::softmax_f32, &ns::qk_tile_f32, &ns::pv_tile_f32, &ns::qk_tile_t_f32, &ns::softmax_t_f32, \
        &ns::pv_tile_t_f32                                                                        \
  }
const KernelSet kRef = ATTN_KERNEL_SET(attn::ref);

// The reference's values as doubles, with rel * |value| + abs as each bound.
Expected Within(const FVec& ref, double rel, double abs) {
  Expected e;
  for (float r : ref) {
    e.value.push_back(r);
    e.tol.push_back(rel * std::fabs(static_cast<double>(r)) + abs);
  }
  return e;
}

// Softmax of a [rows, n] score matrix, row by row, with the row kernel the
// SDPA core's row tiles use (softmax_f32: max, exp and sum, scale in one
// call). Reported per score element. The peer (k null) is Eigen's.
void SoftmaxRows(benchmark::State& st, const KernelSet* k, int32_t rows, int32_t n) {
  // In place, over and over: the rows stay normalised probabilities after the
  // first pass, and the cost of exp does not depend on the values.
  FVec s = Random(Z(rows) * Z(n), 15, -8.0f, 8.0f), ref = s;
  const auto run = [&] {
    if (k == nullptr) {
      EigenSoftmaxRows(MapM(s.data(), rows, n));
    } else {
      for (int32_t r = 0; r < rows; ++r) k->softmax(s.data() + Z(r) * Z(n), n);
    }
  };
  run();
  for (int32_t r = 0; r < rows; ++r) kRef.softmax(ref.data() + Z(r) * Z(n), n);
  const double rel = (2.0 * (attn::exp_poly::kMaxUlp + 1) + 2.0 * (n + 2) + 4.0) * kEps;
  if (!CheckClose(st, "softmax", s.data(), Within(ref, rel, kTiny))) return;
  for (auto _ : st) {
    run();
    benchmark::ClobberMemory();
  }
  st.counters["ns_per_elem"] = benchmark::Counter(
      static_cast<double>(rows) * n * 1e-9,
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_Softmax(benchmark::State& st, KernelSet k, int32_t rows, int32_t n) {
  SoftmaxRows(st, &k, rows, n);
}

void BM_Softmax_eigen(benchmark::State& st, int32_t rows, int32_t n) {
  SoftmaxRows(st, nullptr, rows, n);
}

// Scores of nq queries against nk keys (row-major q [nq, d], k [nk, d]):
// the qk tile's bound per score, as the reference's values. The transposed
// tile's scores come out [nk][tq]; `transposed` lays the bound out so.
Expected QkBound(const FVec& ref, const FVec& q, const FVec& k, int32_t nq, int32_t nk, int32_t d,
                 bool transposed) {
  Expected e{std::vector<double>(ref.begin(), ref.end()), std::vector<double>(ref.size())};
  for (int32_t i = 0; i < nq; ++i) {
    for (int32_t j = 0; j < nk; ++j) {
      double mag = 0.0;
      for (int32_t x = 0; x < d; ++x) {
        const float qx = transposed ? q[Z(x) * Z(nq) + Z(i)] : q[Z(i) * Z(d) + Z(x)];
        mag += std::fabs(static_cast<double>(qx) * k[Z(j) * Z(d) + Z(x)]);
      }
      e.tol[transposed ? Z(j) * Z(nq) + Z(i) : Z(i) * Z(nk) + Z(j)] = 2.0 * (d + 2) * kEps * mag;
    }
  }
  return e;
}

// acc [nq, d] += P V with p(i, j) read from p at i * p_i + j * p_j: the pv
// tile's bound (acc starts at 0).
Expected PvBound(const FVec& ref, const FVec& p, std::size_t p_i, std::size_t p_j, const FVec& v,
                 int32_t nq, int32_t nk, int32_t d) {
  Expected e{std::vector<double>(ref.begin(), ref.end()), std::vector<double>(ref.size())};
  for (int32_t i = 0; i < nq; ++i) {
    for (int32_t c = 0; c < d; ++c) {
      double mag = 0.0;
      for (int32_t j = 0; j < nk; ++j) {
        mag += std::fabs(static_cast<double>(p[Z(i) * p_i + Z(j) * p_j]) * v[Z(j) * Z(d) + Z(c)]);
      }
      e.tol[Z(i) * Z(d) + Z(c)] = 2.0 * (nk + 2) * kEps * mag;
    }
  }
  return e;
}

// One core tile: 8 queries x 64 keys x d = 64, scores then P.V.
void BM_QkTile(benchmark::State& st, KernelSet k) {
  const int32_t nq = 8, nk = 64, d = 64;
  FVec q = Random(Z(nq) * Z(d), 16), kk = Random(Z(nk) * Z(d), 17), s(Z(nq) * Z(nk)), r(s.size());
  const auto run = [&] { k.qk_tile(q.data(), Z(d), nq, kk.data(), Z(d), nk, d, s.data(), Z(nk)); };
  run();
  kRef.qk_tile(q.data(), Z(d), nq, kk.data(), Z(d), nk, d, r.data(), Z(nk));
  if (!CheckClose(st, "scores", s.data(), QkBound(r, q, kk, nq, nk, d, false))) return;
  for (auto _ : st) {
    run();
    benchmark::ClobberMemory();
  }
  SetFlops(st, 2.0 * nq * nk * d);
}

void BM_PvTile(benchmark::State& st, KernelSet k) {
  const int32_t nq = 8, nk = 64, d = 64;
  FVec p = Random(Z(nq) * Z(nk), 18, 0.0f, 1.0f), v = Random(Z(nk) * Z(d), 19);
  FVec acc(Z(nq) * Z(d)), r(acc.size());
  const auto run = [&] { k.pv_tile(p.data(), Z(nk), nq, nk, v.data(), Z(d), d, acc.data(), Z(d)); };
  run();
  kRef.pv_tile(p.data(), Z(nk), nq, nk, v.data(), Z(d), d, r.data(), Z(d));
  if (!CheckClose(st, "acc", acc.data(), PvBound(r, p, Z(nk), 1, v, nq, nk, d))) return;
  for (auto _ : st) {
    run();
    benchmark::ClobberMemory();
  }
  SetFlops(st, 2.0 * nq * nk * d);
}

// The core's transposed tile: tq queries x 64 keys x d = 64.
void BM_QkTileT(benchmark::State& st, KernelSet k, int32_t tq) {
  const int32_t nk = 64, d = 64;
  FVec qt = Random(Z(tq) * Z(d), 16), kk = Random(Z(nk) * Z(d), 17), s(Z(tq) * Z(nk)), r(s.size());
  const auto run = [&] { k.qk_tile_t(qt.data(), tq, d, kk.data(), Z(d), nk, s.data()); };
  run();
  kRef.qk_tile_t(qt.data(), tq, d, kk.data(), Z(d), nk, r.data());
  if (!CheckClose(st, "scores", s.data(), QkBound(r, qt, kk, tq, nk, d, true))) return;
  for (auto _ : st) {
    run();
    benchmark::ClobberMemory();
  }
  SetFlops(st, 2.0 * tq * nk * d);
}

void BM_SoftmaxT(benchmark::State& st, KernelSet k) {
  const int32_t tq = 16, nk = 64, dv = 64;
  const FVec src = Random(Z(tq) * Z(nk), 20, -4.0f, 4.0f);
  FVec s = src, m(Z(tq), 3.0f), l(Z(tq), 1.0f), acc = Random(Z(tq) * Z(dv), 21);
  FVec rs = src, rm = m, rl = l, racc = acc;
  const auto run = [&] {
    k.softmax_t(s.data(), tq, nk, m.data(), l.data(), tq, acc.data(), Z(dv), dv);
  };
  run();
  kRef.softmax_t(rs.data(), tq, nk, rm.data(), rl.data(), tq, racc.data(), Z(dv), dv);
  if (m != rm) {
    Fail(st, "softmax_t: the running max differs from the reference kernel's");
    return;
  }
  if (!CheckClose(st, "p", s.data(), Within(rs, kExpRel, kTiny))) return;
  s = src;
  for (auto _ : st) {  // in place: the exp's cost does not depend on the values
    run();
    benchmark::ClobberMemory();
  }
  st.counters["ns_per_elem"] = benchmark::Counter(
      static_cast<double>(tq) * nk * 1e-9,
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_PvTileT(benchmark::State& st, KernelSet k) {
  const int32_t tq = 16, nk = 64, d = 64;
  FVec p = Random(Z(tq) * Z(nk), 18, 0.0f, 1.0f), v = Random(Z(nk) * Z(d), 19);
  FVec acc(Z(tq) * Z(d)), r(acc.size());
  const auto run = [&] { k.pv_tile_t(p.data(), tq, tq, nk, v.data(), Z(d), d, acc.data(), Z(d)); };
  run();
  kRef.pv_tile_t(p.data(), tq, tq, nk, v.data(), Z(d), d, r.data(), Z(d));
  if (!CheckClose(st, "acc", acc.data(), PvBound(r, p, 1, Z(tq), v, tq, nk, d))) return;
  for (auto _ : st) {
    run();
    benchmark::ClobberMemory();
  }
  SetFlops(st, 2.0 * tq * nk * d);
}

}  // namespace

void RegisterKernelBenchmarks() {
  std::vector<std::pair<std::string, KernelSet>> sets = {{"ref", kRef}};
#if ATTN_BENCH_HAVE_HWY
  sets.push_back({"hwy", ATTN_KERNEL_SET(attn::hwy)});
#endif
#if ATTN_BENCH_HAVE_XSIMD
  sets.push_back({"xsimd", ATTN_KERNEL_SET(attn::xsimd)});
#endif
  for (const auto& ks : sets) {
    for (int32_t n : {64, 1024}) {
      Register("Softmax_rows64/" + ks.first + "/" + std::to_string(n), BM_Softmax, ks.second, 64,
               n);
    }
    Register("QkTile_8x64x64/" + ks.first, BM_QkTile, ks.second);
    Register("PvTile_8x64x64/" + ks.first, BM_PvTile, ks.second);
    Register("QkTileT_16x64x64/" + ks.first, BM_QkTileT, ks.second, 16);
    Register("QkTileT_32x64x64/" + ks.first, BM_QkTileT, ks.second, 32);
    Register("SoftmaxT_16x64/" + ks.first, BM_SoftmaxT, ks.second);
    Register("PvTileT_16x64x64/" + ks.first, BM_PvTileT, ks.second);
  }
  for (int32_t n : {64, 1024}) {
    Register("Softmax_rows64/eigen/" + std::to_string(n), BM_Softmax_eigen, 64, n);
  }
}

}  // namespace attn_bench
