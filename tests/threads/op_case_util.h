// What the float and int8 op case builders (op_cases.cpp, op_cases_s8.cpp)
// share: random inputs, key lengths, the buffers of the single-query ops
// (Bahdanau, Luong) and of MHA with the op arguments over them, the case
// names, and the OpCase over a case's data. A case's data type keeps only what
// is specific to its op: its shape, weights or prepared parameters, and its
// members `scratch_bytes(workers)` and `run(executor, scratch)`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "attn/mha.h"
#include "op_cases.h"

namespace threads_test {

inline std::size_t uz(int32_t i) { return static_cast<std::size_t>(i); }

// n floats uniform in [-scale, scale].
inline std::vector<float> rand_f(std::size_t n, std::mt19937& rng, float scale = 1.0f) {
  std::uniform_real_distribution<float> u(-scale, scale);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

// n int8 codes uniform over [-128, 127].
inline std::vector<int8_t> rand_s8(std::size_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int> u(-128, 127);
  std::vector<int8_t> v(n);
  for (int8_t& x : v) x = static_cast<int8_t>(u(rng));
  return v;
}

// The random inputs of element type T: rand_f (scale 1) or rand_s8.
inline void rand_fill(std::vector<float>* v, std::size_t n, std::mt19937& rng) {
  *v = rand_f(n, rng);
}
inline void rand_fill(std::vector<int8_t>* v, std::size_t n, std::mt19937& rng) {
  *v = rand_s8(n, rng);
}

// Key lengths: the first item full (`seq`), the others uniform in
// [min_len, seq].
inline std::vector<int32_t> lengths(int32_t batch, int32_t seq, int32_t min_len,
                                    std::mt19937& rng) {
  std::vector<int32_t> l(uz(batch), seq);
  for (int32_t b = 1; b < batch; ++b) {
    l[uz(b)] = min_len + static_cast<int32_t>(rng() % uz(seq + 1 - min_len));
  }
  return l;
}

// An output of a case over a float or int8 buffer.
inline Output output(std::vector<float>& v, bool exact = false) {
  return Output{v.data(), v.size(), true, exact};
}
inline Output output(std::vector<int8_t>& v, bool exact = false) {
  return Output{v.data(), v.size(), false, exact};
}

// "op B=.. Sq=.. Skv=.. H=..": an MHA case's name.
inline std::string mha_name(const char* op, const attn::MhaShape& s) {
  return std::string(op) + " B=" + std::to_string(s.batch) + " Sq=" + std::to_string(s.seq_q) +
         " Skv=" + std::to_string(s.seq_kv) + " H=" + std::to_string(s.num_heads);
}

// "op B=.. T=..": a single-query op's case name.
inline std::string context_name(const char* op, int32_t batch, int32_t seq) {
  return std::string(op) + " B=" + std::to_string(batch) + " T=" + std::to_string(seq);
}

// The output, optional weights (none when empty), mask (key lengths: none
// when empty) and executor of an attention op's Args.
template <class Args, class T>
void set_out_mask(Args* a, std::vector<T>& out, std::vector<T>& weights, bool causal,
                  std::vector<int32_t>& lens, const attn::Executor& ex) {
  a->out = out.data();
  a->probs = weights.empty() ? nullptr : weights.data();
  a->mask.causal = causal;
  a->mask.key_lengths = lens.empty() ? nullptr : lens.data();
  a->executor = ex;
}

// The buffers of an MHA case (T: float or int8): query [B, Sq, E], key
// [B, Skv, kdim], value [B, Skv, vdim], out [B, Sq, E], the optional weights
// (sized by the builder) and the mask.
template <class T>
struct MhaIo {
  std::vector<T> query, key, value, out, weights;
  std::vector<int32_t> lens;
  bool causal = false;

  // Random query, key and value (in that order), out sized.
  void inputs(const attn::MhaShape& s, std::mt19937& rng) {
    const int32_t e = s.embed_dim;
    rand_fill(&query, uz(s.batch) * uz(s.seq_q) * uz(e), rng);
    rand_fill(&key, uz(s.batch) * uz(s.seq_kv) * uz(s.kdim == 0 ? e : s.kdim), rng);
    rand_fill(&value, uz(s.batch) * uz(s.seq_kv) * uz(s.vdim == 0 ? e : s.vdim), rng);
    out.resize(uz(s.batch) * uz(s.seq_q) * uz(e));
  }
  // MhaF32Args or MhaS8Args over these buffers.
  template <class Args>
  Args args(const attn::Executor& ex) {
    Args a;
    a.query = query.data();
    a.key = key.data();
    a.value = value.data();
    set_out_mask(&a, out, weights, causal, lens, ex);
    return a;
  }
};

// The buffers of a single-query op's case (Bahdanau, Luong; T: float or
// int8): query [B, Dq], keys [B, T, Dk], context [B, Dk], weights [B, T], the
// optional key lengths, and a step case's memory (written serially in the
// case's setup) with the copy the memory op writes through the executor.
template <class T>
struct ContextIo {
  std::vector<T> query, keys, context, weights, memory, memory_out;
  std::vector<int32_t> lens;

  // Random query and keys (in that order), context and weights sized.
  void inputs(int32_t batch, int32_t seq, int32_t query_dim, int32_t key_dim, std::mt19937& rng) {
    rand_fill(&query, uz(batch) * uz(query_dim), rng);
    rand_fill(&keys, uz(batch) * uz(seq) * uz(key_dim), rng);
    context.resize(uz(batch) * uz(key_dim));
    weights.resize(uz(batch) * uz(seq));
  }
  std::vector<Output> outputs() { return {output(context), output(weights)}; }
  // A step case: memory and memory_out of `bytes`, the case's setup is
  // serial(memory.data(), bytes) and memory_out an `exact` output.
  template <class Serial>
  void add_memory(OpCase* c, std::size_t bytes, Serial serial) {
    memory.resize(bytes / sizeof(T));
    memory_out.resize(bytes / sizeof(T));
    c->setup = serial(memory.data(), bytes);
    c->outputs.push_back(output(memory_out, true));
  }
  // The op's Args (BahdanauF32Args, LuongS8Args, ...) over these buffers.
  template <class Args>
  Args args(const attn::Executor& ex) {
    Args a;
    a.query = query.data();
    a.keys = keys.data();
    a.context = context.data();
    a.probs = weights.data();
    a.key_lengths = lens.empty() ? nullptr : lens.data();
    a.executor = ex;
    return a;
  }
};

// The OpCase named `name` over `d` (kept alive by the case): its outputs and
// setup status; scratch_bytes and run call d's members of those names.
template <class Data>
OpCase make_case(std::string name, std::shared_ptr<Data> d, std::vector<Output> outputs,
                 attn::Status setup = attn::Status::kOk) {
  OpCase c;
  c.name = std::move(name);
  c.outputs = std::move(outputs);
  c.setup = setup;
  Data* p = d.get();
  c.scratch_bytes = [p](int32_t workers) { return p->scratch_bytes(workers); };
  c.run = [p](const attn::Executor& ex, attn::Scratch sc) { return p->run(ex, sc); };
  c.data = std::move(d);
  return c;
}

}  // namespace threads_test
