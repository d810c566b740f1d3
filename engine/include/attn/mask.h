// Attention masks shared by every op that attends over a key sequence.
//
// Each component is optional and they combine: a key j is visible to query i
// only if every active component allows it.
//
//   causal        look-ahead mask: query i sees keys j <= i + (seq_kv - seq_q).
//                 With seq_kv > seq_q the queries are the last seq_q positions
//                 of the key sequence (the usual decode offset); with
//                 seq_kv < seq_q the first queries see no key at all.
//   key_lengths   [batch] int32, key padding: keys j >= key_lengths[b] are
//                 masked. Each length must be in [0, seq_kv].
//   keras         [seq_q, seq_kv] float, Keras convention: 1 = masked. The op
//                 adds -1e9 * m to the score, exactly as the Keras layer does;
//                 a nonzero m counts as "masked" for the all-masked-row rule.
//   additive      [seq_q, seq_kv] float added to the score as is (PyTorch's
//                 float attn_mask); -inf masks a key.
//   boolean       [seq_q, seq_kv] uint8, nonzero = masked (PyTorch's bool
//                 attn_mask: true = not allowed to attend).
//   matrix_batch_stride
//                 elements between the matrices of consecutive batch items for
//                 keras / additive / boolean; 0 broadcasts one matrix to every
//                 batch item (the [seq_q, seq_kv] case); seq_q * seq_kv gives a
//                 [batch, seq_q, seq_kv] mask.
//
// A query row whose keys are all masked produces a zero output row and zero
// attention probabilities (never NaN). Everywhere else, results equal the reference
// softmax(QK^T * scale + mask) V.
#pragma once

#include <cstddef>
#include <cstdint>

namespace attn {

struct Mask {
  bool causal = false;
  const int32_t* key_lengths = nullptr;
  const float* keras = nullptr;
  const float* additive = nullptr;
  const uint8_t* boolean = nullptr;
  std::size_t matrix_batch_stride = 0;
};

}  // namespace attn
