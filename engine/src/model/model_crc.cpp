// The model blob's checksum (see attn/model.h): CRC-32 as zlib computes it.
#include "attn/model.h"

namespace attn {
namespace {

struct CrcTable {
  uint32_t t[256];
  constexpr CrcTable() : t() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1u) != 0 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
  }
};
constexpr CrcTable kCrcTable{};

uint32_t crc_update(uint32_t c, const unsigned char* p, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) c = kCrcTable.t[(c ^ p[i]) & 0xFFu] ^ (c >> 8);
  return c;
}

}  // namespace

uint32_t model_crc32(uint32_t crc, const void* data, std::size_t n) {
  if (data == nullptr) return crc;
  return ~crc_update(~crc, static_cast<const unsigned char*>(data), n);
}

uint32_t model_blob_crc(const void* blob, std::size_t total_bytes) {
  const auto* p = static_cast<const unsigned char*>(blob);
  if (p == nullptr || total_bytes < model_offset::kCrc + 4) return 0;
  static const unsigned char kZero[4] = {0, 0, 0, 0};
  uint32_t c = ~0u;
  c = crc_update(c, p, model_offset::kCrc);
  c = crc_update(c, kZero, 4);
  c = crc_update(c, p + model_offset::kCrc + 4, total_bytes - model_offset::kCrc - 4);
  return ~c;
}

}  // namespace attn
