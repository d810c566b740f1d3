// Attention of new tokens over an int8 KV cache (see attend_cache_s8.h).
// Integer arithmetic only (tests/int8 checks its Cortex-M soft-float objects).
#include "core/attend_cache_s8.h"

#include "core/attend_s8.h"
#include "core/kv_cache_rows.h"

namespace attn {
namespace detail {

void attend_cache_s8(const Executor& ex, const SdpaS8Params& params, const CacheAttendS8& a,
                     void* slices) {
  const KvCacheShape& cs = a.cache->shape;
  const int32_t hd = cs.head_dim;
  const int32_t group = a.heads / cs.num_kv_heads;
  const auto uhd = static_cast<std::size_t>(hd);
  // Linear: keys 0 .. pos0 + tokens - 1, causal (offset pos0). Window (one
  // token): every valid slot of the ring, none masked.
  const int32_t seq_kv = kv_cache_visible(cs, a.pos0 + a.tokens - 1);
  const bool grouped = a.tokens == 1;
  const auto item = [&](int32_t i) {
    // Grouped: item i is kv head i, rows its query heads; else query head i.
    const int32_t h = grouped ? i * group : i;
    const std::size_t col = static_cast<std::size_t>(h) * uhd;
    const std::size_t kv = kv_cache_offset(cs, grouped ? i : h / group, 0);
    AttendS8Item it;
    it.a.q = a.q + col;
    it.a.q_stride = grouped ? uhd : a.stride;
    it.a.k = static_cast<const int8_t*>(a.cache->k) + kv;
    it.a.k_stride = uhd;
    it.a.v = static_cast<const int8_t*>(a.cache->v) + kv;
    it.a.v_stride = uhd;
    it.a.out = a.out + col;
    it.a.out_stride = it.a.q_stride;
    it.a.seq_q = grouped ? group : a.tokens;
    it.a.seq_kv = seq_kv;
    it.a.dim_k = hd;
    it.a.dim_v = hd;
    it.mask.causal = !grouped && !cs.window;
    it.mask.key_length = seq_kv;
    return it;
  };
  attend_s8_run(ex, params, grouped ? cs.num_kv_heads : a.heads, grouped ? group : a.tokens, seq_kv,
                hd, item, slices);
}

}  // namespace detail
}  // namespace attn
