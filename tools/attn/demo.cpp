// `attn demo`: the seed's worked example, then a short run of every op.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "attn/attn.h"
#include "attn/thread_pool.h"
#include "commands.h"
#include "common.h"

namespace attn_cli {
namespace {

// Prints a matrix the way NumPy prints a float64 array with its default
// precision of 8: up to 8 decimals, trailing zeros dropped, columns aligned.
void print_numpy(const float* m, int rows, int cols) {
  std::vector<std::string> ints, fracs;
  std::size_t iw = 0, fw = 0;
  for (int i = 0; i < rows * cols; ++i) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.8f", static_cast<double>(m[i]));
    std::string s(buf);
    const std::size_t dot = s.find('.');
    std::string ip = s.substr(0, dot);
    std::string fp = s.substr(dot);
    while (fp.size() > 2 && fp.back() == '0') fp.pop_back();
    iw = std::max(iw, ip.size());
    fw = std::max(fw, fp.size());
    ints.push_back(ip);
    fracs.push_back(fp);
  }
  for (int r = 0; r < rows; ++r) {
    std::printf("%s", r == 0 ? "[[" : " [");
    for (int c = 0; c < cols; ++c) {
      const auto k = static_cast<std::size_t>(r * cols + c);
      std::printf("%s%*s%-*s", c ? " " : "", static_cast<int>(iw), ints[k].c_str(),
                  static_cast<int>(fw), fracs[k].c_str());
    }
    std::printf("]%s\n", r + 1 == rows ? "]" : "");
  }
}

void seed_example() {
  static const float words[4][3] = {{1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0, 0, 1}};
  static const float w_q[3][3] = {{2, 0, 2}, {2, 0, 0}, {2, 1, 2}};
  static const float w_k[3][3] = {{2, 2, 2}, {0, 2, 1}, {0, 1, 1}};
  static const float w_v[3][3] = {{1, 1, 0}, {0, 1, 1}, {0, 0, 0}};
  // The table the seed prints (NumPy, float64).
  static const double seed[4][3] = {{0.98522025, 1.74174051, 0.75652026},
                                    {0.90965265, 1.40965265, 0.5},
                                    {0.99851226, 1.75849334, 0.75998108},
                                    {0.99560386, 1.90407309, 0.90846923}};
  constexpr attn::GeneralAttentionShape shape{1, 4, 3, 3, 3};
  static attn::Workspace<attn::general_attention_f32_scratch_bytes(shape)> ws;
  float out[4][3];
  attn::GeneralAttentionF32Args args;
  args.x = &words[0][0];
  args.out = &out[0][0];
  const attn::GeneralAttentionF32Weights w{&w_q[0][0], &w_k[0][0], &w_v[0][0]};
  check_status(attn::general_attention_f32(shape, w, args, ws.scratch()), "general");

  std::printf(
      "Seed worked example: general attention (float32), words [4,3], W_Q/W_K/W_V [3,3],\n"
      "scale 1/sqrt(3), scratch %zu bytes\n",
      sizeof ws);
  print_numpy(&out[0][0], 4, 3);
  double diff = 0.0;
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 3; ++j) {
      diff = std::max(diff, std::fabs(static_cast<double>(out[i][j]) - seed[i][j]));
    }
  }
  std::printf("max |difference| to the seed's printed float64 table: %.2g\n\n", diff);
}

// Deterministic inputs: a fixed sine pattern, different per tensor.
std::vector<float> data(std::size_t n, int tensor) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = static_cast<float>(std::sin(0.61 * static_cast<double>(i) + 1.7 * tensor) * 0.8);
  }
  return v;
}

void report(const char* op, const std::string& shapes, std::size_t scratch,
            const std::vector<float>& out) {
  double sum = 0.0;
  for (const float x : out) sum += static_cast<double>(x);
  std::printf("%-24s %-40s %7zu  %+11.6f  [%.6f %.6f %.6f ...]\n", op, shapes.c_str(), scratch, sum,
              static_cast<double>(out[0]), static_cast<double>(out[1]),
              static_cast<double>(out[2]));
}

void sdpa_runs() {
  const attn::SdpaShape s{2, 5, 7, 8, 6};
  const auto q = data(2 * 5 * 8, 1), k = data(2 * 7 * 8, 2), v = data(2 * 7 * 6, 3);
  const std::size_t bytes = attn::sdpa_f32_scratch_bytes(s);
  std::vector<unsigned char> scratch(bytes);
  const int32_t lengths[2] = {4, 7};
  std::vector<float> keras(5 * 7), additive(5 * 7);
  std::vector<uint8_t> boolean(5 * 7);
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 7; ++j) {
      const bool masked = (i + 2 * j) % 5 == 0;
      keras[static_cast<std::size_t>(i * 7 + j)] = masked ? 1.0f : 0.0f;
      boolean[static_cast<std::size_t>(i * 7 + j)] = masked ? 1 : 0;
      additive[static_cast<std::size_t>(i * 7 + j)] = masked ? -INFINITY
                                                             : 0.1f * static_cast<float>(j);
    }
  }
  struct Run {
    const char* name;
    attn::Mask mask;
  };
  Run runs[6] = {{"sdpa (no mask)", {}},         {"sdpa (causal)", {}},
                 {"sdpa (key lengths 4,7)", {}}, {"sdpa (Keras mask)", {}},
                 {"sdpa (boolean mask)", {}},    {"sdpa (additive mask)", {}}};
  runs[1].mask.causal = true;
  runs[2].mask.key_lengths = lengths;
  runs[3].mask.keras = keras.data();
  runs[4].mask.boolean = boolean.data();
  runs[5].mask.additive = additive.data();
  for (const Run& r : runs) {
    std::vector<float> out(2 * 5 * 6);
    attn::SdpaF32Args a;
    a.q = q.data();
    a.k = k.data();
    a.v = v.data();
    a.out = out.data();
    a.mask = r.mask;
    check_status(attn::sdpa_f32(s, a, attn::Scratch{scratch.data(), bytes}), "sdpa");
    report(r.name, "q[2,5,8] k[2,7,8] v[2,7,6] -> [2,5,6]", bytes, out);
  }
}

void mha_runs() {
  // E = 8, H = 2. Self-attention on x [2,5,8]; cross-attention from x to y [2,7,8].
  const int32_t e = 8;
  const auto x = data(2 * 5 * 8, 4), y = data(2 * 7 * 8, 5);
  const auto in_w = data(3 * 8 * 8, 6), in_b = data(3 * 8, 7);
  const auto out_w = data(8 * 8, 8), out_b = data(8, 9);
  attn::MhaF32Weights w;
  w.in_proj_weight = in_w.data();
  w.in_proj_bias = in_b.data();
  w.out_proj_weight = out_w.data();
  w.out_proj_bias = out_b.data();
  // Run 2 is run 0 on two threads (an attn::ThreadPool): the same bits, with
  // scratch for every head and two attention cores.
  attn::ThreadPool pool(2);
  for (int run = 0; run < 3; ++run) {
    const bool cross = run == 1;
    attn::MhaShape s;
    s.batch = 2;
    s.seq_q = 5;
    s.seq_kv = cross ? 7 : 5;
    s.embed_dim = e;
    s.num_heads = 2;
    attn::MhaF32Args a;
    if (run == 2) a.executor = pool.executor();
    const std::size_t bytes = attn::mha_f32_scratch_bytes(s, a.executor.workers);
    std::vector<unsigned char> scratch(bytes);
    std::vector<float> out(2 * 5 * 8);
    a.query = x.data();
    a.key = a.value = cross ? y.data() : x.data();
    a.out = out.data();
    a.mask.causal = !cross;
    check_status(attn::mha_f32(s, w, a, attn::Scratch{scratch.data(), bytes}), "mha");
    static const char* const kNames[] = {"mha self causal, 2 heads", "mha cross, 2 heads",
                                         "  the same, 2 threads"};
    report(kNames[run], cross ? "x[2,5,8] y[2,7,8] -> [2,5,8]" : "x[2,5,8] -> [2,5,8]", bytes, out);
  }
}

void context_runs() {
  // query [2,6], keys [2,9,6]; Bahdanau with 5 units.
  const auto q = data(2 * 6, 10), h = data(2 * 9 * 6, 11);
  {
    const attn::BahdanauShape s{2, 9, 6, 6, 5};
    const auto w1 = data(6 * 5, 12), b1 = data(5, 13), w2 = data(6 * 5, 14), b2 = data(5, 15),
               v = data(5, 16);
    const std::size_t bytes = attn::bahdanau_f32_scratch_bytes(s);
    std::vector<unsigned char> scratch(bytes);
    std::vector<float> ctx(2 * 6);
    attn::BahdanauF32Weights w{w1.data(), b1.data(), w2.data(), b2.data(), v.data(), 0.25f};
    attn::BahdanauF32Args a;
    a.query = q.data();
    a.keys = h.data();
    a.context = ctx.data();
    check_status(attn::bahdanau_f32(s, w, a, attn::Scratch{scratch.data(), bytes}), "bahdanau");
    report("bahdanau, 5 units", "q[2,6] h[2,9,6] -> [2,6]", bytes, ctx);
  }
  {
    const attn::LuongDotShape s{2, 9, 6};
    const std::size_t bytes = attn::luong_dot_f32_scratch_bytes(s);
    std::vector<unsigned char> scratch(bytes);
    std::vector<float> ctx(2 * 6);
    attn::LuongF32Args a;
    a.query = q.data();
    a.keys = h.data();
    a.context = ctx.data();
    check_status(attn::luong_dot_f32(s, a, attn::Scratch{scratch.data(), bytes}), "luong-dot");
    report("luong-dot", "q[2,6] h[2,9,6] -> [2,6]", bytes, ctx);
  }
  {
    const attn::LuongGeneralShape s{2, 9, 6, 6};
    const auto w = data(6 * 6, 17), b = data(6, 18);
    const std::size_t bytes = attn::luong_general_f32_scratch_bytes(s);
    std::vector<unsigned char> scratch(bytes);
    std::vector<float> ctx(2 * 6);
    attn::LuongF32Args a;
    a.query = q.data();
    a.keys = h.data();
    a.context = ctx.data();
    check_status(
        attn::luong_general_f32(s, {w.data(), b.data()}, a, attn::Scratch{scratch.data(), bytes}),
        "luong-general");
    report("luong-general", "q[2,6] h[2,9,6] W[6,6] -> [2,6]", bytes, ctx);
  }
}

void demo() {
  seed_example();
  std::printf("Each op on small deterministic inputs (sin pattern, tools/attn/demo.cpp):\n");
  std::printf("%-24s %-40s %7s  %11s  %s\n", "op", "shapes", "scratch", "checksum",
              "first outputs");
  sdpa_runs();
  mha_runs();
  context_runs();
}

}  // namespace

void add_demo(CLI::App* app, Runner* runner) {
  CLI::App* d = app->add_subcommand(
      "demo",
      "Run the seed worked example (prints its 4x3 table), then every op on small "
      "deterministic inputs with its scratch bytes and a checksum");
  d->callback([runner] { *runner = demo; });
}

}  // namespace attn_cli
