// The float op cases of op_cases.h: general_attention_f32, mha_f32,
// bahdanau_f32 (+ _memory, _step), luong_dot_f32, luong_general_f32 (+
// _memory, _step). Shapes reach each split: batch items as tasks, query tiles,
// (head, tile) tasks, heads sharing averaged weights, and long single items
// split by key range (the `split_from` cases, with their reference bounds).
#include <cmath>
#include <random>

#include "attn/bahdanau.h"
#include "attn/general_attention.h"
#include "attn/luong.h"
#include "attn/mha.h"
#include "op_case_util.h"
#include "ref_double.h"

namespace threads_test {
namespace {

// The float cases' key lengths start at 1.
constexpr int32_t kMinLength = 1;

// A case whose float op splits a long item by key range from `split_from`
// workers on (0: never): there checked against d's double reference.
template <class Data>
void split_case(OpCase* c, const Data* d, int32_t split_from) {
  c->split_from = split_from;
  if (split_from == 0) return;
  c->reference = [d](std::vector<double>* ref, std::vector<double>* tol) {
    d->reference(ref, tol);
  };
}

// The reference and bound of a case's two float outputs, added item by item:
// ref (and tol) hold every item's first output, then every item's second.
struct RefPair {
  std::vector<double> first, first_tol, second, second_tol;
  void add(const std::vector<double>& f, const std::vector<double>& f_tol,
           const std::vector<double>& s, const std::vector<double>& s_tol) {
    first.insert(first.end(), f.begin(), f.end());
    first_tol.insert(first_tol.end(), f_tol.begin(), f_tol.end());
    second.insert(second.end(), s.begin(), s.end());
    second_tol.insert(second_tol.end(), s_tol.begin(), s_tol.end());
  }
  void write(std::vector<double>* ref, std::vector<double>* tol) const {
    *ref = first;
    ref->insert(ref->end(), second.begin(), second.end());
    *tol = first_tol;
    tol->insert(tol->end(), second_tol.begin(), second_tol.end());
  }
};

// ------------------------------------------------------------ general
struct GeneralData {
  attn::GeneralAttentionShape s;
  bool causal = false;
  std::vector<float> x, wq, wk, wv, out, weights;
  std::vector<int32_t> lens;
  std::size_t scratch_bytes(int32_t workers) const {
    return attn::general_attention_f32_scratch_bytes(s, workers);
  }
  attn::Status run(const attn::Executor& ex, attn::Scratch sc) {
    attn::GeneralAttentionF32Args a;
    a.x = x.data();
    set_out_mask(&a, out, weights, causal, lens, ex);
    return attn::general_attention_f32(s, {wq.data(), wk.data(), wv.data()}, a, sc);
  }
};

OpCase general_case(const attn::GeneralAttentionShape& s, bool causal, bool lens, bool weights,
                    uint32_t seed) {
  auto d = std::make_shared<GeneralData>();
  std::mt19937 rng(seed);
  d->s = s;
  d->causal = causal;
  const float ws = 1.0f / std::sqrt(static_cast<float>(s.in_dim));
  d->x = rand_f(uz(s.batch) * uz(s.seq) * uz(s.in_dim), rng);
  d->wq = rand_f(uz(s.in_dim) * uz(s.dim_k), rng, ws);
  d->wk = rand_f(uz(s.in_dim) * uz(s.dim_k), rng, ws);
  d->wv = rand_f(uz(s.in_dim) * uz(s.dim_v), rng, ws);
  d->out.resize(uz(s.batch) * uz(s.seq) * uz(s.dim_v));
  if (weights) d->weights.resize(uz(s.batch) * uz(s.seq) * uz(s.seq));
  if (lens) d->lens = lengths(s.batch, s.seq, kMinLength, rng);
  std::vector<Output> outputs{output(d->out)};
  if (weights) outputs.push_back(output(d->weights));
  return make_case(
      "general_attention_f32 B=" + std::to_string(s.batch) + " S=" + std::to_string(s.seq), d,
      outputs);
}

// ------------------------------------------------------------ mha
struct MhaData : MhaIo<float> {
  attn::MhaShape s;
  bool packed = true;
  attn::MhaProbsMode mode = attn::MhaProbsMode::kAveraged;
  std::vector<float> in_w, q_w, k_w, v_w, in_b, out_w, out_b;
  std::size_t scratch_bytes(int32_t workers) const {
    return attn::mha_f32_scratch_bytes(s, workers);
  }
  attn::Status run(const attn::Executor& ex, attn::Scratch sc) {
    attn::MhaF32Weights w;
    if (packed) {
      w.in_proj_weight = in_w.data();
    } else {
      w.q_proj_weight = q_w.data();
      w.k_proj_weight = k_w.data();
      w.v_proj_weight = v_w.data();
    }
    w.in_proj_bias = in_b.data();
    w.out_proj_weight = out_w.data();
    w.out_proj_bias = out_b.data();
    attn::MhaF32Args a = args<attn::MhaF32Args>(ex);
    a.probs_mode = mode;
    return attn::mha_f32(s, w, a, sc);
  }
  void reference(std::vector<double>* ref, std::vector<double>* tol) const;
};

// The double-precision MHA of a packed, unmasked case with averaged weights
// (as tests/cases/mha_cases.cpp): out, then the weights.
void mha_reference(const MhaData& d, std::vector<double>* ref, std::vector<double>* tol) {
  const attn::MhaShape& s = d.s;
  const int e = s.embed_dim;
  const int hd = e / s.num_heads;
  const std::size_t sqkv = uz(s.seq_q) * uz(s.seq_kv);
  const double scale = 1.0 / std::sqrt(static_cast<double>(hd));
  RefPair outputs;  // out, then the weights
  for (int32_t b = 0; b < s.batch; ++b) {
    std::vector<double> qp(uz(s.seq_q) * uz(e)), qe(qp.size()), kp(uz(s.seq_kv) * uz(e)),
        ke(kp.size()), vp(kp.size()), ve(kp.size()), o(qp.size()), oe(qp.size()), p(sqkv), pt(sqkv),
        avg(sqkv), avg_t(sqkv), y(qp.size()), ye(qp.size());
    const float* xq = d.query.data() + uz(b) * uz(s.seq_q) * uz(e);
    const float* xk = d.key.data() + uz(b) * uz(s.seq_kv) * uz(e);
    const float* xv = d.value.data() + uz(b) * uz(s.seq_kv) * uz(e);
    const float* w = d.in_w.data();
    const float* bias = d.in_b.data();
    attn_ref::project<float>(s.seq_q, e, e, xq, uz(e), nullptr, w, uz(e), 1, bias, qp.data(),
                             qe.data(), uz(e));
    attn_ref::project<float>(s.seq_kv, e, e, xk, uz(e), nullptr, w + uz(e) * uz(e), uz(e), 1,
                             bias + e, kp.data(), ke.data(), uz(e));
    attn_ref::project<float>(s.seq_kv, e, e, xv, uz(e), nullptr, w + 2 * uz(e) * uz(e), uz(e), 1,
                             bias + 2 * e, vp.data(), ve.data(), uz(e));
    const attn_ref::MaskView mv;
    const double inv_h = 1.0 / static_cast<double>(s.num_heads);
    for (int h = 0; h < s.num_heads; ++h) {
      const std::size_t col = uz(h) * uz(hd);
      attn_ref::attention<double>(s.seq_q, s.seq_kv, hd, hd, scale, attn_ref::kEps, qp.data() + col,
                                  uz(e), qe.data() + col, kp.data() + col, uz(e), ke.data() + col,
                                  vp.data() + col, uz(e), ve.data() + col, mv, p.data(), pt.data(),
                                  o.data() + col, oe.data() + col, uz(e));
      for (std::size_t i = 0; i < sqkv; ++i) {
        avg[i] += inv_h * p[i];
        avg_t[i] += inv_h * pt[i];
      }
    }
    for (std::size_t i = 0; i < sqkv; ++i) {
      avg_t[i] += attn_ref::kEps * static_cast<double>(s.num_heads + 2) * avg[i];
    }
    attn_ref::project<double>(s.seq_q, e, e, o.data(), uz(e), oe.data(), d.out_w.data(), uz(e), 1,
                              d.out_b.data(), y.data(), ye.data(), uz(e));
    outputs.add(y, ye, avg, avg_t);
  }
  outputs.write(ref, tol);
}

void MhaData::reference(std::vector<double>* ref, std::vector<double>* tol) const {
  mha_reference(*this, ref, tol);
}

OpCase mha_case(const attn::MhaShape& s, bool packed, bool causal, bool lens, int weights,
                uint32_t seed, int32_t split_from = 0) {
  auto d = std::make_shared<MhaData>();
  std::mt19937 rng(seed);
  d->s = s;
  d->packed = packed;
  d->causal = causal;
  const int32_t e = s.embed_dim;
  const int32_t kd = s.kdim == 0 ? e : s.kdim;
  const int32_t vd = s.vdim == 0 ? e : s.vdim;
  const float ws = 1.0f / std::sqrt(static_cast<float>(e));
  d->inputs(s, rng);
  if (packed) {
    d->in_w = rand_f(3 * uz(e) * uz(e), rng, ws);
  } else {
    d->q_w = rand_f(uz(e) * uz(e), rng, ws);
    d->k_w = rand_f(uz(e) * uz(kd), rng, ws);
    d->v_w = rand_f(uz(e) * uz(vd), rng, ws);
  }
  d->in_b = rand_f(3 * uz(e), rng, 0.1f);
  d->out_w = rand_f(uz(e) * uz(e), rng, ws);
  d->out_b = rand_f(uz(e), rng, 0.1f);
  if (lens) d->lens = lengths(s.batch, s.seq_kv, kMinLength, rng);
  std::vector<Output> outputs{output(d->out)};
  if (weights != 0) {
    d->mode = weights == 1 ? attn::MhaProbsMode::kAveraged : attn::MhaProbsMode::kPerHead;
    const std::size_t heads = weights == 1 ? 1 : uz(s.num_heads);
    d->weights.resize(uz(s.batch) * heads * uz(s.seq_q) * uz(s.seq_kv));
    outputs.push_back(output(d->weights));
  }
  OpCase c = make_case(mha_name("mha_f32", s), d, outputs);
  split_case(&c, d.get(), split_from);
  return c;
}

// ------------------------------------------------------------ bahdanau
struct BahdanauData : ContextIo<float> {
  attn::BahdanauShape s;
  bool step = false;
  std::vector<float> w1, b1, w2, b2, v;
  float bv = 0.25f;
  attn::BahdanauF32Weights w() const {
    return {w1.data(), b1.data(), w2.data(), b2.data(), v.data(), bv};
  }
  std::size_t scratch_bytes(int32_t workers) const {
    return attn::bahdanau_f32_scratch_bytes(s, workers);
  }
  attn::Status run(const attn::Executor& ex, attn::Scratch sc) {
    const auto a = args<attn::BahdanauF32Args>(ex);
    if (!step) return attn::bahdanau_f32(s, w(), a, sc);
    const std::size_t mem_bytes = attn::bahdanau_f32_memory_bytes(s);
    const attn::Status st = attn::bahdanau_f32_step(s, w(), a, memory.data(), mem_bytes, sc);
    if (st != attn::Status::kOk) return st;
    return attn::bahdanau_f32_memory(s, w(), keys.data(), memory_out.data(), mem_bytes, ex);
  }
  void reference(std::vector<double>* ref, std::vector<double>* tol) const;
};

// The reference of a single-query op's outputs, context [B, Dk] then weights
// [B, T]: item(b, p, p_tol, context, context_tol) fills one batch item's.
template <class Item>
void context_reference(int32_t batch, int32_t seq, int32_t dk, Item item, std::vector<double>* ref,
                       std::vector<double>* tol) {
  RefPair outputs;  // context, then the weights
  for (int32_t b = 0; b < batch; ++b) {
    std::vector<double> p(uz(seq)), pt(p.size()), c(uz(dk)), ct(c.size());
    item(b, p.data(), pt.data(), c.data(), ct.data());
    outputs.add(c, ct, p, pt);
  }
  outputs.write(ref, tol);
}

void BahdanauData::reference(std::vector<double>* ref, std::vector<double>* tol) const {
  const auto item = [&](int32_t b, double* p, double* pt, double* c, double* ct) {
    attn_ref::bahdanau(
        s.seq, s.query_dim, s.key_dim, s.units, query.data() + uz(b) * uz(s.query_dim),
        keys.data() + uz(b) * uz(s.seq) * uz(s.key_dim), w1.data(), b1.data(), w2.data(), b2.data(),
        v.data(), bv, lens.empty() ? s.seq : lens[uz(b)], p, pt, c, ct);
  };
  context_reference(s.batch, s.seq, s.key_dim, item, ref, tol);
}

OpCase bahdanau_case(const attn::BahdanauShape& s, bool step, bool lens, uint32_t seed,
                     int32_t split_from) {
  auto d = std::make_shared<BahdanauData>();
  std::mt19937 rng(seed);
  d->s = s;
  d->step = step;
  d->inputs(s.batch, s.seq, s.query_dim, s.key_dim, rng);
  d->w1 = rand_f(uz(s.query_dim) * uz(s.units), rng, 0.5f);
  d->b1 = rand_f(uz(s.units), rng, 0.1f);
  d->w2 = rand_f(uz(s.key_dim) * uz(s.units), rng, 0.5f);
  d->b2 = rand_f(uz(s.units), rng, 0.1f);
  d->v = rand_f(uz(s.units), rng);
  if (lens) d->lens = lengths(s.batch, s.seq, kMinLength, rng);
  OpCase c = make_case(context_name(step ? "bahdanau_f32_step" : "bahdanau_f32", s.batch, s.seq), d,
                       d->outputs());
  if (step) {
    d->add_memory(&c, attn::bahdanau_f32_memory_bytes(s), [&](float* m, std::size_t bytes) {
      return attn::bahdanau_f32_memory(s, d->w(), d->keys.data(), m, bytes);
    });
  }
  split_case(&c, d.get(), split_from);
  return c;
}

// ------------------------------------------------------------ luong
struct LuongData : ContextIo<float> {
  attn::LuongGeneralShape s;
  int kind = 0;  // 0 dot, 1 general, 2 general step
  std::vector<float> w, b;
  std::size_t scratch_bytes(int32_t workers) const {
    if (kind == 0) return attn::luong_dot_f32_scratch_bytes({s.batch, s.seq, s.key_dim}, workers);
    if (kind == 1) return attn::luong_general_f32_scratch_bytes(s, workers);
    return attn::luong_general_f32_step_scratch_bytes(s, workers);
  }
  attn::Status run(const attn::Executor& ex, attn::Scratch sc) {
    const auto a = args<attn::LuongF32Args>(ex);
    const attn::LuongGeneralF32Weights lw{w.data(), b.data()};
    if (kind == 0) return attn::luong_dot_f32({s.batch, s.seq, s.key_dim}, a, sc);
    if (kind == 1) return attn::luong_general_f32(s, lw, a, sc);
    const std::size_t mem_bytes = memory.size() * 4;
    const attn::Status st = attn::luong_general_f32_step(s, a, memory.data(), mem_bytes, sc);
    if (st != attn::Status::kOk) return st;
    return attn::luong_general_f32_memory(s, lw, keys.data(), memory_out.data(), mem_bytes, ex);
  }
  void reference(std::vector<double>* ref, std::vector<double>* tol) const {
    const auto item = [&](int32_t i, double* p, double* pt, double* c, double* ct) {
      attn_ref::luong(s.seq, s.query_dim, s.key_dim, query.data() + uz(i) * uz(s.query_dim),
                      keys.data() + uz(i) * uz(s.seq) * uz(s.key_dim),
                      kind == 0 ? nullptr : w.data(), kind == 0 ? nullptr : b.data(),
                      lens.empty() ? s.seq : lens[uz(i)], p, pt, c, ct);
    };
    context_reference(s.batch, s.seq, s.key_dim, item, ref, tol);
  }
};

OpCase luong_case(const attn::LuongGeneralShape& s, int kind, bool lens, uint32_t seed,
                  int32_t split_from) {
  auto d = std::make_shared<LuongData>();
  std::mt19937 rng(seed);
  d->s = s;
  d->kind = kind;
  d->inputs(s.batch, s.seq, s.query_dim, s.key_dim, rng);
  d->w = rand_f(uz(s.key_dim) * uz(s.query_dim), rng, 0.5f);
  d->b = rand_f(uz(s.query_dim), rng, 0.1f);
  if (lens) d->lens = lengths(s.batch, s.seq, kMinLength, rng);
  static const char* const kNames[] = {"luong_dot_f32", "luong_general_f32",
                                       "luong_general_f32_step"};
  OpCase c = make_case(context_name(kNames[kind], s.batch, s.seq), d, d->outputs());
  if (kind == 2) {
    d->add_memory(&c, attn::luong_general_f32_memory_bytes(s), [&](float* m, std::size_t bytes) {
      return attn::luong_general_f32_memory(s, {d->w.data(), d->b.data()}, d->keys.data(), m,
                                            bytes);
    });
  }
  split_case(&c, d.get(), split_from);
  return c;
}

}  // namespace

std::vector<OpCase> float_cases() {
  std::vector<OpCase> cases;
  cases.push_back(general_case({1, 100, 24, 16, 16}, true, false, true, 1));
  cases.push_back(general_case({3, 37, 8, 8, 12}, false, true, true, 2));
  cases.push_back(general_case({1, 300, 32, 32, 32}, false, false, false, 3));
  // Self-attention, averaged weights every head adds to; cross-attention
  // with per-head weights; decode (one query, many heads); heads of five
  // queries; two heads of two queries over long keys and averaged weights:
  // the heads one after another, each split by key range from 2 workers.
  cases.push_back(mha_case({2, 70, 70, 64, 4, 0, 0}, true, true, false, 1, 4));
  cases.push_back(mha_case({1, 40, 150, 48, 3, 20, 24}, false, false, true, 2, 5));
  cases.push_back(mha_case({1, 1, 1500, 64, 8, 0, 0}, true, false, false, 0, 6));
  cases.push_back(mha_case({3, 5, 300, 32, 2, 0, 0}, true, false, true, 2, 7));
  cases.push_back(mha_case({1, 2, 2000, 64, 2, 0, 0}, true, false, false, 1, 8, 2));
  for (bool step : {false, true}) {
    // Items as tasks; one long item (split from 2 workers); two long items
    // (items at 2 workers, each split from 3).
    cases.push_back(bahdanau_case({8, 50, 12, 16, 16}, step, true, 9, 0));
    cases.push_back(bahdanau_case({1, 3000, 16, 16, 16}, step, false, 10, 2));
    cases.push_back(bahdanau_case({2, 2000, 8, 16, 16}, step, true, 11, 3));
  }
  for (int kind : {0, 1, 2}) {
    const int32_t dq = kind == 0 ? 32 : 24;
    cases.push_back(luong_case({8, 60, kind == 0 ? 16 : 8, 16}, kind, true, 12, 0));
    cases.push_back(luong_case({1, 4000, dq, 32}, kind, false, 13, 2));
    cases.push_back(luong_case({2, 3000, dq, 32}, kind, true, 14, 3));
  }
  return cases;
}

}  // namespace threads_test
