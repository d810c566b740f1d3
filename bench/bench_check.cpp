#include "bench_check.h"

#include <cmath>
#include <cstdio>
#include <map>

#include "ref_double.h"

namespace attn_bench {
namespace {

int g_checks = 0;
int g_failures = 0;

std::size_t U(int32_t i) { return static_cast<std::size_t>(i); }

}  // namespace

void Fail(benchmark::State& st, const std::string& why) {
  ++g_failures;
  st.SkipWithError(why.c_str());
}

int CheckCount() { return g_checks; }

int FailureCount() { return g_failures; }

bool CheckStatus(benchmark::State& st, attn::Status s) {
  ++g_checks;
  if (s == attn::Status::kOk) return true;
  Fail(st, std::string("status ") + attn::status_str(s));
  return false;
}

bool CheckClose(benchmark::State& st, const char* what, const float* got, const Expected& want) {
  ++g_checks;
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < want.value.size(); ++i) {
    // False for NaN.
    if (std::fabs(static_cast<double>(got[i]) - want.value[i]) <= want.tol[i]) continue;
    if (bad++ == 0) first = i;
  }
  if (bad == 0) return true;
  char msg[256];
  std::snprintf(msg, sizeof msg,
                "%s: %zu of %zu elements out of bound; [%zu] = %.9g, expected %.9g +- %.3g", what,
                bad, want.value.size(), first, static_cast<double>(got[first]), want.value[first],
                want.tol[first]);
  Fail(st, msg);
  return false;
}

bool CheckExact(benchmark::State& st, const char* what, const int8_t* got, const Expected& want) {
  ++g_checks;
  for (std::size_t i = 0; i < want.value.size(); ++i) {
    if (static_cast<double>(got[i]) == want.value[i]) continue;
    char msg[160];
    std::snprintf(msg, sizeof msg, "%s: [%zu] = %d, the scalar kernels give %d", what, i, got[i],
                  static_cast<int>(want.value[i]));
    Fail(st, msg);
    return false;
  }
  return true;
}

const Expected& Memo(const std::string& key, const std::function<Expected()>& make) {
  static std::map<std::string, Expected> cache;
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, make()).first;
  return it->second;
}

// As the SDPA cases: the engine derives 1/sqrt(d) in float (relative error eps).
Expected SdpaExpected(int32_t sq, int32_t skv, int32_t d, const float* q, const float* k,
                      const float* v) {
  Expected e{std::vector<double>(U(sq) * U(d)), std::vector<double>(U(sq) * U(d))};
  std::vector<double> p(U(sq) * U(skv)), p_tol(p.size());
  attn_ref::attention<float>(sq, skv, d, d, 1.0 / std::sqrt(static_cast<double>(d)), attn_ref::kEps,
                             q, U(d), nullptr, k, U(d), nullptr, v, U(d), nullptr,
                             attn_ref::MaskView{}, p.data(), p_tol.data(), e.value.data(),
                             e.tol.data(), U(d));
  return e;
}

// As the MHA cases: projections with their bounds carried into each head's
// attention, then the output projection of the heads' results and bounds.
Expected MhaExpected(int32_t s, int32_t e, int32_t heads, const float* x, const float* w_in,
                     const float* b_in, const float* w_out, const float* b_out) {
  const std::size_t n = U(s) * U(e);
  std::vector<double> qkv(3 * n), qkv_err(3 * n), o(n), o_err(n);
  for (std::size_t part = 0; part < 3; ++part) {
    attn_ref::project<float>(s, e, e, x, U(e), nullptr, w_in + part * U(e) * U(e), U(e), 1,
                             b_in + part * U(e), qkv.data() + part * n, qkv_err.data() + part * n,
                             U(e));
  }
  const int32_t hd = e / heads;
  std::vector<double> p(U(s) * U(s)), p_tol(p.size());
  for (int32_t h = 0; h < heads; ++h) {
    const std::size_t col = U(h) * U(hd);
    attn_ref::attention<double>(
        s, s, hd, hd, 1.0 / std::sqrt(static_cast<double>(hd)), attn_ref::kEps, qkv.data() + col,
        U(e), qkv_err.data() + col, qkv.data() + n + col, U(e), qkv_err.data() + n + col,
        qkv.data() + 2 * n + col, U(e), qkv_err.data() + 2 * n + col, attn_ref::MaskView{},
        p.data(), p_tol.data(), o.data() + col, o_err.data() + col, U(e));
  }
  Expected y{std::vector<double>(n), std::vector<double>(n)};
  attn_ref::project<double>(s, e, e, o.data(), U(e), o_err.data(), w_out, U(e), 1, b_out,
                            y.value.data(), y.tol.data(), U(e));
  return y;
}

Expected BahdanauExpected(int32_t seq, int32_t d, const float* query, const float* keys,
                          const float* w1, const float* b1, const float* w2, const float* b2,
                          const float* v, float bv) {
  Expected c{std::vector<double>(U(d)), std::vector<double>(U(d))};
  std::vector<double> p(U(seq)), p_tol(U(seq));
  attn_ref::bahdanau(seq, d, d, d, query, keys, w1, b1, w2, b2, v, bv, seq, p.data(), p_tol.data(),
                     c.value.data(), c.tol.data());
  return c;
}

Expected LuongExpected(int32_t seq, int32_t d, const float* query, const float* keys,
                       const float* w, const float* b) {
  Expected c{std::vector<double>(U(d)), std::vector<double>(U(d))};
  std::vector<double> p(U(seq)), p_tol(U(seq));
  attn_ref::luong(seq, d, d, query, keys, w, b, seq, p.data(), p_tol.data(), c.value.data(),
                  c.tol.data());
  return c;
}

}  // namespace attn_bench
