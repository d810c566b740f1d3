// The level-2 "i8mm" tile GEMMs of the AArch64 int8 kernel set (internal;
// kernels_s8_tile_i8mm.cpp, compiled for Armv8.2-A + dotprod + i8mm and run
// only where the CPU reports HWCAP2_I8MM):
//   Q K^T   USMMLA (2 query rows x 8 unsigned bytes by 2 keys x 8 signed
//           bytes: 32 MACs per instruction) on K packed by kpack_s8_i8mm,
//           for depths n % 8 == 0 (other depths keep the level-1 layout and
//           SDOT kernels)
//   P V     USMMLA (2 query rows x 8 unsigned weights by 2 columns x 8
//           signed rows of V) on V packed by vpack_s8_i8mm
// The four GEMMs are kTileGemmsI8mm's (tile_gemms_neon.h).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/s8/neon/tile_gemms_neon.h"

namespace attn {
namespace detail {

constexpr bool kpack_i8mm_applies(int32_t n) { return n % 8 == 0; }

// K for n % 8 == 0: block b of 16 keys, column group h < H = n / 8, key pair p:
//   packed[((b * H + h) * 8 + p) * 16 + t] = k[16 b + 2 p + t / 8][8 h + t % 8]
// (0 past nkeys); ksum as kpack_s8. kpack_s8_bytes(nkeys, n) bytes.
void kpack_s8_i8mm(const int8_t* k, std::size_t k_stride, int32_t nkeys, int32_t n, int8_t* packed,
                   int32_t* ksum);
// V: 8-row group G, 16-column block cb (CB = ceil(n / 16)), column pair c:
//   packed[((G * CB + cb) * 8 + c) * 16 + t] = v[8 G + t % 8][16 cb + 2 c + t / 8]
// (0 past nrows or n). vpack_s8_bytes(nrows, n) bytes.
void vpack_s8_i8mm(const int8_t* v, std::size_t stride, int32_t nrows, int32_t n, int8_t* packed);
// The level's GEMMs: Q K^T on K from kpack_s8_i8mm, P V on V from vpack_s8_i8mm.
extern const TileGemmsS8 kTileGemmsI8mm;

}  // namespace detail
}  // namespace attn
