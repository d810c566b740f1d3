// Scratch sizes computed in this program (from the installed attn/config.h,
// with no compile definitions) agree with the library's: sdpa_f32 succeeds in
// exactly sdpa_f32_scratch_bytes(shape) bytes and refuses one byte less.
// With q = 0 every key gets the same weight, so each output row is the mean
// of the v rows, which the program checks.
#include <cmath>
#include <cstdio>

#include "attn/attn.h"

int main() {
  constexpr attn::SdpaShape shape{/*batch*/ 1, /*seq_q*/ 2, /*seq_kv*/ 4, /*dim_k*/ 64,
                                  /*dim_v*/ 2};
  static attn::Workspace<attn::sdpa_f32_scratch_bytes(shape)> ws;
  static const float q[2 * 64] = {};
  static float k[4 * 64];
  for (int i = 0; i < 4 * 64; ++i) k[i] = static_cast<float>(i % 7) - 3.0f;
  const float v[4 * 2] = {1, 2, 3, 4, 5, 6, 7, 8};
  float out[2 * 2];
  attn::SdpaF32Args args;
  args.q = q;
  args.k = k;
  args.v = v;
  args.out = out;

  attn::Scratch short_by_one = ws.scratch();
  short_by_one.bytes -= 1;
  const attn::Status too_small = attn::sdpa_f32(shape, args, short_by_one);
  const attn::Status st = attn::sdpa_f32(shape, args, ws.scratch());
  std::printf("sdpa_f32 in %zu bytes: %s; in one byte less: %s\n", sizeof ws, attn::status_str(st),
              attn::status_str(too_small));
  if (st != attn::Status::kOk || too_small != attn::Status::kScratchTooSmall) return 1;
  for (int i = 0; i < 2; ++i) {
    if (std::fabs(out[i * 2] - 4.0f) > 1e-6f || std::fabs(out[i * 2 + 1] - 5.0f) > 1e-6f) {
      std::printf("row %d: %g %g, expected 4 5\n", i, out[i * 2], out[i * 2 + 1]);
      return 1;
    }
  }
  std::printf("ok: %s float kernels, query tile %d\n", ATTN_F32_BACKEND, ATTN_SDPA_QUERY_TILE);
  return 0;
}
