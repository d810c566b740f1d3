// The composed peers of the float SDPA rows: what a performance engineer
// builds from Debian's own BLAS-like libraries, single-threaded, every
// primitive and buffer made outside the timed loop, the output checked
// against the double-precision reference like every other row.
//
//   onednn    oneDNN matmul primitives: S = (Q Kᵀ) * scale (the scale an
//             output-scale attribute, Kᵀ read in place through strides), the
//             row softmax, O = P V. Printed in the context: the implementation
//             oneDNN chose for each matmul (e.g. brg:avx512_core).
//   openblas  OpenBLAS cblas_sgemm for both products (cblas_sgemv for a single
//             query), the scale folded into Q once, the row softmax between.
//             Printed in the context: the core OpenBLAS dispatched to.
//
// The row softmax between the products is this library's own SIMD softmax
// kernel (attn::kernels::softmax_f32: one dispatched call per row, the
// fastest row softmax available here), so a peer differs from the attn row
// only in how the products are done and in materializing the score matrix.
//
// MHA (onednn): the projections as oneDNN matmuls too (BM_Mha_onednn).
//
// Registered beside the attn and Eigen rows under the same families
// (SDPA_d*, Decode_d64, MHA_E*); bench/plot_bench.py picks the best peer per shape.
#include <cblas.h>
#include <omp.h>

#include <cmath>
#include <cstdint>
#include <dnnl.hpp>
#include <string>
#include <utility>
#include <vector>

#include "attn/attn.h"
#include "bench_check.h"
#include "bench_common.h"
#include "kernels/f32/kernels_f32.h"

// Without it attn::kernels would be the scalar reference (a 3x slower peer).
#ifndef ATTN_BACKEND
#error "bench_peers.cpp: ATTN_BACKEND must name the build's float backend (bench/CMakeLists.txt)"
#endif

extern "C" char* openblas_get_corename(void);
extern "C" void openblas_set_num_threads(int num_threads);

namespace attn_bench {
namespace {

struct PeerData {
  PeerData(int32_t sq_, int32_t skv_, int32_t d_)
      : sq(sq_),
        skv(skv_),
        d(d_),
        q(Random(Z(sq) * Z(d), 1)),
        k(Random(Z(skv) * Z(d), 2)),
        v(Random(Z(skv) * Z(d), 3)),
        qs(Z(sq) * Z(d)),
        s(Z(sq) * Z(skv)),
        out(Z(sq) * Z(d)) {}
  const Expected& expected() const {
    return Memo(SdpaKey(sq, skv, d),
                [&] { return SdpaExpected(sq, skv, d, q.data(), k.data(), v.data()); });
  }
  void softmax_rows() {
    for (int32_t i = 0; i < sq; ++i) attn::kernels::softmax_f32(s.data() + Z(i) * Z(skv), skv);
  }
  int32_t sq, skv, d;
  FVec q, k, v, qs, s, out;
};

template <class Run>
void TimeChecked(benchmark::State& st, PeerData& x, Run run) {
  run();
  if (!CheckClose(st, "out", x.out.data(), x.expected())) return;
  for (auto _ : st) {
    run();
    benchmark::ClobberMemory();
  }
  SetFlops(st, 4.0 * x.sq * x.skv * x.d);
}

// ---------------------------------------------------------------- oneDNN
using dnnl::memory;

dnnl::engine& CpuEngine() {
  static dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  return eng;
}

memory::desc Desc(int32_t rows, int32_t cols, int64_t row_stride, int64_t col_stride) {
  return memory::desc({rows, cols}, memory::data_type::f32, {row_stride, col_stride});
}

void BM_Sdpa_onednn(benchmark::State& st, int32_t sq, int32_t skv, int32_t d) {
  PeerData x(sq, skv, d);
  dnnl::engine& eng = CpuEngine();
  dnnl::stream strm(eng);
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  // S[sq, skv] = scale * Q[sq, d] Kᵀ[d, skv]; Kᵀ is K [skv, d] read with strides (1, d).
  const memory::desc q_md = Desc(sq, d, d, 1), kt_md = Desc(d, skv, 1, d);
  const memory::desc s_md = Desc(sq, skv, skv, 1), v_md = Desc(skv, d, d, 1);
  const memory::desc o_md = Desc(sq, d, d, 1);
  dnnl::primitive_attr qk_attr;
  qk_attr.set_output_scales(0, {scale});
  const dnnl::matmul::primitive_desc qk_pd(dnnl::matmul::desc(q_md, kt_md, s_md), qk_attr, eng);
  const dnnl::matmul::primitive_desc pv_pd(dnnl::matmul::desc(s_md, v_md, o_md), eng);
  const dnnl::matmul qk(qk_pd), pv(pv_pd);
  memory q_m(q_md, eng, x.q.data()), kt_m(kt_md, eng, x.k.data()), s_m(s_md, eng, x.s.data());
  memory v_m(v_md, eng, x.v.data()), o_m(o_md, eng, x.out.data());
  st.SetLabel(std::string("qk:") + qk_pd.impl_info_str() + " pv:" + pv_pd.impl_info_str());
  const auto run = [&] {
    qk.execute(strm, {{DNNL_ARG_SRC, q_m}, {DNNL_ARG_WEIGHTS, kt_m}, {DNNL_ARG_DST, s_m}});
    strm.wait();
    x.softmax_rows();
    pv.execute(strm, {{DNNL_ARG_SRC, s_m}, {DNNL_ARG_WEIGHTS, v_m}, {DNNL_ARG_DST, o_m}});
    strm.wait();
  };
  TimeChecked(st, x, run);
}

// ---------------------------------------------------------------- OpenBLAS
void BM_Sdpa_openblas(benchmark::State& st, int32_t sq, int32_t skv, int32_t d) {
  PeerData x(sq, skv, d);
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  const auto run = [&] {
    for (std::size_t i = 0; i < x.q.size(); ++i) x.qs[i] = x.q[i] * scale;
    if (sq == 1) {
      cblas_sgemv(CblasRowMajor, CblasNoTrans, skv, d, 1.0f, x.k.data(), d, x.qs.data(), 1, 0.0f,
                  x.s.data(), 1);
      x.softmax_rows();
      cblas_sgemv(CblasRowMajor, CblasTrans, skv, d, 1.0f, x.v.data(), d, x.s.data(), 1, 0.0f,
                  x.out.data(), 1);
      return;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, sq, skv, d, 1.0f, x.qs.data(), d,
                x.k.data(), d, 0.0f, x.s.data(), skv);
    x.softmax_rows();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, sq, d, skv, 1.0f, x.s.data(), skv,
                x.v.data(), d, 0.0f, x.out.data(), d);
  };
  TimeChecked(st, x, run);
}

// ---------------------------------------------------------------- MHA
// PyTorch nn.MultiheadAttention self-attention (in_proj [3E, E], out_proj
// [E, E], biases), on the inputs of the attn and Eigen MHA rows (same seeds):
// one oneDNN matmul for the three projections (weights read transposed through
// strides, bias fused), per head a Q·Kᵀ matmul with the scale attribute on
// strided views of the projections, the row softmax and a P·V matmul into the
// head's columns, then the output projection with its bias fused.
void BM_Mha_onednn(benchmark::State& st, int32_t e, int32_t h, int32_t s) {
  const int32_t hd = e / h;
  const FVec x = Random(Z(s) * Z(e), 4), w_in = Random(3 * Z(e) * Z(e), 5, -0.2f, 0.2f);
  const FVec b_in = Random(3 * Z(e), 6), w_out = Random(Z(e) * Z(e), 7, -0.2f, 0.2f);
  const FVec b_out = Random(Z(e), 8);
  FVec qkv(Z(s) * 3 * Z(e)), sc(Z(s) * Z(s)), heads(Z(s) * Z(e)), out(Z(s) * Z(e));
  dnnl::engine& eng = CpuEngine();
  dnnl::stream strm(eng);
  const auto in_md = Desc(s, e, e, 1), w_in_md = Desc(e, 3 * e, 1, e);
  const auto b_in_md = Desc(1, 3 * e, 3 * e, 1), qkv_md = Desc(s, 3 * e, 3 * e, 1);
  const auto q_md = Desc(s, hd, 3 * e, 1), kt_md = Desc(hd, s, 1, 3 * e);
  const auto sc_md = Desc(s, s, s, 1), v_md = Desc(s, hd, 3 * e, 1), o_md = Desc(s, hd, e, 1);
  const auto w_out_md = Desc(e, e, 1, e), b_out_md = Desc(1, e, e, 1), out_md = Desc(s, e, e, 1);
  dnnl::primitive_attr qk_attr;
  qk_attr.set_output_scales(0, {1.0f / std::sqrt(static_cast<float>(hd))});
  const dnnl::matmul in_proj(
      dnnl::matmul::primitive_desc(dnnl::matmul::desc(in_md, w_in_md, b_in_md, qkv_md), eng));
  const dnnl::matmul::primitive_desc qk_pd(dnnl::matmul::desc(q_md, kt_md, sc_md), qk_attr, eng);
  const dnnl::matmul qk(qk_pd);
  const dnnl::matmul pv(dnnl::matmul::primitive_desc(dnnl::matmul::desc(sc_md, v_md, o_md), eng));
  const dnnl::matmul out_proj(
      dnnl::matmul::primitive_desc(dnnl::matmul::desc(in_md, w_out_md, b_out_md, out_md), eng));
  const auto mem = [&](const memory::desc& md, const float* p) {
    return memory(md, eng, const_cast<float*>(p));
  };
  const memory x_m = mem(in_md, x.data()), w_in_m = mem(w_in_md, w_in.data());
  const memory b_in_m = mem(b_in_md, b_in.data()), qkv_m = mem(qkv_md, qkv.data());
  const memory sc_m = mem(sc_md, sc.data()), heads_m = mem(in_md, heads.data());
  const memory w_out_m = mem(w_out_md, w_out.data()), b_out_m = mem(b_out_md, b_out.data());
  const memory out_m = mem(out_md, out.data());
  std::vector<memory> q_m, k_m, v_m, o_m;
  for (int32_t hh = 0; hh < h; ++hh) {
    const float* head = qkv.data() + Z(hh) * Z(hd);
    q_m.push_back(mem(q_md, head));
    k_m.push_back(mem(kt_md, head + e));
    v_m.push_back(mem(v_md, head + 2 * e));
    o_m.push_back(mem(o_md, heads.data() + Z(hh) * Z(hd)));
  }
  st.SetLabel(std::string("qk:") + qk_pd.impl_info_str());
  const auto run = [&] {
    in_proj.execute(strm, {{DNNL_ARG_SRC, x_m},
                           {DNNL_ARG_WEIGHTS, w_in_m},
                           {DNNL_ARG_BIAS, b_in_m},
                           {DNNL_ARG_DST, qkv_m}});
    for (int32_t hh = 0; hh < h; ++hh) {
      qk.execute(
          strm, {{DNNL_ARG_SRC, q_m[Z(hh)]}, {DNNL_ARG_WEIGHTS, k_m[Z(hh)]}, {DNNL_ARG_DST, sc_m}});
      strm.wait();
      for (int32_t i = 0; i < s; ++i) attn::kernels::softmax_f32(sc.data() + Z(i) * Z(s), s);
      pv.execute(
          strm, {{DNNL_ARG_SRC, sc_m}, {DNNL_ARG_WEIGHTS, v_m[Z(hh)]}, {DNNL_ARG_DST, o_m[Z(hh)]}});
    }
    out_proj.execute(strm, {{DNNL_ARG_SRC, heads_m},
                            {DNNL_ARG_WEIGHTS, w_out_m},
                            {DNNL_ARG_BIAS, b_out_m},
                            {DNNL_ARG_DST, out_m}});
    strm.wait();
  };
  run();
  const std::string key = "mha/" + std::to_string(e) + "/" + std::to_string(h) + "/" +
                          std::to_string(s);
  const Expected& want = Memo(key, [&] {
    return MhaExpected(s, e, h, x.data(), w_in.data(), b_in.data(), w_out.data(), b_out.data());
  });
  if (!CheckClose(st, "out", out.data(), want)) return;
  for (auto _ : st) {
    run();
    benchmark::ClobberMemory();
  }
  SetFlops(st, 8.0 * s * e * e + 4.0 * s * s * e);
}

}  // namespace

void RegisterPeerBenchmarks() {
  // Single-threaded like the rows they sit beside (Debian's oneDNN runs on OpenMP).
  openblas_set_num_threads(1);
  omp_set_num_threads(1);
  // No AMX: the peers are what an edge CPU runs (AVX-512 with VNNI at most;
  // Debian's oneDNN otherwise picks AMX int8 tiles on Sapphire Rapids and
  // later). Set before any primitive exists; it holds for the int8 peer too.
  dnnl::set_max_cpu_isa(dnnl::cpu_isa::avx512_core_vnni);
  benchmark::AddCustomContext("onednn_max_isa", "avx512_core_vnni (no AMX)");
  benchmark::AddCustomContext("openblas_core", openblas_get_corename());
  for (const SdpaCase& c : SdpaCases()) {
    Register(c.family + "/onednn/" + std::to_string(c.skv), BM_Sdpa_onednn, c.sq, c.skv, c.d);
    Register(c.family + "/openblas/" + std::to_string(c.skv), BM_Sdpa_openblas, c.sq, c.skv, c.d);
  }
  for (auto eh : {std::pair<int32_t, int32_t>{64, 4}, std::pair<int32_t, int32_t>{256, 8}}) {
    for (int32_t s : {64, 256}) {
      const std::string tag = "MHA_E" + std::to_string(eh.first) + "_H" + std::to_string(eh.second);
      Register(tag + "/onednn/" + std::to_string(s), BM_Mha_onednn, eh.first, eh.second, s);
    }
  }
}

}  // namespace attn_bench
