// The query-tile int8 kernels this build selected (reference, x86, Cortex-M
// DSP, Helium) against direct integer sums computed here: each set's packing
// and GEMM kernels together (the packed layouts are the set's own), the fused
// requantizations against requantize_row_s8_ref of those sums. Odd tile
// heights, key counts and widths, every zero-point extreme.
#include <cstdint>
#include <cstring>
#include <initializer_list>

#include "attn/config.h"
#include "case.h"
#include "kernels/s8/kernels_s8.h"

namespace {

constexpr int32_t kMaxQ = 5, kMaxKeys = 37, kMaxDim = 67;
int8_t g_q[kMaxQ * kMaxDim], g_k[kMaxKeys * kMaxDim], g_v[kMaxKeys * kMaxDim];
alignas(64) int8_t g_kpacked[attn::detail::kpack_s8_bytes(kMaxKeys, kMaxDim)];
alignas(64) int8_t g_vpacked[attn::detail::vpack_s8_bytes(kMaxKeys, kMaxDim)];
alignas(64) uint8_t g_qtile[2 * (kMaxQ + 1) * 68];
int32_t g_ksum[48], g_qsum[kMaxQ + 1];
constexpr std::size_t kOutStride = 80;  // >= round16 of every key count / width
int32_t g_out[kMaxQ * kOutStride], g_want[kMaxQ * kOutStride];
int8_t g_out8[kMaxQ * kOutStride], g_want8[kMaxQ * kOutStride];
uint8_t g_w[kMaxQ * kOutStride];
int32_t g_offsets[kMaxQ];

void fill(attn_test::Rng& r, int8_t* p, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<int8_t>(r.range(-128, 127));
}

}  // namespace

ATTN_CASE(KernelsS8Tile, QkTileMatchesDirectSums) {
  namespace d = attn::detail;
  attn_test::Rng r(91);
  fill(r, g_q, sizeof g_q);
  fill(r, g_k, sizeof g_k);
  for (int i = 0; i < 30; ++i) g_k[i] = i % 2 ? -128 : 127;  // extremes
  for (int i = 0; i < 20; ++i) g_q[i] = -128;
  for (int32_t n : {1, 3, 4, 5, 8, 13, 16, 33, 64, 67}) {
    for (int32_t nkeys : {1, 2, 3, 15, 16, 17, 37}) {
      for (int32_t nq : {1, 2, 3, 4, 5}) {
        for (int32_t zp : {-128, -7, 127}) {
          const auto un = static_cast<std::size_t>(n);
          d::kpack_s8(g_k, un, nkeys + 3 <= kMaxKeys ? nkeys + 3 : nkeys, n, g_kpacked, g_ksum);
          d::qtile_s8_pack(g_q, un, nq, zp, n, g_qtile, g_qsum);
          d::qk_tile_s8(g_qtile, nq, zp, g_kpacked, g_ksum, nkeys, n, g_out, kOutStride);
          for (int32_t i = 0; i < nq; ++i) {
            int32_t qs = 0;
            for (int32_t c = 0; c < n; ++c) qs += g_q[i * n + c] - zp;
            ATTN_EXPECT_EQ_INT(g_qsum[i], qs);
            for (int32_t j = 0; j < nkeys; ++j) {
              int32_t s = 0;
              for (int32_t c = 0; c < n; ++c) s += (g_q[i * n + c] - zp) * g_k[j * n + c];
              g_want[static_cast<std::size_t>(i) * kOutStride + static_cast<std::size_t>(j)] = s;
              ATTN_EXPECT_EQ_INT(g_out[static_cast<std::size_t>(i) * kOutStride + static_cast<std::size_t>(j)], s);
            }
            g_offsets[i] = (zp % 13) * qs;  // a row constant as k_zp * qsum
          }
          // Fused score requantization (where the set has it for these
          // parameters): shifts of small and large multipliers.
          for (int32_t shift : {-9, -1, 0, 2}) {
            const int32_t mult = 1518500250 + shift;
            if (!d::qk_tile_s8_rq(g_qtile, nq, zp, g_kpacked, g_ksum, nkeys, n, g_offsets, mult,
                                  shift, zp / 3, g_out8, kOutStride)) {
              continue;
            }
            for (int32_t i = 0; i < nq; ++i) {
              const std::size_t row = static_cast<std::size_t>(i) * kOutStride;
              d::requantize_row_s8_ref(g_want + row, nkeys, g_offsets[i], mult, shift, zp / 3,
                                       g_want8 + row);
              ATTN_EXPECT_TRUE(std::memcmp(g_out8 + row, g_want8 + row, static_cast<std::size_t>(nkeys)) == 0);
            }
          }
        }
      }
    }
  }
}

ATTN_CASE(KernelsS8Tile, PvTileMatchesDirectSums) {
  namespace d = attn::detail;
  attn_test::Rng r(92);
  fill(r, g_v, sizeof g_v);
  for (int i = 0; i < 30; ++i) g_v[i] = i % 3 ? -128 : 127;
  for (int32_t nrows : {1, 2, 3, 4, 5, 15, 16, 17, 37}) {
    for (int32_t n : {1, 2, 3, 5, 8, 16, 17, 33, 64, 67}) {
      for (int32_t nq : {1, 2, 3, 5}) {
        const auto un = static_cast<std::size_t>(n);
        const auto w16 = static_cast<int32_t>(d::round_up_s8(static_cast<std::size_t>(nrows), 16));
        for (int32_t i = 0; i < nq; ++i) {
          for (int32_t j = 0; j < w16; ++j) {
            g_w[i * kOutStride + static_cast<std::size_t>(j)] =
                j < nrows ? static_cast<uint8_t>(j == i ? 255 : r.range(0, 255)) : uint8_t{0};
          }
        }
        // Packed with more rows than the product reads (the core packs every
        // visible key once; causal tiles read a prefix).
        const int32_t packed_rows = nrows + 5 <= kMaxKeys ? nrows + 5 : nrows;
        d::vpack_s8(g_v, un, packed_rows, n, g_vpacked);
        d::pv_tile_s8(g_w, kOutStride, nq, g_vpacked, nrows, n, g_out, kOutStride);
        for (int32_t i = 0; i < nq; ++i) {
          for (int32_t c = 0; c < n; ++c) {
            int32_t s = 0;
            for (int32_t j = 0; j < nrows; ++j) s += g_w[i * kOutStride + static_cast<std::size_t>(j)] * g_v[j * n + c];
            g_want[static_cast<std::size_t>(i) * kOutStride + static_cast<std::size_t>(c)] = s;
            ATTN_EXPECT_EQ_INT(g_out[static_cast<std::size_t>(i) * kOutStride + static_cast<std::size_t>(c)], s);
          }
          g_offsets[i] = (i - 2) * 1000;  // as v_zp * sum w
        }
        for (int32_t shift : {-12, -8, -1, 0, 1}) {
          const int32_t mult = 1073741824 + 12345 * (shift + 13);
          if (!d::pv_tile_s8_rq(g_w, kOutStride, nq, g_vpacked, nrows, n, g_offsets, mult, shift,
                                shift * 9, g_out8, kOutStride)) {
            continue;
          }
          for (int32_t i = 0; i < nq; ++i) {
            const std::size_t row = static_cast<std::size_t>(i) * kOutStride;
            d::requantize_row_s8_ref(g_want + row, n, g_offsets[i], mult, shift, shift * 9,
                                     g_want8 + row);
            ATTN_EXPECT_TRUE(std::memcmp(g_out8 + row, g_want8 + row, un) == 0);
          }
        }
      }
    }
  }
}
