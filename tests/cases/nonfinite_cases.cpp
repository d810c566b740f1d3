// NaN and Inf inputs: no crash, status kOk, and the outcome sdpa.h
// documents: non-finite values reach the output rows they affect and no other.
// Each case runs a clean problem, then the same problem with one poisoned
// input, and compares bit for bit:
//   - q row i NaN/Inf, k row j NaN/Inf, or a NaN / +Inf mask entry [i][j]:
//     a NaN or +Inf score in row i (every row seeing key j) makes out row i
//     NaN in every column and its weights at visible keys NaN; every other
//     row is bit-identical to the clean run. An Inf in q or k can also give a
//     score of -Inf, which acts as a mask: weight 0, the row stays finite
//     (sdpa.h says "as NaN"; this is the precise outcome).
//   - v[j][c] NaN (Inf): column c of each row that sees key j is NaN
//     (NaN or Inf); all other columns, and all weights, are bit-identical.
//     (The weights never depend on v.)
// Known deviations are reproduced in tests/host (DISABLED_ tests), not here.
#include <cmath>
#include <limits>

#include "attn/attn.h"
#include "case.h"

namespace {

using attn_test::Rng;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

constexpr int kB = 2, kSq = 11, kSkv = 13, kD = 6, kDv = 5;
constexpr attn::SdpaShape kShape{kB, kSq, kSkv, kD, kDv};

struct Problem {
  float q[kB * kSq * kD];
  float k[kB * kSkv * kD];
  float v[kB * kSkv * kDv];
  float additive[kSq * kSkv];
  float keras[kSq * kSkv];
  float out[kB * kSq * kDv];
  float w[kB * kSq * kSkv];
};

Problem g_clean, g_bad;
attn::Workspace<attn::sdpa_f32_scratch_bytes(kShape)> g_ws;

void make(Problem& p, uint32_t seed) {
  Rng rng(seed);
  attn_test::fill_uniform(rng, p.q, sizeof p.q / sizeof p.q[0], -1, 1);
  attn_test::fill_uniform(rng, p.k, sizeof p.k / sizeof p.k[0], -1, 1);
  attn_test::fill_uniform(rng, p.v, sizeof p.v / sizeof p.v[0], -1, 1);
  attn_test::fill_uniform(rng, p.additive, sizeof p.additive / sizeof p.additive[0], -1, 0);
  for (float& x : p.keras) x = 0.0f;
}

attn::Status run(Problem& p, bool causal, const int32_t* lens, bool additive, bool keras) {
  attn::SdpaF32Args a;
  a.q = p.q;
  a.k = p.k;
  a.v = p.v;
  a.out = p.out;
  a.probs = p.w;
  a.mask.causal = causal;
  a.mask.key_lengths = lens;
  a.mask.additive = additive ? p.additive : nullptr;
  a.mask.keras = keras ? p.keras : nullptr;
  return attn::sdpa_f32(kShape, a, g_ws.scratch());
}

float* out_row(Problem& p, int b, int i) { return p.out + (b * kSq + i) * kDv; }
float* w_row(Problem& p, int b, int i) { return p.w + (b * kSq + i) * kSkv; }

// Row (b, i) is NaN in every output column and at every visible key's weight
// (masked keys keep weight 0).
void expect_nan_row(attn_test::Context& ctx, int b, int i) {
  for (int c = 0; c < kDv; ++c) ATTN_EXPECT_TRUE(std::isnan(out_row(g_bad, b, i)[c]));
  bool any_nan_weight = false;
  for (int j = 0; j < kSkv; ++j)
    any_nan_weight = any_nan_weight || std::isnan(w_row(g_bad, b, i)[j]);
  ATTN_EXPECT_TRUE(any_nan_weight);
}

void expect_same_row(attn_test::Context& ctx, int b, int i) {
  ATTN_EXPECT_SAME_BITS("out row", out_row(g_bad, b, i), out_row(g_clean, b, i), kDv);
  ATTN_EXPECT_SAME_BITS("weights row", w_row(g_bad, b, i), w_row(g_clean, b, i), kSkv);
}

}  // namespace

ATTN_CASE(NonFinite, QueryRowNanOrInf) {
  for (int kind = 0; kind < 3; ++kind) {
    const float poison = kind == 0 ? kNaN : (kind == 1 ? kInf : -kInf);
    make(g_clean, 800);
    make(g_bad, 800);
    const int b = 1, i = 4;
    g_bad.q[(b * kSq + i) * kD + 2] = poison;
    ATTN_EXPECT_STATUS(run(g_clean, false, nullptr, false, false), attn::Status::kOk);
    ATTN_EXPECT_STATUS(run(g_bad, false, nullptr, false, false), attn::Status::kOk);
    for (int bb = 0; bb < kB; ++bb) {
      for (int ii = 0; ii < kSq; ++ii) {
        if (bb == b && ii == i) {
          expect_nan_row(ctx, bb, ii);
        } else {
          expect_same_row(ctx, bb, ii);
        }
      }
    }
  }
}

ATTN_CASE(NonFinite, KeyRowNanOrInfUnderCausalMask) {
  // Key j = 6 of batch item 0; causal with Skv - Sq = 2: rows i >= 4 see it.
  for (int kind = 0; kind < 2; ++kind) {
    make(g_clean, 801);
    make(g_bad, 801);
    const int j = 6;
    g_bad.k[j * kD + 1] = kind == 0 ? kNaN : kInf;
    ATTN_EXPECT_STATUS(run(g_clean, true, nullptr, false, false), attn::Status::kOk);
    ATTN_EXPECT_STATUS(run(g_bad, true, nullptr, false, false), attn::Status::kOk);
    for (int i = 0; i < kSq; ++i) {
      if (i + (kSkv - kSq) < j) {
        expect_same_row(ctx, 0, i);
      } else if (kind == 0 || g_bad.q[i * kD + 1] > 0.0f) {
        expect_nan_row(ctx, 0, i);  // score NaN or +Inf
      } else {
        // q . k_j = -Inf: the key gets weight exactly 0, like a masked key,
        // and the row stays finite (IEEE exp(-inf) = 0, not an error).
        ATTN_EXPECT_TRUE(w_row(g_bad, 0, i)[j] == 0.0f);
        for (int c = 0; c < kDv; ++c) ATTN_EXPECT_TRUE(std::isfinite(out_row(g_bad, 0, i)[c]));
      }
    }
    for (int i = 0; i < kSq; ++i) expect_same_row(ctx, 1, i);
  }
}

ATTN_CASE(NonFinite, KeyRowNanBehindKeyPaddingIsNeverRead) {
  // Padded keys (j >= key length) may hold anything, NaN included.
  make(g_clean, 802);
  make(g_bad, 802);
  const int32_t lens[kB] = {7, 0};
  for (int j = 7; j < kSkv; ++j) {
    for (int d = 0; d < kD; ++d) g_bad.k[j * kD + d] = kNaN;
    for (int c = 0; c < kDv; ++c) g_bad.v[j * kDv + c] = kNaN;
  }
  for (int n = kSkv * kD; n < kB * kSkv * kD; ++n) g_bad.k[n] = kNaN;  // item 1 (length 0)
  ATTN_EXPECT_STATUS(run(g_clean, false, lens, false, false), attn::Status::kOk);
  ATTN_EXPECT_STATUS(run(g_bad, false, lens, false, false), attn::Status::kOk);
  for (int b = 0; b < kB; ++b) {
    for (int i = 0; i < kSq; ++i) expect_same_row(ctx, b, i);
  }
}

ATTN_CASE(NonFinite, ValueNanOrInfReachesOnlyItsColumn) {
  // v[j][c] of batch item 1 poisoned; item 0 hides key j by its key length.
  for (int kind = 0; kind < 2; ++kind) {
    make(g_clean, 803);
    make(g_bad, 803);
    const int j = 9, c = 3;
    for (int b = 0; b < kB; ++b) g_bad.v[(b * kSkv + j) * kDv + c] = kind == 0 ? kNaN : kInf;
    const int32_t lens[kB] = {j, kSkv};
    ATTN_EXPECT_STATUS(run(g_clean, false, lens, false, false), attn::Status::kOk);
    ATTN_EXPECT_STATUS(run(g_bad, false, lens, false, false), attn::Status::kOk);
    for (int i = 0; i < kSq; ++i) expect_same_row(ctx, 0, i);
    ATTN_EXPECT_SAME_BITS("weights", w_row(g_bad, 1, 0), w_row(g_clean, 1, 0), kSq * kSkv);
    for (int i = 0; i < kSq; ++i) {
      const float* bad = out_row(g_bad, 1, i);
      const float* clean = out_row(g_clean, 1, i);
      for (int cc = 0; cc < kDv; ++cc) {
        if (cc == c) {
          ATTN_EXPECT_TRUE(kind == 0 ? std::isnan(bad[cc]) : !std::isfinite(bad[cc]));
        } else {
          ATTN_EXPECT_TRUE(attn_test::float_bits(bad[cc]) == attn_test::float_bits(clean[cc]));
        }
      }
    }
  }
}

ATTN_CASE(NonFinite, MaskEntryNanOrPositiveInf) {
  // Additive NaN / +Inf and Keras NaN at [i][j] poison row i (of every batch
  // item: the matrix is broadcast); -Inf additive and +Inf Keras entries mask
  // the key, which is not an error.
  struct Poison {
    bool additive;
    float value;
    bool nan_row;
  };
  const Poison poisons[] = {{true, kNaN, true},
                            {true, kInf, true},
                            {false, kNaN, true},
                            {true, -kInf, false},
                            {false, kInf, false}};
  for (const Poison& p : poisons) {
    make(g_clean, 804);
    make(g_bad, 804);
    const int i = 8, j = 2;
    float* m = p.additive ? g_bad.additive : g_bad.keras;
    m[i * kSkv + j] = p.value;
    ATTN_EXPECT_STATUS(run(g_clean, false, nullptr, p.additive, !p.additive), attn::Status::kOk);
    ATTN_EXPECT_STATUS(run(g_bad, false, nullptr, p.additive, !p.additive), attn::Status::kOk);
    for (int b = 0; b < kB; ++b) {
      for (int ii = 0; ii < kSq; ++ii) {
        if (ii != i) {
          expect_same_row(ctx, b, ii);
        } else if (p.nan_row) {
          expect_nan_row(ctx, b, ii);
        } else {
          // Key j masked: weight exactly 0, the row finite.
          ATTN_EXPECT_TRUE(w_row(g_bad, b, ii)[j] == 0.0f);
          for (int c = 0; c < kDv; ++c) ATTN_EXPECT_TRUE(std::isfinite(out_row(g_bad, b, ii)[c]));
        }
      }
    }
  }
}

ATTN_CASE(NonFinite, OtherOpsDoNotCrashAndPoisonOnlyTheirItem) {
  // Luong dot, Luong general, Bahdanau: a NaN query poisons its batch item's
  // context and weights; the other item is bit-identical to a clean run.
  static float q[2 * 4], keys[2 * 5 * 4], w[4 * 4], w1[4 * 3], w2[4 * 3], vv[3];
  static float ctx_clean[2 * 4], ctx_bad[2 * 4], wt_clean[2 * 5], wt_bad[2 * 5];
  Rng rng(805);
  attn_test::fill_uniform(rng, keys, 40, -1, 1);
  attn_test::fill_uniform(rng, w, 16, -1, 1);
  attn_test::fill_uniform(rng, w1, 12, -1, 1);
  attn_test::fill_uniform(rng, w2, 12, -1, 1);
  attn_test::fill_uniform(rng, vv, 3, -1, 1);
  constexpr std::size_t kNeed[] = {attn::luong_dot_f32_scratch_bytes({2, 5, 4}),
                                   attn::luong_general_f32_scratch_bytes({2, 5, 4, 4}),
                                   attn::bahdanau_f32_scratch_bytes({2, 5, 4, 4, 3})};
  constexpr std::size_t kMost = kNeed[0] > kNeed[1] ? (kNeed[0] > kNeed[2] ? kNeed[0] : kNeed[2])
                                                    : (kNeed[1] > kNeed[2] ? kNeed[1] : kNeed[2]);
  static attn::Workspace<kMost> ws;
  unsigned char* scratch = ws.storage;
  for (int op = 0; op < 3; ++op) {
    for (int pass = 0; pass < 2; ++pass) {
      Rng qr(806);
      attn_test::fill_uniform(qr, q, 8, -1, 1);
      if (pass == 1) q[4 + 1] = kNaN;  // batch item 1
      attn::LuongF32Args a;
      a.query = q;
      a.keys = keys;
      a.context = pass == 0 ? ctx_clean : ctx_bad;
      a.probs = pass == 0 ? wt_clean : wt_bad;
      attn::Status st = attn::Status::kOk;
      if (op == 0) {
        st = attn::luong_dot_f32({2, 5, 4}, a, {scratch, kMost});
      } else if (op == 1) {
        st = attn::luong_general_f32({2, 5, 4, 4}, {w, nullptr}, a, {scratch, kMost});
      } else {
        attn::BahdanauF32Weights bw;
        bw.w1 = w1;
        bw.w2 = w2;
        bw.v = vv;
        attn::BahdanauF32Args ba;
        ba.query = q;
        ba.keys = keys;
        ba.context = a.context;
        ba.probs = a.probs;
        st = attn::bahdanau_f32({2, 5, 4, 4, 3}, bw, ba, {scratch, kMost});
      }
      ATTN_EXPECT_STATUS(st, attn::Status::kOk);
    }
    ATTN_EXPECT_SAME_BITS("context item 0", ctx_bad, ctx_clean, 4);
    ATTN_EXPECT_SAME_BITS("weights item 0", wt_bad, wt_clean, 5);
    for (int c = 0; c < 4; ++c) ATTN_EXPECT_TRUE(std::isnan(ctx_bad[4 + c]));
    for (int j = 0; j < 5; ++j) ATTN_EXPECT_TRUE(std::isnan(wt_bad[5 + j]));
  }
}
