// With q = 0 every key gets the same weight: out = the mean of the v rows.
#include <cmath>
#include <cstdio>

#include "attn/attn.h"

int main() {
  constexpr attn::SdpaShape shape{1, 2, 4, 3, 2};
  static attn::Workspace<attn::sdpa_f32_scratch_bytes(shape)> ws;
  const float q[2 * 3] = {};
  const float k[4 * 3] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3};
  const float v[4 * 2] = {1, 2, 3, 4, 5, 6, 7, 8};
  float out[2 * 2];
  attn::SdpaF32Args args;
  args.q = q;
  args.k = k;
  args.v = v;
  args.out = out;
  const attn::Status st = attn::sdpa_f32(shape, args, ws.scratch());
  if (st != attn::Status::kOk) {
    std::printf("sdpa_f32: %s\n", attn::status_str(st));
    return 1;
  }
  for (int i = 0; i < 2; ++i) {
    if (std::fabs(out[i * 2] - 4.0f) > 1e-6f || std::fabs(out[i * 2 + 1] - 5.0f) > 1e-6f) {
      std::printf("row %d: %g %g, expected 4 5\n", i, out[i * 2], out[i * 2 + 1]);
      return 1;
    }
  }
  std::printf("consumer ok (%zu scratch bytes)\n", sizeof ws);
  return 0;
}
