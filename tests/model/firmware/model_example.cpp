// Firmware example: a PyTorch nn.MultiheadAttention (E=32, H=4), converted by
// tools/attn-convert into generated C++ headers (float32 and int8 PTQ), loaded
// in place from flash by attn::model_load and run on a causal self-attention
// input of 8 tokens. The same source runs on the host and on every Cortex-M
// board (ctest board.model_example); it prints the output rows, checks them
// against PyTorch's float output, and prints the int8 output's checksum, which
// must equal kInt8Checksum on every target (the int8 path is bit-exact).
//
// RAM: the two attn::Model descriptors, the scratch (sized at compile time by
// the headers' constexpr descriptors) and the activations; the weights stay in
// flash. Regenerate the headers with tests/model/gen_fixtures.py.
#include <cmath>
#include <cstdint>

#include "attn/model.h"
#include "attn/model_s8.h"
#include "attn/platform.h"

#include "../../data/model/mha_small_case.h"
#include "../../data/model/mha_small_int8_model.h"
#include "../../data/model/mha_small_model.h"

namespace {

namespace pf = attn::platform;

// FNV-1a of the int8 output for mha_small_case::kQuery (recorded on the host;
// identical on every target by the int8 path's bit-exactness).
constexpr uint32_t kInt8Checksum = 0x12ecef01u;

constexpr int kSeq = mha_small_case::kSeq;
constexpr int kE = static_cast<int>(mha_small_model::kEmbedDim);

// "-0.12345": a float with 5 decimals (the platform console has no %f).
void print_fixed(float v) {
  const long scaled = std::lround(static_cast<double>(v) * 1e5);
  const long a = scaled < 0 ? -scaled : scaled;
  pf::print(" %s%ld.%05ld", scaled < 0 ? "-" : "", a / 100000, a % 100000);
}

void print_rows(const char* what, const float* out) {
  for (int i = 0; i < kSeq; i += kSeq - 1) {
    pf::print("%s row %d:", what, i);
    for (int j = 0; j < 6; ++j) print_fixed(out[i * kE + j]);
    pf::print(" ...\n");
  }
}

alignas(64) float g_out[kSeq * kE];
alignas(64) float g_out8[kSeq * kE];
alignas(64) int8_t g_x8[kSeq * kE];
alignas(64) int8_t g_y8[kSeq * kE];

int run_float() {
  static attn::Model model;
  attn::ModelError why = attn::ModelError::kNone;
  if (attn::model_load(mha_small_model::kBlob, mha_small_model::kBlobBytes, &model, &why) !=
      attn::Status::kOk) {
    pf::print("float model rejected: %s\n", attn::model_error_str(why));
    return 1;
  }
  static attn::Workspace<mha_small_model::kScratchBytes> ws;
  attn::MhaF32Args args;
  args.query = args.key = args.value = mha_small_case::kQuery;
  args.out = g_out;
  args.mask.causal = true;
  const uint64_t t0 = pf::cycles();
  const attn::Status st = attn::model_run_mha_f32(model, 1, kSeq, kSeq, args, ws.scratch());
  const uint64_t t1 = pf::cycles();
  if (st != attn::Status::kOk) {
    pf::print("float run: %s\n", attn::status_str(st));
    return 1;
  }
  print_rows("float", g_out);
  // Against PyTorch: within 1e-5 relative (+1e-6 absolute near zero).
  int bad = 0;
  for (int i = 0; i < kSeq * kE; ++i) {
    const double want = mha_small_case::kOut[i];
    if (!(std::fabs(g_out[i] - want) <= 1e-5 * std::fabs(want) + 1e-6)) ++bad;
  }
  pf::print("float: %d of %d outputs outside 1e-5 relative of PyTorch\n", bad, kSeq * kE);
  if (pf::cycle_counter_available()) {
    pf::print("float: %llu %s\n", static_cast<unsigned long long>(t1 - t0),
              pf::cycle_counter_name());
  }
  pf::print("float: blob %u bytes in flash, scratch %u bytes, attn::Model %u bytes\n",
            static_cast<unsigned>(mha_small_model::kBlobBytes),
            static_cast<unsigned>(mha_small_model::kScratchBytes),
            static_cast<unsigned>(sizeof(attn::Model)));
  return bad == 0 ? 0 : 1;
}

int run_int8() {
  static attn::Model model;
  attn::ModelError why = attn::ModelError::kNone;
  if (attn::model_load(mha_small_int8_model::kBlob, mha_small_int8_model::kBlobBytes, &model,
                       &why) != attn::Status::kOk) {
    pf::print("int8 model rejected: %s\n", attn::model_error_str(why));
    return 1;
  }
  static_assert(mha_small_int8_model::kSeq == kSeq, "header generated for another --seq");
  static attn::QuantizedMultiplier channels[mha_small_int8_model::kChannelCount];
  static attn::Workspace<mha_small_int8_model::kScratchBytes> ws;
  attn::MhaS8Params params;
  attn::Status st = attn::model_mha_s8_prepare(model, 1, kSeq, kSeq, channels,
                                               mha_small_int8_model::kChannelCount, &params);
  if (st != attn::Status::kOk) {
    pf::print("int8 prepare: %s\n", attn::status_str(st));
    return 1;
  }
  attn::QuantParams in, out;
  attn::model_act_quant(model, static_cast<int32_t>(attn::MhaAct::kQuery), &in);
  attn::model_act_quant(model, static_cast<int32_t>(attn::MhaAct::kOut), &out);
  for (int i = 0; i < kSeq * kE; ++i) {
    const double r = std::round(static_cast<double>(mha_small_case::kQuery[i]) / in.scale) +
                     in.zero_point;
    g_x8[i] = static_cast<int8_t>(r < -128 ? -128 : r > 127 ? 127 : r);
  }
  attn::MhaS8Args args;
  args.query = args.key = args.value = g_x8;
  args.out = g_y8;
  args.mask.causal = true;
  const uint64_t t0 = pf::cycles();
  st = attn::mha_s8(params, args, ws.scratch());
  const uint64_t t1 = pf::cycles();
  if (st != attn::Status::kOk) {
    pf::print("int8 run: %s\n", attn::status_str(st));
    return 1;
  }
  uint32_t h = 2166136261u;
  double dot = 0, n1 = 0, n2 = 0, err = 0, mag = 0;
  for (int i = 0; i < kSeq * kE; ++i) {
    h = (h ^ static_cast<uint8_t>(g_y8[i])) * 16777619u;
    g_out8[i] = out.scale * static_cast<float>(g_y8[i] - out.zero_point);
    const double want = mha_small_case::kOut[i];
    dot += g_out8[i] * want;
    n1 += static_cast<double>(g_out8[i]) * g_out8[i];
    n2 += want * want;
    err += std::fabs(g_out8[i] - want);
    mag += std::fabs(want);
  }
  print_rows("int8 ", g_out8);
  const double cosine = dot / std::sqrt(n1 * n2);
  const double rel = err / mag;
  pf::print(
      "int8: checksum 0x%08x (expected 0x%08x), cosine x1e6 %ld, mean error %ld ppm "
      "of mean |y|\n",
      static_cast<unsigned>(h), static_cast<unsigned>(kInt8Checksum), std::lround(cosine * 1e6),
      std::lround(rel * 1e6));
  if (pf::cycle_counter_available()) {
    pf::print("int8: %llu %s\n", static_cast<unsigned long long>(t1 - t0),
              pf::cycle_counter_name());
  }
  // Same bound as tests/model (cosine >= 0.999, mean error <= 5% of mean |y|).
  const bool ok = h == kInt8Checksum && cosine >= 0.999 && rel <= 0.05;
  return ok ? 0 : 1;
}

}  // namespace

int main() {
  pf::cycle_counter_init();
  pf::print("attn model example: PyTorch MHA E=%d H=%d, causal, seq %d (%s)\n", kE,
            static_cast<int>(mha_small_model::kNumHeads), kSeq,
            pf::emulated() ? "emulated" : "native");
  const int failed = run_float() + run_int8();
  pf::print("model example: %s\n", failed == 0 ? "PASS" : "FAIL");
  pf::flush();
  return failed;
}
