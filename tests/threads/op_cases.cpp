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
#include "op_cases.h"
#include "ref_double.h"

namespace threads_test {
namespace {

std::size_t uz(int32_t i) { return static_cast<std::size_t>(i); }

std::vector<float> rand_f(std::size_t n, std::mt19937& rng, float scale = 1.0f) {
  std::uniform_real_distribution<float> u(-scale, scale);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

// Key lengths: the first item full, the others random in [1, seq].
std::vector<int32_t> lengths(int32_t batch, int32_t seq, std::mt19937& rng) {
  std::vector<int32_t> l(uz(batch), seq);
  for (int32_t b = 1; b < batch; ++b) l[uz(b)] = 1 + static_cast<int32_t>(rng() % uz(seq));
  return l;
}

Output out_f(std::vector<float>& v) { return Output{v.data(), v.size(), true, false}; }

// ------------------------------------------------------------ general
struct GeneralData {
  attn::GeneralAttentionShape s;
  bool causal = false;
  std::vector<float> x, wq, wk, wv, out, weights;
  std::vector<int32_t> lens;
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
  if (lens) d->lens = lengths(s.batch, s.seq, rng);
  OpCase c;
  c.name = "general_attention_f32 B=" + std::to_string(s.batch) + " S=" + std::to_string(s.seq);
  c.outputs.push_back(out_f(d->out));
  if (weights) c.outputs.push_back(out_f(d->weights));
  c.scratch_bytes = [s](int32_t w) { return attn::general_attention_f32_scratch_bytes(s, w); };
  GeneralData* p = d.get();
  c.run = [p](const attn::Executor& ex, attn::Scratch sc) {
    attn::GeneralAttentionF32Args a;
    a.x = p->x.data();
    a.out = p->out.data();
    a.weights = p->weights.empty() ? nullptr : p->weights.data();
    a.mask.causal = p->causal;
    a.mask.key_lengths = p->lens.empty() ? nullptr : p->lens.data();
    a.executor = ex;
    return attn::general_attention_f32(p->s, {p->wq.data(), p->wk.data(), p->wv.data()}, a, sc);
  };
  c.data = d;
  return c;
}

// ------------------------------------------------------------ mha
struct MhaData {
  attn::MhaShape s;
  bool packed = true, causal = false;
  attn::MhaWeightsMode mode = attn::MhaWeightsMode::kAveraged;
  std::vector<float> query, key, value, in_w, q_w, k_w, v_w, in_b, out_w, out_b, out, weights;
  std::vector<int32_t> lens;
};

// The double-precision MHA of a packed, unmasked case with averaged weights
// (as tests/cases/mha_cases.cpp): out, then the weights.
void mha_reference(const MhaData& d, std::vector<double>* ref, std::vector<double>* tol) {
  const attn::MhaShape& s = d.s;
  const int e = s.embed_dim;
  const int hd = e / s.num_heads;
  const std::size_t sqkv = uz(s.seq_q) * uz(s.seq_kv);
  const double scale = 1.0 / std::sqrt(static_cast<double>(hd));
  std::vector<double> out_r, out_t, w_r, w_t;
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
    out_r.insert(out_r.end(), y.begin(), y.end());
    out_t.insert(out_t.end(), ye.begin(), ye.end());
    w_r.insert(w_r.end(), avg.begin(), avg.end());
    w_t.insert(w_t.end(), avg_t.begin(), avg_t.end());
  }
  *ref = out_r;
  ref->insert(ref->end(), w_r.begin(), w_r.end());
  *tol = out_t;
  tol->insert(tol->end(), w_t.begin(), w_t.end());
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
  d->query = rand_f(uz(s.batch) * uz(s.seq_q) * uz(e), rng);
  d->key = rand_f(uz(s.batch) * uz(s.seq_kv) * uz(kd), rng);
  d->value = rand_f(uz(s.batch) * uz(s.seq_kv) * uz(vd), rng);
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
  d->out.resize(uz(s.batch) * uz(s.seq_q) * uz(e));
  if (lens) d->lens = lengths(s.batch, s.seq_kv, rng);
  OpCase c;
  c.name = "mha_f32 B=" + std::to_string(s.batch) + " Sq=" + std::to_string(s.seq_q) +
           " Skv=" + std::to_string(s.seq_kv) + " H=" + std::to_string(s.num_heads);
  c.outputs.push_back(out_f(d->out));
  if (weights != 0) {
    d->mode = weights == 1 ? attn::MhaWeightsMode::kAveraged : attn::MhaWeightsMode::kPerHead;
    const std::size_t heads = weights == 1 ? 1 : uz(s.num_heads);
    d->weights.resize(uz(s.batch) * heads * uz(s.seq_q) * uz(s.seq_kv));
    c.outputs.push_back(out_f(d->weights));
  }
  c.scratch_bytes = [s](int32_t w) { return attn::mha_f32_scratch_bytes(s, w); };
  MhaData* p = d.get();
  c.run = [p](const attn::Executor& ex, attn::Scratch sc) {
    attn::MhaF32Weights w;
    if (p->packed) {
      w.in_proj_weight = p->in_w.data();
    } else {
      w.q_proj_weight = p->q_w.data();
      w.k_proj_weight = p->k_w.data();
      w.v_proj_weight = p->v_w.data();
    }
    w.in_proj_bias = p->in_b.data();
    w.out_proj_weight = p->out_w.data();
    w.out_proj_bias = p->out_b.data();
    attn::MhaF32Args a;
    a.query = p->query.data();
    a.key = p->key.data();
    a.value = p->value.data();
    a.out = p->out.data();
    a.weights = p->weights.empty() ? nullptr : p->weights.data();
    a.weights_mode = p->mode;
    a.mask.causal = p->causal;
    a.mask.key_lengths = p->lens.empty() ? nullptr : p->lens.data();
    a.executor = ex;
    return attn::mha_f32(p->s, w, a, sc);
  };
  c.split_from = split_from;
  if (split_from != 0) {
    c.reference = [p](std::vector<double>* ref, std::vector<double>* tol) {
      mha_reference(*p, ref, tol);
    };
  }
  c.data = d;
  return c;
}

// ------------------------------------------------------------ bahdanau
struct BahdanauData {
  attn::BahdanauShape s;
  bool step = false;
  std::vector<float> query, keys, w1, b1, w2, b2, v, context, weights, memory, memory_out;
  float bv = 0.25f;
  std::vector<int32_t> lens;
  attn::BahdanauF32Weights w() const {
    return {w1.data(), b1.data(), w2.data(), b2.data(), v.data(), bv};
  }
};

// The reference of a single-query op's outputs, context [B, Dk] then weights
// [B, T]: item(b, p, p_tol, context, context_tol) fills one batch item's.
template <class Item>
void context_reference(int32_t batch, int32_t seq, int32_t dk, Item item, std::vector<double>* ref,
                       std::vector<double>* tol) {
  std::vector<double> ctx, ctx_t, w, w_t;
  for (int32_t b = 0; b < batch; ++b) {
    std::vector<double> p(uz(seq)), pt(p.size()), c(uz(dk)), ct(c.size());
    item(b, p.data(), pt.data(), c.data(), ct.data());
    ctx.insert(ctx.end(), c.begin(), c.end());
    ctx_t.insert(ctx_t.end(), ct.begin(), ct.end());
    w.insert(w.end(), p.begin(), p.end());
    w_t.insert(w_t.end(), pt.begin(), pt.end());
  }
  *ref = ctx;
  ref->insert(ref->end(), w.begin(), w.end());
  *tol = ctx_t;
  tol->insert(tol->end(), w_t.begin(), w_t.end());
}

void bahdanau_reference(const BahdanauData& d, std::vector<double>* ref, std::vector<double>* tol) {
  const attn::BahdanauShape& s = d.s;
  const auto item = [&](int32_t b, double* p, double* pt, double* c, double* ct) {
    attn_ref::bahdanau(
        s.seq, s.query_dim, s.key_dim, s.units, d.query.data() + uz(b) * uz(s.query_dim),
        d.keys.data() + uz(b) * uz(s.seq) * uz(s.key_dim), d.w1.data(), d.b1.data(), d.w2.data(),
        d.b2.data(), d.v.data(), d.bv, d.lens.empty() ? s.seq : d.lens[uz(b)], p, pt, c, ct);
  };
  context_reference(s.batch, s.seq, s.key_dim, item, ref, tol);
}

OpCase bahdanau_case(const attn::BahdanauShape& s, bool step, bool lens, uint32_t seed,
                     int32_t split_from) {
  auto d = std::make_shared<BahdanauData>();
  std::mt19937 rng(seed);
  d->s = s;
  d->step = step;
  d->query = rand_f(uz(s.batch) * uz(s.query_dim), rng);
  d->keys = rand_f(uz(s.batch) * uz(s.seq) * uz(s.key_dim), rng);
  d->w1 = rand_f(uz(s.query_dim) * uz(s.units), rng, 0.5f);
  d->b1 = rand_f(uz(s.units), rng, 0.1f);
  d->w2 = rand_f(uz(s.key_dim) * uz(s.units), rng, 0.5f);
  d->b2 = rand_f(uz(s.units), rng, 0.1f);
  d->v = rand_f(uz(s.units), rng);
  d->context.resize(uz(s.batch) * uz(s.key_dim));
  d->weights.resize(uz(s.batch) * uz(s.seq));
  if (lens) d->lens = lengths(s.batch, s.seq, rng);
  OpCase c;
  c.name = std::string(step ? "bahdanau_f32_step" : "bahdanau_f32") +
           " B=" + std::to_string(s.batch) + " T=" + std::to_string(s.seq);
  c.outputs = {out_f(d->context), out_f(d->weights)};
  const std::size_t mem_bytes = attn::bahdanau_f32_memory_bytes(s);
  if (step) {
    d->memory.resize(mem_bytes / 4);
    d->memory_out.resize(mem_bytes / 4);
    c.setup = attn::bahdanau_f32_memory(s, d->w(), d->keys.data(), d->memory.data(), mem_bytes);
    // The memory written through the executor equals the serial memory.
    c.outputs.push_back(Output{d->memory_out.data(), d->memory_out.size(), true, true});
  }
  c.scratch_bytes = [s](int32_t w) { return attn::bahdanau_f32_scratch_bytes(s, w); };
  BahdanauData* p = d.get();
  c.run = [p, mem_bytes](const attn::Executor& ex, attn::Scratch sc) {
    attn::BahdanauF32Args a;
    a.query = p->query.data();
    a.keys = p->keys.data();
    a.context = p->context.data();
    a.weights = p->weights.data();
    a.key_lengths = p->lens.empty() ? nullptr : p->lens.data();
    a.executor = ex;
    if (!p->step) return attn::bahdanau_f32(p->s, p->w(), a, sc);
    const attn::Status st =
        attn::bahdanau_f32_step(p->s, p->w(), a, p->memory.data(), mem_bytes, sc);
    if (st != attn::Status::kOk) return st;
    return attn::bahdanau_f32_memory(p->s, p->w(), p->keys.data(), p->memory_out.data(), mem_bytes,
                                     ex);
  };
  c.split_from = split_from;
  c.reference = [p](std::vector<double>* ref, std::vector<double>* tol) {
    bahdanau_reference(*p, ref, tol);
  };
  c.data = d;
  return c;
}

// ------------------------------------------------------------ luong
struct LuongData {
  attn::LuongGeneralShape s;
  int kind = 0;  // 0 dot, 1 general, 2 general step
  std::vector<float> query, keys, w, b, context, weights, memory, memory_out;
  std::vector<int32_t> lens;
};

void luong_reference(const LuongData& d, std::vector<double>* ref, std::vector<double>* tol) {
  const attn::LuongGeneralShape& s = d.s;
  const auto item = [&](int32_t b, double* p, double* pt, double* c, double* ct) {
    attn_ref::luong(s.seq, s.query_dim, s.key_dim, d.query.data() + uz(b) * uz(s.query_dim),
                    d.keys.data() + uz(b) * uz(s.seq) * uz(s.key_dim),
                    d.kind == 0 ? nullptr : d.w.data(), d.kind == 0 ? nullptr : d.b.data(),
                    d.lens.empty() ? s.seq : d.lens[uz(b)], p, pt, c, ct);
  };
  context_reference(s.batch, s.seq, s.key_dim, item, ref, tol);
}

attn::Status run_luong(LuongData* p, const attn::Executor& ex, attn::Scratch sc) {
  attn::LuongF32Args a;
  a.query = p->query.data();
  a.keys = p->keys.data();
  a.context = p->context.data();
  a.weights = p->weights.data();
  a.key_lengths = p->lens.empty() ? nullptr : p->lens.data();
  a.executor = ex;
  const attn::LuongGeneralF32Weights w{p->w.data(), p->b.data()};
  if (p->kind == 0) return attn::luong_dot_f32({p->s.batch, p->s.seq, p->s.key_dim}, a, sc);
  if (p->kind == 1) return attn::luong_general_f32(p->s, w, a, sc);
  const std::size_t mem_bytes = p->memory.size() * 4;
  const attn::Status st = attn::luong_general_f32_step(p->s, a, p->memory.data(), mem_bytes, sc);
  if (st != attn::Status::kOk) return st;
  return attn::luong_general_f32_memory(p->s, w, p->keys.data(), p->memory_out.data(), mem_bytes,
                                        ex);
}

OpCase luong_case(const attn::LuongGeneralShape& s, int kind, bool lens, uint32_t seed,
                  int32_t split_from) {
  auto d = std::make_shared<LuongData>();
  std::mt19937 rng(seed);
  d->s = s;
  d->kind = kind;
  d->query = rand_f(uz(s.batch) * uz(s.query_dim), rng);
  d->keys = rand_f(uz(s.batch) * uz(s.seq) * uz(s.key_dim), rng);
  d->w = rand_f(uz(s.key_dim) * uz(s.query_dim), rng, 0.5f);
  d->b = rand_f(uz(s.query_dim), rng, 0.1f);
  d->context.resize(uz(s.batch) * uz(s.key_dim));
  d->weights.resize(uz(s.batch) * uz(s.seq));
  if (lens) d->lens = lengths(s.batch, s.seq, rng);
  static const char* const kNames[] = {"luong_dot_f32", "luong_general_f32",
                                       "luong_general_f32_step"};
  OpCase c;
  c.name = std::string(kNames[kind]) + " B=" + std::to_string(s.batch) +
           " T=" + std::to_string(s.seq);
  c.outputs = {out_f(d->context), out_f(d->weights)};
  if (kind == 2) {
    const std::size_t mem_bytes = attn::luong_general_f32_memory_bytes(s);
    d->memory.resize(mem_bytes / 4);
    d->memory_out.resize(mem_bytes / 4);
    c.setup = attn::luong_general_f32_memory(s, {d->w.data(), d->b.data()}, d->keys.data(),
                                             d->memory.data(), mem_bytes);
    c.outputs.push_back(Output{d->memory_out.data(), d->memory_out.size(), true, true});
  }
  c.scratch_bytes = [s, kind](int32_t w) {
    if (kind == 0) return attn::luong_dot_f32_scratch_bytes({s.batch, s.seq, s.key_dim}, w);
    if (kind == 1) return attn::luong_general_f32_scratch_bytes(s, w);
    return attn::luong_general_f32_step_scratch_bytes(s, w);
  };
  LuongData* p = d.get();
  c.run = [p](const attn::Executor& ex, attn::Scratch sc) { return run_luong(p, ex, sc); };
  c.split_from = split_from;
  c.reference = [p](std::vector<double>* ref, std::vector<double>* tol) {
    luong_reference(*p, ref, tol);
  };
  c.data = d;
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
