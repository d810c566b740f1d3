// x86 int8 kernels (see kernels/s8/kernels_s8.h), selected at run time from
// what the CPU supports:
//   3 "avx512-vnni"  AVX-512 VNNI vpdpbusd on 512-bit vectors (+BW/VL)
//   2 "avx-vnni"     AVX-VNNI vpdpbusd (VEX) on 256-bit vectors
//   1 "avx2"         AVX2: int8 sign-extended to int16, vpmaddwd (exact
//                    int32 pair sums; never the saturating vpmaddubsw)
//   0 "scalar"       portable C++
// Each function is compiled for its target with a target attribute, so the
// library itself needs no -m flags. Every level gives the bits of *_ref:
// integer sums are exact (intermediate int32 wrap-around cancels out, the
// final values fit), and the requantization is TFLite's arithmetic lane-wise.
//
// vpdpbusd multiplies unsigned by signed bytes. The packed query row holds
// u = q ^ 0x80 = q + 128 (unsigned), so for a key row k
//   sum (q - zp) k = sum u k - (128 + zp) sum k
// and both sums are vpdpbusd of k: by u, and by the constant byte 128 + zp
// (in [0, 255]). The same packed layout serves every level, so switching
// levels (tests) never mixes layouts.
//
// The query-tiled core's kernels (attend_s8 runs it at levels 2 and 3; levels
// 0 and 1 keep the one-row core):
//   qk_tile_s8 / pv_tile_s8    one body, kernels_s8_tile_x86-inl.h, over the
//                              vector ops of levels 2 and 3 (the references at 0, 1)
//   qk_tile_s8_rq /            the same GEMMs with the score / output
//   pv_tile_s8_rq              requantization in the epilogue: level 3 only
//                              (kernels_s8_tile_rq_avx512-inl.h)
//   kpack_s8 / vpack_s8 /      AVX-512 at level 3 (kernels_s8_pack_avx512-inl.h),
//   qtile_s8_pack              SSE2 at levels 1 and 2, the references at 0
//   softmax_s8_tile_w          level 3: the AVX512_VBMI byte tables from 64
//                              columns (kernels_s8_softmax_tile_avx512-inl.h),
//                              one vector per row up to 16 columns; else
//                              softmax_s8_row_w row by row.
//
// This file holds the dispatch (the public entries, switching on the level);
// the kernels live in fragments included below, by role:
//   kernels_s8_cpu_x86-inl.h             CPU levels (cpuid, xgetbv), level()
//   kernels_s8_rows_avx2-inl.h           row kernels, levels 0 and 1
//   kernels_s8_rows_avxvnni-inl.h        row kernels, level 2
//   kernels_s8_rows_avx512-inl.h         row kernels, level 3
//   kernels_s8_rows_x86-inl.h            the row kernels' body, one per level
//   kernels_s8_tile_levels_x86-inl.h     tile GEMMs per level, over
//     kernels_s8_tile_x86-inl.h          the tile GEMM body and
//     kernels_s8_tile_rq_avx512-inl.h    its fused requantization (level 3)
//   kernels_s8_pack_sse2-inl.h           packing, levels 1 and 2
//   kernels_s8_pack_avx512-inl.h         packing, level 3
//   kernels_s8_softmax_lut_avx512-inl.h  softmax rows from byte tables (VBMI)
//   kernels_s8_softmax_tile_avx512-inl.h tile softmax, level 3
#include "kernels/s8/kernels_s8.h"

#if defined(ATTN_S8_KERNELS_X86)

// GCC 12's AVX-512 headers trip its own uninitialized warnings (the
// _mm512_undefined_* idiom) once inlined into -Wall -Werror code.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <cpuid.h>
#include <immintrin.h>

#include <cstring>

#include "kernels/s8/fixedpoint.h"
#include "kernels/s8/runtime_level.h"

#define ATTN_T_AVX2 __attribute__((target("avx2")))
#define ATTN_T_AVXVNNI __attribute__((target("avx2,avxvnni")))
#define ATTN_T_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
#define ATTN_T_AVX512VBMI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,avx512vbmi")))

namespace attn {
namespace detail {
namespace {

// In this order (each fragment uses those before it): not sorted.
// clang-format off
#include "kernels/s8/x86/kernels_s8_cpu_x86-inl.h"
#include "kernels/s8/x86/kernels_s8_rows_avx2-inl.h"
#include "kernels/s8/x86/kernels_s8_rows_avxvnni-inl.h"
#include "kernels/s8/x86/kernels_s8_rows_avx512-inl.h"
#include "kernels/s8/x86/kernels_s8_softmax_lut_avx512-inl.h"
#include "kernels/s8/x86/kernels_s8_tile_levels_x86-inl.h"
#include "kernels/s8/x86/kernels_s8_pack_sse2-inl.h"
// clang-format on

// ------------------------------------------------------------- dispatch
const uint8_t* as_u(const void* packed) { return static_cast<const uint8_t*>(packed); }

// The row kernel `fn` of the current level's namespace (rows512, rows256,
// rows_avx2) on the arguments that follow, or the expression `ref` at level 0
// (the statement a function's body is; void kernels return their void call).
#define ATTN_ROWS_BY_LEVEL(ref, fn, ...)       \
  switch (level()) {                           \
    case 3: return rows512::fn(__VA_ARGS__);   \
    case 2: return rows256::fn(__VA_ARGS__);   \
    case 1: return rows_avx2::fn(__VA_ARGS__); \
    default: return (ref);                     \
  }

// out[j] = the packed row's dot with key j, at level 0.
void qk_scalar(const uint8_t* u, int32_t zp, const int8_t* k, std::size_t k_stride, int32_t nkeys,
               int32_t n, int32_t* out) {
  for (int32_t j = 0; j < nkeys; ++j) {
    out[j] = qrow_dot_scalar(u, zp, k + static_cast<std::size_t>(j) * k_stride, n);
  }
}

}  // namespace

bool kernels_s8_supported(int lvl) {
  if (lvl == 2) return cpu_levels().avxvnni;
  return lvl >= 0 && lvl <= cpu_level();
}

int kernels_s8_level() { return level(); }

bool kernels_s8_select(int lvl) { return g_level.select(lvl, kernels_s8_supported); }

const char* kernels_s8_level_name(int lvl) {
  switch (lvl) {
    case 3: return "avx512-vnni";
    case 2: return "avx-vnni";
    case 1: return "avx2";
    case 0: return "scalar";
    default: return "?";
  }
}

const char* kernels_s8_name() { return kernels_s8_level_name(level()); }

int32_t dot_s8(const int8_t* a, const int8_t* b, int32_t n, int32_t* sum_b) {
  ATTN_ROWS_BY_LEVEL(dot_s8_ref(a, b, n, sum_b), dot, a, b, n, sum_b);
}

void mac_s8(int32_t* acc, const int8_t* b, int32_t w, int32_t n) {
  ATTN_ROWS_BY_LEVEL(mac_s8_ref(acc, b, w, n), mac, acc, b, w, n);
}

int32_t qrow_s8_pack(const int8_t* q, int32_t zp, int32_t n, void* packed) {
  auto* p = static_cast<uint8_t*>(packed);
  int32_t sum = 0;
  for (int32_t i = 0; i < n; ++i) {
    p[i] = static_cast<uint8_t>(static_cast<uint8_t>(q[i]) ^ 0x80u);
    sum += q[i];
  }
  return sum - zp * n;
}

int32_t qrow_s8_dot(const void* packed, int32_t zp, const int8_t* k, int32_t n) {
  ATTN_ROWS_BY_LEVEL(qrow_dot_scalar(as_u(packed), zp, k, n), qrow_dot, as_u(packed), zp, k, n);
}

void qk_s8(const void* packed, int32_t zp, const int8_t* k, std::size_t k_stride, int32_t nkeys,
           int32_t n, int32_t* out) {
  ATTN_ROWS_BY_LEVEL(qk_scalar(as_u(packed), zp, k, k_stride, nkeys, n, out), qk, as_u(packed), zp,
                     k, k_stride, nkeys, n, out);
}

void pv_s8(const int8_t* const* rows, const int16_t* w, int32_t nrows, int32_t n, int32_t* acc) {
  const auto at = [rows](int32_t r) { return rows[r]; };
  ATTN_ROWS_BY_LEVEL(pv_s8_ref(rows, w, nrows, n, acc), pv, at, w, nrows, n, acc);
}

void pv_s8_strided(const int8_t* v, std::size_t stride, const int16_t* w, int32_t nrows, int32_t n,
                   int32_t* acc) {
  const auto at = [v, stride](int32_t r) { return v + static_cast<std::size_t>(r) * stride; };
  ATTN_ROWS_BY_LEVEL(pv_s8_strided_ref(v, stride, w, nrows, n, acc), pv, at, w, nrows, n, acc);
}

#undef ATTN_ROWS_BY_LEVEL

void requantize_row_s8(const int32_t* acc, int32_t n, int32_t offset, int32_t multiplier,
                       int32_t shift, int32_t zero_point, int8_t* out) {
  // The vector forms assume multiplier > 0 (TFLite's are in [2^30, 2^31)).
  const int lvl = multiplier > 0 ? level() : 0;
  switch (lvl) {
    case 3: return requantize_avx512(acc, n, offset, multiplier, shift, zero_point, out);
    case 2:
    case 1: return requantize_avx2(acc, n, offset, multiplier, shift, zero_point, out);
    default: return requantize_row_s8_ref(acc, n, offset, multiplier, shift, zero_point, out);
  }
}

void softmax_s8_row(const int32_t* exp_table, int32_t diff_min, const int8_t* in, int8_t* out,
                    int32_t n) {
  if (level() == 3) {
    if (n >= 64 && cpu_vbmi() && softmax_lut_avx512(exp_table, diff_min, in, out, n)) return;
    return softmax_avx512(exp_table, diff_min, in, out, n);
  }
  if (level() >= 1) return softmax_avx2(exp_table, diff_min, in, out, n);
  softmax_s8_row_ref(exp_table, diff_min, in, out, n);
}

namespace {
#include "kernels/s8/x86/kernels_s8_pack_avx512-inl.h"
#include "kernels/s8/x86/kernels_s8_softmax_tile_avx512-inl.h"
}  // namespace

bool tile_s8_fast() { return level() >= 2; }

void qk_tile_s8(const uint8_t* u, int32_t nq, int32_t zp, const int8_t* kpacked,
                const int32_t* ksum, int32_t nkeys, int32_t n, int32_t* out,
                std::size_t out_stride) {
  switch (level()) {
    case 3: return tile512::qk_tile(u, nq, zp, kpacked, ksum, nkeys, n, out, out_stride);
    case 2: return tile256::qk_tile(u, nq, zp, kpacked, ksum, nkeys, n, out, out_stride);
    default: return qk_tile_s8_ref(u, nq, zp, kpacked, ksum, nkeys, n, out, out_stride);
  }
}

bool qk_tile_s8_rq(const uint8_t* u, int32_t nq, int32_t zp, const int8_t* kpacked,
                   const int32_t* ksum, int32_t nkeys, int32_t n, const int32_t* offsets,
                   int32_t multiplier, int32_t shift, int32_t out_zp, int8_t* out,
                   std::size_t out_stride) {
  // The 64-bit form: multiplier > 0, shift in [-23, 0] (see requantize64_avx512).
  if (level() != 3 || multiplier <= 0 || shift > 0 || shift < -23) return false;
  tile512::qk_tile_rq(u, nq, zp, kpacked, ksum, nkeys, n, offsets, multiplier, -shift, out_zp, out,
                      out_stride);
  return true;
}

bool pv_tile_s8_rq(const uint8_t* w, std::size_t w_stride, int32_t nq, const int8_t* vpacked,
                   int32_t nrows, int32_t n, const int32_t* offsets, int32_t multiplier,
                   int32_t shift, int32_t out_zp, int8_t* out, std::size_t out_stride,
                   void* /*work*/) {
  // The 64-bit form, as qk_tile_s8_rq.
  if (level() != 3 || multiplier <= 0 || shift > 0 || shift < -23) return false;
  tile512::pv_tile_rq(w, w_stride, nq, vpacked, nrows, n, offsets, multiplier, -shift, out_zp, out,
                      out_stride);
  return true;
}

void vpack_s8(const int8_t* v, std::size_t stride, int32_t nrows, int32_t n, int8_t* packed) {
  if (level() == 3) return vpack_avx512(v, stride, nrows, n, packed);
  if (level() >= 1) return vpack_sse2(v, stride, nrows, n, packed);
  vpack_s8_ref(v, stride, nrows, n, packed);
}

void kpack_s8(const int8_t* k, std::size_t k_stride, int32_t nkeys, int32_t n, int8_t* packed,
              int32_t* ksum) {
  if (level() == 3) return kpack_avx512(k, k_stride, nkeys, n, packed, ksum);
  if (level() >= 1) return kpack_sse2(k, k_stride, nkeys, n, packed, ksum);
  kpack_s8_ref(k, k_stride, nkeys, n, packed, ksum);
}

void qtile_s8_pack(const int8_t* q, std::size_t q_stride, int32_t nq, int32_t zp, int32_t n,
                   uint8_t* u, int32_t* qsum) {
  if (level() == 3) return qtile_pack_avx512(q, q_stride, nq, zp, n, u, qsum);
  if (level() >= 1) return qtile_pack_sse2(q, q_stride, nq, zp, n, u, qsum);
  qtile_s8_pack_ref(q, q_stride, nq, zp, n, u, qsum);
}

void pv_tile_s8(const uint8_t* w, std::size_t w_stride, int32_t nq, const int8_t* vpacked,
                int32_t nrows, int32_t n, int32_t* acc, std::size_t acc_stride, void* /*work*/) {
  switch (level()) {
    case 3: return tile512::pv_tile(w, w_stride, nq, vpacked, nrows, n, acc, acc_stride);
    case 2: return tile256::pv_tile(w, w_stride, nq, vpacked, nrows, n, acc, acc_stride);
    default: return pv_tile_s8_ref(w, w_stride, nq, vpacked, nrows, n, acc, acc_stride);
  }
}

void softmax_s8_tile_prepare(const int32_t* exp_table, int32_t diff_min, int32_t n_max, void* lut) {
  auto* b = static_cast<uint8_t*>(lut);
  // [0, 768) planes, 768 flag, [772, 790) dcut.
  b[768] = 0;
  if (n_max >= 64 && cpu_level() >= 3 && cpu_vbmi()) {
    b[768] = softmax_lut_planes_avx512(exp_table, diff_min, b) ? 1 : 0;
    softmax_lut_dcut(exp_table, reinterpret_cast<uint16_t*>(b + 772));
  }
}

int32_t softmax_s8_row_w(const void* lut, const int32_t* exp_table, int32_t diff_min,
                         const int8_t* in, uint8_t* w, int32_t n, int32_t n_pad) {
  if (n == 0) {
    std::memset(w, 0, static_cast<std::size_t>(n_pad));
    return 0;
  }
  const auto* b = static_cast<const uint8_t*>(lut);
  if (level() == 3 && n >= 64 && b[768] != 0) {
    const int32_t sum = softmax_lut_row_avx512<true>(b, reinterpret_cast<const uint16_t*>(b + 772),
                                                     exp_table, diff_min, in,
                                                     reinterpret_cast<int8_t*>(w), n, n_pad);
    if (sum >= 0) return sum;
  }
  softmax_s8_row(exp_table, diff_min, in, reinterpret_cast<int8_t*>(w), n);
  return weights_from_codes_s8(w, n, n_pad);
}

void softmax_s8_tile_w(const void* lut, const int32_t* exp_table, int32_t diff_min, int8_t* rows,
                       std::size_t stride, int32_t nq, const int32_t* n, int32_t n_pad,
                       int32_t* sum_w) {
  const TileRows a{lut, exp_table, diff_min, rows, stride, nq, n, n_pad, sum_w};
  if (level() == 3) {
    int32_t n_max = 0;
    for (int32_t r = 0; r < nq; ++r) n_max = n[r] > n_max ? n[r] : n_max;
    if (n_max <= 16) return softmax_tile_short_avx512(a);
    if (static_cast<const uint8_t*>(lut)[768] != 0) return softmax_tile16_avx512(a);
  }
  for (int32_t r = 0; r < nq; ++r) sum_w[r] = a.by_row(r);
}

}  // namespace detail
}  // namespace attn

#endif  // ATTN_S8_KERNELS_X86
