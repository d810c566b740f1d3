// Multi-head attention, float32 (see attn/mha.h).
#include "attn/mha.h"

#include "kernels/f32/kernels_f32.h"
#include "core/attend_f32.h"
#include "ops/op_helpers.h"

namespace attn {
namespace {

std::size_t idx(int32_t i) { return static_cast<std::size_t>(i); }

// The three input projections of one head: weight rows [h*hd, (h+1)*hd) of
// Wq/Wk/Wv and the matching slices of the packed bias.
struct HeadProjection {
  const float* wq;
  const float* wk;
  const float* wv;
  const float* bq;
  const float* bk;
  const float* bv;
};

HeadProjection head_projection(const MhaF32Weights& w, int32_t e, int32_t kdim, int32_t vdim,
                               int32_t hd, int32_t h) {
  const std::size_t row0 = idx(h) * idx(hd);
  HeadProjection p{};
  if (w.in_proj_weight != nullptr) {
    p.wq = w.in_proj_weight + row0 * idx(e);
    p.wk = w.in_proj_weight + (idx(e) + row0) * idx(e);
    p.wv = w.in_proj_weight + (2 * idx(e) + row0) * idx(e);
  } else {
    p.wq = w.q_proj_weight + row0 * idx(e);
    p.wk = w.k_proj_weight + row0 * idx(kdim);
    p.wv = w.v_proj_weight + row0 * idx(vdim);
  }
  if (w.in_proj_bias != nullptr) {
    p.bq = w.in_proj_bias + row0;
    p.bk = w.in_proj_bias + idx(e) + row0;
    p.bv = w.in_proj_bias + 2 * idx(e) + row0;
  } else {
    p.bq = p.bk = p.bv = nullptr;
  }
  return p;
}

}  // namespace

Status mha_f32(const MhaShape& shape, const MhaF32Weights& weights, const MhaF32Args& args,
               Scratch scratch) {
  const bool packed = weights.in_proj_weight != nullptr;
  const bool separate = weights.q_proj_weight != nullptr && weights.k_proj_weight != nullptr &&
                        weights.v_proj_weight != nullptr;
  if (args.query == nullptr || args.key == nullptr || args.value == nullptr ||
      args.out == nullptr || weights.out_proj_weight == nullptr || !(packed || separate)) {
    return Status::kNullPointer;
  }
  const int32_t e = shape.embed_dim;
  const int32_t kdim = shape.kdim == 0 ? e : shape.kdim;
  const int32_t vdim = shape.vdim == 0 ? e : shape.vdim;
  if (!detail::dims_ok({shape.batch, shape.seq_q, shape.seq_kv, e, shape.num_heads, kdim, vdim})) {
    return Status::kBadShape;
  }
  if (e % shape.num_heads != 0 || (packed && (kdim != e || vdim != e))) {
    return Status::kShapeMismatch;
  }
  if (args.weights_mode != MhaWeightsMode::kAveraged &&
      args.weights_mode != MhaWeightsMode::kPerHead) {
    return Status::kBadArgument;
  }
  const Status mask_status = detail::check_mask(args.mask, shape.batch, shape.seq_kv);
  if (mask_status != Status::kOk) return mask_status;
  const std::size_t needed = mha_f32_scratch_bytes(shape);
  if (scratch.data == nullptr || scratch.bytes < needed) return Status::kScratchTooSmall;

  const int32_t hd = e / shape.num_heads;
  const std::size_t sq = idx(shape.seq_q);
  const std::size_t skv = idx(shape.seq_kv);
  void* ws = detail::aligned_scratch(scratch.data, scratch.bytes, needed);
  auto* base = static_cast<unsigned char*>(ws);
  auto* qh = static_cast<float*>(static_cast<void*>(base));
  base += f32_bytes(sq * idx(hd));
  auto* oh = static_cast<float*>(static_cast<void*>(base));
  base += f32_bytes(sq * idx(hd));
  auto* kh = static_cast<float*>(static_cast<void*>(base));
  base += f32_bytes(skv * idx(hd));
  auto* vh = static_cast<float*>(static_cast<void*>(base));
  base += f32_bytes(skv * idx(hd));
  void* core = base;

  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  const float* wo = weights.out_proj_weight;
  for (int32_t b = 0; b < shape.batch; ++b) {
    const float* query = args.query + idx(b) * sq * idx(e);
    const float* key = args.key + idx(b) * skv * idx(kdim);
    const float* value = args.value + idx(b) * skv * idx(vdim);
    float* out = args.out + idx(b) * sq * idx(e);
    const detail::AttendMask mask = detail::batch_mask(args.mask, b, shape.seq_kv);
    for (int32_t h = 0; h < shape.num_heads; ++h) {
      const HeadProjection p = head_projection(weights, e, kdim, vdim, hd, h);
      kernels::linear_f32(query, shape.seq_q, e, p.wq, p.bq, hd, qh);
      kernels::linear_f32(key, shape.seq_kv, kdim, p.wk, p.bk, hd, kh);
      kernels::linear_f32(value, shape.seq_kv, vdim, p.wv, p.bv, hd, vh);

      detail::AttendF32 a;
      a.q = qh;
      a.q_stride = idx(hd);
      a.k = kh;
      a.k_stride = idx(hd);
      a.v = vh;
      a.v_stride = idx(hd);
      a.out = oh;
      a.out_stride = idx(hd);
      if (args.weights != nullptr) {
        if (args.weights_mode == MhaWeightsMode::kPerHead) {
          a.weights = args.weights + (idx(b) * idx(shape.num_heads) + idx(h)) * sq * skv;
        } else {
          a.weights = args.weights + idx(b) * sq * skv;
          a.accumulate_weights = h > 0;
          a.weights_alpha = 1.0f / static_cast<float>(shape.num_heads);
        }
      }
      a.seq_q = shape.seq_q;
      a.seq_kv = shape.seq_kv;
      a.dim_k = hd;
      a.dim_v = hd;
      a.scale = scale;
      detail::attend_f32(a, mask, core);

      // out = out_proj_bias + O_0 Wo[:, 0:hd]^T, then out += O_h Wo[:, h*hd:(h+1)*hd]^T
      kernels::gemm_nt_f32(oh, idx(hd), shape.seq_q, hd, wo + idx(h) * idx(hd), idx(e), e,
                           h == 0 ? weights.out_proj_bias : nullptr, h > 0, out, idx(e));
    }
  }
  return Status::kOk;
}

}  // namespace attn
