// alloc_ops.h: the inputs, the model blobs and the float ops.
#include "alloc_ops.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

#include "attn/attn.h"

namespace alloc_ops {

namespace {

// Uniform in [-0.5, 0.5) from a linear congruential generator.
void fill(std::vector<float>* v, uint32_t* s) {
  for (float& x : *v) {
    *s = *s * 1664525u + 1013904223u;
    x = static_cast<float>(*s >> 8) / 16777216.0f - 0.5f;
  }
}

void fill(std::vector<int8_t>* v, uint32_t* s) {
  for (int8_t& x : *v) {
    *s = *s * 1664525u + 1013904223u;
    x = static_cast<int8_t>(static_cast<int32_t>(*s >> 24) - 128);
  }
}

bool read_blob(const std::string& path, Blobs::Blob* b) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  const std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(f)),
                                         std::istreambuf_iterator<char>());
  b->storage.assign(bytes.size() + 64, 0);
  const auto addr = reinterpret_cast<std::uintptr_t>(b->storage.data());
  unsigned char* p = b->storage.data() + (64 - addr % 64) % 64;
  std::memcpy(p, bytes.data(), bytes.size());
  b->data = p;
  b->size = bytes.size();
  return !bytes.empty();
}

}  // namespace

Inputs::Inputs()
    : a(kN),
      b(kN),
      c(kN),
      w1(kN),
      w2(kN),
      w3(kN),
      w4(kN),
      bias(kN),
      out(kN),
      weights(kN),
      qa(kN),
      qb(kN),
      qc(kN),
      qw1(kN),
      qw2(kN),
      qw3(kN),
      qw4(kN),
      qbias(kN),
      channel_scales(kN),
      qout(kN),
      qweights(kN),
      channels(kN),
      keras(kN, 0.0f),
      additive(kN, 0.0f),
      boolean(kN, 0),
      scratch(1 << 20) {
  uint32_t s = 12345;
  for (std::vector<float>* v : {&a, &b, &c, &w1, &w2, &w3, &w4, &bias}) fill(v, &s);
  for (std::vector<int8_t>* v : {&qa, &qb, &qc, &qw1, &qw2, &qw3, &qw4}) fill(v, &s);
  for (std::size_t i = 0; i < kN; ++i) {
    qbias[i] = static_cast<int32_t>(i % 200) - 100;
    channel_scales[i] = 0.002f + 0.0001f * static_cast<float>(i % 7);
  }
  keras[3] = 1.0f;
  additive[5] = -std::numeric_limits<float>::infinity();
  boolean[7] = 1;
}

bool Blobs::read(const std::string& dir) {
  const struct {
    const char* file;
    Blob* blob;
  } files[] = {{"mha.attn", &mha},
               {"bahdanau.attn", &bahdanau},
               {"luong.attn", &luong},
               {"mha_int8.attn", &mha_s8},
               {"bahdanau_int8.attn", &bahdanau_s8},
               {"luong_int8.attn", &luong_s8}};
  for (const auto& f : files) {
    if (!read_blob(dir + "/" + f.file, f.blob)) {
      missing = dir + "/" + f.file;
      return false;
    }
  }
  corrupt.assign(mha.data, mha.data + mha.size);
  corrupt[mha.size - 1] ^= 0x5a;  // CRC mismatch
  return true;
}

void float_ops(Inputs& in, Results* r) {
  const attn::Scratch s{in.scratch.data() + 1, in.scratch.size() - 1};
  attn::Mask mask;
  mask.causal = true;
  mask.key_lengths = in.lens;
  mask.keras = in.keras.data();
  mask.additive = in.additive.data();
  mask.boolean = in.boolean.data();
  mask.matrix_batch_stride = 12;  // [2, 3, 4] matrices
  {
    attn::SdpaF32Args a;
    a.q = in.a.data();
    a.k = in.b.data();
    a.v = in.c.data();
    a.out = in.out.data();
    a.probs = in.weights.data();
    a.mask = mask;
    r->add("sdpa_f32", attn::sdpa_f32({2, 3, 4, 5, 6}, a, s));
    a.mask = attn::Mask{};
    a.probs = nullptr;
    r->add("sdpa_f32 (decode, long)", attn::sdpa_f32({1, 1, 300, 64, 8}, a, s));
    r->add("sdpa_f32 (tiles)", attn::sdpa_f32({1, 40, 50, 16, 16}, a, s));
  }
  for (int mode = 0; mode < 2; ++mode) {
    for (int packed = 0; packed < 2; ++packed) {
      attn::MhaF32Weights w;
      attn::MhaShape shape{2, 3, 4, 8, 2, 0, 0};
      if (packed != 0) {
        w.in_proj_weight = in.w1.data();
      } else {
        shape.kdim = 5;
        shape.vdim = 3;
        w.q_proj_weight = in.w1.data();
        w.k_proj_weight = in.w2.data();
        w.v_proj_weight = in.w3.data();
      }
      w.in_proj_bias = in.bias.data();
      w.out_proj_weight = in.w4.data();
      w.out_proj_bias = in.bias.data();
      attn::MhaF32Args a;
      a.query = in.a.data();
      a.key = in.b.data();
      a.value = in.c.data();
      a.out = in.out.data();
      a.probs = in.weights.data();
      a.probs_mode = mode == 0 ? attn::MhaProbsMode::kAveraged : attn::MhaProbsMode::kPerHead;
      a.mask = mask;
      r->add("mha_f32", attn::mha_f32(shape, w, a, s));
    }
  }
  {
    attn::BahdanauF32Weights w;
    w.w1 = in.w1.data();
    w.b1 = in.bias.data();
    w.w2 = in.w2.data();
    w.b2 = in.bias.data();
    w.v = in.w3.data();
    w.bv = 0.5f;
    attn::BahdanauF32Args a;
    a.query = in.a.data();
    a.keys = in.b.data();
    a.context = in.out.data();
    a.probs = in.weights.data();
    a.key_lengths = in.lens;
    r->add("bahdanau_f32", attn::bahdanau_f32({2, 70, 5, 6, 7}, w, a, s));
    // Prepared encoder memory (in w4, unused by these ops).
    const attn::BahdanauShape shape{2, 70, 5, 6, 7};
    const std::size_t memory_bytes = attn::bahdanau_f32_memory_bytes(shape);
    r->add("bahdanau_f32_memory",
           attn::bahdanau_f32_memory(shape, w, a.keys, in.w4.data(), memory_bytes));
    r->add("bahdanau_f32_step",
           attn::bahdanau_f32_step(shape, w, a, in.w4.data(), memory_bytes, s));
  }
  {
    attn::LuongF32Args a;
    a.query = in.a.data();
    a.keys = in.b.data();
    a.context = in.out.data();
    a.probs = in.weights.data();
    a.key_lengths = in.lens;
    r->add("luong_dot_f32", attn::luong_dot_f32({2, 70, 6}, a, s));
    r->add("luong_general_f32",
           attn::luong_general_f32({2, 70, 5, 6}, {in.w1.data(), in.bias.data()}, a, s));
    const attn::LuongGeneralShape shape{2, 70, 5, 6};
    const std::size_t memory_bytes = attn::luong_general_f32_memory_bytes(shape);
    r->add("luong_general_f32_memory",
           attn::luong_general_f32_memory(shape, {in.w1.data(), in.bias.data()}, a.keys,
                                          in.w4.data(), memory_bytes));
    r->add("luong_general_f32_step",
           attn::luong_general_f32_step(shape, a, in.w4.data(), memory_bytes, s));
  }
  {
    attn::GeneralAttentionF32Args a;
    a.x = in.a.data();
    a.out = in.out.data();
    a.probs = in.weights.data();
    a.mask = mask;
    a.mask.matrix_batch_stride = 16;  // [2, 4, 4]
    r->add("general_attention_f32",
           attn::general_attention_f32({2, 4, 3, 5, 6}, {in.w1.data(), in.w2.data(), in.w3.data()},
                                       a, s));
  }
  // Error paths must not allocate either.
  r->add("sdpa_f32 (null args)", attn::sdpa_f32({1, 1, 1, 1, 1}, attn::SdpaF32Args{}, s),
         attn::Status::kNullPointer);
  r->add("mha_f32 (null args)",
         attn::mha_f32({1, 1, 1, 6, 4, 0, 0}, attn::MhaF32Weights{}, attn::MhaF32Args{}, s),
         attn::Status::kNullPointer);
  {
    attn::LuongF32Args a;
    a.query = in.a.data();
    a.keys = in.b.data();
    a.context = in.out.data();
    r->add("luong_dot_f32 (scratch too small)",
           attn::luong_dot_f32({1, 70, 6}, a, attn::Scratch{in.scratch.data(), 8}),
           attn::Status::kScratchTooSmall);
  }
  r->add("status_str", attn::status_str(attn::Status::kOk) != nullptr ? attn::Status::kOk
                                                                      : attn::Status::kBadArgument);
}

}  // namespace alloc_ops
