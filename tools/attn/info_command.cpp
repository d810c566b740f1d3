// `attn info MODEL` (see model_commands.h): a model blob validated by the
// engine's loader, then its header, tensor table, memory for given sizes and
// int8 activation parameters.
#include <cstdio>
#include <memory>
#include <string>

#include "attn/model.h"
#include "attn/model_s8.h"
#include "decode_commands.h"
#include "model_commands.h"

namespace attn_cli {
namespace {

std::string shape_str(const attn::ModelTensor& t) {
  std::string s = "[";
  for (int32_t r = 0; r < t.rank; ++r) {
    if (r > 0) s += ", ";
    s += std::to_string(t.dims[r]);
  }
  return s + "]";
}

const char* const kMhaActNames[] = {"query", "key",    "value", "q",    "k",
                                    "v",     "scores", "probs", "attn", "out"};
const char* const kBahdanauActNames[] = {"query", "keys",   "query_proj", "keys_proj", "sum",
                                         "tanh",  "scores", "probs",      "context"};
const char* const kLuongActNames[] = {"query", "keys", "keys_proj", "scores", "probs", "context"};

const char* const kMhaDecodeActNames[] = {"input", "q", "k", "v", "scores", "probs", "attn", "out"};

// int8 models: the activation (scale, zero point) table.
void print_act_table(const attn::Model& m) {
  if (m.dtype != attn::ModelDtype::kInt8) return;
  const char* const* names = m.op == attn::ModelOp::kMha         ? kMhaActNames
                             : m.op == attn::ModelOp::kBahdanau  ? kBahdanauActNames
                             : m.op == attn::ModelOp::kMhaDecode ? kMhaDecodeActNames
                                                                 : kLuongActNames;
  const int32_t n = m.tensor(attn::TensorId::kActScale).dims[0];
  std::printf("  activations (scale, zero point):");
  for (int32_t i = 0; i < n; ++i) {
    attn::QuantParams q;
    attn::model_act_quant(m, i, &q);
    std::printf("%s %s (%.6g, %d)", i == 0 ? "" : ",", names[i], static_cast<double>(q.scale),
                q.zero_point);
  }
  std::printf("\n");
}

struct InfoFlags {
  std::string model;
  int seq = 64;
  bool seq_given = false;
  int seq_kv = 0;
  int batch = 1;
};

// The header line, the op's hyper-parameters and the tensor table.
void print_blob(const std::string& path, const attn::Model& m) {
  const int32_t* p = m.params;
  std::printf("%s: %s %s model '%s', format v%u, %u bytes, CRC-32 ok\n", path.c_str(),
              attn::model_op_str(m.op), attn::model_dtype_str(m.dtype), m.name,
              static_cast<unsigned>(m.version), static_cast<unsigned>(m.total_bytes));
  if (m.op == attn::ModelOp::kMha) {
    std::printf("  embed_dim %d, num_heads %d (head_dim %d), kdim %d, vdim %d\n", p[0], p[1],
                p[0] / p[1], p[2], p[3]);
  } else if (m.op == attn::ModelOp::kMhaDecode) {
    print_decode_params(m);
  } else if (m.op == attn::ModelOp::kBahdanau) {
    std::printf("  query_dim %d, key_dim %d, units %d\n", p[0], p[1], p[2]);
  } else {
    std::printf("  query_dim %d, key_dim %d\n", p[0], p[1]);
  }
  std::printf("  %-22s %-5s %-12s %8s %10s\n", "tensor", "dtype", "shape", "offset", "bytes");
  std::size_t param_bytes = 0, values = 0;
  for (int32_t id = 0; id < attn::kModelTensorSlots; ++id) {
    const attn::ModelTensor& t = m.tensors[id];
    if (t.data == nullptr) continue;
    std::printf("  %-22s %-5s %-12s %8u %10u\n",
                attn::tensor_id_str(static_cast<attn::TensorId>(id)),
                attn::tensor_dtype_str(t.dtype), shape_str(t).c_str(),
                static_cast<unsigned>(t.offset), static_cast<unsigned>(t.bytes));
    param_bytes += t.bytes;
    std::size_t n = 1;
    for (int32_t r = 0; r < t.rank; ++r) n *= static_cast<std::size_t>(t.dims[r]);
    values += n;
  }
  std::printf("  parameters: %zu values, %zu bytes; blob (flash, read in place): %u bytes\n",
              values, param_bytes, static_cast<unsigned>(m.total_bytes));
}

// Prints and returns an int8 model's scratch: the op's scratch, its channel
// multipliers and (Bahdanau) its prepared parameters.
std::size_t print_s8_scratch(const attn::Model& m, int batch, int seq_q, int seq_kv) {
  std::size_t scratch = 0;
  if (m.op == attn::ModelOp::kMha) {
    const attn::MhaShape s = attn::model_mha_shape(m, batch, seq_q, seq_kv);
    scratch = attn::mha_s8_scratch_bytes(s) +
              attn::mha_s8_channel_count(s) * sizeof(attn::QuantizedMultiplier);
    std::printf("  scratch: %zu bytes (mha_s8 %zu + channel multipliers %zu)\n", scratch,
                attn::mha_s8_scratch_bytes(s),
                attn::mha_s8_channel_count(s) * sizeof(attn::QuantizedMultiplier));
  } else if (m.op == attn::ModelOp::kBahdanau) {
    const attn::BahdanauShape s = attn::model_bahdanau_shape(m, batch, seq_kv);
    const std::size_t ch = attn::bahdanau_s8_channel_count(s) * sizeof(attn::QuantizedMultiplier);
    scratch = attn::bahdanau_s8_scratch_bytes(s) + ch + sizeof(attn::BahdanauS8Params);
    std::printf("  scratch: %zu bytes (bahdanau_s8 %zu + channel multipliers %zu + params %zu)\n",
                scratch, attn::bahdanau_s8_scratch_bytes(s), ch, sizeof(attn::BahdanauS8Params));
  } else {
    const attn::LuongGeneralShape s = attn::model_luong_general_shape(m, batch, seq_kv);
    const std::size_t ch = static_cast<std::size_t>(s.query_dim) *
                           sizeof(attn::QuantizedMultiplier);
    scratch = attn::luong_general_s8_scratch_bytes(s) + ch;
    std::printf("  scratch: %zu bytes (luong_s8 %zu + channel multipliers %zu)\n", scratch,
                attn::luong_general_s8_scratch_bytes(s), ch);
  }
  return scratch;
}

// Sizes, scratch, input/output bytes and the RAM estimate of a model that is
// not a decoder layer.
void print_memory(const attn::Model& m, const InfoFlags& f) {
  const int32_t* p = m.params;
  const int32_t skv = f.seq_kv > 0 ? f.seq_kv : f.seq;
  std::size_t scratch = 0, io = 0;
  const std::size_t b = static_cast<std::size_t>(f.batch);
  const bool q8 = m.dtype == attn::ModelDtype::kInt8;
  const std::size_t item = q8 ? 1 : 4;
  if (m.op == attn::ModelOp::kMha) {
    io = b *
         (2 * static_cast<std::size_t>(f.seq) * static_cast<std::size_t>(p[0]) +
          static_cast<std::size_t>(skv) * static_cast<std::size_t>(p[2] + p[3])) *
         item;
    std::printf("  sizes: batch %d, seq_q %d, seq_kv %d\n", f.batch, f.seq, skv);
  } else {
    io = b *
         (static_cast<std::size_t>(p[0]) +
          static_cast<std::size_t>(skv + 1) * static_cast<std::size_t>(p[1])) *
         item;
    std::printf("  sizes: batch %d, seq %d\n", f.batch, skv);
  }
  if (!q8) {
    scratch = attn::model_scratch_bytes(m, f.batch, f.seq, skv);
    std::printf("  scratch: %zu bytes\n", scratch);
  } else {
    scratch = print_s8_scratch(m, f.batch, f.seq, skv);
  }
  std::printf("  %s inputs + outputs: %zu bytes\n", q8 ? "int8" : "float32", io);
  std::printf("  RAM estimate: %zu bytes (scratch + inputs/outputs + attn::Model %zu)\n",
              scratch + io + sizeof(attn::Model), sizeof(attn::Model));
}

void print_info(const InfoFlags& f) {
  if (f.seq <= 0 || f.batch <= 0 || f.seq_kv < 0) {
    throw CliError("--seq, --seq-kv and --batch must be positive");
  }
  const auto lm = load_model(f.model);
  const attn::Model& m = lm->model;
  print_blob(f.model, m);
  if (m.op == attn::ModelOp::kMhaDecode) {
    print_decode_memory(m, f.seq_given ? f.seq : 1);
  } else {
    print_memory(m, f);
  }
  print_act_table(m);
}

}  // namespace

void add_info(CLI::App* app, Runner* runner) {
  auto f = std::make_shared<InfoFlags>();
  CLI::App* s = app->add_subcommand(
      "info",
      "Validate a model blob (from tools/attn-convert) with the engine's loader and "
      "print its summary: tensors, parameter bytes, scratch and RAM for given sizes");
  s->add_option("model", f->model, "model blob (.attn)")->required()->type_name("MODEL");
  s->add_option("--seq", f->seq,
                "sequence length (mha: seq_q; mha-decode: new tokens per call) for scratch/RAM "
                "(default 64; mha-decode 1)");
  s->add_option("--seq-kv", f->seq_kv, "mha: key length (default --seq)");
  s->add_option("--batch", f->batch, "batch size for RAM (default 1)");
  s->callback([f, s, runner] {
    f->seq_given = s->get_option("--seq")->count() > 0;
    *runner = [f] { print_info(*f); };
  });
}

}  // namespace attn_cli
