// alloc_ops.h: every int8 op and its prepare. The shapes reach each core's
// paths: seq_q >= 16 for the x86 query-tiled core, a one-query decode row,
// every mask kind, per-batch key lengths, and MHA cross-attention.
#include <cmath>

#include "alloc_ops.h"
#include "attn/bahdanau_s8.h"
#include "attn/luong_s8.h"
#include "attn/mha_s8.h"
#include "attn/sdpa_s8.h"
#include "attn/softmax_s8.h"

namespace alloc_ops {

namespace {

// Keeps a value observable so the compiler cannot drop the call making it.
template <class T>
void escape(const T& v) {
  asm volatile("" : : "g"(&v) : "memory");
}

attn::QuantParams qp(float scale, int32_t zero_point) { return {scale, zero_point}; }

void softmax_and_sdpa(Inputs& in, const attn::Scratch& s, Results* r) {
  attn::SoftmaxS8Params sp;
  r->add("softmax_s8_prepare", attn::softmax_s8_prepare(0.1f, 1.0f, &sp));
  r->add("softmax_s8", attn::softmax_s8({3, 70}, sp, {in.qa.data(), in.qout.data()}));
  r->add("softmax_s8 (in place)", attn::softmax_s8({2, 9}, sp, {in.qout.data(), in.qout.data()}));
  r->add("softmax_s8_prepare (bad scale)", attn::softmax_s8_prepare(-1.0f, 1.0f, &sp),
         attn::Status::kBadArgument);

  attn::SdpaS8Quant quant;
  quant.q = qp(0.05f, 3);
  quant.k = qp(0.04f, -7);
  quant.v = qp(0.03f, 11);
  quant.scores = qp(0.2f, -5);
  quant.out = qp(0.02f, 2);
  attn::Mask mask;
  mask.causal = true;
  mask.key_lengths = in.lens;
  mask.keras = in.keras.data();
  mask.additive = in.additive.data();
  mask.boolean = in.boolean.data();
  mask.matrix_batch_stride = 20 * 37;
  for (const attn::SdpaShape& shape :
       {attn::SdpaShape{2, 20, 37, 24, 40}, attn::SdpaShape{1, 1, 300, 64, 16},
        attn::SdpaShape{2, 3, 5, 7, 9}}) {
    attn::SdpaS8Params p;
    r->add("sdpa_s8_prepare", attn::sdpa_s8_prepare(shape, quant, &p));
    attn::SdpaS8Args a;
    a.q = in.qa.data();
    a.k = in.qb.data();
    a.v = in.qc.data();
    a.out = in.qout.data();
    a.probs = in.qweights.data();
    r->add("sdpa_s8", attn::sdpa_s8(p, a, s));
    if (shape.seq_q == 20) {
      a.mask = mask;
      r->add("sdpa_s8 (every mask)", attn::sdpa_s8(p, a, s));
      a.q = nullptr;
      r->add("sdpa_s8 (null q)", attn::sdpa_s8(p, a, s), attn::Status::kNullPointer);
    }
  }
  attn::SdpaS8Params p;
  r->add("sdpa_s8_prepare (seq_kv too long)",
         attn::sdpa_s8_prepare({1, 1, attn::kSdpaS8MaxSeqKv + 1, 8, 8}, quant, &p),
         attn::Status::kOverflow);
}

void mha(Inputs& in, const attn::Scratch& s, Results* r) {
  attn::MhaS8Quant quant;
  quant.query = qp(0.05f, 1);
  quant.key = qp(0.04f, -2);
  quant.value = qp(0.045f, 3);
  quant.q = qp(0.06f, -1);
  quant.k = qp(0.05f, 4);
  quant.v = qp(0.07f, 0);
  quant.scores = qp(0.3f, 2);
  quant.attn = qp(0.06f, -3);
  quant.out = qp(0.05f, 5);
  const float* sc = in.channel_scales.data();
  attn::MhaS8Weights w;
  w.q = {in.qw1.data(), sc, in.qbias.data()};
  w.k = {in.qw2.data(), sc, in.qbias.data()};
  w.v = {in.qw3.data(), sc, nullptr};
  w.out = {in.qw4.data(), sc, in.qbias.data()};
  attn::Mask mask;
  mask.causal = true;
  mask.key_lengths = in.lens;
  for (const attn::MhaShape& shape :
       {attn::MhaShape{2, 17, 9, 16, 2, 0, 0}, attn::MhaShape{2, 3, 5, 12, 3, 10, 6}}) {
    attn::MhaS8Params p;
    r->add("mha_s8_prepare", attn::mha_s8_prepare(shape, quant, w, in.channels.data(), &p));
    attn::MhaS8Args a;
    a.query = in.qa.data();
    a.key = in.qb.data();
    a.value = in.qc.data();
    a.out = in.qout.data();
    a.probs = in.qweights.data();
    a.mask = mask;
    r->add("mha_s8", attn::mha_s8(p, a, s));
    r->add("mha_s8 (scratch too small)", attn::mha_s8(p, a, attn::Scratch{s.data, 64}),
           attn::Status::kScratchTooSmall);
  }
}

void bahdanau(Inputs& in, const attn::Scratch& s, Results* r) {
  attn::BahdanauS8Quant quant;
  quant.query = qp(0.05f, 1);
  quant.keys = qp(0.04f, -2);
  quant.query_proj = qp(0.03f, 0);
  quant.keys_proj = qp(0.03f, 4);
  quant.sum = qp(0.05f, -1);
  quant.scores = qp(0.02f, 3);
  quant.context = qp(0.04f, -2);
  attn::AddS8Params add;
  r->add("add_s8_prepare",
         attn::add_s8_prepare(quant.query_proj, quant.keys_proj, quant.sum, &add));
  int8_t table[256];
  r->add("tanh_s8_table", attn::tanh_s8_table(quant.sum, table));
  escape(table);
  const float* sc = in.channel_scales.data();
  const attn::BahdanauS8Weights w{{in.qw1.data(), sc, in.qbias.data()},
                                  {in.qw2.data(), sc, in.qbias.data()},
                                  {in.qw3.data(), sc, nullptr}};
  const attn::BahdanauShape shape{2, 9, 6, 7, 8};
  attn::BahdanauS8Params p;
  r->add("bahdanau_s8_prepare", attn::bahdanau_s8_prepare(shape, quant, w, in.channels.data(), &p));
  attn::BahdanauS8Args a;
  a.query = in.qa.data();
  a.keys = in.qb.data();
  a.context = in.qout.data();
  a.probs = in.qweights.data();
  a.key_lengths = in.lens;
  r->add("bahdanau_s8", attn::bahdanau_s8(p, a, s));
  // Prepared encoder memory (in qw4, unused by this op).
  r->add("bahdanau_s8_memory",
         attn::bahdanau_s8_memory(p, a.keys, in.qw4.data(), attn::bahdanau_s8_memory_bytes(shape)));
  r->add("bahdanau_s8_step",
         attn::bahdanau_s8_step(p, a, in.qw4.data(), attn::bahdanau_s8_memory_bytes(shape), s));
  a.keys = nullptr;
  r->add("bahdanau_s8 (null keys)", attn::bahdanau_s8(p, a, s), attn::Status::kNullPointer);
}

void luong(Inputs& in, const attn::Scratch& s, Results* r) {
  attn::LuongS8Quant quant;
  quant.query = qp(0.05f, 1);
  quant.keys = qp(0.04f, -2);
  quant.keys_proj = qp(0.03f, 2);
  quant.scores = qp(0.1f, 0);
  quant.context = qp(0.04f, -1);
  attn::LuongS8Args a;
  a.query = in.qa.data();
  a.keys = in.qb.data();
  a.context = in.qout.data();
  a.probs = in.qweights.data();
  a.key_lengths = in.lens;
  attn::LuongS8Params dot;
  r->add("luong_dot_s8_prepare", attn::luong_dot_s8_prepare({2, 70, 6}, quant, &dot));
  r->add("luong_s8 (dot)", attn::luong_s8(dot, a, s));
  attn::LuongS8Params general;
  r->add("luong_general_s8_prepare",
         attn::luong_general_s8_prepare({2, 70, 5, 6}, quant,
                                        {in.qw1.data(), in.channel_scales.data(), in.qbias.data()},
                                        in.channels.data(), &general));
  r->add("luong_s8 (general)", attn::luong_s8(general, a, s));
  const std::size_t memory_bytes = attn::luong_general_s8_memory_bytes({2, 70, 5, 6});
  r->add("luong_general_s8_memory",
         attn::luong_general_s8_memory(general, a.keys, in.qw4.data(), memory_bytes));
  r->add("luong_general_s8_step",
         attn::luong_general_s8_step(general, a, in.qw4.data(), memory_bytes, s));
  r->add("luong_dot_s8_prepare (bad shape)", attn::luong_dot_s8_prepare({2, 0, 6}, quant, &dot),
         attn::Status::kBadShape);
}

}  // namespace

void int8_ops(Inputs& in, Results* r) {
  const attn::Scratch s{in.scratch.data() + 1, in.scratch.size() - 1};
  const attn::QuantizedMultiplier m = attn::quantize_multiplier(0.3);
  escape(m);
  r->add("quant_params_ok",
         attn::quant_params_ok(qp(0.5f, -3)) ? attn::Status::kOk : attn::Status::kBadArgument);
  softmax_and_sdpa(in, s, r);
  mha(in, s, r);
  bahdanau(in, s, r);
  luong(in, s, r);
}

}  // namespace alloc_ops
