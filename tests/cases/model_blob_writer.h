// A small model blob writer for the portable cases, following the format
// comment in attn/model.h independently of the Python converter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "attn/model.h"

namespace model_blob_writer {

namespace off = attn::model_offset;
using attn::ModelDtype;
using attn::ModelOp;
using attn::TensorDtype;
using attn::TensorId;

inline void wr16(unsigned char* p, uint32_t v) {
  p[0] = static_cast<unsigned char>(v);
  p[1] = static_cast<unsigned char>(v >> 8);
}

inline void wr32(unsigned char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

inline uint32_t rd32(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

inline void fix_crc(unsigned char* blob) {
  const uint32_t total = rd32(blob + off::kTotalBytes);
  wr32(blob + off::kCrc, attn::model_blob_crc(blob, total));
}

struct TensorSpec {
  TensorId id;
  TensorDtype dtype;
  int32_t rank;
  uint32_t dims[4];
  const void* data;
};

inline std::size_t itemsize(TensorDtype d) { return d == TensorDtype::kInt8 ? 1 : 4; }

inline std::size_t align64(std::size_t n) { return (n + 63) / 64 * 64; }

// Writes a blob into out (zeroed first) and returns its total size, 0 if cap is short.
inline std::size_t build_blob(unsigned char* out, std::size_t cap, ModelOp op, ModelDtype dtype,
                              const int32_t (&params)[8], const TensorSpec* tensors, int count) {
  std::memset(out, 0, cap);
  const std::size_t table = attn::kModelHeaderBytes;
  std::size_t pos = align64(table + 32 * static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    const TensorSpec& t = tensors[i];
    std::size_t n = itemsize(t.dtype);
    for (int r = 0; r < t.rank; ++r) n *= t.dims[r];
    if (pos + n > cap) return 0;
    unsigned char* e = out + table + 32 * static_cast<std::size_t>(i);
    wr16(e + off::kEntryId, static_cast<uint32_t>(t.id));
    e[off::kEntryDtype] = static_cast<unsigned char>(t.dtype);
    e[off::kEntryRank] = static_cast<unsigned char>(t.rank);
    for (int r = 0; r < t.rank; ++r) wr32(e + off::kEntryDims + 4 * r, t.dims[r]);
    wr32(e + off::kEntryOffset, static_cast<uint32_t>(pos));
    wr32(e + off::kEntryBytes, static_cast<uint32_t>(n));
    std::memcpy(out + pos, t.data, n);
    pos = align64(pos + n);
  }
  wr32(out + off::kMagic, attn::kModelMagic);
  wr16(out + off::kVersion, attn::kModelVersion);
  wr16(out + off::kHeaderBytes, attn::kModelHeaderBytes);
  wr32(out + off::kTotalBytes, static_cast<uint32_t>(pos));
  wr16(out + off::kOp, static_cast<uint32_t>(op));
  wr16(out + off::kDtype, static_cast<uint32_t>(dtype));
  wr32(out + off::kTensorCount, static_cast<uint32_t>(count));
  wr32(out + off::kTableOffset, static_cast<uint32_t>(table));
  for (int i = 0; i < 8; ++i) wr32(out + off::kParams + 4 * i, static_cast<uint32_t>(params[i]));
  std::memcpy(out + off::kName, "test", 4);
  fix_crc(out);
  return pos;
}

}  // namespace model_blob_writer
