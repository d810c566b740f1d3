// Bahdanau attention, float32, with an executor (see attn/bahdanau.h): batch
// items as tasks, or a long item split by key range (ops/context_f32_split.h).
#include "attn/bahdanau.h"
#include "attn/config.h"
#include "core/index.h"
#include "ops/bahdanau_f32_item.h"
#include "ops/context_f32_split.h"
#include "ops/op_helpers.h"

// Built with ATTN_PARALLEL 0 (bare metal): empty, the ops run serially.
#if ATTN_PARALLEL

namespace attn {
namespace detail {
namespace {

// The context_f32_run interface over a BahdanauF32Job; a slice is the serial
// op's scratch (BahdanauF32Work).
struct BahdanauSplit : ContextF32Batch {
  const BahdanauF32Job& job;

  const BahdanauShape& s() const { return *job.shape; }
  const float* keys(int32_t b) const {
    return job.args->keys + idx(b) * idx(seq) * idx(s().key_dim);
  }
  const float* query(int32_t b) const { return job.args->query + idx(b) * idx(s().query_dim); }
  void item(int32_t b, unsigned char* slice) const {
    const BahdanauF32Work work = bahdanau_f32_work(s(), slice);
    const QueryItem<float> it = query_item(*job.args, b, seq, s().query_dim, s().key_dim);
    bahdanau_with_memory_f32(job, b, [&](auto tile) {
      bahdanau_item_f32(s(), *job.weights, it.query, it.keys, it.len, it.context, it.wrow, work,
                        tile);
    });
  }
  void prepare(int32_t b, unsigned char* slice0) const {
    const BahdanauF32Work work = bahdanau_f32_work(s(), slice0);
    kernels::dense_f32(query(b), 1, s().query_dim, job.weights->w1, job.weights->b1, s().units,
                       work.query_proj);
  }
  // The online softmax over keys [begin, end) (whole key blocks) into `one`,
  // with slice 0's query projection and this range's own buffers.
  void part(int32_t b, int32_t begin, int32_t end, OneQuery* one, unsigned char* slice,
            unsigned char* slice0) const {
    const BahdanauF32Work work = bahdanau_f32_work(s(), slice);
    const float* query_proj = bahdanau_f32_work(s(), slice0).query_proj;
    const auto dk = idx(s().key_dim);
    float* w = weights(b);
    one_query_start(one, work.acc, s().key_dim);
    bahdanau_with_memory_f32(job, b, [&](auto tile) {
      for (int32_t j0 = begin; j0 < end; j0 += kSdpaKeyBlock) {
        const int32_t nk = end - j0 < kSdpaKeyBlock ? end - j0 : kSdpaKeyBlock;
        bahdanau_scores_f32(s(), *job.weights, j0, nk, query_proj, work, tile);
        one_query_block(one, work.scores, nk, keys(b) + idx(j0) * dk, dk, s().key_dim,
                        w != nullptr ? w + begin : nullptr, j0 - begin);
      }
    });
  }
};

}  // namespace

void bahdanau_f32_parallel(const Executor& ex, const BahdanauF32Job& job, void* scratch) {
  const BahdanauShape& s = *job.shape;
  // Per key: the projection of the one-shot op, add, tanh and the score over
  // the units, and the context's multiply-adds.
  const int64_t projection = job.memory == nullptr ? static_cast<int64_t>(s.key_dim) * s.units : 0;
  const BahdanauSplit op{
      {job.args, bahdanau_f32_scratch_bytes(s) - kAlign, s.batch, s.seq, s.key_dim, kSdpaKeyBlock,
       projection + 4 * static_cast<int64_t>(s.units) + s.key_dim + kSoftmaxWork},
      job};
  context_f32_run(ex, op, scratch);
}

}  // namespace detail
}  // namespace attn
#endif  // ATTN_PARALLEL
