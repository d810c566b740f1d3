// The query-tile int8 kernels (see kernels_s8.h): the packing routines every
// build shares, the readable references, and the entries of builds without
// faster versions. Its own object, so builds that never take the tiled path
// link none of it.
#include <cstring>

#include "kernels/s8/kernels_s8.h"

namespace attn {
namespace detail {

namespace {
int32_t wrap_sub32(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
}
int32_t wrap_mul32(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
}
}  // namespace

void kpack_s8_ref(const int8_t* k, std::size_t k_stride, int32_t nkeys, int32_t n, int8_t* packed,
                  int32_t* ksum) {
  const int32_t groups = (n + 3) / 4;
  const int32_t full = n / 4;  // groups with 4 columns
  const int32_t blocks = (nkeys + 15) / 16;
  for (int32_t b = 0; b < blocks; ++b) {
    int8_t* pb = packed + static_cast<std::size_t>(b) * static_cast<std::size_t>(groups) * 64;
    for (int32_t r = 0; r < 16; ++r) {
      const int32_t j = 16 * b + r;
      const auto ur = static_cast<std::size_t>(r);
      if (j >= nkeys) {
        for (int32_t g = 0; g < groups; ++g) {
          std::memset(pb + static_cast<std::size_t>(g) * 64 + ur * 4, 0, 4);
        }
        ksum[j] = 0;
        continue;
      }
      const int8_t* kj = k + static_cast<std::size_t>(j) * k_stride;
      int32_t s = 0;
      for (int32_t c = 0; c < n; ++c) s += kj[c];
      ksum[j] = s;
      for (int32_t g = 0; g < full; ++g) {
        std::memcpy(pb + static_cast<std::size_t>(g) * 64 + ur * 4, kj + 4 * g, 4);
      }
      if (full < groups) {
        int8_t* d = pb + static_cast<std::size_t>(full) * 64 + ur * 4;
        for (int32_t t = 0; t < 4; ++t) d[t] = 4 * full + t < n ? kj[4 * full + t] : int8_t{0};
      }
    }
  }
}

void qtile_s8_pack_ref(const int8_t* q, std::size_t q_stride, int32_t nq, int32_t zp, int32_t n,
                       uint8_t* u, int32_t* qsum) {
  const std::size_t row = round_up_s8(static_cast<std::size_t>(n), 4);
  for (int32_t i = 0; i < nq; ++i) {
    const int8_t* qi = q + static_cast<std::size_t>(i) * q_stride;
    uint8_t* ui = u + static_cast<std::size_t>(i) * row;
    int32_t s = 0;
    for (int32_t c = 0; c < n; ++c) {
      ui[c] = static_cast<uint8_t>(static_cast<uint8_t>(qi[c]) ^ 0x80u);
      s += qi[c];
    }
    for (std::size_t c = static_cast<std::size_t>(n); c < row; ++c) ui[c] = 0;
    qsum[i] = s - zp * n;
  }
}

void qk_tile_s8_ref(const uint8_t* u, int32_t nq, int32_t zp, const int8_t* kpacked,
                    const int32_t* ksum, int32_t nkeys, int32_t n, int32_t* out,
                    std::size_t out_stride) {
  const int32_t groups = (n + 3) / 4;
  const std::size_t row = 4 * static_cast<std::size_t>(groups);
  for (int32_t i = 0; i < nq; ++i) {
    const uint8_t* ui = u + static_cast<std::size_t>(i) * row;
    for (int32_t j = 0; j < nkeys; ++j) {
      const int8_t* kb = kpacked + static_cast<std::size_t>(j / 16) * row * 16 +
                         static_cast<std::size_t>(j % 16) * 4;
      int32_t acc = 0;
      for (int32_t g = 0; g < groups; ++g) {
        for (int32_t t = 0; t < 4; ++t) {
          acc += static_cast<int32_t>(ui[4 * g + t]) *
                 static_cast<int32_t>(
                     kb[static_cast<std::size_t>(g) * 64 + static_cast<std::size_t>(t)]);
        }
      }
      out[static_cast<std::size_t>(i) * out_stride + static_cast<std::size_t>(j)] =
          wrap_sub32(acc, wrap_mul32(128 + zp, ksum[j]));
    }
  }
}

void qk_tile_s8_rq_ref(const uint8_t* u, int32_t nq, int32_t zp, const int8_t* kpacked,
                       const int32_t* ksum, int32_t nkeys, int32_t n, const int32_t* offsets,
                       int32_t multiplier, int32_t shift, int32_t out_zp, int8_t* out,
                       std::size_t out_stride) {
  // One row of int32 results at a time, 16 keys at a time (qk_tile_s8_ref
  // over one key block), then requantize_row_s8_ref.
  const std::size_t blk = 16 * round_up_s8(static_cast<std::size_t>(n), 4);
  const std::size_t row = round_up_s8(static_cast<std::size_t>(n), 4);
  for (int32_t i = 0; i < nq; ++i) {
    for (int32_t j0 = 0; j0 < nkeys; j0 += 16) {
      const int32_t cnt = nkeys - j0 < 16 ? nkeys - j0 : 16;
      int32_t dots[16];
      qk_tile_s8_ref(u + static_cast<std::size_t>(i) * row, 1, zp,
                     kpacked + static_cast<std::size_t>(j0 / 16) * blk, ksum + j0, cnt, n, dots,
                     16);
      requantize_row_s8_ref(
          dots, cnt, offsets[i], multiplier, shift, out_zp,
          out + static_cast<std::size_t>(i) * out_stride + static_cast<std::size_t>(j0));
    }
  }
}

void vpack_s8_ref(const int8_t* v, std::size_t stride, int32_t nrows, int32_t n, int8_t* packed) {
  const int32_t groups = (nrows + 3) / 4;
  const int32_t cblocks = (n + 15) / 16;
  for (int32_t g = 0; g < groups; ++g) {
    for (int32_t cb = 0; cb < cblocks; ++cb) {
      int8_t* d = packed + (static_cast<std::size_t>(g) * static_cast<std::size_t>(cblocks) +
                            static_cast<std::size_t>(cb)) *
                               64;
      vpack_s8_block_ref(v, stride, nrows, n, g, cb, d);
    }
  }
}

namespace {

// sum_j w[j] v[j][c] over the nrows rows of vpacked (vpack_s8 layout:
// blocks of 4 rows x 16 columns, 64 bytes, cblocks column blocks per row
// block).
int32_t pv_column_s8_ref(const uint8_t* w, const int8_t* vpacked, int32_t nrows,
                         std::size_t cblocks, int32_t c) {
  int32_t s = 0;
  for (int32_t j = 0; j < nrows; ++j) {
    const std::size_t at =
        (static_cast<std::size_t>(j / 4) * cblocks + static_cast<std::size_t>(c / 16)) * 64 +
        static_cast<std::size_t>(c % 16) * 4 + static_cast<std::size_t>(j % 4);
    s += static_cast<int32_t>(w[j]) * static_cast<int32_t>(vpacked[at]);
  }
  return s;
}

// put(i, c, s) with s = pv_column_s8_ref of weight row i and column c, for
// i < nq, c < n.
template <typename Put>
void pv_tile_columns_ref(const uint8_t* w, std::size_t w_stride, int32_t nq, const int8_t* vpacked,
                         int32_t nrows, int32_t n, Put put) {
  const auto cblocks = static_cast<std::size_t>((n + 15) / 16);
  for (int32_t i = 0; i < nq; ++i) {
    const uint8_t* wi = w + static_cast<std::size_t>(i) * w_stride;
    for (int32_t c = 0; c < n; ++c) put(i, c, pv_column_s8_ref(wi, vpacked, nrows, cblocks, c));
  }
}

}  // namespace

void pv_tile_s8_ref(const uint8_t* w, std::size_t w_stride, int32_t nq, const int8_t* vpacked,
                    int32_t nrows, int32_t n, int32_t* acc, std::size_t acc_stride) {
  pv_tile_columns_ref(w, w_stride, nq, vpacked, nrows, n, [&](int32_t i, int32_t c, int32_t s) {
    acc[static_cast<std::size_t>(i) * acc_stride + static_cast<std::size_t>(c)] = s;
  });
}

void pv_tile_s8_rq_ref(const uint8_t* w, std::size_t w_stride, int32_t nq, const int8_t* vpacked,
                       int32_t nrows, int32_t n, const int32_t* offsets, int32_t multiplier,
                       int32_t shift, int32_t out_zp, int8_t* out, std::size_t out_stride) {
  // Each output: its int32 sum (as pv_tile_s8_ref), then requantize_row_s8_ref
  // of that one value.
  pv_tile_columns_ref(w, w_stride, nq, vpacked, nrows, n, [&](int32_t i, int32_t c, int32_t s) {
    requantize_row_s8_ref(
        &s, 1, offsets[i], multiplier, shift, out_zp,
        out + static_cast<std::size_t>(i) * out_stride + static_cast<std::size_t>(c));
  });
}

#if !defined(ATTN_S8_HAS_WEIGHTS_FROM_CODES)
int32_t weights_from_codes_s8(uint8_t* w, int32_t n, int32_t n_pad) {
  int32_t sum = 0;
  for (int32_t c = 0; c < n; ++c) {
    w[c] = static_cast<uint8_t>(w[c] ^ 0x80u);
    sum += w[c];
  }
  for (int32_t c = n; c < n_pad; ++c) w[c] = 0;
  return sum;
}
#endif

int32_t softmax_s8_row_w_ref(const int32_t* exp_table, int32_t diff_min, const int8_t* in,
                             uint8_t* w, int32_t n, int32_t n_pad) {
  if (n == 0) {
    for (int32_t c = 0; c < n_pad; ++c) w[c] = 0;
    return 0;
  }
  softmax_s8_row_ref(exp_table, diff_min, in, reinterpret_cast<int8_t*>(w), n);
  return weights_from_codes_s8(w, n, n_pad);
}

// The tile entries of a kernel set without tile kernels (kernels/s8/kernel_set.h):
// the GEMMs and packings unless the set has its own (ATTN_S8_HAS_TILE_GEMMS),
// the tile softmax from the set's softmax row.
#if !defined(ATTN_S8_HAS_TILE_KERNELS) && !defined(ATTN_S8_HAS_TILE_GEMMS)
void qk_tile_s8(const uint8_t* u, int32_t nq, int32_t zp, const int8_t* kpacked,
                const int32_t* ksum, int32_t nkeys, int32_t n, int32_t* out,
                std::size_t out_stride) {
  qk_tile_s8_ref(u, nq, zp, kpacked, ksum, nkeys, n, out, out_stride);
}
void vpack_s8(const int8_t* v, std::size_t stride, int32_t nrows, int32_t n, int8_t* packed) {
  vpack_s8_ref(v, stride, nrows, n, packed);
}
void kpack_s8(const int8_t* k, std::size_t k_stride, int32_t nkeys, int32_t n, int8_t* packed,
              int32_t* ksum) {
  kpack_s8_ref(k, k_stride, nkeys, n, packed, ksum);
}
void qtile_s8_pack(const int8_t* q, std::size_t q_stride, int32_t nq, int32_t zp, int32_t n,
                   uint8_t* u, int32_t* qsum) {
  qtile_s8_pack_ref(q, q_stride, nq, zp, n, u, qsum);
}
void pv_tile_s8(const uint8_t* w, std::size_t w_stride, int32_t nq, const int8_t* vpacked,
                int32_t nrows, int32_t n, int32_t* acc, std::size_t acc_stride, void* /*work*/) {
  pv_tile_s8_ref(w, w_stride, nq, vpacked, nrows, n, acc, acc_stride);
}
bool tile_s8_fast() { return false; }
// No fused form without tile kernels: the caller runs pv_tile_s8 and
// requantize_row_s8 (and qk_tile_s8 for the scores).
bool pv_tile_s8_rq(const uint8_t*, std::size_t, int32_t, const int8_t*, int32_t, int32_t,
                   const int32_t*, int32_t, int32_t, int32_t, int8_t*, std::size_t, void*) {
  return false;
}
bool qk_tile_s8_rq(const uint8_t*, int32_t, int32_t, const int8_t*, const int32_t*, int32_t,
                   int32_t, const int32_t*, int32_t, int32_t, int32_t, int8_t*, std::size_t) {
  return false;
}
#endif

// Every set but the DSP one keeps vpack_s8's 16-row blocks at the reference
// offsets (its own layouts are permutations within them).
#if !defined(ATTN_S8_HAS_VPACK_OFFSET)
std::size_t vpack_s8_offset(int32_t r16, int32_t n) { return vpack_s8_bytes(r16, n); }
#endif

#if !defined(ATTN_S8_HAS_TILE_KERNELS)
void softmax_s8_tile_w(const void* lut, const int32_t* exp_table, int32_t diff_min, int8_t* rows,
                       std::size_t stride, int32_t nq, const int32_t* n, int32_t n_pad,
                       int32_t* sum_w) {
  for (int32_t r = 0; r < nq; ++r) {
    int8_t* row = rows + static_cast<std::size_t>(r) * stride;
    sum_w[r] = softmax_s8_row_w(lut, exp_table, diff_min, row, reinterpret_cast<uint8_t*>(row),
                                n[r], n_pad);
  }
}
void softmax_s8_tile_prepare(const int32_t*, int32_t, int32_t, void*) {}
#if !defined(ATTN_S8_HAS_SOFTMAX_ROW_W)
int32_t softmax_s8_row_w(const void* lut, const int32_t* exp_table, int32_t diff_min,
                         const int8_t* in, uint8_t* w, int32_t n, int32_t n_pad) {
  (void)lut;
  if (n == 0) {
    for (int32_t c = 0; c < n_pad; ++c) w[c] = 0;
    return 0;
  }
  softmax_s8_row(exp_table, diff_min, in, reinterpret_cast<int8_t*>(w), n);
  return weights_from_codes_s8(w, n, n_pad);
}
#endif
#endif

}  // namespace detail
}  // namespace attn
