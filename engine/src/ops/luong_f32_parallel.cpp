// Luong attention, float32, with an executor (see attn/luong.h): batch items
// as tasks, or a long item split by key range (ops/context_f32_split.h).
#include "attn/config.h"
#include "attn/luong.h"
#include "core/index.h"
#include "ops/context_f32_split.h"
#include "ops/luong_f32_item.h"
#include "ops/op_helpers.h"

// Built with ATTN_PARALLEL 0 (bare metal): empty, the ops run serially.
#if ATTN_PARALLEL

namespace attn {
namespace detail {
namespace {

// The context_f32_run interface over a LuongF32Job. A slice holds the
// projected query (general one-shot only), then the core.
struct LuongSplit : ContextF32Batch {
  const LuongF32Job& job;
  std::size_t proj_bytes;

  LuongKeys keys(int32_t b) const {
    return LuongKeys{job.k + idx(b) * job.k_item, job.k_stride, job.dim_k,
                     job.args->keys + idx(b) * idx(seq) * idx(dim_v), dim_v};
  }
  // The item's query row; general one-shot: projected into the slice.
  const float* query(int32_t b, unsigned char* slice) const {
    const float* q = job.queries + idx(b) * job.query_stride;
    if (job.proj_w == nullptr) return q;
    auto* proj = static_cast<float*>(static_cast<void*>(slice));
    kernels::linear_f32(q, 1, job.query_dim, job.proj_w, nullptr, job.dim_k, proj);
    return proj;
  }
  void item(int32_t b, unsigned char* slice) const {
    luong_attend_f32(query(b, slice), keys(b), len(b), seq, context(b), weights(b),
                     slice + proj_bytes);
  }
  void prepare(int32_t b, unsigned char* slice0) const { (void)query(b, slice0); }
  void part(int32_t b, int32_t begin, int32_t end, OneQuery* one, unsigned char* slice,
            unsigned char* slice0) const {
    const float* q = job.proj_w != nullptr ? static_cast<const float*>(static_cast<void*>(slice0))
                                           : job.queries + idx(b) * job.query_stride;
    const LuongCore c = luong_core(slice + proj_bytes);
    one_query_start(one, c.acc, dim_v);
    luong_keys_f32(q, keys(b), begin, end, align, one, c.scores, weights(b));
  }
};

}  // namespace

void luong_f32_parallel(const Executor& ex, const LuongF32Job& job, void* scratch) {
  const std::size_t proj = job.proj_w != nullptr ? f32_bytes(idx(job.dim_k)) : 0;
  const LuongKeys k0{job.k, job.k_stride, job.dim_k, job.args->keys, job.dim_v};
  const LuongSplit op{
      {job.args, proj + SdpaF32Layout<RawBytes>(job.dim_v, job.dim_v).bytes, job.batch, job.seq,
       job.dim_v, luong_block(k0), static_cast<int64_t>(job.dim_k) + job.dim_v + kSoftmaxWork},
      job,
      proj};
  context_f32_run(ex, op, scratch);
}

}  // namespace detail
}  // namespace attn
#endif  // ATTN_PARALLEL
