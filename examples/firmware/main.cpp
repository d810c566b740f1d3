// The seed's worked example on the device: four words, their queries, keys
// and values (Q = X W_Q, K = X W_K, V = X W_V), attended with
// softmax(Q K^T / sqrt(3)) V. Prints with the engine's allocation-free
// printer; main's return value is the image's exit code.
#include "attn/attn.h"
#include "attn/platform.h"

namespace {

constexpr attn::SdpaShape kShape{/*batch*/ 1, /*seq_q*/ 4, /*seq_kv*/ 4, /*dim_k*/ 3, /*dim_v*/ 3};
const float kQ[4][3] = {{2, 0, 2}, {2, 0, 0}, {4, 0, 2}, {2, 1, 2}};
const float kK[4][3] = {{2, 2, 2}, {0, 2, 1}, {2, 4, 3}, {0, 1, 1}};
const float kV[4][3] = {{1, 1, 0}, {0, 1, 1}, {1, 2, 1}, {0, 0, 0}};
float out[4][3];
attn::Workspace<attn::sdpa_f32_scratch_bytes(kShape)> ws;  // sizeof(ws): the RAM cost

}  // namespace

int main() {
  attn::SdpaF32Args args;
  args.q = &kQ[0][0];
  args.k = &kK[0][0];
  args.v = &kV[0][0];
  args.out = &out[0][0];  // scale defaults to 1/sqrt(dim_k)
  const attn::Status st = attn::sdpa_f32(kShape, args, ws.scratch());
  if (st != attn::Status::kOk) {
    attn::platform::print("sdpa_f32: %s\n", attn::status_str(st));
    return 1;
  }
  for (const auto& row : out) {
    attn::platform::print("%10.6f %10.6f %10.6f\n", row[0], row[1], row[2]);
  }
  attn::platform::print("scratch: %u bytes (%s float kernels)\n", static_cast<unsigned>(sizeof ws),
                        ATTN_F32_BACKEND);
  return 0;
}
