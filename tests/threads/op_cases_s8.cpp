// The int8 op cases of op_cases.h: mha_s8, bahdanau_s8 (+ _memory, _step),
// luong_s8 dot and general (+ _memory, luong_general_s8_step). Every output
// must be the serial op's bits at any worker count; the shapes reach batch
// items as tasks, (head, query chunk) tasks, and long rows split by key range
// (three passes; the Bahdanau rows with their own scorer).
#include <random>

#include "attn/bahdanau_s8.h"
#include "attn/luong_s8.h"
#include "attn/mha_s8.h"
#include "op_case_util.h"

namespace threads_test {
namespace {

// The int8 cases' key lengths start at 0 (empty rows).
constexpr int32_t kMinLength = 0;

// A FULLY_CONNECTED layer's weights [out, in], per-channel scales and bias.
struct Layer {
  std::vector<int8_t> w;
  std::vector<float> scales;
  std::vector<int32_t> bias;
  Layer(int32_t out, int32_t in, std::mt19937& rng) : w(rand_s8(uz(out) * uz(in), rng)) {
    std::uniform_real_distribution<float> s(0.002f, 0.01f);
    std::uniform_int_distribution<int32_t> b(-2000, 2000);
    for (int32_t c = 0; c < out; ++c) {
      scales.push_back(s(rng));
      bias.push_back(b(rng));
    }
  }
  attn::FcS8Weights weights() const { return {w.data(), scales.data(), bias.data()}; }
};

// ------------------------------------------------------------ mha
struct MhaData : MhaIo<int8_t> {
  attn::MhaShape s;
  attn::MhaS8Params params;
  std::vector<attn::QuantizedMultiplier> channels;
  std::vector<Layer> layers;
  std::size_t scratch_bytes(int32_t workers) const {
    return attn::mha_s8_scratch_bytes(s, workers);
  }
  attn::Status run(const attn::Executor& ex, attn::Scratch sc) {
    return attn::mha_s8(params, args<attn::MhaS8Args>(ex), sc);
  }
};

OpCase mha_case(const attn::MhaShape& s, bool causal, bool lens, bool weights, uint32_t seed) {
  auto d = std::make_shared<MhaData>();
  std::mt19937 rng(seed);
  d->s = s;
  const int32_t e = s.embed_dim;
  const int32_t kd = s.kdim == 0 ? e : s.kdim;
  const int32_t vd = s.vdim == 0 ? e : s.vdim;
  d->layers = {Layer(e, e, rng), Layer(e, kd, rng), Layer(e, vd, rng), Layer(e, e, rng)};
  attn::MhaS8Quant quant;
  quant.query = {0.05f, 1};
  quant.key = {0.04f, -2};
  quant.value = {0.045f, 3};
  quant.q = {0.06f, -1};
  quant.k = {0.05f, 4};
  quant.v = {0.07f, 0};
  quant.scores = {0.3f, 2};
  quant.attn = {0.06f, -3};
  quant.out = {0.05f, 5};
  const attn::MhaS8Weights w{d->layers[0].weights(), d->layers[1].weights(), d->layers[2].weights(),
                             d->layers[3].weights()};
  d->channels.resize(attn::mha_s8_channel_count(s));
  const attn::Status setup = attn::mha_s8_prepare(s, quant, w, d->channels.data(), &d->params);
  d->inputs(s, rng);
  if (weights) d->weights.resize(uz(s.batch) * uz(s.num_heads) * uz(s.seq_q) * uz(s.seq_kv));
  if (lens) d->lens = lengths(s.batch, s.seq_kv, kMinLength, rng);
  d->causal = causal;
  std::vector<Output> outputs{output(d->out)};
  if (weights) outputs.push_back(output(d->weights));
  return make_case(mha_name("mha_s8", s), d, outputs, setup);
}

// ------------------------------------------------------------ bahdanau
struct BahdanauData : ContextIo<int8_t> {
  attn::BahdanauShape s;
  attn::BahdanauS8Params params;
  std::vector<attn::QuantizedMultiplier> channels;
  std::vector<Layer> layers;
  bool step = false;
  std::size_t scratch_bytes(int32_t workers) const {
    return attn::bahdanau_s8_scratch_bytes(s, workers);
  }
  attn::Status run(const attn::Executor& ex, attn::Scratch sc) {
    const auto a = args<attn::BahdanauS8Args>(ex);
    if (!step) return attn::bahdanau_s8(params, a, sc);
    const std::size_t mem_bytes = attn::bahdanau_s8_memory_bytes(s);
    const attn::Status st = attn::bahdanau_s8_step(params, a, memory.data(), mem_bytes, sc);
    if (st != attn::Status::kOk) return st;
    return attn::bahdanau_s8_memory(params, keys.data(), memory_out.data(), mem_bytes, ex);
  }
};

OpCase bahdanau_case(const attn::BahdanauShape& s, bool step, bool lens, uint32_t seed) {
  auto d = std::make_shared<BahdanauData>();
  std::mt19937 rng(seed);
  d->s = s;
  d->layers = {Layer(s.units, s.query_dim, rng), Layer(s.units, s.key_dim, rng),
               Layer(1, s.units, rng)};
  attn::BahdanauS8Quant quant;
  quant.query = {0.05f, 1};
  quant.keys = {0.04f, -2};
  quant.query_proj = {0.03f, 0};
  quant.keys_proj = {0.03f, 4};
  quant.sum = {0.05f, -1};
  quant.scores = {0.1f, 3};  // peaked softmax rows: every key matters
  quant.context = {0.04f, -2};
  const attn::BahdanauS8Weights w{d->layers[0].weights(), d->layers[1].weights(),
                                  d->layers[2].weights()};
  d->channels.resize(attn::bahdanau_s8_channel_count(s));
  const attn::Status setup = attn::bahdanau_s8_prepare(s, quant, w, d->channels.data(), &d->params);
  d->step = step;
  d->inputs(s.batch, s.seq, s.query_dim, s.key_dim, rng);
  if (lens) d->lens = lengths(s.batch, s.seq, kMinLength, rng);
  OpCase c = make_case(context_name(step ? "bahdanau_s8_step" : "bahdanau_s8", s.batch, s.seq), d,
                       d->outputs(), setup);
  if (step && setup == attn::Status::kOk) {
    d->add_memory(&c, attn::bahdanau_s8_memory_bytes(s), [&](int8_t* m, std::size_t bytes) {
      return attn::bahdanau_s8_memory(d->params, d->keys.data(), m, bytes);
    });
  }
  return c;
}

// ------------------------------------------------------------ luong
struct LuongData : ContextIo<int8_t> {
  attn::LuongGeneralShape s;
  attn::LuongS8Params params;
  std::vector<attn::QuantizedMultiplier> channels;
  std::vector<Layer> layers;
  int kind = 0;  // 0 dot, 1 general, 2 general step
  std::size_t scratch_bytes(int32_t workers) const {
    if (kind == 0) return attn::luong_dot_s8_scratch_bytes({s.batch, s.seq, s.key_dim}, workers);
    if (kind == 1) return attn::luong_general_s8_scratch_bytes(s, workers);
    return attn::luong_general_s8_step_scratch_bytes(s, workers);
  }
  attn::Status run(const attn::Executor& ex, attn::Scratch sc) {
    const auto a = args<attn::LuongS8Args>(ex);
    if (kind < 2) return attn::luong_s8(params, a, sc);
    const std::size_t mem_bytes = memory.size();
    const attn::Status st = attn::luong_general_s8_step(params, a, memory.data(), mem_bytes, sc);
    if (st != attn::Status::kOk) return st;
    return attn::luong_general_s8_memory(params, keys.data(), memory_out.data(), mem_bytes, ex);
  }
};

OpCase luong_case(const attn::LuongGeneralShape& s, int kind, bool lens, uint32_t seed) {
  auto d = std::make_shared<LuongData>();
  std::mt19937 rng(seed);
  d->s = s;
  attn::LuongS8Quant quant;
  quant.query = {0.05f, 1};
  quant.keys = {0.04f, -2};
  quant.keys_proj = {0.03f, 2};
  quant.scores = {0.1f, 0};
  quant.context = {0.04f, -1};
  d->kind = kind;
  attn::Status setup = attn::Status::kOk;
  if (kind == 0) {
    setup = attn::luong_dot_s8_prepare({s.batch, s.seq, s.key_dim}, quant, &d->params);
  } else {
    d->layers = {Layer(s.query_dim, s.key_dim, rng)};
    d->channels.resize(uz(s.query_dim));
    setup = attn::luong_general_s8_prepare(s, quant, d->layers[0].weights(), d->channels.data(),
                                           &d->params);
  }
  d->inputs(s.batch, s.seq, s.query_dim, s.key_dim, rng);
  if (lens) d->lens = lengths(s.batch, s.seq, kMinLength, rng);
  static const char* const kNames[] = {"luong_s8 dot", "luong_s8 general", "luong_general_s8_step"};
  OpCase c = make_case(context_name(kNames[kind], s.batch, s.seq), d, d->outputs(), setup);
  if (kind == 2 && setup == attn::Status::kOk) {
    d->add_memory(&c, attn::luong_general_s8_memory_bytes(s), [&](int8_t* m, std::size_t bytes) {
      return attn::luong_general_s8_memory(d->params, d->keys.data(), m, bytes);
    });
  }
  return c;
}

}  // namespace

std::vector<OpCase> int8_cases() {
  std::vector<OpCase> cases;
  // Self-attention with causal mask and weights; one long decode row of one
  // head (key split); cross-attention with key lengths; a batch of decode rows.
  cases.push_back(mha_case({2, 40, 40, 32, 4, 0, 0}, true, false, true, 21));
  cases.push_back(mha_case({1, 1, 4000, 128, 1, 0, 0}, false, false, true, 22));
  cases.push_back(mha_case({1, 20, 300, 64, 8, 24, 40}, false, true, false, 23));
  cases.push_back(mha_case({3, 1, 200, 64, 4, 0, 0}, false, true, true, 24));
  for (bool step : {false, true}) {
    cases.push_back(bahdanau_case({8, 50, 12, 16, 16}, step, true, 25));
    cases.push_back(bahdanau_case({1, 3000, 16, 16, 32}, step, false, 26));
    cases.push_back(bahdanau_case({2, 2000, 8, 16, 16}, step, true, 27));
  }
  cases.push_back(luong_case({8, 60, 16, 16}, 0, true, 28));
  cases.push_back(luong_case({1, 4000, 64, 64}, 0, false, 29));
  cases.push_back(luong_case({2, 3000, 64, 64}, 0, true, 30));
  for (int kind : {1, 2}) {
    cases.push_back(luong_case({6, 40, 8, 16}, kind, true, 31));
    cases.push_back(luong_case({1, 4000, 64, 64}, kind, false, 32));
    cases.push_back(luong_case({2, 2500, 24, 64}, kind, true, 33));
  }
  return cases;
}

}  // namespace threads_test
