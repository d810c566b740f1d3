// The int8 kernels this build selected (ref, Cortex-M DSP or Helium) against
// their portable references: identical int32 results on odd lengths, odd
// offsets and the extreme values -128 / 127.
#include <cstdint>
#include <cstring>
#include <initializer_list>

#include "attn/config.h"
#include "attn/softmax_s8.h"
#include "case.h"
#include "kernels/s8/kernels_s8.h"

namespace {
int8_t g_a[600], g_b[600];
int32_t g_acc[520], g_acc_ref[520];
alignas(8) int16_t g_packed[520], g_packed_ref[520], g_w[64];
const int8_t* g_rows[64];
}  // namespace

ATTN_CASE(KernelsS8, DotAndMacMatchReference) {
  attn_test::Rng r(77);
  for (auto& x : g_a) x = static_cast<int8_t>(r.range(-128, 127));
  for (auto& x : g_b) x = static_cast<int8_t>(r.range(-128, 127));
  for (int i = 0; i < 40; ++i) {  // runs of extremes
    g_a[i] = -128;
    g_b[i] = i % 2 ? -128 : 127;
  }
  static const int32_t lengths[] = {0,  1,  2,  3,  4,  5,  7,   8,   9,   15,  16,  17,
                                    31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 255, 511};
  for (int32_t off = 0; off < 4; ++off) {
    for (int32_t n : lengths) {
      int32_t s = 0, s_ref = 0;
      const int8_t* a = g_a + off;
      const int8_t* b = g_b + (3 - off);
      ATTN_EXPECT_EQ_INT(attn::detail::dot_s8(a, b, n, &s),
                         attn::detail::dot_s8_ref(a, b, n, &s_ref));
      ATTN_EXPECT_EQ_INT(s, s_ref);
      for (int32_t i = 0; i <= n; ++i) g_acc[i] = g_acc_ref[i] = i - 7;
      const int32_t w = off == 0 ? 255 : 37 * off;
      attn::detail::mac_s8(g_acc + 1, b, w, n > 0 ? n - 1 : 0);
      attn::detail::mac_s8_ref(g_acc_ref + 1, b, w, n > 0 ? n - 1 : 0);
      ATTN_EXPECT_TRUE(
          std::memcmp(g_acc, g_acc_ref, sizeof(int32_t) * static_cast<std::size_t>(n + 1)) == 0);
    }
  }
  ATTN_EXPECT_TRUE(attn::detail::kernels_s8_name() != nullptr);
}

ATTN_CASE(KernelsS8, QueryRowDotAndPvMatchReference) {
  attn_test::Rng r(78);
  for (auto& x : g_a) x = static_cast<int8_t>(r.range(-128, 127));
  for (auto& x : g_b) x = static_cast<int8_t>(r.range(-128, 127));
  for (int i = 0; i < 24; ++i) g_b[i] = i % 3 ? -128 : 127;
  static const int32_t lengths[] = {1,  2,  3,  4,  5,  7,  8,   9,   12, 15,
                                    16, 17, 31, 32, 33, 64, 100, 129, 511};
  static const int32_t zps[] = {-128, -7, 0, 3, 127};
  for (int32_t off = 0; off < 4; ++off) {
    for (int32_t n : lengths) {
      for (int32_t zp : zps) {
        const int8_t* q = g_a + off;
        const int8_t* k = g_b + (3 - off);
        ATTN_EXPECT_EQ_INT(attn::detail::qrow_s8_pack(q, zp, n, g_packed),
                           attn::detail::qrow_s8_pack_ref(q, zp, n, g_packed_ref));
        ATTN_EXPECT_EQ_INT(attn::detail::qrow_s8_dot(g_packed, zp, k, n),
                           attn::detail::qrow_s8_dot_ref(g_packed_ref, zp, k, n));
      }
    }
  }
  // qk over a whole row of keys (odd and even key counts, strided keys).
  static int32_t dots[9], dots_ref[9];
  for (int32_t nkeys = 0; nkeys < 9; ++nkeys) {
    for (int32_t n : {1, 3, 4, 7, 8, 13, 16, 33}) {
      attn::detail::qrow_s8_pack(g_a + 1, -5, n, g_packed);
      attn::detail::qrow_s8_pack_ref(g_a + 1, -5, n, g_packed_ref);
      attn::detail::qk_s8(g_packed, -5, g_b + 2, static_cast<std::size_t>(n + 3), nkeys, n, dots);
      attn::detail::qk_s8_ref(g_packed_ref, -5, g_b + 2, static_cast<std::size_t>(n + 3), nkeys, n,
                              dots_ref);
      ATTN_EXPECT_TRUE(
          std::memcmp(dots, dots_ref, sizeof(int32_t) * static_cast<std::size_t>(nkeys)) == 0);
    }
  }
  // requantize_row: every shift from -31 to 30, offsets, odd lengths, extremes.
  static int32_t accs[37];
  static int8_t rq[37], rq_ref[37];
  for (int32_t i = 0; i < 37; ++i) accs[i] = static_cast<int32_t>(r.next());
  accs[0] = INT32_MIN;
  accs[1] = INT32_MAX;
  accs[2] = -(1 << 20);  // exact ties for several shifts
  accs[3] = (1 << 20) + (1 << 9);
  for (int32_t shift = -31; shift <= 30; ++shift) {
    for (int32_t n : {1, 3, 4, 5, 17, 35}) {
      const int32_t mult = shift % 2 ? 1 << 30 : 1518500250 + shift;
      const int32_t offset = n == 35 ? 0 : -3 + shift;
      const int32_t* src = n == 35 ? accs + 2 : accs + 2;
      attn::detail::requantize_row_s8(src, n, offset, mult, shift, shift % 7, rq);
      attn::detail::requantize_row_s8_ref(src, n, offset, mult, shift, shift % 7, rq_ref);
      ATTN_EXPECT_TRUE(std::memcmp(rq, rq_ref, static_cast<std::size_t>(n)) == 0);
    }
  }
  // softmax row: every length 1..70 and some long rows, exp tables of real
  // softmax params (multiplier cap, diff_min cuts, plain), in place too; the
  // tiled core's weight rows (softmax_s8_row_w: weights, zero padding, sum).
  {
    static attn::SoftmaxS8Params sp;
    static int8_t sin[600], sout[600], sref[600];
    static uint8_t wout[616], wref[616];
    alignas(64) static unsigned char lut[attn::detail::kSoftmaxS8LutBytes];
    const float betas[] = {1.0f, 40.0f, 0.3f, 1e4f};
    for (float beta : betas) {
      ATTN_ASSERT_TRUE(attn::softmax_s8_prepare(0.05f, beta, &sp) == attn::Status::kOk);
      for (int32_t n = 1; n <= 600; n = n < 70 ? n + 1 : n + 133) {
        for (int32_t i = 0; i < n; ++i) {
          sin[i] = static_cast<int8_t>(n % 3 == 0 ? r.range(-128, -1) : r.range(-128, 127));
        }
        if (n > 300) {
          for (int32_t i = 0; i < n; ++i) sin[i] = 5;  // 512+ equal maxima: shift > 31
        }
        const int32_t n_pad = n + n % 16;
        attn::detail::softmax_s8_tile_prepare(sp.exp_table, sp.diff_min, n, lut);
        std::memset(wout, 0x5a, sizeof wout);
        ATTN_EXPECT_EQ_INT(
            attn::detail::softmax_s8_row_w(lut, sp.exp_table, sp.diff_min, sin, wout, n, n_pad),
            attn::detail::softmax_s8_row_w_ref(sp.exp_table, sp.diff_min, sin, wref, n, n_pad));
        ATTN_EXPECT_TRUE(std::memcmp(wout, wref, static_cast<std::size_t>(n_pad)) == 0);
        std::memcpy(wout, sin, static_cast<std::size_t>(n));
        ATTN_EXPECT_EQ_INT(
            attn::detail::softmax_s8_row_w(lut, sp.exp_table, sp.diff_min,
                                           reinterpret_cast<int8_t*>(wout), wout, n, n_pad),
            attn::detail::softmax_s8_row_w_ref(sp.exp_table, sp.diff_min, sin, wref, n, n_pad));
        ATTN_EXPECT_TRUE(std::memcmp(wout, wref, static_cast<std::size_t>(n_pad)) == 0);
        attn::detail::softmax_s8_row(sp.exp_table, sp.diff_min, sin, sout, n);
        attn::detail::softmax_s8_row_ref(sp.exp_table, sp.diff_min, sin, sref, n);
        ATTN_EXPECT_TRUE(std::memcmp(sout, sref, static_cast<std::size_t>(n)) == 0);
        attn::detail::softmax_s8_row(sp.exp_table, sp.diff_min, sin, sin, n);
        ATTN_EXPECT_TRUE(std::memcmp(sin, sref, static_cast<std::size_t>(n)) == 0);
      }
      std::memset(wout, 0x5a, sizeof wout);  // a row with no visible key: zeros, sum 0
      ATTN_EXPECT_EQ_INT(
          attn::detail::softmax_s8_row_w(lut, sp.exp_table, sp.diff_min, sin, wout, 0, 16), 0);
      ATTN_EXPECT_TRUE(wout[0] == 0 && wout[15] == 0 && wout[16] == 0x5a);
    }
  }
  // pv: 0..9 rows (odd and even counts), odd widths and row offsets, weights 1..255.
  for (int32_t nrows = 0; nrows < 10; ++nrows) {
    for (int32_t n : {1, 3, 4, 5, 8, 15, 16, 17, 31, 33, 64, 67}) {
      for (int32_t i = 0; i < nrows; ++i) {
        g_rows[i] = g_b + (i * 37) % 200 + (i % 3);
        g_w[i] = static_cast<int16_t>(i == 0 ? 255 : r.range(1, 255));
      }
      for (int32_t c = 0; c < n + 1; ++c) g_acc[c] = g_acc_ref[c] = 12345;
      attn::detail::pv_s8(g_rows, g_w, nrows, n, g_acc);
      attn::detail::pv_s8_ref(g_rows, g_w, nrows, n, g_acc_ref);
      ATTN_EXPECT_TRUE(
          std::memcmp(g_acc, g_acc_ref, sizeof(int32_t) * static_cast<std::size_t>(n + 1)) == 0);
      const std::size_t stride = static_cast<std::size_t>(n + nrows % 3);
      if (stride * static_cast<std::size_t>(nrows) + 3 <= sizeof g_b) {
        attn::detail::pv_s8_strided(g_b + 3, stride, g_w, nrows, n, g_acc);
        attn::detail::pv_s8_strided_ref(g_b + 3, stride, g_w, nrows, n, g_acc_ref);
        ATTN_EXPECT_TRUE(
            std::memcmp(g_acc, g_acc_ref, sizeof(int32_t) * static_cast<std::size_t>(n + 1)) == 0);
      }
    }
  }
}

// Bahdanau's ADD + TANH + v products (add_tanh_dot_s8) against the
// reference: the doubled ADD input terms small (near rounding ties and the
// zero crossing) and large, every int8 code, shifts inside and outside the
// kernels' fast form, zero points at both ends, odd unit counts.
ATTN_CASE(KernelsS8, AddTanhDotMatchesReference) {
  attn_test::Rng r(79);
  static int32_t a2[67], t2[256];
  static int8_t codes[67], v[67], tanh_table[256];
  for (int32_t x = 0; x < 256; ++x) tanh_table[x] = static_cast<int8_t>(r.range(-128, 127));
  static const int32_t shifts[] = {0, -1, -2, -5, -18, -21, -22, -31};
  static const int32_t mults[] = {1 << 30, 1518500250, INT32_MAX};
  static const int32_t zps[] = {-128, -7, 0, 127};
  for (int32_t pass = 0; pass < 3; ++pass) {
    // pass 0: |terms| < 2^8 (ties, h = 0 for negative sums); 1: < 2^20; 2: < 2^28.
    const int32_t half = pass == 0 ? 1 << 7 : pass == 1 ? 1 << 19 : (1 << 27) - 1;
    for (auto& x : a2) x = 2 * r.range(-half, half);
    for (auto& x : t2) x = 2 * r.range(-half, half);
    for (int32_t u = 0; u < 67; ++u) {
      codes[u] = static_cast<int8_t>(u < 2 ? (u == 0 ? -128 : 127) : r.range(-128, 127));
      v[u] = static_cast<int8_t>(u == 2 ? -128 : r.range(-128, 127));
    }
    for (int32_t n : {0, 1, 3, 4, 5, 7, 16, 17, 64, 67}) {
      for (int32_t shift : shifts) {
        for (int32_t m : mults) {
          for (int32_t zp : zps) {
            ATTN_EXPECT_EQ_INT(
                attn::detail::add_tanh_dot_s8(a2, t2, codes, v, n, m, shift, zp, tanh_table),
                attn::detail::add_tanh_dot_s8_ref(a2, t2, codes, v, n, m, shift, zp, tanh_table));
          }
        }
      }
    }
  }
}

// The generated attn/config.h names the int8 kernel set the library was
// compiled with (the library's own kernels_s8_name(); x86 reports the level
// it chose at run time, NEON whether it uses SDOT).
ATTN_CASE(KernelsS8, ConfigNamesTheCompiledSet) {
  const char* const config = ATTN_S8_KERNELS;
  const char* const library = attn::detail::kernels_s8_name();
  if (std::strcmp(config, "x86") == 0) {
    static const char* const levels[] = {"avx512-vnni", "avx-vnni", "avx2", "scalar"};
    bool known = false;
    for (const char* level : levels) known = known || std::strcmp(library, level) == 0;
    ATTN_EXPECT_TRUE(known);
  } else if (std::strcmp(config, "neon") == 0) {
    ATTN_EXPECT_TRUE(std::strncmp(library, "neon", 4) == 0);
  } else {
    ATTN_EXPECT_TRUE(std::strcmp(library, config) == 0);
  }
}
