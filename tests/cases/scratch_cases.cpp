// Scratch contracts of every float op (scratch.h): the documented size
// formulas; scratch of exactly *_scratch_bytes works at every one of the 64
// misalignments of its start, gives bit-identical results, and writes nothing
// outside [data, data + bytes) (guard bands before and after are checked);
// one byte less returns kScratchTooSmall and leaves the outputs untouched.
#include <cstring>
#include <initializer_list>

#include "attn/attn.h"
#include "case.h"

namespace {

using attn::f32_bytes;
using attn::Status;
using attn_test::Rng;

// Inputs shared by every op (odd shapes so every f32_bytes rounds up). They
// live in the case arena (set up by Buffers), not in .bss of their own.
constexpr std::size_t kIn = 1024, kOut = 256, kW = 4096, kMaskN = 1024;
float *g_x, *g_y, *g_z, *g_w1, *g_w2, *g_w3, *g_w4, *g_b;
float *g_keras, *g_additive;
uint8_t* g_boolean;
const int32_t g_lens[2] = {9, 70};
const int32_t g_short_lens[2] = {4, 9};
float *g_out, *g_weights, *g_want_out, *g_want_weights;

constexpr std::size_t kGuard = 64;
constexpr std::size_t kBlock = kGuard + 64 + 12 * 1024 + kGuard;
unsigned char* g_block;
constexpr unsigned char kFill = 0xA5;

// Carves and fills every buffer from the arena for the lifetime of a case.
struct Buffers {
  attn_test::Arena arena;
  Buffers() {
    for (float** p : {&g_x, &g_y, &g_z, &g_w1, &g_w2, &g_w3, &g_w4}) *p = arena.alloc<float>(kIn);
    g_b = arena.alloc<float>(kOut);
    g_keras = arena.alloc<float>(kMaskN);
    g_additive = arena.alloc<float>(kMaskN);
    g_boolean = arena.alloc<uint8_t>(kMaskN);
    g_out = arena.alloc<float>(kOut);
    g_want_out = arena.alloc<float>(kOut);
    g_weights = arena.alloc<float>(kW);
    g_want_weights = arena.alloc<float>(kW);
    g_block = static_cast<unsigned char*>(arena.bytes(kBlock));
    if (!arena.ok()) return;
    Rng rng(900);
    for (float* p : {g_x, g_y, g_z}) attn_test::fill_uniform(rng, p, kIn, -1, 1);
    for (float* p : {g_w1, g_w2, g_w3, g_w4}) attn_test::fill_uniform(rng, p, kIn, -0.5f, 0.5f);
    attn_test::fill_uniform(rng, g_b, kOut, -0.5f, 0.5f);
    attn_test::fill_uniform(rng, g_additive, kMaskN, -1, 0);
    for (std::size_t i = 0; i < kMaskN; ++i) {
      g_keras[i] = i % 7 == 0 ? 1.0f : 0.0f;
      g_boolean[i] = i % 5 == 0 ? 1 : 0;
    }
  }
};

// One op bound to fixed shapes and inputs, writing g_out / g_weights.
struct OpUnderTest {
  const char* name;
  std::size_t (*bytes)();
  Status (*call)(attn::Scratch);
  std::size_t n_out;
  std::size_t n_weights;
};

constexpr attn::SdpaShape kSdpa{2, 9, 70, 7, 5};
constexpr attn::MhaShape kMha{2, 9, 70, 6, 3, 5, 3};
constexpr attn::BahdanauShape kBahdanau{2, 70, 5, 7, 9};
constexpr attn::LuongDotShape kLuongDot{2, 70, 7};
constexpr attn::LuongGeneralShape kLuongGeneral{2, 70, 5, 7};
constexpr attn::GeneralAttentionShape kGeneral{2, 9, 5, 7, 3};

attn::Mask full_mask(std::size_t stride) {
  attn::Mask m;
  m.causal = true;
  m.key_lengths = g_lens;
  m.keras = g_keras;
  m.additive = g_additive;
  m.boolean = g_boolean;
  m.matrix_batch_stride = stride;
  return m;
}

const OpUnderTest kOps[] = {
    {"sdpa_f32", [] { return attn::sdpa_f32_scratch_bytes(kSdpa); },
     [](attn::Scratch s) {
       attn::SdpaF32Args a;
       a.q = g_x;
       a.k = g_y;
       a.v = g_z;
       a.out = g_out;
       a.probs = g_weights;
       a.mask = full_mask(0);
       return attn::sdpa_f32(kSdpa, a, s);
     },
     2 * 9 * 5, 2 * 9 * 70},
    {"mha_f32", [] { return attn::mha_f32_scratch_bytes(kMha); },
     [](attn::Scratch s) {
       attn::MhaF32Weights w;
       w.q_proj_weight = g_w1;
       w.k_proj_weight = g_w2;
       w.v_proj_weight = g_w3;
       w.in_proj_bias = g_b;
       w.out_proj_weight = g_w4;
       w.out_proj_bias = g_b;
       attn::MhaF32Args a;
       a.query = g_x;
       a.key = g_y;
       a.value = g_z;
       a.out = g_out;
       a.probs = g_weights;
       a.probs_mode = attn::MhaProbsMode::kPerHead;
       a.mask = full_mask(0);
       return attn::mha_f32(kMha, w, a, s);
     },
     2 * 9 * 6, 2 * 3 * 9 * 70},
    {"bahdanau_f32", [] { return attn::bahdanau_f32_scratch_bytes(kBahdanau); },
     [](attn::Scratch s) {
       attn::BahdanauF32Weights w;
       w.w1 = g_w1;
       w.b1 = g_b;
       w.w2 = g_w2;
       w.b2 = g_b + 16;
       w.v = g_w3;
       w.bv = 0.25f;
       attn::BahdanauF32Args a;
       a.query = g_x;
       a.keys = g_y;
       a.context = g_out;
       a.probs = g_weights;
       a.key_lengths = g_lens;
       return attn::bahdanau_f32(kBahdanau, w, a, s);
     },
     2 * 7, 2 * 70},
    {"luong_dot_f32", [] { return attn::luong_dot_f32_scratch_bytes(kLuongDot); },
     [](attn::Scratch s) {
       attn::LuongF32Args a;
       a.query = g_x;
       a.keys = g_y;
       a.context = g_out;
       a.probs = g_weights;
       a.key_lengths = g_lens;
       return attn::luong_dot_f32(kLuongDot, a, s);
     },
     2 * 7, 2 * 70},
    {"luong_general_f32", [] { return attn::luong_general_f32_scratch_bytes(kLuongGeneral); },
     [](attn::Scratch s) {
       attn::LuongF32Args a;
       a.query = g_x;
       a.keys = g_y;
       a.context = g_out;
       a.probs = g_weights;
       return attn::luong_general_f32(kLuongGeneral, {g_w1, g_b}, a, s);
     },
     2 * 7, 2 * 70},
    {"general_attention_f32", [] { return attn::general_attention_f32_scratch_bytes(kGeneral); },
     [](attn::Scratch s) {
       attn::GeneralAttentionF32Args a;
       a.x = g_x;
       a.out = g_out;
       a.probs = g_weights;
       a.mask = full_mask(81);
       a.mask.key_lengths = g_short_lens;
       return attn::general_attention_f32(kGeneral, {g_w1, g_w2, g_w3}, a, s);
     },
     2 * 9 * 3, 2 * 9 * 9},
};

float sentinel() { return attn_test::bits_float(0x7fb0b0b0u); }

void arm_outputs() {
  for (std::size_t i = 0; i < kOut; ++i) g_out[i] = sentinel();
  for (std::size_t i = 0; i < kW; ++i) g_weights[i] = sentinel();
}

}  // namespace

ATTN_CASE(Scratch, DocumentedFormulas) {
  // sdpa.h: 64 + align64(4*Tq*dk) + align64(4*Tq*Bk) + align64(4*Tq*dv) + 3*align64(4*Tq)
  // with Tq = kSdpaQueryTile, Bk = kSdpaKeyBlock; independent of the sequences.
  const auto tq = static_cast<std::size_t>(attn::kSdpaQueryTile);
  const auto bk = static_cast<std::size_t>(attn::kSdpaKeyBlock);
  ATTN_EXPECT_EQ_INT(
      attn::sdpa_f32_scratch_bytes(kSdpa),
      64 + f32_bytes(tq * 7) + f32_bytes(tq * bk) + f32_bytes(tq * 5) + 3 * f32_bytes(tq));
  ATTN_EXPECT_EQ_INT(attn::sdpa_f32_scratch_bytes({7, 4096, 3, 64, 64}),
                     attn::sdpa_f32_scratch_bytes({1, 1, 1, 64, 64}));
  ATTN_EXPECT_TRUE(attn::sdpa_f32_scratch_bytes({1, 4096, 4096, 64, 64}) < 64u * 1024u);
  // bahdanau.h: 64 + align64(4*units) + align64(4*Kt*units) + align64(4*Bk) + align64(4*key_dim)
  // with Kt = kBahdanauKeyTile (1 in ref builds, kSdpaQueryTile with a SIMD backend).
  const auto kt = static_cast<std::size_t>(attn::kBahdanauKeyTile);
  ATTN_EXPECT_TRUE(kt == (tq % 16 == 0 ? tq : 1));
  ATTN_EXPECT_EQ_INT(attn::bahdanau_f32_scratch_bytes(kBahdanau),
                     64 + f32_bytes(9) + f32_bytes(kt * 9) + f32_bytes(bk) + f32_bytes(7));
  ATTN_EXPECT_EQ_INT(attn::bahdanau_f32_scratch_bytes({1, 100000, 5, 7, 9}),
                     attn::bahdanau_f32_scratch_bytes(kBahdanau));
  // luong.h
  ATTN_EXPECT_EQ_INT(attn::luong_dot_f32_scratch_bytes(kLuongDot),
                     attn::sdpa_f32_scratch_bytes({1, 1, 70, 7, 7}));
  ATTN_EXPECT_EQ_INT(attn::luong_general_f32_scratch_bytes(kLuongGeneral),
                     attn::sdpa_f32_scratch_bytes({1, 1, 70, 7, 7}) + f32_bytes(7));
  // mha.h: 2*align64(4*sq*hd) + 2*align64(4*skv*hd) + sdpa({1, sq, skv, hd, hd})
  ATTN_EXPECT_EQ_INT(attn::mha_f32_scratch_bytes(kMha),
                     2 * f32_bytes(9 * 2) + 2 * f32_bytes(70 * 2) +
                         attn::sdpa_f32_scratch_bytes({1, 9, 70, 2, 2}));
  // general_attention.h: 2*align64(4*seq*dk) + align64(4*seq*dv) + sdpa({1, seq, seq, dk, dv})
  ATTN_EXPECT_EQ_INT(
      attn::general_attention_f32_scratch_bytes(kGeneral),
      2 * f32_bytes(9 * 7) + f32_bytes(9 * 3) + attn::sdpa_f32_scratch_bytes({1, 9, 9, 7, 3}));
  // The compile-time workspace is exactly the op's bytes, 64-byte aligned.
  using Ws = attn::Workspace<attn::sdpa_f32_scratch_bytes(kSdpa)>;
  ATTN_EXPECT_EQ_INT(sizeof(Ws), attn::sdpa_f32_scratch_bytes(kSdpa));
  ATTN_EXPECT_EQ_INT(alignof(Ws), 64);
  // Sizes of non-positive shapes are 0 (the op rejects them anyway).
  ATTN_EXPECT_EQ_INT(attn::sdpa_f32_scratch_bytes({1, 1, 1, 0, 4}), 0);
  ATTN_EXPECT_EQ_INT(attn::mha_f32_scratch_bytes({1, 1, 1, 6, 4, 0, 0}), 0);
}

ATTN_CASE(Scratch, ExactSizeAtEveryMisalignmentWithGuardBands) {
  Buffers buffers;
  ATTN_ASSERT_TRUE(buffers.arena.ok());
  for (const OpUnderTest& op : kOps) {
    const std::size_t need = op.bytes();
    ATTN_ASSERT_TRUE(need > 0 && kGuard + 63 + need + kGuard <= kBlock && op.n_out <= kOut &&
                     op.n_weights <= kW);
    // Reference run: 64-byte aligned scratch.
    arm_outputs();
    ATTN_EXPECT_STATUS(op.call({g_block + kGuard, need}), Status::kOk);
    std::memcpy(g_want_out, g_out, kOut * sizeof(float));
    std::memcpy(g_want_weights, g_weights, kW * sizeof(float));
    for (std::size_t off = 0; off < 64; ++off) {
      const int before = ctx.failures;
      std::memset(g_block, kFill, kBlock);
      unsigned char* data = g_block + kGuard + off;
      arm_outputs();
      ATTN_EXPECT_STATUS(op.call({data, need}), Status::kOk);
      ATTN_EXPECT_SAME_BITS("out", g_out, g_want_out, op.n_out);
      ATTN_EXPECT_SAME_BITS("weights", g_weights, g_want_weights, op.n_weights);
      ATTN_EXPECT_ALL_BYTES("guard before scratch", g_block, kFill, kGuard + off);
      ATTN_EXPECT_ALL_BYTES("guard after scratch", data + need, kFill,
                            kBlock - (kGuard + off + need));
      // One byte short: refused, nothing written.
      arm_outputs();
      ATTN_EXPECT_STATUS(op.call({data, need - 1}), Status::kScratchTooSmall);
      ATTN_EXPECT_ALL_BITS("out after kScratchTooSmall", g_out, sentinel(), op.n_out);
      ATTN_EXPECT_ALL_BITS("weights after kScratchTooSmall", g_weights, sentinel(), op.n_weights);
      if (ctx.failures != before) {
        attn_test::fail(ctx, __FILE__, __LINE__, "%s with scratch at offset %lu, %lu bytes",
                        op.name, static_cast<unsigned long>(off), static_cast<unsigned long>(need));
        return;
      }
    }
  }
}

ATTN_CASE(Scratch, LargerScratchGivesTheSameBits) {
  Buffers buffers;
  ATTN_ASSERT_TRUE(buffers.arena.ok());
  for (const OpUnderTest& op : kOps) {
    const std::size_t need = op.bytes();
    arm_outputs();
    ATTN_EXPECT_STATUS(op.call({g_block + kGuard, need}), Status::kOk);
    std::memcpy(g_want_out, g_out, kOut * sizeof(float));
    std::memcpy(g_want_weights, g_weights, kW * sizeof(float));
    arm_outputs();
    ATTN_EXPECT_STATUS(op.call({g_block + 3, kBlock - 3}), Status::kOk);
    ATTN_EXPECT_SAME_BITS(op.name, g_out, g_want_out, op.n_out);
    ATTN_EXPECT_SAME_BITS(op.name, g_weights, g_want_weights, op.n_weights);
  }
}

ATTN_CASE(Scratch, FormulasNeverWrap) {
  // Shapes whose scratch exceeds a 32-bit address space (each dimension within
  // the engine's limits, and the inputs of some of them small): every formula
  // gives either at least the bytes its own buffers need (computed here in
  // double) or SIZE_MAX ("cannot be provided"), never a wrapped small number.
  const std::size_t kMax = static_cast<std::size_t>(-1);
  const double tq = static_cast<double>(attn::kSdpaQueryTile);
  struct Check {
    const char* what;
    std::size_t bytes;
    double at_least;
  };
  const double big = 65536.0, huge = 1048576.0;
  const Check checks[] = {
      {"general_attention seq = dim_k = 65536",
       attn::general_attention_f32_scratch_bytes({1, 65536, 1, 65536, 1}), 8.0 * big * big},
      {"general_attention seq = dim_v = 2^20",
       attn::general_attention_f32_scratch_bytes({1, 1 << 20, 1, 1, 1 << 20}), 4.0 * huge * huge},
      {"mha seq_kv = 2^20, E = 65536, kdim = vdim = 1",
       attn::mha_f32_scratch_bytes({1, 1, 1 << 20, 65536, 1, 1, 1}), 8.0 * huge * big},
      {"mha seq_q = 2^20, E = 2^20", attn::mha_f32_scratch_bytes({1, 1 << 20, 1, 1 << 20, 1, 0, 0}),
       8.0 * huge * huge},
      {"sdpa dim_k = dim_v = 2^20", attn::sdpa_f32_scratch_bytes({1, 1, 1, 1 << 20, 1 << 20}),
       8.0 * tq * huge},
      {"bahdanau units = key_dim = 2^20",
       attn::bahdanau_f32_scratch_bytes({1, 1, 1, 1 << 20, 1 << 20}), 12.0 * huge},
      {"luong_general key_dim = 2^20", attn::luong_general_f32_scratch_bytes({1, 1, 1, 1 << 20}),
       4.0 * huge},
  };
  for (const Check& c : checks) {
    ++ctx.checks;
    if (c.bytes != kMax && static_cast<double>(c.bytes) < c.at_least) {
      attn_test::fail(ctx, __FILE__, __LINE__, "%s: scratch formula gives %lu bytes, needs %.3g",
                      c.what, static_cast<unsigned long>(c.bytes), c.at_least);
    }
  }
}
