// `attn bench <op> --model MODEL`: the blob's op on synthetic inputs, with
// the blob's weights, dimensions and (int8) calibrated quantization.
#include <memory>

#include "attn/attn.h"
#include "attn/bahdanau_s8.h"
#include "attn/luong_s8.h"
#include "attn/mha_s8.h"
#include "attn/model.h"
#include "attn/model_s8.h"
#include "attn/softmax_s8.h"
#include "bench_buffers.h"
#include "model_commands.h"
#include "threads_flag.h"

namespace attn_cli {
namespace {

using Model = std::shared_ptr<const LoadedModel>;

BenchCall mha_model(const Model& lm, const BenchShape& s) {
  const attn::Model& m = lm->model;
  auto b = std::make_shared<BenchBuffers>();
  const attn::MhaShape shape = attn::model_mha_shape(m, s.batch, s.seq_q, s.seq_kv);
  const bool q8 = m.dtype == attn::ModelDtype::kInt8;
  const std::size_t nq = b->count(s.batch, s.seq_q, shape.embed_dim);
  const std::size_t nk = b->count(s.batch, s.seq_kv, shape.kdim);
  const std::size_t nv = b->count(s.batch, s.seq_kv, shape.vdim);
  const attn::Mask mask = b->load_mask(s.masks, s.batch, s.seq_q, s.seq_kv);
  BenchCall c;
  c.int8 = q8;
  c.ops = mha_ops(s.batch, s.seq_q, s.seq_kv, shape.embed_dim, shape.kdim, shape.vdim);
  if (!q8) {
    attn::MhaF32Args a;
    a.executor = threads_executor();
    a.query = b->f32(nq, 1);
    a.key = b->f32(nk, 2);
    a.value = b->f32(nv, 3);
    a.out = b->f32(nq, 0);
    a.mask = mask;
    c.scratch_bytes = attn::model_scratch_bytes(m, s.batch, s.seq_q, s.seq_kv, threads_workers());
    const attn::Scratch scratch = b->scratch(c.scratch_bytes);
    const int32_t bb = s.batch, sq = s.seq_q, skv = s.seq_kv;
    c.call = [lm, b, a, scratch, bb, sq, skv] {
      return attn::model_run_mha_f32(lm->model, bb, sq, skv, a, scratch);
    };
    return c;
  }
  b->channels.resize(attn::mha_s8_channel_count(shape));
  auto params = std::make_shared<attn::MhaS8Params>();
  check_status(attn::model_mha_s8_prepare(m, s.batch, s.seq_q, s.seq_kv, b->channels.data(),
                                          b->channels.size(), params.get()),
               "mha (int8 prepare)");
  attn::MhaS8Args a;
  a.executor = threads_executor();
  a.query = b->s8(nq, 1);
  a.key = b->s8(nk, 2);
  a.value = b->s8(nv, 3);
  a.out = b->s8(nq, 0);
  a.mask = mask;
  c.scratch_bytes = attn::mha_s8_scratch_bytes(shape, threads_workers());
  const attn::Scratch scratch = b->scratch(c.scratch_bytes);
  c.call = [lm, b, params, a, scratch] { return attn::mha_s8(*params, a, scratch); };
  return c;
}

// bahdanau or luong-general: query [B, Dq], keys [B, T, Dk], T = --seq-kv.
BenchCall context_model(const Model& lm, const BenchShape& s) {
  const attn::Model& m = lm->model;
  auto b = std::make_shared<BenchBuffers>();
  const bool bahdanau = m.op == attn::ModelOp::kBahdanau;
  const bool q8 = m.dtype == attn::ModelDtype::kInt8;
  const int32_t bb = s.batch, t = s.seq_kv;
  BenchCall c;
  c.int8 = q8;
  if (bahdanau) {
    const attn::BahdanauShape sh = attn::model_bahdanau_shape(m, bb, t);
    c.ops = bahdanau_ops(bb, t, sh.query_dim, sh.key_dim, sh.units);
    if (!q8) {
      const auto a =
          bench_context_args<attn::BahdanauF32Args>(b.get(), bb, t, sh.query_dim, sh.key_dim);
      c.scratch_bytes = attn::model_scratch_bytes(m, bb, 1, t, threads_workers());
      const attn::Scratch scratch = b->scratch(c.scratch_bytes);
      c.call = [lm, b, a, scratch, bb, t] {
        return attn::model_run_bahdanau_f32(lm->model, bb, t, a, scratch);
      };
      return c;
    }
    b->channels.resize(attn::bahdanau_s8_channel_count(sh));
    auto params = std::make_shared<attn::BahdanauS8Params>();
    check_status(attn::model_bahdanau_s8_prepare(m, bb, t, b->channels.data(), b->channels.size(),
                                                 params.get()),
                 "bahdanau (int8 prepare)");
    const auto a =
        bench_context_args<attn::BahdanauS8Args>(b.get(), bb, t, sh.query_dim, sh.key_dim);
    c.scratch_bytes = attn::bahdanau_s8_scratch_bytes(sh, threads_workers());
    const attn::Scratch scratch = b->scratch(c.scratch_bytes);
    c.call = [lm, b, params, a, scratch] { return attn::bahdanau_s8(*params, a, scratch); };
    return c;
  }
  const attn::LuongGeneralShape sh = attn::model_luong_general_shape(m, bb, t);
  c.ops = luong_general_ops(bb, t, sh.query_dim, sh.key_dim, q8);
  if (!q8) {
    const auto a = bench_context_args<attn::LuongF32Args>(b.get(), bb, t, sh.query_dim, sh.key_dim);
    c.scratch_bytes = attn::model_scratch_bytes(m, bb, 1, t, threads_workers());
    const attn::Scratch scratch = b->scratch(c.scratch_bytes);
    c.call = [lm, b, a, scratch, bb, t] {
      return attn::model_run_luong_general_f32(lm->model, bb, t, a, scratch);
    };
    return c;
  }
  b->channels.resize(static_cast<std::size_t>(sh.query_dim));
  auto params = std::make_shared<attn::LuongS8Params>();
  check_status(attn::model_luong_general_s8_prepare(m, bb, t, b->channels.data(),
                                                    b->channels.size(), params.get()),
               "luong-general (int8 prepare)");
  const auto a = bench_context_args<attn::LuongS8Args>(b.get(), bb, t, sh.query_dim, sh.key_dim);
  c.scratch_bytes = attn::luong_general_s8_scratch_bytes(sh, threads_workers());
  const attn::Scratch scratch = b->scratch(c.scratch_bytes);
  c.call = [lm, b, params, a, scratch] { return attn::luong_s8(*params, a, scratch); };
  return c;
}

}  // namespace

BenchCall prepare_model_call(const std::string& op, const std::string& path,
                             const BenchShape& shape) {
  const Model lm = load_model(path);
  const std::string have = op_cli_name(lm->model.op);
  if (have != op) {
    throw CliError(path + ": a " + have + " model, not " + op + " (use attn bench " + have + ")");
  }
  return lm->model.op == attn::ModelOp::kMha ? mha_model(lm, shape) : context_model(lm, shape);
}

}  // namespace attn_cli
