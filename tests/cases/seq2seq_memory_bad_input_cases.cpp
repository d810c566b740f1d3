// Bad arguments of the prepared-memory ops (bahdanau_f32/s8 and Luong general
// f32/s8 memory and step): starting from a valid call, each row breaks one
// thing the header documents and expects its status, and that nothing was
// written (the memory, context and weights keep a sentinel). Small static
// buffers: the file runs on every board.
#include <cstring>
#include <limits>

#include "attn/bahdanau.h"
#include "attn/bahdanau_s8.h"
#include "attn/luong.h"
#include "attn/luong_s8.h"
#include "case.h"

namespace {

using attn::Status;

// batch 2, seq 5, query_dim 3, key_dim 4, units 6
constexpr attn::BahdanauShape kB{2, 5, 3, 4, 6};
constexpr attn::LuongGeneralShape kL{2, 5, 3, 4};
constexpr unsigned char kSentinel = 0x5a;

// Inputs (zeros: every row fails before reading them; const, so in flash).
const float g_query[2 * 3] = {}, g_keys[2 * 5 * 4] = {}, g_w1[3 * 6] = {}, g_w2[4 * 6] = {},
                        g_v[6] = {}, g_wl[4 * 3] = {};
float g_memory[2 * 5 * 6], g_context[2 * 4], g_weights[2 * 5];
const int8_t g_query8[2 * 3] = {}, g_keys8[2 * 5 * 4] = {}, g_w8[6 * 4] = {}, g_v8[6] = {};
int8_t g_memory8[2 * 5 * 6], g_context8[2 * 4], g_weights8[2 * 5];
const float g_scales[6] = {0.01f, 0.012f, 0.009f, 0.011f, 0.01f, 0.013f};
int32_t g_bad_lengths[2] = {5, 6};
attn::QuantizedMultiplier g_storage[2 * 6 + 1];
constexpr std::size_t max_bytes(std::size_t a, std::size_t b) { return a > b ? a : b; }
constexpr std::size_t kScratchBytes = max_bytes(
    max_bytes(attn::bahdanau_f32_scratch_bytes(kB), attn::luong_general_f32_step_scratch_bytes(kL)),
    max_bytes(attn::bahdanau_s8_scratch_bytes(kB), attn::luong_general_s8_step_scratch_bytes(kL)));
// Scratch and int8 params from the test arena (set by each case).
unsigned char* g_scratch = nullptr;

void fill_sentinels() {
  std::memset(g_memory, kSentinel, sizeof g_memory);
  std::memset(g_context, kSentinel, sizeof g_context);
  std::memset(g_weights, kSentinel, sizeof g_weights);
  std::memset(g_memory8, kSentinel, sizeof g_memory8);
  std::memset(g_context8, kSentinel, sizeof g_context8);
  std::memset(g_weights8, kSentinel, sizeof g_weights8);
}

bool untouched() {
  const auto clean = [](const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) {
      if (b[i] != kSentinel) return false;
    }
    return true;
  };
  return clean(g_memory, sizeof g_memory) && clean(g_context, sizeof g_context) &&
         clean(g_weights, sizeof g_weights) && clean(g_memory8, sizeof g_memory8) &&
         clean(g_context8, sizeof g_context8) && clean(g_weights8, sizeof g_weights8);
}

// One row: the call's status, and the outputs still hold the sentinel.
#define EXPECT_REJECTED(call, expected) \
  do {                                  \
    fill_sentinels();                   \
    ATTN_EXPECT_STATUS(call, expected); \
    ATTN_EXPECT_TRUE(untouched());      \
  } while (0)

attn::Scratch scratch(std::size_t bytes) { return {g_scratch, bytes}; }

attn::BahdanauF32Weights bahdanau_weights() {
  attn::BahdanauF32Weights w;
  w.w1 = g_w1;
  w.w2 = g_w2;
  w.v = g_v;
  return w;
}

template <class Args, class Ctx>
Args seq2seq_args(const void* query, const void* keys, Ctx* context, Ctx* weights) {
  Args a;
  a.query = static_cast<decltype(a.query)>(query);
  a.keys = static_cast<decltype(a.keys)>(keys);
  a.context = context;
  a.probs = weights;
  return a;
}

}  // namespace

ATTN_CASE(Seq2SeqMemoryBadInput, BahdanauF32) {
  attn_test::Arena arena;
  g_scratch = static_cast<unsigned char*>(arena.bytes(kScratchBytes));
  ATTN_ASSERT_TRUE(arena.ok());
  const attn::BahdanauF32Weights w = bahdanau_weights();
  const std::size_t mem = attn::bahdanau_f32_memory_bytes(kB);
  ATTN_ASSERT_TRUE(mem == sizeof g_memory);
  EXPECT_REJECTED(attn::bahdanau_f32_memory(kB, w, nullptr, g_memory, mem), Status::kNullPointer);
  EXPECT_REJECTED(attn::bahdanau_f32_memory(kB, w, g_keys, nullptr, mem), Status::kNullPointer);
  attn::BahdanauF32Weights no_w2 = w;
  no_w2.w2 = nullptr;
  EXPECT_REJECTED(attn::bahdanau_f32_memory(kB, no_w2, g_keys, g_memory, mem),
                  Status::kNullPointer);
  EXPECT_REJECTED(attn::bahdanau_f32_memory({2, 0, 3, 4, 6}, w, g_keys, g_memory, mem),
                  Status::kBadShape);
  EXPECT_REJECTED(attn::bahdanau_f32_memory({2, 5, 3, 4, -1}, w, g_keys, g_memory, mem),
                  Status::kBadShape);
  EXPECT_REJECTED(attn::bahdanau_f32_memory(kB, w, g_keys, g_memory, mem - 1),
                  Status::kScratchTooSmall);

  const std::size_t need = attn::bahdanau_f32_scratch_bytes(kB);
  ATTN_ASSERT_TRUE(need <= kScratchBytes);
  const auto args = seq2seq_args<attn::BahdanauF32Args>(g_query, g_keys, g_context, g_weights);
  const auto step = [&](const attn::BahdanauShape& s, const attn::BahdanauF32Weights& ww,
                        const attn::BahdanauF32Args& a, const float* memory, std::size_t bytes,
                        std::size_t scratch_bytes) {
    return attn::bahdanau_f32_step(s, ww, a, memory, bytes, scratch(scratch_bytes));
  };
  attn::BahdanauF32Args a = args;
  a.query = nullptr;
  EXPECT_REJECTED(step(kB, w, a, g_memory, mem, need), Status::kNullPointer);
  a = args;
  a.keys = nullptr;
  EXPECT_REJECTED(step(kB, w, a, g_memory, mem, need), Status::kNullPointer);
  a = args;
  a.context = nullptr;
  a.probs = nullptr;
  EXPECT_REJECTED(step(kB, w, a, g_memory, mem, need), Status::kNullPointer);
  EXPECT_REJECTED(step(kB, w, args, nullptr, mem, need), Status::kNullPointer);
  attn::BahdanauF32Weights bad = w;
  bad.w1 = nullptr;
  EXPECT_REJECTED(step(kB, bad, args, g_memory, mem, need), Status::kNullPointer);
  bad = w;
  bad.v = nullptr;
  EXPECT_REJECTED(step(kB, bad, args, g_memory, mem, need), Status::kNullPointer);
  EXPECT_REJECTED(step({0, 5, 3, 4, 6}, w, args, g_memory, mem, need), Status::kBadShape);
  EXPECT_REJECTED(
      step({2, 5, 3, std::numeric_limits<int32_t>::min(), 6}, w, args, g_memory, mem, need),
      Status::kBadShape);
  bad = w;
  bad.bv = std::numeric_limits<float>::quiet_NaN();
  EXPECT_REJECTED(step(kB, bad, args, g_memory, mem, need), Status::kBadArgument);
  a = args;
  a.key_lengths = g_bad_lengths;
  EXPECT_REJECTED(step(kB, w, a, g_memory, mem, need), Status::kBadArgument);
  EXPECT_REJECTED(step(kB, w, args, g_memory, mem, need - 1), Status::kScratchTooSmall);
  EXPECT_REJECTED(step(kB, w, args, g_memory, mem - 1, need), Status::kScratchTooSmall);
}

ATTN_CASE(Seq2SeqMemoryBadInput, LuongGeneralF32) {
  attn_test::Arena arena;
  g_scratch = static_cast<unsigned char*>(arena.bytes(kScratchBytes));
  ATTN_ASSERT_TRUE(arena.ok());
  const attn::LuongGeneralF32Weights w{g_wl, nullptr};
  const std::size_t mem = attn::luong_general_f32_memory_bytes(kL);
  ATTN_ASSERT_TRUE(mem <= sizeof g_memory);
  EXPECT_REJECTED(attn::luong_general_f32_memory(kL, w, nullptr, g_memory, mem),
                  Status::kNullPointer);
  EXPECT_REJECTED(attn::luong_general_f32_memory(kL, w, g_keys, nullptr, mem),
                  Status::kNullPointer);
  EXPECT_REJECTED(attn::luong_general_f32_memory(kL, {nullptr, nullptr}, g_keys, g_memory, mem),
                  Status::kNullPointer);
  EXPECT_REJECTED(attn::luong_general_f32_memory({2, 5, 0, 4}, w, g_keys, g_memory, mem),
                  Status::kBadShape);
  EXPECT_REJECTED(attn::luong_general_f32_memory(kL, w, g_keys, g_memory, mem - 1),
                  Status::kScratchTooSmall);

  const std::size_t need = attn::luong_general_f32_step_scratch_bytes(kL);
  ATTN_ASSERT_TRUE(need <= kScratchBytes);
  const auto args = seq2seq_args<attn::LuongF32Args>(g_query, g_keys, g_context, g_weights);
  attn::LuongF32Args a = args;
  a.query = nullptr;
  EXPECT_REJECTED(attn::luong_general_f32_step(kL, a, g_memory, mem, scratch(need)),
                  Status::kNullPointer);
  a = args;
  a.keys = nullptr;
  EXPECT_REJECTED(attn::luong_general_f32_step(kL, a, g_memory, mem, scratch(need)),
                  Status::kNullPointer);
  a = args;
  a.context = nullptr;
  EXPECT_REJECTED(attn::luong_general_f32_step(kL, a, g_memory, mem, scratch(need)),
                  Status::kNullPointer);
  EXPECT_REJECTED(attn::luong_general_f32_step(kL, args, nullptr, mem, scratch(need)),
                  Status::kNullPointer);
  EXPECT_REJECTED(attn::luong_general_f32_step({2, -5, 3, 4}, args, g_memory, mem, scratch(need)),
                  Status::kBadShape);
  a = args;
  a.key_lengths = g_bad_lengths;
  EXPECT_REJECTED(attn::luong_general_f32_step(kL, a, g_memory, mem, scratch(need)),
                  Status::kBadArgument);
  EXPECT_REJECTED(attn::luong_general_f32_step(kL, args, g_memory, mem, scratch(need - 1)),
                  Status::kScratchTooSmall);
  EXPECT_REJECTED(attn::luong_general_f32_step(kL, args, g_memory, mem - 1, scratch(need)),
                  Status::kScratchTooSmall);
}

ATTN_CASE(Seq2SeqMemoryBadInput, BahdanauS8) {
  attn_test::Arena arena;
  g_scratch = static_cast<unsigned char*>(arena.bytes(kScratchBytes));
  auto* bahdanau = arena.alloc<attn::BahdanauS8Params>(1);
  ATTN_ASSERT_TRUE(arena.ok());
  attn::BahdanauS8Params& g_bahdanau = *bahdanau;
  attn::BahdanauS8Quant q;
  q.query = q.keys = q.query_proj = q.keys_proj = q.sum = q.scores = q.context = {0.02f, 0};
  const attn::BahdanauS8Weights w{
      {g_w8, g_scales, nullptr}, {g_w8, g_scales, nullptr}, {g_v8, g_scales, nullptr}};
  ATTN_ASSERT_TRUE(attn::bahdanau_s8_prepare(kB, q, w, g_storage, &g_bahdanau) == Status::kOk);
  const std::size_t mem = attn::bahdanau_s8_memory_bytes(kB);
  ATTN_ASSERT_TRUE(mem == sizeof g_memory8);
  EXPECT_REJECTED(attn::bahdanau_s8_memory(g_bahdanau, nullptr, g_memory8, mem),
                  Status::kNullPointer);
  EXPECT_REJECTED(attn::bahdanau_s8_memory(g_bahdanau, g_keys8, nullptr, mem),
                  Status::kNullPointer);
  EXPECT_REJECTED(attn::bahdanau_s8_memory(attn::BahdanauS8Params{}, g_keys8, g_memory8, mem),
                  Status::kBadShape);
  EXPECT_REJECTED(attn::bahdanau_s8_memory(g_bahdanau, g_keys8, g_memory8, mem - 1),
                  Status::kScratchTooSmall);

  const std::size_t need = attn::bahdanau_s8_scratch_bytes(kB);
  ATTN_ASSERT_TRUE(need <= kScratchBytes);
  const auto args = seq2seq_args<attn::BahdanauS8Args>(g_query8, g_keys8, g_context8, g_weights8);
  attn::BahdanauS8Args a = args;
  a.query = nullptr;
  EXPECT_REJECTED(attn::bahdanau_s8_step(g_bahdanau, a, g_memory8, mem, scratch(need)),
                  Status::kNullPointer);
  a = args;
  a.keys = nullptr;
  EXPECT_REJECTED(attn::bahdanau_s8_step(g_bahdanau, a, g_memory8, mem, scratch(need)),
                  Status::kNullPointer);
  a = args;
  a.context = nullptr;
  EXPECT_REJECTED(attn::bahdanau_s8_step(g_bahdanau, a, g_memory8, mem, scratch(need)),
                  Status::kNullPointer);
  EXPECT_REJECTED(attn::bahdanau_s8_step(g_bahdanau, args, nullptr, mem, scratch(need)),
                  Status::kNullPointer);
  a = args;
  a.key_lengths = g_bad_lengths;
  EXPECT_REJECTED(attn::bahdanau_s8_step(g_bahdanau, a, g_memory8, mem, scratch(need)),
                  Status::kBadArgument);
  EXPECT_REJECTED(attn::bahdanau_s8_step(g_bahdanau, args, g_memory8, mem, scratch(need - 1)),
                  Status::kScratchTooSmall);
  EXPECT_REJECTED(attn::bahdanau_s8_step(g_bahdanau, args, g_memory8, mem - 1, scratch(need)),
                  Status::kScratchTooSmall);
}

ATTN_CASE(Seq2SeqMemoryBadInput, LuongGeneralS8) {
  attn_test::Arena arena;
  g_scratch = static_cast<unsigned char*>(arena.bytes(kScratchBytes));
  auto* luong = arena.alloc<attn::LuongS8Params>(2);
  ATTN_ASSERT_TRUE(arena.ok());
  attn::LuongS8Params& g_luong = luong[0];
  attn::LuongS8Params& g_luong_dot = luong[1];
  attn::LuongS8Quant q;
  q.query = q.keys = q.keys_proj = q.scores = q.context = {0.02f, 0};
  ATTN_ASSERT_TRUE(attn::luong_general_s8_prepare(kL, q, {g_w8, g_scales, nullptr}, g_storage,
                                                  &g_luong) == Status::kOk);
  ATTN_ASSERT_TRUE(attn::luong_dot_s8_prepare({2, 5, 4}, q, &g_luong_dot) == Status::kOk);
  const std::size_t mem = attn::luong_general_s8_memory_bytes(kL);
  ATTN_ASSERT_TRUE(mem <= sizeof g_memory8);
  EXPECT_REJECTED(attn::luong_general_s8_memory(g_luong, nullptr, g_memory8, mem),
                  Status::kNullPointer);
  EXPECT_REJECTED(attn::luong_general_s8_memory(g_luong, g_keys8, nullptr, mem),
                  Status::kNullPointer);
  EXPECT_REJECTED(attn::luong_general_s8_memory(g_luong_dot, g_keys8, g_memory8, mem),
                  Status::kBadArgument);
  attn::LuongS8Params unprepared;
  unprepared.general = true;
  EXPECT_REJECTED(attn::luong_general_s8_memory(unprepared, g_keys8, g_memory8, mem),
                  Status::kBadShape);
  EXPECT_REJECTED(attn::luong_general_s8_memory(g_luong, g_keys8, g_memory8, mem - 1),
                  Status::kScratchTooSmall);

  const std::size_t need = attn::luong_general_s8_step_scratch_bytes(kL);
  ATTN_ASSERT_TRUE(need <= kScratchBytes);
  const auto args = seq2seq_args<attn::LuongS8Args>(g_query8, g_keys8, g_context8, g_weights8);
  attn::LuongS8Args a = args;
  a.query = nullptr;
  EXPECT_REJECTED(attn::luong_general_s8_step(g_luong, a, g_memory8, mem, scratch(need)),
                  Status::kNullPointer);
  a = args;
  a.keys = nullptr;
  EXPECT_REJECTED(attn::luong_general_s8_step(g_luong, a, g_memory8, mem, scratch(need)),
                  Status::kNullPointer);
  a = args;
  a.context = nullptr;
  EXPECT_REJECTED(attn::luong_general_s8_step(g_luong, a, g_memory8, mem, scratch(need)),
                  Status::kNullPointer);
  EXPECT_REJECTED(attn::luong_general_s8_step(g_luong, args, nullptr, mem, scratch(need)),
                  Status::kNullPointer);
  EXPECT_REJECTED(attn::luong_general_s8_step(g_luong_dot, args, g_memory8, mem, scratch(need)),
                  Status::kBadArgument);
  a = args;
  a.key_lengths = g_bad_lengths;
  EXPECT_REJECTED(attn::luong_general_s8_step(g_luong, a, g_memory8, mem, scratch(need)),
                  Status::kBadArgument);
  EXPECT_REJECTED(attn::luong_general_s8_step(g_luong, args, g_memory8, mem, scratch(need - 1)),
                  Status::kScratchTooSmall);
  EXPECT_REJECTED(attn::luong_general_s8_step(g_luong, args, g_memory8, mem - 1, scratch(need)),
                  Status::kScratchTooSmall);
}
