// The seed's worked example as it is written: four word embeddings X and the
// weight matrices W_Q, W_K, W_V; general_attention_f32 projects and attends
// (softmax(Q K^T / sqrt(3)) V).
#include <cstdio>

#include "attn/attn.h"

int main() {
  const float words[4][3] = {{1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0, 0, 1}};
  const float w_q[3][3] = {{2, 0, 2}, {2, 0, 0}, {2, 1, 2}};
  const float w_k[3][3] = {{2, 2, 2}, {0, 2, 1}, {0, 1, 1}};
  const float w_v[3][3] = {{1, 1, 0}, {0, 1, 1}, {0, 0, 0}};
  constexpr attn::GeneralAttentionShape shape{/*batch*/ 1, /*seq*/ 4, /*in_dim*/ 3, /*dim_k*/ 3,
                                              /*dim_v*/ 3};
  static attn::Workspace<attn::general_attention_f32_scratch_bytes(shape)> ws;
  float out[4][3];
  attn::GeneralAttentionF32Args args;
  args.x = &words[0][0];
  args.out = &out[0][0];
  const attn::GeneralAttentionF32Weights weights{&w_q[0][0], &w_k[0][0], &w_v[0][0]};
  const attn::Status st = attn::general_attention_f32(shape, weights, args, ws.scratch());
  if (st != attn::Status::kOk) {
    std::printf("general_attention_f32: %s\n", attn::status_str(st));
    return 1;
  }
  for (const auto& row : out) std::printf("%10.6f %10.6f %10.6f\n", row[0], row[1], row[2]);
  std::printf("scratch: %zu bytes (%s float kernels)\n", sizeof ws, ATTN_F32_BACKEND);
  return 0;
}
