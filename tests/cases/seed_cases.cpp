// The worked example of the seed "The Attention Mechanism from Scratch".
#include "attn/general_attention.h"
#include "case.h"

ATTN_CASE(Seed, GeneralAttentionReproducesPrintedTable) {
  static const float words[4][3] = {{1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0, 0, 1}};
  static const float w_q[3][3] = {{2, 0, 2}, {2, 0, 0}, {2, 1, 2}};
  static const float w_k[3][3] = {{2, 2, 2}, {0, 2, 1}, {0, 1, 1}};
  static const float w_v[3][3] = {{1, 1, 0}, {0, 1, 1}, {0, 0, 0}};
  // The seed's printed output (NumPy, float64).
  static const double expected[4][3] = {{0.98522025, 1.74174051, 0.75652026},
                                        {0.90965265, 1.40965265, 0.5},
                                        {0.99851226, 1.75849334, 0.75998108},
                                        {0.99560386, 1.90407309, 0.90846923}};
  constexpr attn::GeneralAttentionShape shape{1, 4, 3, 3, 3};
  static attn::Workspace<attn::general_attention_f32_scratch_bytes(shape)> ws;
  float out[4][3];
  attn::GeneralAttentionF32Args args;
  args.x = &words[0][0];
  args.out = &out[0][0];
  const attn::GeneralAttentionF32Weights weights{&w_q[0][0], &w_k[0][0], &w_v[0][0]};
  ATTN_ASSERT_TRUE(attn::general_attention_f32(shape, weights, args, ws.scratch()) ==
                   attn::Status::kOk);
  // float32 result vs the float64 table: within 3e-7 (2.5 ulp at 1.9; the
  // float32 rounding of the scores alone moves outputs by up to 5e-8).
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 3; ++j) ATTN_EXPECT_NEAR(out[i][j], expected[i][j], 3e-7);
  }
}
