// int8 kernels of the int8 ops. Each has a portable reference (`*_ref`,
// always built: the oracle) and the entry the ops call (`dot_s8`, `mac_s8`),
// which is the fastest version this build targets:
//   "mve"  Cortex-M55 Helium: VMLADAVA.S8 / VADDVA.S8 with tail predication
//   "dsp"  Cortex-M4/M7/M33 DSP (and Armv7-A): SXTB16 (+ ROR #8) and SMLAD
//   "neon" / "neon-dotprod"  AArch64: SMULL/SADALP widening products, SDOT
//          when built for +dotprod; the query-tile kernels at a level chosen
//          at run time from the CPU (neon/kernel_set_neon.h)
//   "avx512-vnni" / "avx-vnni" / "avx2" / "scalar"  x86-64 (GCC/Clang): chosen
//          at run time from the CPU (x86/kernels_s8_x86.cpp)
//   "ref"  everything else
// kernel_set.h picks the set (one folder per ISA); entries a set does not
// implement are the reference ones.
// Every version gives identical int32 results (integer sums are exact); the
// tests compare each against the reference on odd lengths and offsets.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/s8/kernel_set.h"
#if defined(ATTN_S8_HAS_RUNTIME_LEVELS)
#include "kernels/s8/runtime_level.h"
#endif

namespace attn {
namespace detail {

// Returns sum_i a[i] * b[i] and stores sum_i b[i] in *sum_b; n >= 0.
// Exact (no int32 overflow) for n <= 131072.
int32_t dot_s8_ref(const int8_t* a, const int8_t* b, int32_t n, int32_t* sum_b);
int32_t dot_s8(const int8_t* a, const int8_t* b, int32_t n, int32_t* sum_b);

// acc[i] += w * b[i] for i < n; w in [0, 255].
void mac_s8_ref(int32_t* acc, const int8_t* b, int32_t w, int32_t n);
void mac_s8(int32_t* acc, const int8_t* b, int32_t w, int32_t n);

// A query row prepared once for many dot products with key rows:
//   qrow_s8_pack(q, zp, n, packed)        packed: qrow_s8_bytes(n) bytes, 4-aligned;
//                                         returns sum_i (q[i] - zp)
//   qrow_s8_dot(packed, zp, k, n)       = sum_i (q[i] - zp) * k[i]
// The packed layout is the backend's own (ref: int16 q - zp; DSP: int16
// pairs (q0, q2), (q1, q3) matching SXTB16; MVE: the int8 bytes), so pack and
// dot must come from the same set. Exact for n <= 65793.
constexpr std::size_t qrow_s8_bytes(int32_t n) {
  return (2 * static_cast<std::size_t>(n) + 3) / 4 * 4;
}
int32_t qrow_s8_pack_ref(const int8_t* q, int32_t zp, int32_t n, void* packed);
int32_t qrow_s8_dot_ref(const void* packed, int32_t zp, const int8_t* k, int32_t n);
int32_t qrow_s8_pack(const int8_t* q, int32_t zp, int32_t n, void* packed);
int32_t qrow_s8_dot(const void* packed, int32_t zp, const int8_t* k, int32_t n);
// qrow_s8_dot of the sets whose packed row is the int8 bytes of q (MVE,
// NEON), zp applied here: sum (q - zp) k = sum q k - zp sum k.
inline int32_t qrow_s8_dot_bytes(const void* packed, int32_t zp, const int8_t* k, int32_t n) {
  int32_t sum_k = 0;
  const int32_t dot = dot_s8(static_cast<const int8_t*>(packed), k, n, &sum_k);
  return dot - zp * sum_k;
}

// out[j] = qrow_s8_dot(packed, zp, k + j * k_stride, n) for j < nkeys: a
// whole score row against a packed query row.
void qk_s8_ref(const void* packed, int32_t zp, const int8_t* k, std::size_t k_stride, int32_t nkeys,
               int32_t n, int32_t* out);
void qk_s8(const void* packed, int32_t zp, const int8_t* k, std::size_t k_stride, int32_t nkeys,
           int32_t n, int32_t* out);

// acc[c] = sum_r w[r] * rows[r][c] for c < n (acc is overwritten); w[r] in
// [0, 255], rows[r] an int8 row of at least n elements. nrows >= 0.
void pv_s8_ref(const int8_t* const* rows, const int16_t* w, int32_t nrows, int32_t n, int32_t* acc);
void pv_s8(const int8_t* const* rows, const int16_t* w, int32_t nrows, int32_t n, int32_t* acc);

// The same over consecutive rows: acc[c] = sum_r w[r] * v[r * stride + c].
// Callers take it (zero weights included) when at least kPvDensePercent % of
// the weights are non-zero, else gather the non-zero rows for pv_s8 (the
// break-even of this kernel set, measured on QEMU instruction counts).
void pv_s8_strided_ref(const int8_t* v, std::size_t stride, const int16_t* w, int32_t nrows,
                       int32_t n, int32_t* acc);
void pv_s8_strided(const int8_t* v, std::size_t stride, const int16_t* w, int32_t nrows, int32_t n,
                   int32_t* acc);

// out[i] = requantize(acc[i] - offset, multiplier, shift, zero_point) (TFLite's
// MultiplyByQuantizedMultiplier, + zero point, clamp to int8) for i < n;
// acc[i] - offset must not overflow int32.
void requantize_row_s8_ref(const int32_t* acc, int32_t n, int32_t offset, int32_t multiplier,
                           int32_t shift, int32_t zero_point, int8_t* out);
void requantize_row_s8(const int32_t* acc, int32_t n, int32_t offset, int32_t multiplier,
                       int32_t shift, int32_t zero_point, int8_t* out);

// One row of TFLite's int8 SOFTMAX (see attn/softmax_s8.h) from a prepared
// 256-entry exp table (Q0.31 exp of -d, 0 where -d < diff_min): out[c] for
// c < n, 1 <= n <= 4095; in and out may be the same buffer.
void softmax_s8_row_ref(const int32_t* exp_table, int32_t diff_min, const int8_t* in, int8_t* out,
                        int32_t n);
void softmax_s8_row(const int32_t* exp_table, int32_t diff_min, const int8_t* in, int8_t* out,
                    int32_t n);

// ---- Query-tile kernels (the tiled int8 core of attend_s8; see
// ATTN_SDPA_S8_QUERY_TILE in attn/sdpa_s8.h). Q K^T and P V of a tile of query
// rows as small int8 GEMMs over a packed K and V (packed once per call):
//
// kpack_s8: K rows in blocks of 16 keys; block b holds, for each group
// g < G = ceil(n / 4) of 4 columns, 16 keys x 4 bytes:
//   packed[(b * G + g) * 64 + r * 4 + t] = k[(16 b + r) * k_stride + 4 g + t]
// (0 past nkeys or n), and ksum[j] = sum_c k[j][c] for j < round16(nkeys)
// (0 past nkeys): the reference layout, which a kernel set may replace with
// its own (and leave ksum unwritten if its qk_tile_s8 does not read it).
// packed: kpack_s8_bytes(nkeys, n) bytes.
constexpr std::size_t round_up_s8(std::size_t x, std::size_t m) { return (x + m - 1) / m * m; }
constexpr std::size_t kpack_s8_bytes(int32_t nkeys, int32_t n) {
  return round_up_s8(static_cast<std::size_t>(nkeys), 16) *
         round_up_s8(static_cast<std::size_t>(n), 4);
}
void kpack_s8_ref(const int8_t* k, std::size_t k_stride, int32_t nkeys, int32_t n, int8_t* packed,
                  int32_t* ksum);
void kpack_s8(const int8_t* k, std::size_t k_stride, int32_t nkeys, int32_t n, int8_t* packed,
              int32_t* ksum);

// qtile_s8_pack: nq query rows as unsigned bytes u = q ^ 0x80 = q + 128, rows of
// round4(n) bytes (0 past n): u[i * round4(n) + c]; qsum[i] = sum_c (q[i][c] - zp).
void qtile_s8_pack_ref(const int8_t* q, std::size_t q_stride, int32_t nq, int32_t zp, int32_t n,
                       uint8_t* u, int32_t* qsum);
void qtile_s8_pack(const int8_t* q, std::size_t q_stride, int32_t nq, int32_t zp, int32_t n,
                   uint8_t* u, int32_t* qsum);

// qk_tile_s8: out[i * out_stride + j] = sum_c (q[i][c] - zp) * k[j][c] for
// i < nq, j < nkeys, from qtile_s8_pack / kpack_s8 data. Computed as
//   sum_c u[i][c] k[j][c] - (128 + zp) ksum[j]     (vpdpbusd: u unsigned, k signed)
// exact (int32 wrap-around cancels; the result fits for n <= 65793). Rows of
// out hold round16(nkeys) entries: the kernels write whole 16-key blocks
// (entries past nkeys unspecified).
void qk_tile_s8_ref(const uint8_t* u, int32_t nq, int32_t zp, const int8_t* kpacked,
                    const int32_t* ksum, int32_t nkeys, int32_t n, int32_t* out,
                    std::size_t out_stride);
void qk_tile_s8(const uint8_t* u, int32_t nq, int32_t zp, const int8_t* kpacked,
                const int32_t* ksum, int32_t nkeys, int32_t n, int32_t* out,
                std::size_t out_stride);

// qk_tile_s8_rq: qk_tile_s8 with the requantization fused (the scores of the
// tiled core): out[i * out_stride + j] =
//   requantize(qk[i][j] - offsets[i], multiplier, shift, out_zp)
// (requantize_row_s8 of each row; qk[i][j] - offsets[i] must not overflow)
// for i < nq, j < nkeys; rows hold round16(nkeys) entries (whole 16-key
// blocks written, entries past nkeys unspecified). Returns false, writing
// nothing, when this build / level has no fused form for these parameters:
// the caller then runs qk_tile_s8 and requantize_row_s8.
void qk_tile_s8_rq_ref(const uint8_t* u, int32_t nq, int32_t zp, const int8_t* kpacked,
                       const int32_t* ksum, int32_t nkeys, int32_t n, const int32_t* offsets,
                       int32_t multiplier, int32_t shift, int32_t out_zp, int8_t* out,
                       std::size_t out_stride);
bool qk_tile_s8_rq(const uint8_t* u, int32_t nq, int32_t zp, const int8_t* kpacked,
                   const int32_t* ksum, int32_t nkeys, int32_t n, const int32_t* offsets,
                   int32_t multiplier, int32_t shift, int32_t out_zp, int8_t* out,
                   std::size_t out_stride);

// vpack_s8: V rows in groups of 4, columns in blocks of 16; group g, block cb:
//   packed[(g * CB + cb) * 64 + c * 4 + t] = v[(4 g + t) * stride + 16 cb + c]
// (CB = ceil(n / 16); 0 past nrows or n): the reference layout, which a
// kernel set may replace with its own (pv_tile_s8 of the same set reads it).
// packed: vpack_s8_bytes(nrows, n) (room for 16-row blocks).
constexpr std::size_t vpack_s8_bytes(int32_t nrows, int32_t n) {
  return round_up_s8(static_cast<std::size_t>(nrows), 16) *
         round_up_s8(static_cast<std::size_t>(n), 16);
}
void vpack_s8_ref(const int8_t* v, std::size_t stride, int32_t nrows, int32_t n, int8_t* packed);
void vpack_s8(const int8_t* v, std::size_t stride, int32_t nrows, int32_t n, int8_t* packed);
// Where rows r16 .. r16 + 15 (r16 a multiple of 16) start in this set's packed
// V: vpack_s8 of rows r16 .. into packed + vpack_s8_offset(r16, n) writes the
// bytes a vpack_s8 of all rows writes there (the packed KV cache fills its V
// block by block; kpack_s8's blocks sit at kpack_s8_bytes(r16, n) in every
// set). vpack_s8_bytes(r16, n), but in the DSP set (16 round2(n) a block).
std::size_t vpack_s8_offset(int32_t r16, int32_t n);
// One 64-byte block (group g, column block cb) of that layout, element by
// element: vpack_s8_ref's every block, and the edge blocks of the vector
// packings of the same layout.
inline void vpack_s8_block_ref(const int8_t* v, std::size_t stride, int32_t nrows, int32_t n,
                               int32_t g, int32_t cb, int8_t* d) {
  for (int32_t c = 0; c < 16; ++c) {
    for (int32_t t = 0; t < 4; ++t) {
      const int32_t r = 4 * g + t;
      const int32_t col = 16 * cb + c;
      d[4 * c + t] = r < nrows && col < n
                         ? v[static_cast<std::size_t>(r) * stride + static_cast<std::size_t>(col)]
                         : int8_t{0};
    }
  }
}

// pv_tile_s8: acc[i * acc_stride + c] = sum_{j < nrows} w[i * w_stride + j] * v[j][c]
// for i < nq, c < n (weights unsigned, 0..255; v from vpack_s8 of at least
// nrows rows). Each w row holds round16(nrows) bytes, those past nrows 0.
// Rows of acc hold round16(n) entries (whole 16-column blocks are written).
// work: pv_tile_s8_work_bytes(nrows) bytes, 4-byte aligned, that the kernel
// may overwrite (the DSP set splits a pair of weight rows into int16 there;
// the tiled core passes its idle int32 score tile).
constexpr std::size_t pv_tile_s8_work_bytes(int32_t nrows) {
  return 4 * round_up_s8(static_cast<std::size_t>(nrows), 16);
}
void pv_tile_s8_ref(const uint8_t* w, std::size_t w_stride, int32_t nq, const int8_t* vpacked,
                    int32_t nrows, int32_t n, int32_t* acc, std::size_t acc_stride);
void pv_tile_s8(const uint8_t* w, std::size_t w_stride, int32_t nq, const int8_t* vpacked,
                int32_t nrows, int32_t n, int32_t* acc, std::size_t acc_stride, void* work);

// pv_tile_s8_rq: pv_tile_s8 with the output requantization fused (the O rows
// of the tiled core): out[i * out_stride + c] =
//   requantize(pv[i][c] - offsets[i], multiplier, shift, out_zp)
// (requantize_row_s8 of each row; pv[i][c] - offsets[i] must not overflow)
// for i < nq, c < n: exactly n bytes per row; work as for pv_tile_s8.
// Returns false, writing nothing, when this build / level has no fused form
// for these parameters: the caller then runs pv_tile_s8 and
// requantize_row_s8.
void pv_tile_s8_rq_ref(const uint8_t* w, std::size_t w_stride, int32_t nq, const int8_t* vpacked,
                       int32_t nrows, int32_t n, const int32_t* offsets, int32_t multiplier,
                       int32_t shift, int32_t out_zp, int8_t* out, std::size_t out_stride);
bool pv_tile_s8_rq(const uint8_t* w, std::size_t w_stride, int32_t nq, const int8_t* vpacked,
                   int32_t nrows, int32_t n, const int32_t* offsets, int32_t multiplier,
                   int32_t shift, int32_t out_zp, int8_t* out, std::size_t out_stride, void* work);

// Softmax rows of the tiled core: softmax_s8_tile_prepare builds once per
// exp table whatever this build's row kernel precomputes for rows of at most
// n_max columns (lut: kSoftmaxS8LutBytes bytes; x86 builds the AVX512_VBMI
// byte tables from 64 columns on); softmax_s8_row_w then writes the unsigned
// weights w[c] = softmax_s8_row(in)[c] + 128 for c < n and 0 for
// n <= c < n_pad, and returns sum_c w[c] (n = 0: zeros, 0). in and w may be
// the same buffer.
#if defined(ATTN_S8_HAS_TILE_KERNELS)
inline constexpr std::size_t kSoftmaxS8LutBytes = 832;
inline constexpr std::size_t kSoftmaxS8LutAlign = 64;  // vector loads
#else
inline constexpr std::size_t kSoftmaxS8LutBytes = 4;  // the reference tile softmax keeps none
inline constexpr std::size_t kSoftmaxS8LutAlign = 4;  // (64 would realign the caller's frame)
#endif
void softmax_s8_tile_prepare(const int32_t* exp_table, int32_t diff_min, int32_t n_max, void* lut);
int32_t softmax_s8_row_w_ref(const int32_t* exp_table, int32_t diff_min, const int8_t* in,
                             uint8_t* w, int32_t n, int32_t n_pad);
int32_t softmax_s8_row_w(const void* lut, const int32_t* exp_table, int32_t diff_min,
                         const int8_t* in, uint8_t* w, int32_t n, int32_t n_pad);
// The last step of every softmax_s8_row_w: w[c] holds softmax codes p (int8)
// for c < n; makes them weights p + 128, zeroes n <= c < n_pad, returns the
// weights' sum.
int32_t weights_from_codes_s8(uint8_t* w, int32_t n, int32_t n_pad);

// The same over nq rows in place: row r (rows + r * stride) holds n[r] int8
// inputs (n[r] in [0, 4095]; 0: an all-zero weight row) and receives its
// weights, 0 up to n_pad; sum_w[r] gets their sum. Exactly softmax_s8_row_w
// per row (x86 with AVX512_VBMI batches the reciprocals of 16 rows).
void softmax_s8_tile_w(const void* lut, const int32_t* exp_table, int32_t diff_min, int8_t* rows,
                       std::size_t stride, int32_t nq, const int32_t* n, int32_t n_pad,
                       int32_t* sum_w);

// Bahdanau's score products of one key (TFLite int8 ADD + TANH + the v
// layer's multiply-adds): for u < n
//   T[u] = tanh_table[requantize((a2[u] + t2[codes[u] + 128]) / 2, m, shift, zp) + 128]
// and returns sum_u T[u] * v[u]. a2: the ADD's rescaled first input per
// unit, t2: its rescaled second input for every int8 code, both doubled
// (even, |value| < 2^29: an ADD input rescaled to at most 1/2 of 255 * 2^20).
// m >= 0 and shift: the ADD's output multiplier, zp its output zero point.
int32_t add_tanh_dot_s8_ref(const int32_t* a2, const int32_t* t2, const int8_t* codes,
                            const int8_t* v, int32_t n, int32_t m, int32_t shift, int32_t zp,
                            const int8_t* tanh_table);
int32_t add_tanh_dot_s8(const int32_t* a2, const int32_t* t2, const int8_t* codes, const int8_t* v,
                        int32_t n, int32_t m, int32_t shift, int32_t zp, const int8_t* tanh_table);
// The constants of the sets' short exact form of that requantization (DSP,
// Helium): for right = -shift in [1, 21] and m >= 0 (else false: the
// reference's form), requantize(x) + 128 = clamp((SRDHM(x, m) + bias -
// [x < 0]) >> right, 0, 255) with bias = 2^(right-1) + (zp + 128) 2^right
// (RDBP's sign fix read from x; |bias| < 2^29: no overflow).
struct AddTanhRq {
  int32_t right = 0, bias = 0;
  bool ok = false;
  AddTanhRq(int32_t m, int32_t shift, int32_t zp) {
    if (shift > -1 || shift < -21 || m < 0) return;
    right = -shift;
    bias = static_cast<int32_t>((uint32_t{1} << (right - 1)) +
                                static_cast<uint32_t>(zp + 128) * (uint32_t{1} << right));
    ok = true;
  }
};

// True when this build's tile kernels beat the per-row kernels (attend_s8
// then takes the tiled path): x86 at AVX-VNNI or AVX-512 VNNI, AArch64 with
// dot products (SDOT, and I8MM), the Cortex-M DSP and Helium sets.
bool tile_s8_fast();

// Name of the kernel set dot_s8 / mac_s8 use: "ref", "dsp" or "mve".
const char* kernels_s8_name();

}  // namespace detail
}  // namespace attn
