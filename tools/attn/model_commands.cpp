// `attn run <op> --model MODEL` (see model_commands.h).
#include "model_commands.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "attn/model.h"
#include "attn/model_s8.h"
#include "threads_flag.h"

namespace attn_cli {

std::unique_ptr<LoadedModel> load_model(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw CliError(path + ": cannot open");
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(f)),
                                   std::istreambuf_iterator<char>());
  if (f.bad()) throw CliError(path + ": read error");
  auto m = std::make_unique<LoadedModel>();
  m->storage.assign(bytes.size() + 64, 0);
  const auto addr = reinterpret_cast<std::uintptr_t>(m->storage.data());
  unsigned char* aligned = m->storage.data() + (64 - addr % 64) % 64;
  std::copy(bytes.begin(), bytes.end(), aligned);
  m->data = aligned;
  m->size = bytes.size();
  attn::ModelError why = attn::ModelError::kNone;
  if (attn::model_load(m->data, m->size, &m->model, &why) != attn::Status::kOk) {
    throw CliError(path + ": not a valid attn model blob: " + attn::model_error_str(why));
  }
  return m;
}

// An int8 input: the file itself with --raw-int8, else float32 quantized with q.
QuantizedInput load_s8_input(const std::string& path, int min_rank, int max_rank, bool raw,
                             const attn::QuantParams& q) {
  QuantizedInput in;
  in.path = path;
  if (raw) {
    std::string err;
    if (!attn_npy::load(path, &in.array, &err) ||
        !attn_npy::expect(in.array, path, "|i1", min_rank, max_rank, &err)) {
      throw CliError(err + " (--raw-int8 takes int8 inputs)");
    }
    const auto* d = in.array.as<int8_t>();
    in.values.assign(d, d + in.array.count());
  } else {
    F32Input x = load_f32(path, min_rank, max_rank);
    in.array.shape = x.array.shape;
    in.values.resize(x.array.count());
    for (std::size_t i = 0; i < in.values.size(); ++i) {
      const float v = x.data()[i];
      if (!std::isfinite(v)) throw CliError(path + ": NaN or Inf cannot be quantized to int8");
      const double r = std::round(static_cast<double>(v) / static_cast<double>(q.scale)) +
                       q.zero_point;
      in.values[i] = static_cast<int8_t>(std::min(127.0, std::max(-128.0, r)));
    }
  }
  for (const int64_t d : in.array.shape) {
    if (d <= 0 || d > (int64_t{1} << 30)) throw CliError(path + ": bad dimension");
  }
  return in;
}

std::string op_cli_name(attn::ModelOp op) {
  switch (op) {
    case attn::ModelOp::kMha: return "mha";
    case attn::ModelOp::kBahdanau: return "bahdanau";
    case attn::ModelOp::kLuongGeneral: return "luong-general";
    case attn::ModelOp::kMhaDecode: return "mha-decode";
    default: return "?";
  }
}

namespace {

template <class A>
void require_last(const A& a, const std::string& path, int64_t got, int64_t want,
                  const std::string& what) {
  (void)a;
  if (got != want) {
    throw CliError(path + ": last dimension is " + std::to_string(got) + ", the model's " + what +
                   " is " + std::to_string(want));
  }
}

std::vector<int64_t> with_batch(bool batched, int64_t b, std::vector<int64_t> rest) {
  if (batched) rest.insert(rest.begin(), b);
  return rest;
}

void save_s8(const std::string& path, const std::vector<int64_t>& shape,
             const std::vector<int8_t>& data) {
  std::string err;
  if (!attn_npy::save(path, "|i1", shape, data.data(), &err)) throw CliError(err);
}

// ---------------------------------------------------------------------- mha
void run_mha_model(const LoadedModel& lm, const ModelRunFiles& f, const ModelFlags& flags) {
  const attn::Model& m = lm.model;
  const int32_t e = m.params[0], heads = m.params[1], kdim = m.params[2], vdim = m.params[3];
  const bool q8 = m.dtype == attn::ModelDtype::kInt8;
  if (flags.raw_int8 && !q8)
    throw CliError("--raw-int8 needs an int8 model; " + flags.path + " is float32");
  if (!f.value.empty() && f.kv.empty()) throw CliError("--value needs --kv (the keys)");

  attn::QuantParams qq{}, kq{}, vq{}, oq{};
  if (q8) {
    attn::model_act_quant(m, static_cast<int32_t>(attn::MhaAct::kQuery), &qq);
    attn::model_act_quant(m, static_cast<int32_t>(attn::MhaAct::kKey), &kq);
    attn::model_act_quant(m, static_cast<int32_t>(attn::MhaAct::kValue), &vq);
    attn::model_act_quant(m, static_cast<int32_t>(attn::MhaAct::kOut), &oq);
  }
  // Shapes (from float or int8 inputs alike).
  F32Input xf, kf, vf;
  QuantizedInput xs, ks, vs;
  std::vector<int64_t> xshape, kshape, vshape;
  if (q8) {
    xs = load_s8_input(f.query, 2, 3, flags.raw_int8, qq);
    xshape = xs.array.shape;
    if (!f.kv.empty()) {
      ks = load_s8_input(f.kv, 2, 3, flags.raw_int8, kq);
      vs = f.value.empty() ? load_s8_input(f.kv, 2, 3, flags.raw_int8, vq)
                           : load_s8_input(f.value, 2, 3, flags.raw_int8, vq);
    } else {
      ks = load_s8_input(f.query, 2, 3, flags.raw_int8, kq);
      vs = load_s8_input(f.query, 2, 3, flags.raw_int8, vq);
    }
    kshape = ks.array.shape;
    vshape = vs.array.shape;
  } else {
    xf = load_f32(f.query, 2, 3);
    kf = f.kv.empty() ? xf : load_f32(f.kv, 2, 3);
    vf = f.value.empty() ? kf : load_f32(f.value, 2, 3);
    xshape = xf.array.shape;
    kshape = kf.array.shape;
    vshape = vf.array.shape;
  }
  const std::string kpath = f.kv.empty() ? f.query : f.kv;
  const std::string vpath = f.value.empty() ? kpath : f.value;
  if (kshape.size() != xshape.size() || vshape.size() != xshape.size()) {
    throw CliError(kpath + ": rank differs from " + f.query);
  }
  const bool batched = xshape.size() == 3;
  const int64_t b = batched ? xshape[0] : 1;
  if (batched && (kshape[0] != b || vshape[0] != b)) {
    throw CliError(kpath + ": batch differs from " + f.query);
  }
  require_last(0, f.query, xshape.back(), e, "embed_dim");
  require_last(0, kpath, kshape.back(), kdim, "kdim");
  require_last(0, vpath, vshape.back(), vdim, "vdim");
  const int64_t sq = xshape[xshape.size() - 2];
  const int64_t skv = kshape[kshape.size() - 2];
  if (vshape[vshape.size() - 2] != skv) {
    throw CliError(vpath + ": sequence length differs from the keys' " + std::to_string(skv));
  }
  const int32_t bb = to_i32(b), isq = to_i32(sq), iskv = to_i32(skv);
  const LoadedMask mask = load_masks(f.masks, bb, isq, iskv);
  const auto out_shape = with_batch(batched, b, {sq, e});
  const auto p_shape = f.per_head_probs ? with_batch(batched, b, {heads, sq, skv})
                                        : with_batch(batched, b, {sq, skv});
  const std::size_t n_out = output_count(out_shape, f.out);

  if (!q8) {
    std::vector<float> out(n_out), probs;
    if (!f.probs_out.empty()) probs.resize(output_count(p_shape, f.probs_out));
    auto scratch = make_scratch(attn::model_scratch_bytes(m, bb, isq, iskv, threads_workers()));
    attn::MhaF32Args a;
    a.executor = threads_executor();
    a.query = xf.data();
    a.key = kf.data();
    a.value = vf.data();
    a.out = out.data();
    a.probs = probs.empty() ? nullptr : probs.data();
    a.probs_mode = f.per_head_probs ? attn::MhaProbsMode::kPerHead : attn::MhaProbsMode::kAveraged;
    a.mask = mask.mask();
    check_status(attn::model_run_mha_f32(m, bb, isq, iskv, a, scratch_of(scratch)), "mha");
    write_outputs({{f.out, out_shape, out.data()}, {f.probs_out, p_shape, probs.data()}});
    return;
  }

  const attn::MhaShape shape = attn::model_mha_shape(m, bb, isq, iskv);
  std::vector<attn::QuantizedMultiplier> channels(attn::mha_s8_channel_count(shape));
  attn::MhaS8Params params;
  check_status(
      attn::model_mha_s8_prepare(m, bb, isq, iskv, channels.data(), channels.size(), &params),
      "mha (int8 prepare)");
  std::vector<int8_t> out(n_out), wq;
  const auto wq_shape = with_batch(batched, b, {heads, sq, skv});
  if (!f.probs_out.empty()) wq.resize(output_count(wq_shape, f.probs_out));
  auto scratch = make_scratch(attn::mha_s8_scratch_bytes(shape, threads_workers()));
  attn::MhaS8Args a;
  a.executor = threads_executor();
  a.query = xs.values.data();
  a.key = ks.values.data();
  a.value = vs.values.data();
  a.out = out.data();
  a.probs = wq.empty() ? nullptr : wq.data();
  a.mask = mask.mask();
  check_status(attn::mha_s8(params, a, scratch_of(scratch)), "mha (int8)");
  if (flags.raw_int8) {
    if (!f.probs_out.empty() && !f.per_head_probs) {
      throw CliError(
          "--raw-int8 --probs-out gives per-head int8 softmax codes: add "
          "--per-head-probs");
    }
    save_s8(f.out, out_shape, out);
    if (!f.probs_out.empty()) save_s8(f.probs_out, wq_shape, wq);
    return;
  }
  std::vector<float> outf(out.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    outf[i] = oq.scale * static_cast<float>(out[i] - oq.zero_point);
  }
  std::vector<float> wf;
  if (!wq.empty()) {
    // Softmax codes: probability = (code + 128) / 256; averaged over heads unless per head.
    const std::size_t per = static_cast<std::size_t>(sq * skv);
    wf.assign(output_count(p_shape, f.probs_out), 0.0f);
    for (std::size_t bi = 0; bi < static_cast<std::size_t>(b); ++bi) {
      for (std::size_t h = 0; h < static_cast<std::size_t>(heads); ++h) {
        const int8_t* src = wq.data() + (bi * static_cast<std::size_t>(heads) + h) * per;
        for (std::size_t i = 0; i < per; ++i) {
          const float pr = static_cast<float>(src[i] + 128) / 256.0f;
          if (f.per_head_probs) {
            wf[(bi * static_cast<std::size_t>(heads) + h) * per + i] = pr;
          } else {
            wf[bi * per + i] += pr / static_cast<float>(heads);
          }
        }
      }
    }
  }
  write_outputs({{f.out, out_shape, outf.data()}, {f.probs_out, p_shape, wf.data()}});
}

// ------------------------------------------------------- bahdanau / luong-general
// int8 Bahdanau / Luong general: activation indices 0 = query, 1 = keys in both.
void run_context_s8_model(const LoadedModel& lm, const ModelRunFiles& f, const ModelFlags& flags) {
  const attn::Model& m = lm.model;
  const bool bahdanau = m.op == attn::ModelOp::kBahdanau;
  auto qp = [&m](int32_t index) {
    attn::QuantParams q;
    attn::model_act_quant(m, index, &q);
    return q;
  };
  const QuantizedInput q = load_s8_input(f.query, 1, 2, flags.raw_int8, qp(0));
  const QuantizedInput h = load_s8_input(f.keys, 2, 3, flags.raw_int8, qp(1));
  if (h.rank() != q.rank() + 1) {
    throw CliError(f.keys + ": rank " + std::to_string(h.rank()) + ", expected " +
                   std::to_string(q.rank() + 1) + " for query " + f.query);
  }
  const bool batched = q.rank() == 2;
  const int64_t b = batched ? q.dim(0) : 1;
  if (batched && h.dim(0) != b) throw CliError(f.keys + ": batch differs from " + f.query);
  require_last(0, f.query, q.dim(-1), m.params[0], "query_dim");
  require_last(0, f.keys, h.dim(-1), m.params[1], "key_dim");
  const int64_t t = h.dim(-2);
  const int32_t bb = to_i32(b), it = to_i32(t);
  std::vector<int32_t> lengths;
  if (!f.masks.key_lengths_path.empty()) {
    lengths = load_key_lengths(f.masks.key_lengths_path, bb, it);
  }
  const auto c_shape = with_batch(batched, b, {m.params[1]});
  const auto p_shape = with_batch(batched, b, {t});
  std::vector<int8_t> ctx(output_count(c_shape, f.out)), w;
  if (!f.probs_out.empty()) w.resize(output_count(p_shape, f.probs_out));
  int32_t context_index = 0;
  if (bahdanau) {
    const attn::BahdanauShape shape = attn::model_bahdanau_shape(m, bb, it);
    std::vector<attn::QuantizedMultiplier> channels(attn::bahdanau_s8_channel_count(shape));
    auto params = std::make_unique<attn::BahdanauS8Params>();
    check_status(
        attn::model_bahdanau_s8_prepare(m, bb, it, channels.data(), channels.size(), params.get()),
        "bahdanau (int8 prepare)");
    auto scratch = make_scratch(attn::bahdanau_s8_scratch_bytes(shape, threads_workers()));
    attn::BahdanauS8Args a;
    a.executor = threads_executor();
    a.query = q.values.data();
    a.keys = h.values.data();
    a.context = ctx.data();
    a.probs = w.empty() ? nullptr : w.data();
    a.key_lengths = lengths.empty() ? nullptr : lengths.data();
    check_status(attn::bahdanau_s8(*params, a, scratch_of(scratch)), "bahdanau (int8)");
    context_index = static_cast<int32_t>(attn::BahdanauAct::kContext);
  } else {
    const attn::LuongGeneralShape shape = attn::model_luong_general_shape(m, bb, it);
    std::vector<attn::QuantizedMultiplier> channels(static_cast<std::size_t>(shape.query_dim));
    attn::LuongS8Params params;
    check_status(
        attn::model_luong_general_s8_prepare(m, bb, it, channels.data(), channels.size(), &params),
        "luong-general (int8 prepare)");
    auto scratch = make_scratch(attn::luong_general_s8_scratch_bytes(shape, threads_workers()));
    attn::LuongS8Args a;
    a.executor = threads_executor();
    a.query = q.values.data();
    a.keys = h.values.data();
    a.context = ctx.data();
    a.probs = w.empty() ? nullptr : w.data();
    a.key_lengths = lengths.empty() ? nullptr : lengths.data();
    check_status(attn::luong_s8(params, a, scratch_of(scratch)), "luong-general (int8)");
    context_index = static_cast<int32_t>(attn::LuongAct::kContext);
  }
  if (flags.raw_int8) {
    save_s8(f.out, c_shape, ctx);
    if (!w.empty()) save_s8(f.probs_out, p_shape, w);
    return;
  }
  const attn::QuantParams oq = qp(context_index);
  std::vector<float> cf(ctx.size()), wf(w.size());
  for (std::size_t i = 0; i < ctx.size(); ++i) {
    cf[i] = oq.scale * static_cast<float>(ctx[i] - oq.zero_point);
  }
  for (std::size_t i = 0; i < w.size(); ++i) wf[i] = static_cast<float>(w[i] + 128) / 256.0f;
  write_outputs({{f.out, c_shape, cf.data()}, {f.probs_out, p_shape, wf.data()}});
}

void run_context_model(const LoadedModel& lm, const ModelRunFiles& f, const ModelFlags& flags) {
  const attn::Model& m = lm.model;
  if (m.dtype == attn::ModelDtype::kInt8) {
    run_context_s8_model(lm, f, flags);
    return;
  }
  if (flags.raw_int8) throw CliError("--raw-int8 needs an int8 model");
  const int32_t dq = m.params[0], dk = m.params[1];
  const F32Input q = load_f32(f.query, 1, 2);
  const F32Input h = load_f32(f.keys, 2, 3);
  if (h.rank() != q.rank() + 1) {
    throw CliError(f.keys + ": rank " + std::to_string(h.rank()) + ", expected " +
                   std::to_string(q.rank() + 1) + " for query " + f.query);
  }
  const bool batched = q.rank() == 2;
  const int64_t b = batched ? q.dim(0) : 1;
  if (batched) require_dim(h, 0, b, "batch", "batch of " + f.query);
  require_last(0, f.query, q.dim(-1), dq, "query_dim");
  require_last(0, f.keys, h.dim(-1), dk, "key_dim");
  const int64_t t = h.dim(-2);
  const int32_t bb = to_i32(b), it = to_i32(t);
  std::vector<int32_t> lengths;
  if (!f.masks.key_lengths_path.empty()) {
    lengths = load_key_lengths(f.masks.key_lengths_path, bb, it);
  }
  const auto c_shape = with_batch(batched, b, {dk});
  const auto p_shape = with_batch(batched, b, {t});
  std::vector<float> ctx(output_count(c_shape, f.out)), w;
  if (!f.probs_out.empty()) w.resize(output_count(p_shape, f.probs_out));
  auto scratch = make_scratch(attn::model_scratch_bytes(m, bb, 1, it, threads_workers()));
  attn::Status st;
  if (m.op == attn::ModelOp::kBahdanau) {
    attn::BahdanauF32Args a;
    a.executor = threads_executor();
    a.query = q.data();
    a.keys = h.data();
    a.context = ctx.data();
    a.probs = w.empty() ? nullptr : w.data();
    a.key_lengths = lengths.empty() ? nullptr : lengths.data();
    st = attn::model_run_bahdanau_f32(m, bb, it, a, scratch_of(scratch));
  } else {
    attn::LuongF32Args a;
    a.executor = threads_executor();
    a.query = q.data();
    a.keys = h.data();
    a.context = ctx.data();
    a.probs = w.empty() ? nullptr : w.data();
    a.key_lengths = lengths.empty() ? nullptr : lengths.data();
    st = attn::model_run_luong_general_f32(m, bb, it, a, scratch_of(scratch));
  }
  check_status(st, op_cli_name(m.op));
  write_outputs({{f.out, c_shape, ctx.data()}, {f.probs_out, p_shape, w.data()}});
}

}  // namespace

void add_model_flags(CLI::App* sub, ModelFlags* flags,
                     std::initializer_list<const char*> weight_options) {
  CLI::Option* model = sub->add_option(
      "--model", flags->path,
      "model blob from tools/attn-convert: weights and hyper-parameters come from it");
  model->type_name("MODEL");
  sub->add_flag("--raw-int8", flags->raw_int8,
                "int8 model: inputs are int8 .npy already quantized with the model's "
                "parameters, outputs int8 (default: float32 in, quantized; float32 out)");
  std::vector<CLI::Option*> weights;
  for (const char* name : weight_options) {
    CLI::Option* o = sub->get_option_no_throw(name);
    if (o == nullptr) continue;
    o->required(false);
    o->excludes(model);
    model->excludes(o);
    weights.push_back(o);
  }
  sub->parse_complete_callback([model, weights] {
    if (model->count() > 0) return;
    for (CLI::Option* o : weights) {
      if (o->count() == 0) {
        throw CLI::RequiredError(o->get_name() + " (or --model MODEL)");
      }
    }
  });
}

void run_model(const std::string& op, const ModelRunFiles& files, const ModelFlags& flags) {
  const auto lm = load_model(flags.path);
  const std::string have = op_cli_name(lm->model.op);
  if (have != op) {
    throw CliError(flags.path + ": a " + have + " model, not " + op + " (use attn run " + have +
                   ")");
  }
  if (lm->model.op == attn::ModelOp::kMha) {
    run_mha_model(*lm, files, flags);
  } else {
    run_context_model(*lm, files, flags);
  }
}

}  // namespace attn_cli
