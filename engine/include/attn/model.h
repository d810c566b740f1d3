// Model blobs: a validated, zero-copy container for an attention op's weights.
//
// A blob is produced by tools/attn-convert (from PyTorch / NumPy weights) as a
// file or as the bytes of a generated C++ header, and read in place by
// model_load(): the Model it fills holds pointers into the caller's buffer (RAM
// or flash), nothing is copied or allocated. tools/convert/FORMAT.md describes
// the same format for the converter's side.
//
// ---------------------------------------------------------------------------
// Format version 1. Every integer is little-endian. Offsets are from the first
// byte of the blob.
//
// Header, 128 bytes:
//   off size  field
//     0   4   magic           "ATNM" (0x41 0x54 0x4E 0x4D)
//     4   2   version         1
//     6   2   header_bytes    128
//     8   4   total_bytes     bytes of the blob (header + table + tensors + padding);
//                             the buffer handed to model_load may be longer
//    12   4   crc32           CRC-32 (IEEE 802.3 / zlib: reflected polynomial
//                             0xEDB88320, initial 0xFFFFFFFF, final xor 0xFFFFFFFF)
//                             of bytes [0, total_bytes) with these 4 bytes read as 0
//    16   2   op              1 mha, 2 bahdanau, 3 luong_general, 4 mha_decode (ModelOp)
//    18   2   dtype           1 f32, 2 int8 (ModelDtype)
//    20   4   flags           0 (reserved)
//    24   4   tensor_count    1 .. kModelMaxTensors
//    28   4   table_offset    multiple of 4, >= 128; the table must fit in total_bytes
//    32  32   params[8]       int32 hyper-parameters, by op (unused ones 0):
//                               mha:           embed_dim, num_heads, kdim, vdim
//                               bahdanau:      query_dim, key_dim, units
//                               luong_general: query_dim, key_dim
//                               mha_decode:    embed_dim, num_heads, num_kv_heads,
//                                 capacity (cache slots, the window with a window),
//                                 window (0 linear cache, 1 sliding window),
//                                 rope_dims (0 none; even, <= head_dim), rope_style
//                                 (0 half-split, 1 interleaved), rope_theta (float32
//                                 bits, finite and > 1; 0 without RoPE)
//    64  32   name            printable ASCII, NUL padded (informational)
//    96  32   reserved        0
//
// Tensor table: tensor_count entries of 32 bytes:
//     0   2   id              TensorId below; each id at most once
//     2   1   dtype           1 f32, 2 int8, 3 int32 (TensorDtype)
//     3   1   rank            1 .. 4
//     4  16   dims[4]         uint32, dims[i] >= 1 for i < rank, 0 after
//    20   4   offset          multiple of 64, at or after the end of the table
//    24   4   bytes           product(dims) * itemsize(dtype)
//    28   4   reserved        0
// Tensor data lie in [offset, offset + bytes) within total_bytes and do not
// overlap each other or the table. Gaps are zero padding (covered by the CRC).
//
// Tensors by op, float models (shapes in PyTorch / Keras layout, as the float
// ops take them; "opt" = may be absent):
//   mha:  in_proj_weight [3E, E]            (only when kdim == vdim == E), or
//         q_proj_weight [E, E], k_proj_weight [E, kdim], v_proj_weight [E, vdim];
//         in_proj_bias [3E] opt; out_proj_weight [E, E]; out_proj_bias [E] opt
//   bahdanau: W1 [query_dim, units], b1 [units] opt, W2 [key_dim, units],
//         b2 [units] opt, v [units], bv [1] opt
//   luong_general: W [key_dim, query_dim], b [query_dim] opt
//   mha_decode (a decoder layer, Llama-style separate projections, G =
//         num_kv_heads, hd = E / num_heads): q_proj_weight [E, E],
//         k_proj_weight [G*hd, E], v_proj_weight [G*hd, E], out_proj_weight [E, E];
//         q_proj_bias [E], k_proj_bias [G*hd], v_proj_bias [G*hd], out_proj_bias [E]
//         opt. Its KV cache: model_kv_cache_shape (attn/model_decode.h).
//
// int8 models (TFLite conventions, docs/INT8.md): the same weight ids as
// int8 (symmetric, zero point 0) in TFLite FULLY_CONNECTED layout [out, in]
// (MHA: as PyTorch; Bahdanau W1 [units, query_dim], W2 [units, key_dim], v
// [units]; Luong W [query_dim, key_dim]: the Keras kernels transposed), biases
// as int32 with scale input_scale * weight_scale[channel], plus one f32 weight
// scale per output channel (*_weight_scale / *_scale ids), and for every op
//   act_scale [n] f32 > 0 and act_zero_point [n] int32 in [-128, 127]:
//   the per-tensor activation parameters, indexed by MhaAct / BahdanauAct /
//   LuongAct / MhaDecodeAct (n = that enum's kCount).
// The loader validates int8 blobs fully; int8 models run through mha_s8,
// bahdanau_s8 and luong_s8 (attn/model_s8.h: model_*_s8_prepare) and
// mha_decode_s8 (attn/model_decode.h). The float runners below return
// kUnsupported for int8.
// ---------------------------------------------------------------------------
//
// Validation (model_load): the buffer is checked before anything inside it is
// trusted, in this order: size >= 8 and magic, version, header_bytes, size >=
// 128, buffer alignment (4 bytes; 64 recommended), total_bytes within the buffer,
// CRC, then op, dtype, flags, reserved bytes, params, the table and every
// tensor. Every read is bounds-checked first; a blob with a correct CRC but
// hostile contents is rejected as surely as a corrupt one.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/bahdanau.h"
#include "attn/luong.h"
#include "attn/mha.h"
#include "attn/scratch.h"
#include "attn/status.h"

namespace attn {

inline constexpr uint32_t kModelMagic = 0x4D4E5441u;  // "ATNM" read little-endian
inline constexpr uint16_t kModelVersion = 1;
inline constexpr uint32_t kModelHeaderBytes = 128;
inline constexpr uint32_t kModelTableEntryBytes = 32;
inline constexpr uint32_t kModelTensorAlign = 64;
inline constexpr uint32_t kModelMaxTensors = 32;
inline constexpr int32_t kModelMaxRank = 4;
inline constexpr int32_t kModelParamCount = 8;

// Header byte offsets (for tools and tests that build or patch blobs).
namespace model_offset {
inline constexpr std::size_t kMagic = 0;
inline constexpr std::size_t kVersion = 4;
inline constexpr std::size_t kHeaderBytes = 6;
inline constexpr std::size_t kTotalBytes = 8;
inline constexpr std::size_t kCrc = 12;
inline constexpr std::size_t kOp = 16;
inline constexpr std::size_t kDtype = 18;
inline constexpr std::size_t kFlags = 20;
inline constexpr std::size_t kTensorCount = 24;
inline constexpr std::size_t kTableOffset = 28;
inline constexpr std::size_t kParams = 32;
inline constexpr std::size_t kName = 64;
inline constexpr std::size_t kReserved = 96;
// Within a table entry.
inline constexpr std::size_t kEntryId = 0;
inline constexpr std::size_t kEntryDtype = 2;
inline constexpr std::size_t kEntryRank = 3;
inline constexpr std::size_t kEntryDims = 4;
inline constexpr std::size_t kEntryOffset = 20;
inline constexpr std::size_t kEntryBytes = 24;
inline constexpr std::size_t kEntryReserved = 28;
}  // namespace model_offset

enum class ModelOp : uint16_t {
  kNone = 0,
  kMha = 1,
  kBahdanau = 2,
  kLuongGeneral = 3,
  kMhaDecode = 4,
};
enum class ModelDtype : uint16_t { kNone = 0, kF32 = 1, kInt8 = 2 };
enum class TensorDtype : uint8_t { kNone = 0, kF32 = 1, kInt8 = 2, kInt32 = 3 };

// Tensor ids (the table's `id`). Values are part of the format: never renumber.
enum class TensorId : uint16_t {
  kMhaInProjWeight = 1,
  kMhaInProjBias = 2,
  kMhaQProjWeight = 3,
  kMhaKProjWeight = 4,
  kMhaVProjWeight = 5,
  kMhaOutProjWeight = 6,
  kMhaOutProjBias = 7,
  kMhaInProjWeightScale = 8,    // int8: [3E]
  kMhaQProjWeightScale = 9,     // int8: [E]
  kMhaKProjWeightScale = 10,    // int8: [E]
  kMhaVProjWeightScale = 11,    // int8: [E]
  kMhaOutProjWeightScale = 12,  // int8: [E]
  kMhaQProjBias = 13,           // mha_decode: [E]
  kMhaKProjBias = 14,           // mha_decode: [G*hd]
  kMhaVProjBias = 15,           // mha_decode: [G*hd]
  kBahdanauW1 = 16,
  kBahdanauB1 = 17,
  kBahdanauW2 = 18,
  kBahdanauB2 = 19,
  kBahdanauV = 20,
  kBahdanauBv = 21,
  kBahdanauW1Scale = 22,  // int8: [units]
  kBahdanauW2Scale = 23,  // int8: [units]
  kBahdanauVScale = 24,   // int8: [1]
  kLuongW = 28,
  kLuongB = 29,
  kLuongWScale = 30,   // int8: [query_dim]
  kActScale = 32,      // int8: [n] f32
  kActZeroPoint = 33,  // int8: [n] int32
};
inline constexpr int32_t kModelTensorSlots = 34;  // ids are < this

// Activation indices into act_scale / act_zero_point (int8 models).
// MHA follows TFLite's op sequence: FULLY_CONNECTED q/k/v -> BATCH_MATMUL
// (raw Q K^T, the 1/sqrt(hd) folded into the softmax beta) -> SOFTMAX ->
// BATCH_MATMUL -> FULLY_CONNECTED out.
enum class MhaAct : int32_t {
  kQuery = 0,
  kKey,
  kValue,
  kQ,
  kK,
  kV,
  kScores,
  kProbs,
  kAttn,
  kOut,
  kCount
};
// Bahdanau: FC(query, W1) + FC(keys, W2) -> ADD -> TANH -> FC(v) -> SOFTMAX -> context.
enum class BahdanauAct : int32_t {
  kQuery = 0,
  kKeys,
  kQueryProj,
  kKeysProj,
  kSum,
  kTanh,
  kScores,
  kProbs,
  kContext,
  kCount
};
// Luong general: FC(keys, W) -> BATCH_MATMUL(query) -> SOFTMAX(beta 1) -> BATCH_MATMUL(keys).
enum class LuongAct : int32_t { kQuery = 0, kKeys, kKeysProj, kScores, kProbs, kContext, kCount };

// mha_decode: FULLY_CONNECTED q/k/v of the new tokens (k, v: the cache's
// codes) -> BATCH_MATMUL (raw Q_h K_g^T) -> SOFTMAX -> BATCH_MATMUL ->
// FULLY_CONNECTED out.
enum class MhaDecodeAct : int32_t { kInput = 0, kQ, kK, kV, kScores, kProbs, kAttn, kOut, kCount };

// Why model_load rejected a blob (model_load's status is kBadModel for all of
// these except kNullArgument, which comes with kNullPointer).
enum class ModelError : int32_t {
  kNone = 0,
  kNullArgument,       // data or out is null
  kTooSmall,           // buffer shorter than the 128-byte header (or than 8 bytes)
  kBadMagic,           // not "ATNM": not a model blob
  kBadVersion,         // a format version this engine does not read
  kBadHeaderSize,      // header_bytes != 128
  kMisalignedBuffer,   // buffer address not a multiple of 4
  kTruncated,          // total_bytes larger than the buffer
  kBadTotalSize,       // total_bytes smaller than the header
  kBadCrc,             // CRC-32 mismatch: corrupt data
  kBadOp,              // unknown op kind
  kBadDtype,           // unknown model dtype
  kBadFlags,           // flags or a reserved header field not zero
  kBadName,            // name not printable ASCII + NUL padding
  kBadParams,          // hyper-parameters invalid for the op (<= 0, too large,
                       // heads not dividing E, unused params not zero)
  kBadTableOffset,     // table not 4-aligned, inside the header or past total_bytes
  kBadTensorCount,     // 0 or more than kModelMaxTensors
  kBadTensorEntry,     // rank, dims, reserved field or byte count inconsistent
  kUnknownTensor,      // an id this op and dtype do not use
  kDuplicateTensor,    // an id listed twice
  kBadTensorDtype,     // the tensor's dtype is not the one its id requires
  kBadTensorShape,     // a shape disagrees with the op's hyper-parameters
  kMisalignedTensor,   // tensor offset not a multiple of 64
  kTensorOutOfBounds,  // tensor data outside [table end, total_bytes)
  kTensorOverlap,      // two tensors share bytes
  kMissingTensor,      // a required tensor is absent (or both packed and separate MHA weights)
  kBadQuantParams,     // a scale not finite and > 0, or a zero point outside [-128, 127]
  kNonFiniteWeight,    // a float32 weight or bias is NaN or infinite
};

// Short static text for an error (never null).
const char* model_error_str(ModelError error);

struct ModelTensor {
  const void* data = nullptr;  // null: absent
  TensorDtype dtype = TensorDtype::kNone;
  int32_t rank = 0;
  int32_t dims[kModelMaxRank] = {0, 0, 0, 0};
  uint32_t offset = 0;
  uint32_t bytes = 0;
};

// A loaded model: views into the caller's blob, valid as long as it is.
// sizeof(Model) is about 1.5 KiB: keep it static on small targets.
struct Model {
  const unsigned char* base = nullptr;
  uint32_t total_bytes = 0;
  uint16_t version = 0;
  ModelOp op = ModelOp::kNone;
  ModelDtype dtype = ModelDtype::kNone;
  int32_t params[kModelParamCount] = {};
  char name[33] = {};
  int32_t tensor_count = 0;
  ModelTensor tensors[kModelTensorSlots] = {};

  const ModelTensor& tensor(TensorId id) const { return tensors[static_cast<uint16_t>(id)]; }
  // A tensor's data as its element type; null when it is absent or of another dtype.
  const float* f32(TensorId id) const { return data_as<float>(id, TensorDtype::kF32); }
  const int8_t* s8(TensorId id) const { return data_as<int8_t>(id, TensorDtype::kInt8); }
  const int32_t* s32(TensorId id) const { return data_as<int32_t>(id, TensorDtype::kInt32); }
  template <class T>
  const T* data_as(TensorId id, TensorDtype want) const {
    const ModelTensor& t = tensor(id);
    return t.dtype == want ? static_cast<const T*>(t.data) : nullptr;
  }
};

// Validates `size` bytes at `data` (see above) and fills *out. On failure
// *out is reset (op kNone), *error (if not null) says why, and the status is
// kNullPointer (data or out null) or kBadModel. Never reads outside
// [data, data + size), never allocates.
Status model_load(const void* data, std::size_t size, Model* out, ModelError* error = nullptr);

// CRC-32 (zlib's crc32(crc, data, n): pass 0 to start, the previous result to continue).
uint32_t model_crc32(uint32_t crc, const void* data, std::size_t n);

// The CRC a blob of `total_bytes` should carry (its crc field read as 0).
uint32_t model_blob_crc(const void* blob, std::size_t total_bytes);

// Names for printing (static, never null): "mha", "bahdanau", "luong_general",
// "mha_decode";
// "f32", "int8", "int32"; and a tensor id's name as the converter spells it
// ("in_proj_weight", "W1", "act_scale", ...).
const char* model_op_str(ModelOp op);
const char* model_dtype_str(ModelDtype dtype);
const char* tensor_dtype_str(TensorDtype dtype);
const char* tensor_id_str(TensorId id);

// Hyper-parameters of a loaded model as the op's shape, with the run-time
// batch and sequence lengths filled in (dims of the wrong op are 0).
MhaShape model_mha_shape(const Model& model, int32_t batch, int32_t seq_q, int32_t seq_kv);
BahdanauShape model_bahdanau_shape(const Model& model, int32_t batch, int32_t seq);
LuongGeneralShape model_luong_general_shape(const Model& model, int32_t batch, int32_t seq);

// Zero-copy weight views of a float model. kBadArgument if the model is of
// another op, kUnsupported if it is int8.
Status model_mha_f32_weights(const Model& model, MhaF32Weights* weights);
Status model_bahdanau_f32_weights(const Model& model, BahdanauF32Weights* weights);
Status model_luong_general_f32_weights(const Model& model, LuongGeneralF32Weights* weights);

// Scratch bytes the model's op needs for these run-time sizes: mha uses
// seq_q and seq_kv; bahdanau and luong_general (one query per batch item)
// use seq_kv as their key sequence length `seq` and ignore seq_q; a float
// mha_decode model takes seq_q new tokens per call (its scratch does not
// depend on the context; batch and seq_kv are only checked > 0) with a float32
// cache. workers: those of the executor in the run's args (the op's
// *_scratch_bytes with that count; an mha_decode model's scratch does not
// depend on it). 0 for a model that is not loaded or sizes <= 0.
std::size_t model_scratch_bytes(const Model& model, int32_t batch, int32_t seq_q, int32_t seq_kv,
                                int32_t workers = 1);

// Runs a loaded float model: the op's own function with the model's weights
// and hyper-parameters. Statuses: those of the op, plus kBadArgument (model of
// another op or not loaded) and kUnsupported (an int8 model: see model_s8.h).
Status model_run_mha_f32(const Model& model, int32_t batch, int32_t seq_q, int32_t seq_kv,
                         const MhaF32Args& args, Scratch scratch);
Status model_run_bahdanau_f32(const Model& model, int32_t batch, int32_t seq,
                              const BahdanauF32Args& args, Scratch scratch);
Status model_run_luong_general_f32(const Model& model, int32_t batch, int32_t seq,
                                   const LuongF32Args& args, Scratch scratch);

}  // namespace attn
