// Helpers shared by the attn CLI's subcommands: loading and checking .npy
// inputs, masks, writing outputs. Host code: it allocates and throws; every
// error is a CliError whose message is one line naming the file and problem.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "attn/mask.h"
#include "attn/scratch.h"
#include "attn/sdpa.h"
#include "attn/status.h"
#include "npy.h"

namespace attn_cli {

// Any error the CLI reports: printed as "attn: <message>", exit code 2.
struct CliError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A loaded .npy input and the file it came from.
struct NpyInput {
  std::string path;
  attn_npy::Array array;
  int rank() const { return static_cast<int>(array.shape.size()); }
  // Dimension `axis` (negative counts from the end).
  int64_t dim(int axis) const;
};

// The same with its element type.
template <class T>
struct TypedInput : NpyInput {
  const T* data() const { return array.as<T>(); }
};
using F32Input = TypedInput<float>;
using S8Input = TypedInput<int8_t>;

// Loads `path` with numpy dtype `dtype` and rank in [min_rank, max_rank];
// every dimension must be in [1, 2^31).
NpyInput load_checked(const std::string& path, const char* dtype, int min_rank, int max_rank);
inline F32Input load_f32(const std::string& path, int min_rank, int max_rank) {
  return F32Input{load_checked(path, "<f4", min_rank, max_rank)};
}
inline S8Input load_s8(const std::string& path, int min_rank, int max_rank) {
  return S8Input{load_checked(path, "|i1", min_rank, max_rank)};
}

// Throws "<a.path>: <what> is <got>, expected <want> (<why>)" unless equal.
void require_dim(const NpyInput& a, int axis, int64_t want, const std::string& what,
                 const std::string& why);

// Throws unless a and ref are both batched or both unbatched.
void require_same_rank(const NpyInput& a, const NpyInput& ref);

// Multi-head attention inputs: query [B, Sq, E] or [Sq, E]; keys from `kv`
// (default: the query), values from `value` (default: the keys, needs `kv`);
// batch, Skv and `heads` dividing E checked, every file of numpy dtype `dtype`.
struct MhaInputs {
  NpyInput query, key, value;
  bool batched = false;
  int64_t batch = 1;
};
MhaInputs load_mha_inputs(const std::string& query, const std::string& kv, const std::string& value,
                          int heads, const char* dtype);

// Query and keys of the single-query ops (bahdanau, luong): query [B, Dq]
// with keys [B, T, Dk], or [Dq] with [T, Dk] (batch 1); the batch checked.
struct QueryKeysDims {
  bool batched = false;
  int64_t b = 1, seq = 0, dq = 0, dk = 0;
};
// Throws unless the ranks and batches agree; returns the dimensions.
QueryKeysDims check_query_keys(const NpyInput& query, const NpyInput& keys);
template <class T>
struct QueryKeys : QueryKeysDims {
  TypedInput<T> query, keys;
};
// Loads both with numpy dtype `dtype` ("<f4" for float, "|i1" for int8).
template <class T>
QueryKeys<T> load_query_keys(const std::string& qpath, const std::string& kpath,
                             const char* dtype) {
  QueryKeys<T> r;
  r.query = TypedInput<T>{load_checked(qpath, dtype, 1, 2)};
  r.keys = TypedInput<T>{load_checked(kpath, dtype, 2, 3)};
  static_cast<QueryKeysDims&>(r) = check_query_keys(r.query, r.keys);
  return r;
}

// SDPA inputs: Q [B, Sq, Dk], K [B, Skv, Dk], V [B, Skv, Dv], or all three
// without the batch; ranks, batch, Dk and Skv checked.
struct SdpaDims {
  bool batched = false;
  attn::SdpaShape shape;
};
// Throws unless the three agree; returns the shape (every dimension < 2^31).
SdpaDims check_sdpa_inputs(const NpyInput& q, const NpyInput& k, const NpyInput& v);
template <class T>
struct SdpaInputs : SdpaDims {
  TypedInput<T> q, k, v;
};
// Loads all three with numpy dtype `dtype` ("<f4" for float, "|i1" for int8).
template <class T>
SdpaInputs<T> load_sdpa_inputs(const std::string& q, const std::string& k, const std::string& v,
                               const char* dtype) {
  SdpaInputs<T> r;
  r.q = TypedInput<T>{load_checked(q, dtype, 2, 3)};
  r.k = TypedInput<T>{load_checked(k, dtype, 2, 3)};
  r.v = TypedInput<T>{load_checked(v, dtype, 2, 3)};
  static_cast<SdpaDims&>(r) = check_sdpa_inputs(r.q, r.k, r.v);
  return r;
}

// Output shape: the batch prefix [b] only when the inputs were batched.
std::vector<int64_t> batched_shape(bool batched, int64_t b, std::vector<int64_t> rest);

// Narrows a checked dimension to the engine's int32.
int32_t to_i32(int64_t v);

// Masks loaded from the command line for an attention of batch x seq_q x seq_kv.
struct MaskInputs {
  bool causal = false;
  std::string mask_path;         // --mask M.npy (float32 Keras or bool/uint8)
  std::string additive_path;     // --additive-mask A.npy (float32, added as is)
  std::string key_lengths_path;  // --key-lengths L.npy (int32/int64 [batch])
};

// The loaded masks, owning their storage; mask() points into it.
struct LoadedMask {
  attn::Mask mask() const;
  bool causal = false;
  std::vector<float> keras;
  std::vector<float> additive;
  std::vector<uint8_t> boolean;
  std::vector<int32_t> key_lengths;
  std::size_t stride = 0;
};

// Parses "--mask" into `in`: "causal", "none" (no mask), or an existing file;
// anything else throws "--mask: 'X' is neither causal/none nor a file".
void parse_mask_flag(const std::string& value, MaskInputs* in);

LoadedMask load_masks(const MaskInputs& in, int32_t batch, int32_t seq_q, int32_t seq_kv);

// Loads int32/int64 key lengths: shape [batch] (or a scalar when batch is 1),
// each in [0, seq_kv].
std::vector<int32_t> load_key_lengths(const std::string& path, int32_t batch, int32_t seq_kv);

// Host scratch for an op: at least `bytes` (never empty).
std::vector<unsigned char> make_scratch(std::size_t bytes);
inline attn::Scratch scratch_of(std::vector<unsigned char>& v) {
  return attn::Scratch{v.data(), v.size()};
}

// Throws CliError("<op>: <status_str>") unless kOk.
void check_status(attn::Status s, const std::string& op);

// Number of floats for an output shape; throws if it would exceed 2 GiB.
std::size_t output_count(const std::vector<int64_t>& shape, const std::string& what);

// The buffers of the single-query ops (bahdanau, luong; float or int8): key
// lengths [B] (optional, loaded and checked first), context [B, Dk] and
// probs [B, T] (only when probs_out is given); the shapes carry the batch
// axis only when the inputs had it.
template <class T>
struct ContextBuffers {
  std::vector<int32_t> lengths;
  std::vector<int64_t> ctx_shape, p_shape;
  std::vector<T> ctx, probs;
  ContextBuffers(const QueryKeysDims& qk, const std::string& out, const std::string& probs_out,
                 const std::string& key_lengths) {
    if (!key_lengths.empty()) lengths = load_key_lengths(key_lengths, to_i32(qk.b), to_i32(qk.seq));
    ctx_shape = batched_shape(qk.batched, qk.b, {qk.dk});
    p_shape = batched_shape(qk.batched, qk.b, {qk.seq});
    ctx.resize(output_count(ctx_shape, out));
    if (!probs_out.empty()) probs.resize(output_count(p_shape, probs_out));
  }
  // Points an op's args (query, keys, context, probs, key_lengths) here.
  template <class Args>
  void bind(const QueryKeys<T>& qk, Args* a) {
    a->query = qk.query.data();
    a->keys = qk.keys.data();
    a->context = ctx.data();
    a->probs = probs.empty() ? nullptr : probs.data();
    a->key_lengths = lengths.empty() ? nullptr : lengths.data();
  }
};

// An output array to write.
struct Output {
  std::string path;
  std::vector<int64_t> shape;
  const float* data;
};

// Writes every output with a path (float32). If one fails, the ones already
// written are removed and CliError is thrown: an error leaves no output file.
void write_outputs(const std::vector<Output>& outputs);

// Joins a directory and a file name.
std::string join_path(const std::string& dir, const std::string& name);
bool file_exists(const std::string& path);

}  // namespace attn_cli
