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
constexpr std::size_t kOutStride = 80;  // >= round16 of every key count / width

// The buffers, from the shared test arena.
struct Buffers {
  int8_t *q, *k, *v, *kpacked, *vpacked, *out8, *want8;
  uint8_t *qtile, *w;
  int32_t *ksum, *qsum, *out, *want, *offsets;
  void* work;  // pv_tile_s8's
};
Buffers take(attn_test::Arena& a) {
  namespace d = attn::detail;
  Buffers b{};
  b.q = a.alloc<int8_t>(kMaxQ * kMaxDim);
  b.k = a.alloc<int8_t>(kMaxKeys * kMaxDim);
  b.v = a.alloc<int8_t>(kMaxKeys * kMaxDim);
  b.kpacked = a.alloc<int8_t>(d::kpack_s8_bytes(kMaxKeys, kMaxDim));
  b.vpacked = a.alloc<int8_t>(d::vpack_s8_bytes(kMaxKeys, kMaxDim));
  b.out8 = a.alloc<int8_t>(kMaxQ * kOutStride);
  b.want8 = a.alloc<int8_t>(kMaxQ * kOutStride);
  b.qtile = a.alloc<uint8_t>(2 * (kMaxQ + 1) * 68);
  b.w = a.alloc<uint8_t>(kMaxQ * kOutStride);
  b.ksum = a.alloc<int32_t>(48);
  b.qsum = a.alloc<int32_t>(kMaxQ + 1);
  b.out = a.alloc<int32_t>(kMaxQ * kOutStride);
  b.want = a.alloc<int32_t>(kMaxQ * kOutStride);
  b.offsets = a.alloc<int32_t>(kMaxQ);
  b.work = a.alloc<int32_t>(d::pv_tile_s8_work_bytes(kMaxKeys) / 4);
  return b;
}

void fill(attn_test::Rng& r, int8_t* p, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<int8_t>(r.range(-128, 127));
}

}  // namespace

ATTN_CASE(KernelsS8Tile, QkTileMatchesDirectSums) {
  namespace d = attn::detail;
  attn_test::Arena arena;
  const Buffers b = take(arena);
  ATTN_ASSERT_TRUE(arena.ok());
  attn_test::Rng r(91);
  fill(r, b.q, kMaxQ * kMaxDim);
  fill(r, b.k, kMaxKeys * kMaxDim);
  for (int i = 0; i < 30; ++i) b.k[i] = i % 2 ? -128 : 127;  // extremes
  for (int i = 0; i < 20; ++i) b.q[i] = -128;
  for (int32_t n : {1, 3, 4, 5, 8, 13, 16, 33, 64, 67}) {
    for (int32_t nkeys : {1, 2, 3, 15, 16, 17, 37}) {
      for (int32_t nq : {1, 2, 3, 4, 5}) {
        for (int32_t zp : {-128, -7, 127}) {
          const auto un = static_cast<std::size_t>(n);
          d::kpack_s8(b.k, un, nkeys + 3 <= kMaxKeys ? nkeys + 3 : nkeys, n, b.kpacked, b.ksum);
          d::qtile_s8_pack(b.q, un, nq, zp, n, b.qtile, b.qsum);
          d::qk_tile_s8(b.qtile, nq, zp, b.kpacked, b.ksum, nkeys, n, b.out, kOutStride);
          for (int32_t i = 0; i < nq; ++i) {
            int32_t qs = 0;
            for (int32_t c = 0; c < n; ++c) qs += b.q[i * n + c] - zp;
            ATTN_EXPECT_EQ_INT(b.qsum[i], qs);
            for (int32_t j = 0; j < nkeys; ++j) {
              int32_t s = 0;
              for (int32_t c = 0; c < n; ++c) s += (b.q[i * n + c] - zp) * b.k[j * n + c];
              b.want[static_cast<std::size_t>(i) * kOutStride + static_cast<std::size_t>(j)] = s;
              ATTN_EXPECT_EQ_INT(
                  b.out[static_cast<std::size_t>(i) * kOutStride + static_cast<std::size_t>(j)], s);
            }
            b.offsets[i] = (zp % 13) * qs;  // a row constant as k_zp * qsum
          }
          // Fused score requantization (where the set has it for these
          // parameters): shifts of small and large multipliers.
          for (int32_t shift : {-9, -1, 0, 2}) {
            const int32_t mult = 1518500250 + shift;
            if (!d::qk_tile_s8_rq(b.qtile, nq, zp, b.kpacked, b.ksum, nkeys, n, b.offsets, mult,
                                  shift, zp / 3, b.out8, kOutStride)) {
              continue;
            }
            for (int32_t i = 0; i < nq; ++i) {
              const std::size_t row = static_cast<std::size_t>(i) * kOutStride;
              d::requantize_row_s8_ref(b.want + row, nkeys, b.offsets[i], mult, shift, zp / 3,
                                       b.want8 + row);
              ATTN_EXPECT_TRUE(
                  std::memcmp(b.out8 + row, b.want8 + row, static_cast<std::size_t>(nkeys)) == 0);
            }
          }
        }
      }
    }
  }
}

ATTN_CASE(KernelsS8Tile, PvTileMatchesDirectSums) {
  namespace d = attn::detail;
  attn_test::Arena arena;
  const Buffers b = take(arena);
  ATTN_ASSERT_TRUE(arena.ok());
  attn_test::Rng r(92);
  fill(r, b.v, kMaxKeys * kMaxDim);
  for (int i = 0; i < 30; ++i) b.v[i] = i % 3 ? -128 : 127;
  for (int32_t nrows : {1, 2, 3, 4, 5, 15, 16, 17, 37}) {
    for (int32_t n : {1, 2, 3, 5, 8, 16, 17, 33, 64, 67}) {
      for (int32_t nq : {1, 2, 3, 5}) {
        const auto un = static_cast<std::size_t>(n);
        const auto w16 = static_cast<int32_t>(d::round_up_s8(static_cast<std::size_t>(nrows), 16));
        for (int32_t i = 0; i < nq; ++i) {
          for (int32_t j = 0; j < w16; ++j) {
            b.w[i * kOutStride + static_cast<std::size_t>(j)] =
                j < nrows ? static_cast<uint8_t>(j == i ? 255 : r.range(0, 255)) : uint8_t{0};
          }
        }
        // Packed with more rows than the product reads (the core packs every
        // visible key once; causal tiles read a prefix).
        const int32_t packed_rows = nrows + 5 <= kMaxKeys ? nrows + 5 : nrows;
        d::vpack_s8(b.v, un, packed_rows, n, b.vpacked);
        d::pv_tile_s8(b.w, kOutStride, nq, b.vpacked, nrows, n, b.out, kOutStride, b.work);
        for (int32_t i = 0; i < nq; ++i) {
          for (int32_t c = 0; c < n; ++c) {
            int32_t s = 0;
            for (int32_t j = 0; j < nrows; ++j)
              s += b.w[i * kOutStride + static_cast<std::size_t>(j)] * b.v[j * n + c];
            b.want[static_cast<std::size_t>(i) * kOutStride + static_cast<std::size_t>(c)] = s;
            ATTN_EXPECT_EQ_INT(
                b.out[static_cast<std::size_t>(i) * kOutStride + static_cast<std::size_t>(c)], s);
          }
          b.offsets[i] = (i - 2) * 1000;  // as v_zp * sum w
        }
        for (int32_t shift : {-12, -8, -1, 0, 1}) {
          const int32_t mult = 1073741824 + 12345 * (shift + 13);
          if (!d::pv_tile_s8_rq(b.w, kOutStride, nq, b.vpacked, nrows, n, b.offsets, mult, shift,
                                shift * 9, b.out8, kOutStride, b.work)) {
            continue;
          }
          for (int32_t i = 0; i < nq; ++i) {
            const std::size_t row = static_cast<std::size_t>(i) * kOutStride;
            d::requantize_row_s8_ref(b.want + row, n, b.offsets[i], mult, shift, shift * 9,
                                     b.want8 + row);
            ATTN_EXPECT_TRUE(std::memcmp(b.out8 + row, b.want8 + row, un) == 0);
          }
        }
      }
    }
  }
}
