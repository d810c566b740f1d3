// The engine against reference outputs from PyTorch 1.13 (MHA, SDPA) and from
// NumPy implementations of the seed Keras layers (Bahdanau, Luong dot and
// general), stored as .npy files under tests/data/reference by
// tests/reference/gen_reference.py; manifest.json lists the cases (see the README there).
//
// Tolerance: |got - want| <= abs + rel * |want| with rel = 1e-5, abs = 2e-6
// (read from the manifest; the same for every case). Why this bound:
//  - the expected values are float64 results rounded once to float32
//    (0.5 ulp = 6e-8 relative);
//  - the engine stores and accumulates in float32. Its longest sums here are
//    dot products of length 64 (E=64 projections, d_k=64) and weighted sums
//    over up to 150 keys with inputs ~N(0,1): the rounding error of such a sum
//    is about sqrt(n) * 6e-8 * sum|terms| typically (n * 6e-8 * sum|terms| at
//    worst), i.e. a few 1e-7 up to ~1e-6 of the summands' scale (order 1 here),
//    and softmax turns an absolute score error d into a relative weight error
//    of about d;
//  - PyTorch itself, run in float32 on the same inputs, lands up to ~4e-7 from
//    its float64 result on these cases (recorded per case in the manifest as
//    torch_f32_max_abs_diff); the reference backend lands within ~8e-7.
// So 1e-5 relative leaves room for SIMD backends (reassociated sums, polynomial
// exp) while any real mistake (a wrong mask, head, offset, scale, bias or weight
// layout) moves values by 1e-2 or more. The absolute floor covers outputs near
// zero, whose error scales with the summands (order 1) rather than with the
// result; weights lie in [0, 1].
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attn/attn.h"
#include "npy.h"

#ifndef ATTN_REFERENCE_DATA_DIR
#error "ATTN_REFERENCE_DATA_DIR must name tests/data/reference"
#endif

namespace {

using nlohmann::json;

const std::string kDataDir = ATTN_REFERENCE_DATA_DIR;

bool read_manifest(json* out, std::string* error) {
  const std::string path = kDataDir + "/manifest.json";
  std::ifstream in(path);
  if (!in) {
    *error = path + ": cannot open (run tests/reference/gen_reference.py)";
    return false;
  }
  *out = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (out->is_discarded() || !out->contains("cases") || !(*out)["cases"].is_array()) {
    *error = path + ": not a valid manifest";
    return false;
  }
  return true;
}

// Case names, for the test parameters (empty list -> ManifestLoads fails).
std::vector<std::string> case_names() {
  json m;
  std::string error;
  std::vector<std::string> names;
  if (!read_manifest(&m, &error)) return names;
  for (const auto& c : m["cases"]) names.push_back(c.value("name", std::string("unnamed")));
  return names;
}

struct CaseData {
  json spec;
  std::map<std::string, attn_npy::Array> arrays;  // by file name

  // The array a role ("inputs"/"expected", key) refers to, or null if absent.
  const attn_npy::Array* get(const char* role, const std::string& key) const {
    const auto& m = spec[role];
    if (!m.contains(key)) return nullptr;
    auto it = arrays.find(m[key].get<std::string>());
    return it == arrays.end() ? nullptr : &it->second;
  }
  bool has(const std::string& key) const { return spec["inputs"].contains(key); }
  int32_t dim(const char* name) const { return spec["shape"][name].get<int32_t>(); }
  bool flag(const char* name) const { return spec["flags"].value(name, false); }
};

std::string join_shape(const std::vector<int64_t>& s) { return attn_npy::shape_str(s); }

// Loads every file of a case; checks dtype and element count against `want_count`.
::testing::AssertionResult load_case(const std::string& name, CaseData* data) {
  json m;
  std::string error;
  if (!read_manifest(&m, &error)) return ::testing::AssertionFailure() << error;
  for (const auto& c : m["cases"]) {
    if (c.value("name", std::string()) == name) data->spec = c;
  }
  if (data->spec.is_null()) return ::testing::AssertionFailure() << "no case " << name;
  const std::string dir = kDataDir + "/" + data->spec["dir"].get<std::string>();
  for (const char* role : {"inputs", "expected"}) {
    for (const auto& item : data->spec[role].items()) {
      const std::string file = item.value().get<std::string>();
      if (data->arrays.count(file) != 0) continue;
      attn_npy::Array a;
      if (!attn_npy::load(dir + "/" + file, &a, &error)) {
        return ::testing::AssertionFailure() << error;
      }
      data->arrays.emplace(file, std::move(a));
    }
  }
  return ::testing::AssertionSuccess();
}

// A float32 array of exactly `count` elements, or a test failure.
const float* f32(const CaseData& d, const char* role, const std::string& key, std::size_t count) {
  const attn_npy::Array* a = d.get(role, key);
  if (a == nullptr) {
    ADD_FAILURE() << d.spec["name"] << ": missing " << key;
    return nullptr;
  }
  if (a->dtype != "<f4" || a->count() != count) {
    ADD_FAILURE() << d.spec["name"] << ": " << key << " is " << a->dtype << " "
                  << join_shape(a->shape) << ", expected <f4 with " << count << " elements";
    return nullptr;
  }
  return a->as<float>();
}

const int32_t* i32(const CaseData& d, const std::string& key, std::size_t count) {
  const attn_npy::Array* a = d.get("inputs", key);
  if (a == nullptr) return nullptr;
  if (a->dtype != "<i4" || a->count() != count) {
    ADD_FAILURE() << d.spec["name"] << ": " << key << " is " << a->dtype << " "
                  << join_shape(a->shape) << ", expected <i4 with " << count << " elements";
    return nullptr;
  }
  return a->as<int32_t>();
}

const uint8_t* u8(const CaseData& d, const std::string& key, std::size_t count) {
  const attn_npy::Array* a = d.get("inputs", key);
  if (a == nullptr) return nullptr;
  if (a->dtype != "|u1" || a->count() != count) {
    ADD_FAILURE() << d.spec["name"] << ": " << key << " is " << a->dtype << " "
                  << join_shape(a->shape) << ", expected |u1 with " << count << " elements";
    return nullptr;
  }
  return a->as<uint8_t>();
}

// Compares got with the expected array `key`; prints the observed maximum errors.
void compare(const CaseData& d, const std::string& key, const std::vector<float>& got,
             const char* label = nullptr) {
  const float* want = f32(d, "expected", key, got.size());
  if (want == nullptr) return;
  const double rel = d.spec["tolerance"]["rel"].get<double>();
  const double abs_floor = d.spec["tolerance"]["abs"].get<double>();
  double max_abs = 0.0;
  double max_ratio = 0.0;  // error / tolerance, <= 1 passes
  std::size_t worst = 0;
  int reported = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double w = want[i];
    const double g = got[i];
    const double err = std::fabs(g - w);
    const double tol = abs_floor + rel * std::fabs(w);
    const double ratio = std::isnan(err) ? INFINITY : err / tol;
    if (ratio > max_ratio || std::isnan(err)) {
      max_ratio = ratio;
      worst = i;
    }
    if (!std::isnan(err)) max_abs = std::max(max_abs, err);
    if (!(err <= tol) && reported < 5) {
      ++reported;
      ADD_FAILURE() << d.spec["name"].get<std::string>() << " " << key << "[" << i << "]: got " << g
                    << ", want " << w << " (err " << err << ", tol " << tol << ")";
    }
  }
  std::printf("[ reference ] %-40s %-13s %-12s max_abs_err %.3e  max_err/tol %.3f (at %zu)\n",
              d.spec["name"].get<std::string>().c_str(), d.spec["op"].get<std::string>().c_str(),
              label != nullptr ? label : key.c_str(), max_abs, max_ratio, worst);
}

// Scratch of exactly `bytes` bytes, deliberately misaligned by one byte.
struct ScratchBuf {
  explicit ScratchBuf(std::size_t bytes) : buf(bytes + 1) {}
  attn::Scratch scratch() { return attn::Scratch{buf.data() + 1, buf.size() - 1}; }
  std::vector<unsigned char> buf;
};

std::vector<float> sentinel(std::size_t n) { return std::vector<float>(n, std::nanf("")); }

std::size_t sz(int32_t v) { return static_cast<std::size_t>(v); }

void run_sdpa(const CaseData& d) {
  attn::SdpaShape s;
  s.batch = d.dim("batch");
  s.seq_q = d.dim("seq_q");
  s.seq_kv = d.dim("seq_kv");
  s.dim_k = d.dim("dim_k");
  s.dim_v = d.dim("dim_v");
  const std::size_t b = sz(s.batch), sq = sz(s.seq_q), skv = sz(s.seq_kv);
  const std::size_t mat = d.flag("batched_mask") ? b * sq * skv : sq * skv;
  attn::SdpaF32Args a;
  a.q = f32(d, "inputs", "q", b * sq * sz(s.dim_k));
  a.k = f32(d, "inputs", "k", b * skv * sz(s.dim_k));
  a.v = f32(d, "inputs", "v", b * skv * sz(s.dim_v));
  ASSERT_TRUE(a.q && a.k && a.v);
  a.scale = d.spec["flags"]["scale"].get<float>();
  a.mask.causal = d.flag("causal");
  a.mask.key_lengths = i32(d, "key_lengths", b);
  a.mask.keras = d.has("keras_mask") ? f32(d, "inputs", "keras_mask", mat) : nullptr;
  a.mask.additive = d.has("additive_mask") ? f32(d, "inputs", "additive_mask", mat) : nullptr;
  a.mask.boolean = u8(d, "bool_mask", mat);
  a.mask.matrix_batch_stride = d.flag("batched_mask") ? sq * skv : 0;
  ASSERT_EQ(d.flag("key_lengths"), a.mask.key_lengths != nullptr);
  ASSERT_EQ(d.flag("keras_mask"), a.mask.keras != nullptr);
  ASSERT_EQ(d.flag("additive_mask"), a.mask.additive != nullptr);
  ASSERT_EQ(d.flag("bool_mask"), a.mask.boolean != nullptr);

  std::vector<float> out = sentinel(b * sq * sz(s.dim_v));
  std::vector<float> weights = sentinel(b * sq * skv);
  a.out = out.data();
  a.probs = weights.data();
  ScratchBuf scratch(attn::sdpa_f32_scratch_bytes(s));
  ASSERT_EQ(attn::sdpa_f32(s, a, scratch.scratch()), attn::Status::kOk);
  compare(d, "out", out);
  compare(d, "weights", weights);

  // Without the weights output the context must not change.
  std::vector<float> out2 = sentinel(out.size());
  a.out = out2.data();
  a.probs = nullptr;
  ASSERT_EQ(attn::sdpa_f32(s, a, scratch.scratch()), attn::Status::kOk);
  compare(d, "out", out2, "out_no_wts");
}

void run_mha(const CaseData& d) {
  attn::MhaShape s;
  s.batch = d.dim("batch");
  s.seq_q = d.dim("seq_q");
  s.seq_kv = d.dim("seq_kv");
  s.embed_dim = d.dim("embed_dim");
  s.num_heads = d.dim("num_heads");
  s.kdim = d.dim("kdim");
  s.vdim = d.dim("vdim");
  const std::size_t b = sz(s.batch), sq = sz(s.seq_q), skv = sz(s.seq_kv), e = sz(s.embed_dim);
  const std::size_t kd = sz(s.kdim), vd = sz(s.vdim), h = sz(s.num_heads);

  attn::MhaF32Weights w;
  if (d.flag("packed_in_proj")) {
    w.in_proj_weight = f32(d, "inputs", "in_proj_weight", 3 * e * e);
    ASSERT_NE(w.in_proj_weight, nullptr);
  } else {
    w.q_proj_weight = f32(d, "inputs", "q_proj_weight", e * e);
    w.k_proj_weight = f32(d, "inputs", "k_proj_weight", e * kd);
    w.v_proj_weight = f32(d, "inputs", "v_proj_weight", e * vd);
    ASSERT_TRUE(w.q_proj_weight && w.k_proj_weight && w.v_proj_weight);
  }
  if (d.flag("bias")) {
    w.in_proj_bias = f32(d, "inputs", "in_proj_bias", 3 * e);
    w.out_proj_bias = f32(d, "inputs", "out_proj.bias", e);
    ASSERT_TRUE(w.in_proj_bias && w.out_proj_bias);
  } else {
    ASSERT_FALSE(d.has("in_proj_bias") || d.has("out_proj.bias"));
  }
  w.out_proj_weight = f32(d, "inputs", "out_proj.weight", e * e);
  ASSERT_NE(w.out_proj_weight, nullptr);

  attn::MhaF32Args a;
  a.query = f32(d, "inputs", "query", b * sq * e);
  a.key = f32(d, "inputs", "key", b * skv * kd);
  a.value = f32(d, "inputs", "value", b * skv * vd);
  ASSERT_TRUE(a.query && a.key && a.value);
  if (d.flag("self_attention")) {  // one array passed three times, as the header says
    ASSERT_EQ(a.query, a.key);
    ASSERT_EQ(a.query, a.value);
  }
  const std::size_t mat = d.flag("batched_mask") ? b * sq * skv : sq * skv;
  a.mask.causal = d.flag("causal");
  a.mask.key_lengths = i32(d, "key_lengths", b);
  a.mask.boolean = u8(d, "attn_mask_bool", mat);
  a.mask.additive = d.has("attn_mask_float") ? f32(d, "inputs", "attn_mask_float", mat) : nullptr;
  a.mask.matrix_batch_stride = d.flag("batched_mask") ? sq * skv : 0;
  ASSERT_EQ(d.flag("key_lengths"), a.mask.key_lengths != nullptr);
  ASSERT_EQ(d.flag("bool_mask"), a.mask.boolean != nullptr);
  ASSERT_EQ(d.flag("float_mask"), a.mask.additive != nullptr);
  if (a.mask.key_lengths != nullptr) {  // lengths and PyTorch's key_padding_mask agree
    const uint8_t* kpm = u8(d, "key_padding_mask", b * skv);
    ASSERT_NE(kpm, nullptr);
    for (std::size_t i = 0; i < b; ++i) {
      for (std::size_t j = 0; j < skv; ++j) {
        ASSERT_EQ(kpm[i * skv + j] != 0, static_cast<int64_t>(j) >= a.mask.key_lengths[i]);
      }
    }
  }

  const bool average = d.spec["flags"]["average_attn_weights"].get<bool>();
  a.probs_mode = average ? attn::MhaProbsMode::kAveraged : attn::MhaProbsMode::kPerHead;
  std::vector<float> out = sentinel(b * sq * e);
  std::vector<float> weights = sentinel(b * (average ? 1 : h) * sq * skv);
  a.out = out.data();
  a.probs = weights.data();
  ScratchBuf scratch(attn::mha_f32_scratch_bytes(s));
  ASSERT_EQ(attn::mha_f32(s, w, a, scratch.scratch()), attn::Status::kOk);
  compare(d, "out", out);
  compare(d, "attn_weights", weights);
}

// Bahdanau / Luong: the per-op call differs, the checks do not.
template <class Call>
void run_keyed(const CaseData& d, int32_t batch, int32_t seq, int32_t key_dim, Call call) {
  attn::LuongF32Args a;  // same fields as BahdanauF32Args
  const std::size_t b = sz(batch), t = sz(seq);
  a.key_lengths = i32(d, "key_lengths", b);
  ASSERT_EQ(d.flag("key_lengths"), a.key_lengths != nullptr);
  std::vector<float> context = sentinel(b * sz(key_dim));
  std::vector<float> weights = sentinel(b * t);
  a.context = context.data();
  a.probs = weights.data();
  ASSERT_EQ(call(a), attn::Status::kOk);
  compare(d, "context", context);
  compare(d, "weights", weights);
}

void run_bahdanau(const CaseData& d) {
  attn::BahdanauShape s;
  s.batch = d.dim("batch");
  s.seq = d.dim("seq");
  s.query_dim = d.dim("query_dim");
  s.key_dim = d.dim("key_dim");
  s.units = d.dim("units");
  const std::size_t u = sz(s.units);
  attn::BahdanauF32Weights w;
  w.w1 = f32(d, "inputs", "w1", sz(s.query_dim) * u);
  w.b1 = f32(d, "inputs", "b1", u);
  w.w2 = f32(d, "inputs", "w2", sz(s.key_dim) * u);
  w.b2 = f32(d, "inputs", "b2", u);
  w.v = f32(d, "inputs", "v", u);
  const float* bv = f32(d, "inputs", "bv", 1);
  const float* query = f32(d, "inputs", "query", sz(s.batch) * sz(s.query_dim));
  const float* keys = f32(d, "inputs", "keys", sz(s.batch) * sz(s.seq) * sz(s.key_dim));
  ASSERT_TRUE(w.w1 && w.b1 && w.w2 && w.b2 && w.v && bv && query && keys);
  w.bv = *bv;
  ScratchBuf scratch(attn::bahdanau_f32_scratch_bytes(s));
  run_keyed(d, s.batch, s.seq, s.key_dim, [&](const attn::LuongF32Args& l) {
    attn::BahdanauF32Args a;
    a.query = query;
    a.keys = keys;
    a.context = l.context;
    a.probs = l.probs;
    a.key_lengths = l.key_lengths;
    return attn::bahdanau_f32(s, w, a, scratch.scratch());
  });
}

void run_luong_dot(const CaseData& d) {
  attn::LuongDotShape s;
  s.batch = d.dim("batch");
  s.seq = d.dim("seq");
  s.dim = d.dim("dim");
  const float* query = f32(d, "inputs", "query", sz(s.batch) * sz(s.dim));
  const float* keys = f32(d, "inputs", "keys", sz(s.batch) * sz(s.seq) * sz(s.dim));
  ASSERT_TRUE(query && keys);
  ScratchBuf scratch(attn::luong_dot_f32_scratch_bytes(s));
  run_keyed(d, s.batch, s.seq, s.dim, [&](attn::LuongF32Args a) {
    a.query = query;
    a.keys = keys;
    return attn::luong_dot_f32(s, a, scratch.scratch());
  });
}

void run_luong_general(const CaseData& d) {
  attn::LuongGeneralShape s;
  s.batch = d.dim("batch");
  s.seq = d.dim("seq");
  s.query_dim = d.dim("query_dim");
  s.key_dim = d.dim("key_dim");
  attn::LuongGeneralF32Weights w;
  w.w = f32(d, "inputs", "w", sz(s.key_dim) * sz(s.query_dim));
  w.b = f32(d, "inputs", "b", sz(s.query_dim));
  const float* query = f32(d, "inputs", "query", sz(s.batch) * sz(s.query_dim));
  const float* keys = f32(d, "inputs", "keys", sz(s.batch) * sz(s.seq) * sz(s.key_dim));
  ASSERT_TRUE(w.w && w.b && query && keys);
  ScratchBuf scratch(attn::luong_general_f32_scratch_bytes(s));
  run_keyed(d, s.batch, s.seq, s.key_dim, [&](attn::LuongF32Args a) {
    a.query = query;
    a.keys = keys;
    return attn::luong_general_f32(s, w, a, scratch.scratch());
  });
}

class Reference : public ::testing::TestWithParam<std::string> {};

TEST_P(Reference, MatchesWithinTolerance) {
  CaseData d;
  ASSERT_TRUE(load_case(GetParam(), &d));
  const std::string op = d.spec["op"].get<std::string>();
  if (op == "sdpa") {
    run_sdpa(d);
  } else if (op == "mha") {
    run_mha(d);
  } else if (op == "bahdanau") {
    run_bahdanau(d);
  } else if (op == "luong_dot") {
    run_luong_dot(d);
  } else if (op == "luong_general") {
    run_luong_general(d);
  } else {
    FAIL() << GetParam() << ": unknown op " << op;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, Reference, ::testing::ValuesIn(case_names()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           return param_info.param;
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Reference);

// The manifest is readable and covers every op (guards against an empty or
// truncated data directory silently running no case).
TEST(ReferenceManifest, CoversEveryOp) {
  json m;
  std::string error;
  ASSERT_TRUE(read_manifest(&m, &error)) << error;
  std::map<std::string, int> per_op;
  for (const auto& c : m["cases"]) per_op[c.value("op", std::string())]++;
  EXPECT_GE(per_op["mha"], 8);
  EXPECT_GE(per_op["sdpa"], 8);
  EXPECT_GE(per_op["bahdanau"], 2);
  EXPECT_GE(per_op["luong_dot"], 2);
  EXPECT_GE(per_op["luong_general"], 2);
}

}  // namespace
