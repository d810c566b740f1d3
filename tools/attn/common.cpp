// Helpers shared by the attn CLI's subcommands (see common.h).
#include "common.h"

#include <sys/stat.h>
#include <algorithm>
#include <cstdio>
#include <limits>

namespace attn_cli {
namespace {

constexpr uint64_t kMaxOutputBytes = uint64_t{1} << 31;

std::string shape_of(const attn_npy::Array& a) { return attn_npy::shape_str(a.shape); }

}  // namespace

int64_t NpyInput::dim(int axis) const {
  const int r = rank();
  const int i = axis < 0 ? r + axis : axis;
  return array.shape[static_cast<std::size_t>(i)];
}

NpyInput load_checked(const std::string& path, const char* dtype, int min_rank, int max_rank) {
  NpyInput in;
  in.path = path;
  std::string err;
  if (!attn_npy::load(path, &in.array, &err) ||
      !attn_npy::expect(in.array, path, dtype, min_rank, max_rank, &err)) {
    throw CliError(err);
  }
  for (const int64_t d : in.array.shape) {
    if (d <= 0) {
      throw CliError(path + ": zero-sized dimension in shape " + shape_of(in.array));
    }
    if (d > std::numeric_limits<int32_t>::max()) {
      throw CliError(path + ": dimension too large in shape " + shape_of(in.array));
    }
  }
  return in;
}

void require_dim(const NpyInput& a, int axis, int64_t want, const std::string& what,
                 const std::string& why) {
  const int64_t got = a.dim(axis);
  if (got != want) {
    throw CliError(a.path + ": " + what + " is " + std::to_string(got) + ", expected " +
                   std::to_string(want) + " (" + why + "); shape " + shape_of(a.array));
  }
}

void require_same_rank(const NpyInput& a, const NpyInput& ref) {
  if (a.rank() != ref.rank()) {
    throw CliError(a.path + ": rank " + std::to_string(a.rank()) + " but " + ref.path +
                   " has rank " + std::to_string(ref.rank()) +
                   " (all must be batched or all unbatched)");
  }
}

MhaInputs load_mha_inputs(const std::string& query, const std::string& kv, const std::string& value,
                          int heads, const char* dtype) {
  MhaInputs in;
  in.query = load_checked(query, dtype, 2, 3);
  const NpyInput& x = in.query;
  in.batched = x.rank() == 3;
  in.key = kv.empty() ? x : load_checked(kv, dtype, 2, 3);
  in.value = in.key;
  if (!value.empty()) {
    if (kv.empty()) throw CliError("--value needs --kv (the keys)");
    in.value = load_checked(value, dtype, 2, 3);
  }
  require_same_rank(in.key, x);
  require_same_rank(in.value, x);
  in.batch = in.batched ? x.dim(0) : 1;
  if (in.batched) {
    require_dim(in.key, 0, in.batch, "batch", "batch of " + x.path);
    require_dim(in.value, 0, in.batch, "batch", "batch of " + x.path);
  }
  require_dim(in.value, -2, in.key.dim(-2), "Skv", "sequence length of " + in.key.path);
  const int64_t e = x.dim(-1);
  if (heads <= 0 || e % heads != 0) {
    throw CliError("--heads " + std::to_string(heads) + " does not divide the embed dim " +
                   std::to_string(e) + " of " + x.path);
  }
  return in;
}

QueryKeysDims check_query_keys(const NpyInput& query, const NpyInput& keys) {
  if (keys.rank() != query.rank() + 1) {
    throw CliError(keys.path + ": rank " + std::to_string(keys.rank()) + ", expected " +
                   std::to_string(query.rank() + 1) + " for query " + query.path + " of rank " +
                   std::to_string(query.rank()) +
                   " (query [B,D] with keys [B,T,D], or [D] with [T,D])");
  }
  QueryKeysDims d;
  d.batched = query.rank() == 2;
  d.b = d.batched ? query.dim(0) : 1;
  if (d.batched) require_dim(keys, 0, d.b, "batch", "batch of " + query.path);
  d.seq = keys.dim(-2);
  d.dq = query.dim(-1);
  d.dk = keys.dim(-1);
  return d;
}

SdpaDims check_sdpa_inputs(const NpyInput& q, const NpyInput& k, const NpyInput& v) {
  require_same_rank(k, q);
  require_same_rank(v, q);
  SdpaDims d;
  d.batched = q.rank() == 3;
  const int64_t b = d.batched ? q.dim(0) : 1;
  if (d.batched) {
    require_dim(k, 0, b, "batch", "batch of " + q.path);
    require_dim(v, 0, b, "batch", "batch of " + q.path);
  }
  require_dim(k, -1, q.dim(-1), "Dk", "last dimension of " + q.path);
  require_dim(v, -2, k.dim(-2), "Skv", "sequence length of " + k.path);
  d.shape.batch = to_i32(b);
  d.shape.seq_q = to_i32(q.dim(-2));
  d.shape.seq_kv = to_i32(k.dim(-2));
  d.shape.dim_k = to_i32(q.dim(-1));
  d.shape.dim_v = to_i32(v.dim(-1));
  return d;
}

std::vector<int64_t> batched_shape(bool batched, int64_t b, std::vector<int64_t> rest) {
  if (batched) rest.insert(rest.begin(), b);
  return rest;
}

int32_t to_i32(int64_t v) {
  if (v < 0 || v > std::numeric_limits<int32_t>::max()) throw CliError("dimension out of range");
  return static_cast<int32_t>(v);
}

attn::Mask LoadedMask::mask() const {
  attn::Mask m;
  m.causal = causal;
  m.key_lengths = key_lengths.empty() ? nullptr : key_lengths.data();
  m.keras = keras.empty() ? nullptr : keras.data();
  m.additive = additive.empty() ? nullptr : additive.data();
  m.boolean = boolean.empty() ? nullptr : boolean.data();
  m.matrix_batch_stride = stride;
  return m;
}

void parse_mask_flag(const std::string& value, MaskInputs* in) {
  if (value == "causal") {
    in->causal = true;
  } else if (value == "none") {
    return;
  } else if (file_exists(value)) {
    in->mask_path = value;
  } else {
    throw CliError("--mask: '" + value + "' is neither causal/none nor a file");
  }
}

namespace {

// A loaded mask matrix: [seq_q, seq_kv] (batched false) or [batch, seq_q, seq_kv].
struct MatrixFile {
  attn_npy::Array array;
  bool batched = false;
};

MatrixFile load_matrix(const std::string& path, const std::string& what, bool allow_bool,
                       int32_t batch, int32_t seq_q, int32_t seq_kv) {
  MatrixFile m;
  std::string err;
  if (!attn_npy::load(path, &m.array, &err)) throw CliError(err);
  const std::string& dt = m.array.dtype;
  const bool ok_type = dt == "<f4" || (allow_bool && (dt == "|b1" || dt == "|u1"));
  if (!ok_type) {
    throw CliError(path + ": " + what + " must be " +
                   (allow_bool ? "float32 (<f4, Keras: 1 = masked), bool (|b1) or uint8 (|u1)"
                               : "float32 (<f4)") +
                   ", got " + dt);
  }
  const auto& s = m.array.shape;
  if (s.size() == 2 && s[0] == seq_q && s[1] == seq_kv) {
    m.batched = false;
  } else if (s.size() == 3 && s[0] == batch && s[1] == seq_q && s[2] == seq_kv) {
    m.batched = true;
  } else {
    throw CliError(path + ": " + what + " shape " + attn_npy::shape_str(s) + " is neither (" +
                   std::to_string(seq_q) + ", " + std::to_string(seq_kv) + ") nor (" +
                   std::to_string(batch) + ", " + std::to_string(seq_q) + ", " +
                   std::to_string(seq_kv) + ")");
  }
  return m;
}

// Copies a mask matrix into `dst`, repeating a [seq_q, seq_kv] matrix `batch`
// times when `expand`.
template <class T>
void fill(const MatrixFile& m, bool expand, int32_t batch, std::vector<T>* dst) {
  const std::size_t n = m.array.count();
  const T* src = m.array.as<T>();
  const std::size_t reps = (expand && !m.batched) ? static_cast<std::size_t>(batch) : 1;
  dst->resize(n * reps);
  for (std::size_t r = 0; r < reps; ++r) {
    std::copy(src, src + n, dst->begin() + static_cast<std::ptrdiff_t>(r * n));
  }
}

}  // namespace

LoadedMask load_masks(const MaskInputs& in, int32_t batch, int32_t seq_q, int32_t seq_kv) {
  LoadedMask out;
  out.causal = in.causal;
  MatrixFile mask;
  MatrixFile additive;
  const bool have_mask = !in.mask_path.empty();
  const bool have_add = !in.additive_path.empty();
  if (have_mask) mask = load_matrix(in.mask_path, "mask", true, batch, seq_q, seq_kv);
  if (have_add) {
    additive = load_matrix(in.additive_path, "additive mask", false, batch, seq_q, seq_kv);
  }
  // One batch stride serves every matrix: if any is batched, expand the others.
  const bool batched = (have_mask && mask.batched) || (have_add && additive.batched);
  out.stride = batched ? static_cast<std::size_t>(seq_q) * static_cast<std::size_t>(seq_kv) : 0;
  if (have_mask) {
    if (mask.array.dtype == "<f4") {
      fill<float>(mask, batched, batch, &out.keras);
    } else {
      fill<uint8_t>(mask, batched, batch, &out.boolean);
    }
  }
  if (have_add) fill<float>(additive, batched, batch, &out.additive);
  if (!in.key_lengths_path.empty()) {
    out.key_lengths = load_key_lengths(in.key_lengths_path, batch, seq_kv);
  }
  return out;
}

std::vector<int32_t> load_key_lengths(const std::string& path, int32_t batch, int32_t seq_kv) {
  attn_npy::Array a;
  std::string err;
  if (!attn_npy::load(path, &a, &err)) throw CliError(err);
  if (a.dtype != "<i4" && a.dtype != "<i8") {
    throw CliError(path + ": key lengths must be int32 (<i4) or int64 (<i8), got " + a.dtype);
  }
  const bool shape_ok = (a.shape.size() == 1 && a.shape[0] == batch) ||
                        (a.shape.empty() && batch == 1);
  if (!shape_ok) {
    throw CliError(path + ": key lengths shape " + attn_npy::shape_str(a.shape) + ", expected (" +
                   std::to_string(batch) + ",)");
  }
  std::vector<int32_t> out(static_cast<std::size_t>(batch));
  for (std::size_t i = 0; i < out.size(); ++i) {
    const int64_t v = a.dtype == "<i4" ? int64_t{a.as<int32_t>()[i]} : a.as<int64_t>()[i];
    if (v < 0 || v > seq_kv) {
      throw CliError(path + ": key length " + std::to_string(v) + " at index " + std::to_string(i) +
                     " is outside [0, " + std::to_string(seq_kv) + "]");
    }
    out[i] = static_cast<int32_t>(v);
  }
  return out;
}

std::vector<unsigned char> make_scratch(std::size_t bytes) {
  return std::vector<unsigned char>(bytes > 0 ? bytes : 1);
}

void check_status(attn::Status s, const std::string& op) {
  if (s != attn::Status::kOk) throw CliError(op + ": " + attn::status_str(s));
}

std::size_t output_count(const std::vector<int64_t>& shape, const std::string& what) {
  uint64_t n = 1;
  for (const int64_t d : shape) {
    const auto u = static_cast<uint64_t>(d);
    if (d < 0 || (u != 0 && n > kMaxOutputBytes / 4 / u)) {
      throw CliError(what + ": output shape " + attn_npy::shape_str(shape) +
                     " is too large (over 2 GiB)");
    }
    n *= u;
  }
  return static_cast<std::size_t>(n);
}

void write_outputs(const std::vector<Output>& outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (!outputs[i].path.empty() && outputs[i].path == outputs[j].path) {
        throw CliError(outputs[i].path + ": given as two different outputs");
      }
    }
  }
  std::vector<std::string> written;
  for (const Output& o : outputs) {
    if (o.path.empty()) continue;
    std::string err;
    if (!attn_npy::save(o.path, "<f4", o.shape, o.data, &err)) {
      for (const std::string& w : written) std::remove(w.c_str());
      throw CliError(err);
    }
    written.push_back(o.path);
  }
}

std::string join_path(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  if (dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

bool file_exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

}  // namespace attn_cli
