// Model blobs (attn/model.h): a table of corruptions, each rejected with its
// own ModelError, truncation at every length, and loaded models running
// bit-identically to the ops called with the same weights.
//
// The blobs are built by a small writer (model_blob_writer.h) that follows the
// format comment in model.h independently of the Python converter
// (tests/model checks the converter's blobs).
#include <cstring>
#include <limits>

#include "attn/model.h"
#include "case.h"
#include "model_blob_writer.h"

namespace {

using attn::ModelDtype;
using attn::ModelError;
using attn::ModelOp;
using attn::TensorDtype;
using attn::TensorId;
namespace off = attn::model_offset;

using model_blob_writer::align64;
using model_blob_writer::build_blob;
using model_blob_writer::fix_crc;
using model_blob_writer::rd32;
using model_blob_writer::TensorSpec;
using model_blob_writer::wr16;
using model_blob_writer::wr32;

// Luong general, query_dim 3, key_dim 4: W [4, 3] (entry 0, offset 192),
// b [3] (entry 1, offset 256), total 320.
const float kLuongW[12] = {0.5f, -0.25f, 1.0f,  0.75f, 0.125f, -1.0f,
                           0.0f, 2.0f,   -0.5f, 1.5f,  -0.75f, 0.25f};
const float kLuongB[3] = {0.1f, -0.2f, 0.3f};

alignas(64) unsigned char g_good[512];
std::size_t g_good_size = 0;
alignas(64) unsigned char g_work[512 + 64];

void build_luong() {
  static const int32_t params[8] = {3, 4, 0, 0, 0, 0, 0, 0};
  const TensorSpec t[2] = {{TensorId::kLuongW, TensorDtype::kF32, 2, {4, 3, 0, 0}, kLuongW},
                           {TensorId::kLuongB, TensorDtype::kF32, 1, {3, 0, 0, 0}, kLuongB}};
  g_good_size =
      build_blob(g_good, sizeof g_good, ModelOp::kLuongGeneral, ModelDtype::kF32, params, t, 2);
}

constexpr std::size_t kEntry0 = attn::kModelHeaderBytes;
constexpr std::size_t kEntry1 = kEntry0 + 32;

struct Corruption {
  const char* what;
  void (*mutate)(unsigned char* blob);
  bool fix_crc;  // recompute the CRC after mutating (tests the structural checks)
  ModelError expected;
};

// clang-format off
const Corruption kCorruptions[] = {
  {"magic byte 0", [](unsigned char* b) { b[0] = 'X'; }, false, ModelError::kBadMagic},
  {"magic byte 3", [](unsigned char* b) { b[3] = 'm'; }, false, ModelError::kBadMagic},
  {"magic of a .npy", [](unsigned char* b) { std::memcpy(b, "\x93NUM", 4); }, false, ModelError::kBadMagic},
  {"version 0", [](unsigned char* b) { wr16(b + off::kVersion, 0); }, true, ModelError::kBadVersion},
  {"version 2", [](unsigned char* b) { wr16(b + off::kVersion, 2); }, true, ModelError::kBadVersion},
  {"version 0xFFFF", [](unsigned char* b) { wr16(b + off::kVersion, 0xFFFF); }, false, ModelError::kBadVersion},
  {"header_bytes 64", [](unsigned char* b) { wr16(b + off::kHeaderBytes, 64); }, true, ModelError::kBadHeaderSize},
  {"header_bytes 129", [](unsigned char* b) { wr16(b + off::kHeaderBytes, 129); }, true, ModelError::kBadHeaderSize},
  {"total_bytes 0", [](unsigned char* b) { wr32(b + off::kTotalBytes, 0); }, false, ModelError::kBadTotalSize},
  {"total_bytes 127", [](unsigned char* b) { wr32(b + off::kTotalBytes, 127); }, false, ModelError::kBadTotalSize},
  {"total_bytes past buffer", [](unsigned char* b) { wr32(b + off::kTotalBytes, 321); }, false, ModelError::kTruncated},
  {"total_bytes 0xFFFFFFFF", [](unsigned char* b) { wr32(b + off::kTotalBytes, 0xFFFFFFFFu); }, false, ModelError::kTruncated},
  {"total_bytes shorter", [](unsigned char* b) { wr32(b + off::kTotalBytes, 256); }, false, ModelError::kBadCrc},
  {"crc flipped", [](unsigned char* b) { b[off::kCrc] ^= 1; }, false, ModelError::kBadCrc},
  {"tensor data bit", [](unsigned char* b) { b[200] ^= 0x40; }, false, ModelError::kBadCrc},
  {"padding byte", [](unsigned char* b) { b[300] = 1; }, false, ModelError::kBadCrc},
  {"op unfixed crc", [](unsigned char* b) { wr16(b + off::kOp, 1); }, false, ModelError::kBadCrc},
  {"op 0", [](unsigned char* b) { wr16(b + off::kOp, 0); }, true, ModelError::kBadOp},
  {"op 5", [](unsigned char* b) { wr16(b + off::kOp, 5); }, true, ModelError::kBadOp},
  {"op 0xFFFF", [](unsigned char* b) { wr16(b + off::kOp, 0xFFFF); }, true, ModelError::kBadOp},
  {"op mha (wrong kind)", [](unsigned char* b) { wr16(b + off::kOp, 1); }, true, ModelError::kBadParams},
  {"op bahdanau (wrong kind)", [](unsigned char* b) { wr16(b + off::kOp, 2); }, true, ModelError::kBadParams},
  {"dtype 0", [](unsigned char* b) { wr16(b + off::kDtype, 0); }, true, ModelError::kBadDtype},
  {"dtype 3", [](unsigned char* b) { wr16(b + off::kDtype, 3); }, true, ModelError::kBadDtype},
  {"dtype int8 (f32 tensors)", [](unsigned char* b) { wr16(b + off::kDtype, 2); }, true, ModelError::kBadTensorDtype},
  {"flags 1", [](unsigned char* b) { wr32(b + off::kFlags, 1); }, true, ModelError::kBadFlags},
  {"reserved byte", [](unsigned char* b) { b[off::kReserved + 5] = 7; }, true, ModelError::kBadFlags},
  {"name control char", [](unsigned char* b) { b[off::kName + 1] = 1; }, true, ModelError::kBadName},
  {"name after NUL", [](unsigned char* b) { b[off::kName + 10] = 'x'; }, true, ModelError::kBadName},
  {"param query_dim 0", [](unsigned char* b) { wr32(b + off::kParams, 0); }, true, ModelError::kBadParams},
  {"param query_dim -3", [](unsigned char* b) { wr32(b + off::kParams, 0xFFFFFFFDu); }, true, ModelError::kBadParams},
  {"param key_dim 2^21", [](unsigned char* b) { wr32(b + off::kParams + 4, 1u << 21); }, true, ModelError::kBadParams},
  {"unused param set", [](unsigned char* b) { wr32(b + off::kParams + 8, 1); }, true, ModelError::kBadParams},
  {"param query_dim 4", [](unsigned char* b) { wr32(b + off::kParams, 4); }, true, ModelError::kBadTensorShape},
  {"tensor_count 0", [](unsigned char* b) { wr32(b + off::kTensorCount, 0); }, true, ModelError::kBadTensorCount},
  {"tensor_count 33", [](unsigned char* b) { wr32(b + off::kTensorCount, 33); }, true, ModelError::kBadTensorCount},
  {"tensor_count 1 (b only)", [](unsigned char* b) {
     std::memcpy(b + kEntry0, b + kEntry1, 32); wr32(b + off::kTensorCount, 1); }, true, ModelError::kMissingTensor},
  {"table_offset 130", [](unsigned char* b) { wr32(b + off::kTableOffset, 130); }, true, ModelError::kBadTableOffset},
  {"table_offset 64 (in header)", [](unsigned char* b) { wr32(b + off::kTableOffset, 64); }, true, ModelError::kBadTableOffset},
  {"table_offset past end", [](unsigned char* b) { wr32(b + off::kTableOffset, 300); }, true, ModelError::kBadTableOffset},
  {"table_offset 2^32-16", [](unsigned char* b) { wr32(b + off::kTableOffset, 0xFFFFFFF0u); }, true, ModelError::kBadTableOffset},
  {"entry rank 0", [](unsigned char* b) { b[kEntry0 + off::kEntryRank] = 0; }, true, ModelError::kBadTensorEntry},
  {"entry rank 5", [](unsigned char* b) { b[kEntry0 + off::kEntryRank] = 5; }, true, ModelError::kBadTensorEntry},
  {"entry dtype 0", [](unsigned char* b) { b[kEntry0 + off::kEntryDtype] = 0; }, true, ModelError::kBadTensorEntry},
  {"entry dtype 9", [](unsigned char* b) { b[kEntry1 + off::kEntryDtype] = 9; }, true, ModelError::kBadTensorEntry},
  {"entry dim 0", [](unsigned char* b) { wr32(b + kEntry0 + off::kEntryDims, 0); }, true, ModelError::kBadTensorEntry},
  {"entry dim past rank", [](unsigned char* b) { wr32(b + kEntry0 + off::kEntryDims + 8, 1); }, true, ModelError::kBadTensorEntry},
  {"entry dim 2^32-1", [](unsigned char* b) { wr32(b + kEntry0 + off::kEntryDims, 0xFFFFFFFFu); }, true, ModelError::kBadTensorEntry},
  {"entry bytes + 4", [](unsigned char* b) { wr32(b + kEntry0 + off::kEntryBytes, 52); }, true, ModelError::kBadTensorEntry},
  {"entry reserved", [](unsigned char* b) { b[kEntry1 + off::kEntryReserved] = 1; }, true, ModelError::kBadTensorEntry},
  {"entry id 0", [](unsigned char* b) { wr16(b + kEntry0 + off::kEntryId, 0); }, true, ModelError::kUnknownTensor},
  {"entry id 999", [](unsigned char* b) { wr16(b + kEntry0 + off::kEntryId, 999); }, true, ModelError::kUnknownTensor},
  {"entry id of mha", [](unsigned char* b) { wr16(b + kEntry0 + off::kEntryId, 1); }, true, ModelError::kUnknownTensor},
  {"entry id int8 scale in f32", [](unsigned char* b) { wr16(b + kEntry1 + off::kEntryId, 30); }, true, ModelError::kUnknownTensor},
  {"entry id duplicate", [](unsigned char* b) { wr16(b + kEntry1 + off::kEntryId, 28); }, true, ModelError::kDuplicateTensor},
  {"entry dtype int32", [](unsigned char* b) { b[kEntry0 + off::kEntryDtype] = 3; }, true, ModelError::kBadTensorDtype},
  {"entry dtype int8", [](unsigned char* b) {
     b[kEntry0 + off::kEntryDtype] = 2; wr32(b + kEntry0 + off::kEntryBytes, 12); }, true, ModelError::kBadTensorDtype},
  {"entry dims swapped", [](unsigned char* b) {
     wr32(b + kEntry0 + off::kEntryDims, 3); wr32(b + kEntry0 + off::kEntryDims + 4, 4); }, true, ModelError::kBadTensorShape},
  {"entry rank 1 flat", [](unsigned char* b) {
     b[kEntry0 + off::kEntryRank] = 1; wr32(b + kEntry0 + off::kEntryDims, 12);
     wr32(b + kEntry0 + off::kEntryDims + 4, 0); }, true, ModelError::kBadTensorShape},
  {"offset + 4", [](unsigned char* b) { wr32(b + kEntry0 + off::kEntryOffset, 196); }, true, ModelError::kMisalignedTensor},
  {"offset + 32", [](unsigned char* b) { wr32(b + kEntry1 + off::kEntryOffset, 288); }, true, ModelError::kMisalignedTensor},
  {"offset in table", [](unsigned char* b) { wr32(b + kEntry0 + off::kEntryOffset, 128); }, true, ModelError::kTensorOutOfBounds},
  {"offset 0", [](unsigned char* b) { wr32(b + kEntry1 + off::kEntryOffset, 0); }, true, ModelError::kTensorOutOfBounds},
  {"offset at end", [](unsigned char* b) { wr32(b + kEntry1 + off::kEntryOffset, 320); }, true, ModelError::kTensorOutOfBounds},
  {"offset 2^32-64", [](unsigned char* b) { wr32(b + kEntry0 + off::kEntryOffset, 0xFFFFFFC0u); }, true, ModelError::kTensorOutOfBounds},
  {"tensor crosses end", [](unsigned char* b) { wr32(b + off::kTotalBytes, 260); }, true, ModelError::kTensorOutOfBounds},
  {"tensors overlap", [](unsigned char* b) { wr32(b + kEntry0 + off::kEntryOffset, 256); }, true, ModelError::kTensorOverlap},
  {"tensors overlap 2", [](unsigned char* b) { wr32(b + kEntry1 + off::kEntryOffset, 192); }, true, ModelError::kTensorOverlap},
  {"NaN weight", [](unsigned char* b) { wr32(b + 192 + 20, 0x7FC00000u); }, true, ModelError::kNonFiniteWeight},
  {"-inf last weight", [](unsigned char* b) { wr32(b + 192 + 44, 0xFF800000u); }, true, ModelError::kNonFiniteWeight},
  {"+inf bias", [](unsigned char* b) { wr32(b + 256 + 8, 0x7F800000u); }, true, ModelError::kNonFiniteWeight},
  {"signalling NaN bias", [](unsigned char* b) { wr32(b + 256, 0x7F800001u); }, true, ModelError::kNonFiniteWeight},
};
// clang-format on

}  // namespace

ATTN_CASE(Model, Crc32CheckValue) {
  // The standard check value of CRC-32/ISO-HDLC (zlib's crc32).
  ATTN_EXPECT_EQ_INT(attn::model_crc32(0, "123456789", 9), 0xCBF43926u);
  ATTN_EXPECT_EQ_INT(attn::model_crc32(attn::model_crc32(0, "1234", 4), "56789", 5), 0xCBF43926u);
  ATTN_EXPECT_EQ_INT(attn::model_crc32(0, "", 0), 0u);
}

ATTN_CASE(Model, GoodBlobLoads) {
  build_luong();
  ATTN_ASSERT_TRUE(g_good_size == 320);
  static attn::Model m;
  ModelError why = ModelError::kBadCrc;
  ATTN_ASSERT_TRUE(attn::model_load(g_good, g_good_size, &m, &why) == attn::Status::kOk);
  ATTN_EXPECT_EQ_INT(static_cast<int>(why), 0);
  ATTN_EXPECT_TRUE(m.op == ModelOp::kLuongGeneral && m.dtype == ModelDtype::kF32);
  ATTN_EXPECT_EQ_INT(m.tensor_count, 2);
  ATTN_EXPECT_EQ_INT(m.total_bytes, 320);
  ATTN_EXPECT_TRUE(std::strcmp(m.name, "test") == 0);
  // Zero-copy: the views point into the buffer.
  ATTN_EXPECT_TRUE(m.f32(TensorId::kLuongW) == static_cast<const void*>(g_good + 192));
  ATTN_EXPECT_TRUE(m.f32(TensorId::kLuongB) == static_cast<const void*>(g_good + 256));
  ATTN_EXPECT_TRUE(m.f32(TensorId::kMhaOutProjWeight) == nullptr);
  ATTN_EXPECT_EQ_INT(m.tensor(TensorId::kLuongW).dims[0], 4);
  ATTN_EXPECT_EQ_INT(m.tensor(TensorId::kLuongW).dims[1], 3);
  // A longer buffer (e.g. a flash sector) is fine.
  std::memcpy(g_work, g_good, g_good_size);
  std::memset(g_work + g_good_size, 0xA5, sizeof g_work - g_good_size);
  ATTN_EXPECT_TRUE(attn::model_load(g_work, sizeof g_work, &m) == attn::Status::kOk);
}

ATTN_CASE(Model, CorruptionsRejectedWithTheirReason) {
  build_luong();
  static attn::Model m;
  for (const Corruption& c : kCorruptions) {
    std::memcpy(g_work, g_good, g_good_size);
    c.mutate(g_work);
    if (c.fix_crc) fix_crc(g_work);
    ModelError why = ModelError::kNone;
    const attn::Status st = attn::model_load(g_work, g_good_size, &m, &why);
    ++ctx.checks;
    if (st != attn::Status::kBadModel || why != c.expected) {
      attn_test::fail(ctx, __FILE__, __LINE__, "%s: status %d, error %d (%s), expected %d (%s)",
                      c.what, static_cast<int>(st), static_cast<int>(why),
                      attn::model_error_str(why), static_cast<int>(c.expected),
                      attn::model_error_str(c.expected));
    }
    // A rejected load leaves nothing usable behind.
    ATTN_EXPECT_TRUE(m.op == ModelOp::kNone && m.base == nullptr &&
                     m.f32(TensorId::kLuongW) == nullptr);
  }
}

ATTN_CASE(Model, TruncationAtEveryLength) {
  build_luong();
  static attn::Model m;
  for (std::size_t n = 0; n < g_good_size; ++n) {
    ModelError why = ModelError::kNone;
    const attn::Status st = attn::model_load(g_good, n, &m, &why);
    const ModelError want = n < attn::kModelHeaderBytes ? ModelError::kTooSmall
                                                        : ModelError::kTruncated;
    ++ctx.checks;
    if (st != attn::Status::kBadModel || why != want) {
      attn_test::fail(ctx, __FILE__, __LINE__, "length %u: error %d (%s)", static_cast<unsigned>(n),
                      static_cast<int>(why), attn::model_error_str(why));
    }
  }
  // A file cut short and then padded by a loader to its full length still fails
  // (its CRC no longer matches).
  std::memcpy(g_work, g_good, g_good_size);
  std::memset(g_work + 200, 0, g_good_size - 200);
  ModelError why = ModelError::kNone;
  ATTN_EXPECT_TRUE(attn::model_load(g_work, g_good_size, &m, &why) == attn::Status::kBadModel);
  ATTN_EXPECT_TRUE(why == ModelError::kBadCrc);
}

ATTN_CASE(Model, NullAndMisalignedBuffers) {
  build_luong();
  static attn::Model m;
  ModelError why = ModelError::kNone;
  ATTN_EXPECT_TRUE(attn::model_load(nullptr, 320, &m, &why) == attn::Status::kNullPointer);
  ATTN_EXPECT_TRUE(why == ModelError::kNullArgument);
  ATTN_EXPECT_TRUE(attn::model_load(g_good, g_good_size, nullptr, &why) ==
                   attn::Status::kNullPointer);
  std::memcpy(g_work + 2, g_good, g_good_size);
  ATTN_EXPECT_TRUE(attn::model_load(g_work + 2, g_good_size, &m, &why) == attn::Status::kBadModel);
  ATTN_EXPECT_TRUE(why == ModelError::kMisalignedBuffer);
  // Every error has its own text.
  for (int i = 0; i <= static_cast<int>(ModelError::kNonFiniteWeight); ++i) {
    for (int j = 0; j < i; ++j) {
      ATTN_EXPECT_TRUE(std::strcmp(attn::model_error_str(static_cast<ModelError>(i)),
                                   attn::model_error_str(static_cast<ModelError>(j))) != 0);
    }
  }
}

ATTN_CASE(Model, LuongGeneralRunsLikeTheOp) {
  build_luong();
  static attn::Model m;
  ATTN_ASSERT_TRUE(attn::model_load(g_good, g_good_size, &m) == attn::Status::kOk);
  constexpr attn::LuongGeneralShape shape{2, 5, 3, 4};
  static attn::Workspace<attn::luong_general_f32_scratch_bytes(shape)> ws;
  ATTN_EXPECT_EQ_INT(attn::model_scratch_bytes(m, 2, 1, 5),
                     attn::luong_general_f32_scratch_bytes(shape));
  float query[2 * 3], keys[2 * 5 * 4], ctx_model[2 * 4], w_model[2 * 5], ctx_op[2 * 4], w_op[2 * 5];
  attn_test::Rng rng(7);
  for (float& x : query) x = rng.uniform(-1, 1);
  for (float& x : keys) x = rng.uniform(-1, 1);
  const int32_t lengths[2] = {5, 3};
  attn::LuongF32Args args;
  args.query = query;
  args.keys = keys;
  args.key_lengths = lengths;
  args.context = ctx_model;
  args.probs = w_model;
  ATTN_ASSERT_TRUE(attn::model_run_luong_general_f32(m, 2, 5, args, ws.scratch()) ==
                   attn::Status::kOk);
  args.context = ctx_op;
  args.probs = w_op;
  const attn::LuongGeneralF32Weights w{kLuongW, kLuongB};
  ATTN_ASSERT_TRUE(attn::luong_general_f32(shape, w, args, ws.scratch()) == attn::Status::kOk);
  ATTN_EXPECT_TRUE(std::memcmp(ctx_model, ctx_op, sizeof ctx_op) == 0);
  ATTN_EXPECT_TRUE(std::memcmp(w_model, w_op, sizeof w_op) == 0);
  // The wrong runner for this model.
  attn::MhaF32Args margs;
  ATTN_EXPECT_TRUE(attn::model_run_mha_f32(m, 1, 1, 1, margs, ws.scratch()) ==
                   attn::Status::kBadArgument);
  attn::BahdanauF32Args bargs;
  ATTN_EXPECT_TRUE(attn::model_run_bahdanau_f32(m, 1, 1, bargs, ws.scratch()) ==
                   attn::Status::kBadArgument);
  const attn::Model empty;
  ATTN_EXPECT_TRUE(attn::model_run_luong_general_f32(empty, 2, 5, args, ws.scratch()) ==
                   attn::Status::kBadArgument);
  ATTN_EXPECT_EQ_INT(attn::model_scratch_bytes(empty, 1, 1, 1), 0);
}

namespace {

// MHA, E = 8, H = 2; kdim 6 / vdim 5 for the separate-weights form.
constexpr int kE = 8;
constexpr int kKd = 6;
constexpr int kVd = 5;
float g_in_proj[3 * kE * kE];
float g_in_bias[3 * kE];
float g_qw[kE * kE];
float g_kw[kE * kKd];
float g_vw[kE * kVd];
float g_out_w[kE * kE];
float g_out_b[kE];
alignas(64) unsigned char g_mha[4096];

void fill_mha_weights() {
  attn_test::Rng rng(11);
  for (float& x : g_in_proj) x = rng.uniform(-0.5f, 0.5f);
  for (float& x : g_in_bias) x = rng.uniform(-0.1f, 0.1f);
  for (float& x : g_qw) x = rng.uniform(-0.5f, 0.5f);
  for (float& x : g_kw) x = rng.uniform(-0.5f, 0.5f);
  for (float& x : g_vw) x = rng.uniform(-0.5f, 0.5f);
  for (float& x : g_out_w) x = rng.uniform(-0.5f, 0.5f);
  for (float& x : g_out_b) x = rng.uniform(-0.1f, 0.1f);
}

}  // namespace

ATTN_CASE(Model, MhaPackedAndSeparateRunLikeTheOp) {
  fill_mha_weights();
  static attn::Model m;
  constexpr int kSq = 3, kSkv = 4;
  float q[kSq * kE], k[kSkv * kE], v[kSkv * kE], kx[kSkv * kKd], vx[kSkv * kVd];
  float out_model[kSq * kE], out_op[kSq * kE];
  attn_test::Rng rng(5);
  for (float& x : q) x = rng.uniform(-1, 1);
  for (float& x : k) x = rng.uniform(-1, 1);
  for (float& x : v) x = rng.uniform(-1, 1);
  for (float& x : kx) x = rng.uniform(-1, 1);
  for (float& x : vx) x = rng.uniform(-1, 1);
  static attn::Workspace<attn::mha_f32_scratch_bytes({1, kSq, kSkv, kE, 2, 0, 0})> ws;

  // Packed in_proj with biases, causal mask.
  {
    const int32_t params[8] = {kE, 2, kE, kE, 0, 0, 0, 0};
    const TensorSpec t[4] = {
        {TensorId::kMhaInProjWeight, TensorDtype::kF32, 2, {3 * kE, kE, 0, 0}, g_in_proj},
        {TensorId::kMhaInProjBias, TensorDtype::kF32, 1, {3 * kE, 0, 0, 0}, g_in_bias},
        {TensorId::kMhaOutProjWeight, TensorDtype::kF32, 2, {kE, kE, 0, 0}, g_out_w},
        {TensorId::kMhaOutProjBias, TensorDtype::kF32, 1, {kE, 0, 0, 0}, g_out_b}};
    const std::size_t n =
        build_blob(g_mha, sizeof g_mha, ModelOp::kMha, ModelDtype::kF32, params, t, 4);
    ATTN_ASSERT_TRUE(n > 0);
    ATTN_ASSERT_TRUE(attn::model_load(g_mha, n, &m) == attn::Status::kOk);
    ATTN_EXPECT_EQ_INT(attn::model_scratch_bytes(m, 1, kSq, kSkv),
                       attn::mha_f32_scratch_bytes({1, kSq, kSkv, kE, 2, 0, 0}));
    attn::MhaF32Args a;
    a.query = q;
    a.key = k;
    a.value = v;
    a.out = out_model;
    a.mask.causal = true;
    ATTN_ASSERT_TRUE(attn::model_run_mha_f32(m, 1, kSq, kSkv, a, ws.scratch()) ==
                     attn::Status::kOk);
    attn::MhaF32Weights w;
    w.in_proj_weight = g_in_proj;
    w.in_proj_bias = g_in_bias;
    w.out_proj_weight = g_out_w;
    w.out_proj_bias = g_out_b;
    a.out = out_op;
    ATTN_ASSERT_TRUE(attn::mha_f32({1, kSq, kSkv, kE, 2, 0, 0}, w, a, ws.scratch()) ==
                     attn::Status::kOk);
    ATTN_EXPECT_TRUE(std::memcmp(out_model, out_op, sizeof out_op) == 0);

    // kdim differing from E while in_proj_weight is packed.
    wr32(g_mha + off::kParams + 8, kKd);
    fix_crc(g_mha);
    ModelError why = ModelError::kNone;
    ATTN_EXPECT_TRUE(attn::model_load(g_mha, n, &m, &why) == attn::Status::kBadModel);
    ATTN_EXPECT_TRUE(why == ModelError::kBadTensorShape);
    // Heads not dividing E.
    wr32(g_mha + off::kParams + 8, kE);
    wr32(g_mha + off::kParams + 4, 3);
    fix_crc(g_mha);
    ATTN_EXPECT_TRUE(attn::model_load(g_mha, n, &m, &why) == attn::Status::kBadModel);
    ATTN_EXPECT_TRUE(why == ModelError::kBadParams);
  }

  // Separate q/k/v weights (kdim 6, vdim 5), no biases, key padding.
  {
    const int32_t params[8] = {kE, 2, kKd, kVd, 0, 0, 0, 0};
    const TensorSpec t[4] = {
        {TensorId::kMhaQProjWeight, TensorDtype::kF32, 2, {kE, kE, 0, 0}, g_qw},
        {TensorId::kMhaKProjWeight, TensorDtype::kF32, 2, {kE, kKd, 0, 0}, g_kw},
        {TensorId::kMhaVProjWeight, TensorDtype::kF32, 2, {kE, kVd, 0, 0}, g_vw},
        {TensorId::kMhaOutProjWeight, TensorDtype::kF32, 2, {kE, kE, 0, 0}, g_out_w}};
    const std::size_t n =
        build_blob(g_mha, sizeof g_mha, ModelOp::kMha, ModelDtype::kF32, params, t, 4);
    ATTN_ASSERT_TRUE(attn::model_load(g_mha, n, &m) == attn::Status::kOk);
    const attn::MhaShape shape{1, kSq, kSkv, kE, 2, kKd, kVd};
    static attn::Workspace<attn::mha_f32_scratch_bytes({1, kSq, kSkv, kE, 2, kKd, kVd})> ws2;
    const int32_t len[1] = {3};
    attn::MhaF32Args a;
    a.query = q;
    a.key = kx;
    a.value = vx;
    a.out = out_model;
    a.mask.key_lengths = len;
    ATTN_ASSERT_TRUE(attn::model_run_mha_f32(m, 1, kSq, kSkv, a, ws2.scratch()) ==
                     attn::Status::kOk);
    attn::MhaF32Weights w;
    w.q_proj_weight = g_qw;
    w.k_proj_weight = g_kw;
    w.v_proj_weight = g_vw;
    w.out_proj_weight = g_out_w;
    a.out = out_op;
    ATTN_ASSERT_TRUE(attn::mha_f32(shape, w, a, ws2.scratch()) == attn::Status::kOk);
    ATTN_EXPECT_TRUE(std::memcmp(out_model, out_op, sizeof out_op) == 0);

    // Only two of the three separate projections.
    ModelError why = ModelError::kNone;
    const std::size_t n2 =
        build_blob(g_mha, sizeof g_mha, ModelOp::kMha, ModelDtype::kF32, params, t + 1, 3);
    ATTN_EXPECT_TRUE(attn::model_load(g_mha, n2, &m, &why) == attn::Status::kBadModel);
    ATTN_EXPECT_TRUE(why == ModelError::kMissingTensor);
  }

  // Both packed and separate projections.
  {
    const int32_t params[8] = {kE, 2, kE, kE, 0, 0, 0, 0};
    const TensorSpec t[5] = {
        {TensorId::kMhaInProjWeight, TensorDtype::kF32, 2, {3 * kE, kE, 0, 0}, g_in_proj},
        {TensorId::kMhaQProjWeight, TensorDtype::kF32, 2, {kE, kE, 0, 0}, g_qw},
        {TensorId::kMhaKProjWeight, TensorDtype::kF32, 2, {kE, kE, 0, 0}, g_in_proj},
        {TensorId::kMhaVProjWeight, TensorDtype::kF32, 2, {kE, kE, 0, 0}, g_in_proj},
        {TensorId::kMhaOutProjWeight, TensorDtype::kF32, 2, {kE, kE, 0, 0}, g_out_w}};
    const std::size_t n =
        build_blob(g_mha, sizeof g_mha, ModelOp::kMha, ModelDtype::kF32, params, t, 5);
    ModelError why = ModelError::kNone;
    ATTN_EXPECT_TRUE(attn::model_load(g_mha, n, &m, &why) == attn::Status::kBadModel);
    ATTN_EXPECT_TRUE(why == ModelError::kMissingTensor);
  }
}

ATTN_CASE(Model, BahdanauRunsLikeTheOp) {
  constexpr int kQd = 3, kKd2 = 4, kU = 5, kSeq = 6;
  static float w1[kQd * kU], b1[kU], w2[kKd2 * kU], b2[kU], v[kU], bv[1] = {0.25f};
  attn_test::Rng rng(3);
  for (float& x : w1) x = rng.uniform(-1, 1);
  for (float& x : b1) x = rng.uniform(-1, 1);
  for (float& x : w2) x = rng.uniform(-1, 1);
  for (float& x : b2) x = rng.uniform(-1, 1);
  for (float& x : v) x = rng.uniform(-1, 1);
  const int32_t params[8] = {kQd, kKd2, kU, 0, 0, 0, 0, 0};
  const TensorSpec t[6] = {{TensorId::kBahdanauW1, TensorDtype::kF32, 2, {kQd, kU, 0, 0}, w1},
                           {TensorId::kBahdanauB1, TensorDtype::kF32, 1, {kU, 0, 0, 0}, b1},
                           {TensorId::kBahdanauW2, TensorDtype::kF32, 2, {kKd2, kU, 0, 0}, w2},
                           {TensorId::kBahdanauB2, TensorDtype::kF32, 1, {kU, 0, 0, 0}, b2},
                           {TensorId::kBahdanauV, TensorDtype::kF32, 1, {kU, 0, 0, 0}, v},
                           {TensorId::kBahdanauBv, TensorDtype::kF32, 1, {1, 0, 0, 0}, bv}};
  const std::size_t n =
      build_blob(g_mha, sizeof g_mha, ModelOp::kBahdanau, ModelDtype::kF32, params, t, 6);
  static attn::Model m;
  ATTN_ASSERT_TRUE(attn::model_load(g_mha, n, &m) == attn::Status::kOk);
  constexpr attn::BahdanauShape shape{1, kSeq, kQd, kKd2, kU};
  static attn::Workspace<attn::bahdanau_f32_scratch_bytes(shape)> ws;
  float q[kQd], keys[kSeq * kKd2], c1[kKd2], c2[kKd2], a1[kSeq], a2[kSeq];
  for (float& x : q) x = rng.uniform(-1, 1);
  for (float& x : keys) x = rng.uniform(-1, 1);
  attn::BahdanauF32Args a;
  a.query = q;
  a.keys = keys;
  a.context = c1;
  a.probs = a1;
  ATTN_ASSERT_TRUE(attn::model_run_bahdanau_f32(m, 1, kSeq, a, ws.scratch()) == attn::Status::kOk);
  const attn::BahdanauF32Weights w{w1, b1, w2, b2, v, 0.25f};
  a.context = c2;
  a.probs = a2;
  ATTN_ASSERT_TRUE(attn::bahdanau_f32(shape, w, a, ws.scratch()) == attn::Status::kOk);
  ATTN_EXPECT_TRUE(std::memcmp(c1, c2, sizeof c1) == 0);
  ATTN_EXPECT_TRUE(std::memcmp(a1, a2, sizeof a1) == 0);
}

ATTN_CASE(Model, Int8BlobValidatesQuantParams) {
  // Luong general int8: W int8 [3, 4] (TFLite [out, in]), W_scale [3], b int32 [3],
  // activations [6].
  static const int8_t w[12] = {12, -7, 127, 50, 3, -127, 0, 99, -60, 100, -80, 30};
  static const float w_scale[3] = {0.01f, 0.02f, 0.005f};
  static const int32_t b[3] = {100, -200, 300};
  static float act_scale[6] = {0.02f, 0.03f, 0.05f, 0.1f, 1.0f / 256, 0.03f};
  static int32_t act_zp[6] = {0, -3, 5, -10, -128, 2};
  const int32_t params[8] = {3, 4, 0, 0, 0, 0, 0, 0};
  const TensorSpec t[5] = {{TensorId::kLuongW, TensorDtype::kInt8, 2, {3, 4, 0, 0}, w},
                           {TensorId::kLuongWScale, TensorDtype::kF32, 1, {3, 0, 0, 0}, w_scale},
                           {TensorId::kLuongB, TensorDtype::kInt32, 1, {3, 0, 0, 0}, b},
                           {TensorId::kActScale, TensorDtype::kF32, 1, {6, 0, 0, 0}, act_scale},
                           {TensorId::kActZeroPoint, TensorDtype::kInt32, 1, {6, 0, 0, 0}, act_zp}};
  static attn::Model m;
  ModelError why = ModelError::kNone;
  std::size_t n =
      build_blob(g_mha, sizeof g_mha, ModelOp::kLuongGeneral, ModelDtype::kInt8, params, t, 5);
  ATTN_ASSERT_TRUE(attn::model_load(g_mha, n, &m, &why) == attn::Status::kOk);
  ATTN_EXPECT_TRUE(m.dtype == ModelDtype::kInt8);
  ATTN_EXPECT_TRUE(m.f32(TensorId::kLuongW) == nullptr);
  ATTN_EXPECT_TRUE(m.tensor(TensorId::kLuongW).data == static_cast<const void*>(g_mha + 320));
  // Running it waits for the int8 ops.
  static attn::Workspace<attn::luong_general_f32_scratch_bytes({1, 2, 3, 4})> ws;
  attn::LuongF32Args a;
  ATTN_EXPECT_TRUE(attn::model_run_luong_general_f32(m, 1, 2, a, ws.scratch()) ==
                   attn::Status::kUnsupported);

  const float bad_scales[] = {0.0f, -0.01f, std::numeric_limits<float>::infinity(),
                              std::numeric_limits<float>::quiet_NaN()};
  for (float s : bad_scales) {
    act_scale[2] = s;
    n = build_blob(g_mha, sizeof g_mha, ModelOp::kLuongGeneral, ModelDtype::kInt8, params, t, 5);
    ATTN_EXPECT_TRUE(attn::model_load(g_mha, n, &m, &why) == attn::Status::kBadModel);
    ATTN_EXPECT_TRUE(why == ModelError::kBadQuantParams);
  }
  act_scale[2] = 0.05f;
  const int32_t bad_zps[] = {128, -129, 1 << 30};
  for (int32_t z : bad_zps) {
    act_zp[4] = z;
    n = build_blob(g_mha, sizeof g_mha, ModelOp::kLuongGeneral, ModelDtype::kInt8, params, t, 5);
    ATTN_EXPECT_TRUE(attn::model_load(g_mha, n, &m, &why) == attn::Status::kBadModel);
    ATTN_EXPECT_TRUE(why == ModelError::kBadQuantParams);
  }
  act_zp[4] = -128;
  // Without the weight scales; without the activation table.
  const TensorSpec no_scale[4] = {t[0], t[2], t[3], t[4]};
  n = build_blob(g_mha, sizeof g_mha, ModelOp::kLuongGeneral, ModelDtype::kInt8, params, no_scale,
                 4);
  ATTN_EXPECT_TRUE(attn::model_load(g_mha, n, &m, &why) == attn::Status::kBadModel);
  ATTN_EXPECT_TRUE(why == ModelError::kMissingTensor);
  n = build_blob(g_mha, sizeof g_mha, ModelOp::kLuongGeneral, ModelDtype::kInt8, params, t, 3);
  ATTN_EXPECT_TRUE(attn::model_load(g_mha, n, &m, &why) == attn::Status::kBadModel);
  ATTN_EXPECT_TRUE(why == ModelError::kMissingTensor);
  // An f32 bias in an int8 model.
  const TensorSpec f32_bias[5] = {
      t[0], t[1], {TensorId::kLuongB, TensorDtype::kF32, 1, {3, 0, 0, 0}, b}, t[3], t[4]};
  n = build_blob(g_mha, sizeof g_mha, ModelOp::kLuongGeneral, ModelDtype::kInt8, params, f32_bias,
                 5);
  ATTN_EXPECT_TRUE(attn::model_load(g_mha, n, &m, &why) == attn::Status::kBadModel);
  ATTN_EXPECT_TRUE(why == ModelError::kBadTensorDtype);
}

// A header generated by tools/attn-convert (tests/model/gen_fixtures.py): the
// blob is loaded in place from read-only memory (flash on the boards) and its
// result compared with NumPy's float64 Luong general attention.
#include "../data/model/luong_case.h"
#include "../data/model/luong_model.h"

ATTN_CASE(Model, GeneratedHeaderRunsInPlace) {
  static attn::Model m;
  ModelError why = ModelError::kNone;
  ATTN_ASSERT_TRUE(attn::model_load(luong_model::kBlob, luong_model::kBlobBytes, &m, &why) ==
                   attn::Status::kOk);
  ATTN_EXPECT_TRUE(m.op == luong_model::kOp && m.dtype == luong_model::kDtype);
  ATTN_EXPECT_TRUE(m.f32(TensorId::kLuongW) ==
                   static_cast<const void*>(luong_model::kBlob + luong_model::kOffsetW));
  static_assert(luong_case::kSeq == luong_model::kSeq, "fixture and header disagree");
  // Scratch sized at compile time from the header's constexpr descriptor.
  static attn::Workspace<luong_model::kScratchBytes> ws;
  ATTN_EXPECT_EQ_INT(attn::model_scratch_bytes(m, 1, 1, luong_model::kSeq),
                     luong_model::kScratchBytes);
  constexpr int kB = luong_case::kBatch;
  constexpr int kD = luong_model::kKeyDim;
  constexpr int kT = luong_case::kSeq;
  static float context[kB * kD], weights[kB * kT];
  for (int b = 0; b < kB; ++b) {
    attn::LuongF32Args a;
    a.query = luong_case::kQuery + b * luong_model::kQueryDim;
    a.keys = luong_case::kKeys + b * kT * kD;
    a.context = context + b * kD;
    a.probs = weights + b * kT;
    ATTN_ASSERT_TRUE(attn::model_run_luong_general_f32(m, 1, kT, a, ws.scratch()) ==
                     attn::Status::kOk);
  }
  // float32 vs float64 NumPy: |context| <= ~3, scores up to ~10 in magnitude.
  for (int i = 0; i < kB * kD; ++i) ATTN_EXPECT_NEAR(context[i], luong_case::kContext[i], 3e-6);
  for (int i = 0; i < kB * kT; ++i) ATTN_EXPECT_NEAR(weights[i], luong_case::kWeights[i], 2e-6);
}
