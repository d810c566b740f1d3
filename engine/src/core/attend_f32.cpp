#include "core/attend_f32.h"

#include <cstddef>
#include <cstdint>

#include "attn/sdpa.h"
#include "core/attend_f32_tile.h"
#include "kernels/f32/kernels_f32.h"
#if ATTN_F32_CORE_PER_TARGET
#include "kernels/f32/hwy/attend_f32_hwy.h"
#endif

namespace attn {
namespace detail {
namespace {

#include "core/attend_f32_loop-inl.h"

constexpr float kKerasMaskValue = -1e9f;

// The masking of a block's scores (attend_f32_tile.h: mask_scores).
ATTN_TILE_INLINE void mask_block(const AttendF32& a, const AttendMask& mask, const Tile& t,
                                 const Layout& lay, int32_t i0, int32_t nq, int32_t j0, int32_t nk,
                                 int32_t* visible) {
  // No matrix mask and every row of the tile sees the whole block (the first
  // row has the smallest limit): nothing to mask, nk keys visible per row.
  const bool matrix_mask = mask.keras != nullptr || mask.additive != nullptr ||
                           mask.boolean != nullptr;
  if (!matrix_mask && row_limit(a, mask, i0) - j0 >= nk) {
    for (int32_t r = 0; visible != nullptr && r < nq; ++r) visible[r] += nk;
    return;
  }
  const std::size_t cs = lay.col;
  for (int32_t r = 0; r < nq; ++r) {
    const int32_t i = i0 + r;
    float* s = t.s + idx(r) * lay.row;
    int32_t lim = row_limit(a, mask, i) - j0;
    lim = lim < 0 ? 0 : (lim > nk ? nk : lim);
    for (int32_t j = lim; j < nk; ++j) s[idx(j) * cs] = kNegInf;
    const std::size_t row = idx(i) * idx(a.seq_kv) + idx(j0);
    int32_t seen = lim;
    if (mask.keras != nullptr) {
      const float* m = mask.keras + row;
      for (int32_t j = 0; j < lim; ++j) {
        s[idx(j) * cs] += kKerasMaskValue * m[j];
        if (m[j] != 0.0f) --seen;
      }
    }
    if (mask.additive != nullptr || mask.boolean != nullptr) {
      for (int32_t j = 0; j < lim; ++j) {
        float& x = s[idx(j) * cs];
        const bool was_visible = mask.keras == nullptr || mask.keras[row + idx(j)] == 0.0f;
        if (mask.additive != nullptr) x += mask.additive[row + idx(j)];
        if (mask.boolean != nullptr && mask.boolean[row + idx(j)] != 0) x = kNegInf;
        if (was_visible && x == kNegInf) --seen;
      }
    }
    if (visible != nullptr) visible[r] += seen;
  }
}

// The loops' kernel set: the build's backend, every call direct (a Highway
// build's kernels dispatch per call: its tile loops run per target instead,
// kernels/f32/hwy/attend_f32_hwy.cpp, and this set serves the online steps
// other cores call).
struct LoopKernels {
  ATTN_F32_LOOP_KERNELS(::attn::kernels)
  ATTN_TILE_INLINE static void mask_scores(const AttendF32& a, const AttendMask& mask,
                                           const Tile& t, const Layout& lay, int32_t i0, int32_t nq,
                                           int32_t j0, int32_t nk, int32_t* visible) {
    mask_block(a, mask, t, lay, i0, nq, j0, nk, visible);
  }
  static constexpr auto rescale_state = &detail::rescale_state;
  [[maybe_unused]] static constexpr auto online_softmax_update = &detail::online_softmax_update;
};

}  // namespace

void rescale_state(float m_new, float* m, float* l, float* acc, int32_t dim_v) {
  rescale_row<LoopKernels>(m_new, m, l, acc, dim_v);
}

void online_softmax_rows(float* s, std::size_t s_stride, int32_t nq, int32_t nk, float* m, float* l,
                         float* acc, std::size_t acc_stride, int32_t dim_v) {
  softmax_rows<LoopKernels>(s, s_stride, nq, nk, m, l, acc, acc_stride, dim_v);
}

void online_softmax_update(float* s, std::size_t s_stride, int32_t nq, int32_t nk, const float* v,
                           std::size_t v_stride, int32_t dim_v, float* m, float* l, float* acc,
                           std::size_t acc_stride) {
  online_update<LoopKernels>(s, s_stride, nq, nk, v, v_stride, dim_v, m, l, acc, acc_stride);
}

#if ATTN_F32_CORE_PER_TARGET
// A Highway build: the loops compiled per target (attend_f32_hwy.cpp), each
// entry one dispatched call; the masking from here, out of line.

void mask_scores(const AttendF32& a, const AttendMask& mask, const Tile& t, const Layout& lay,
                 int32_t i0, int32_t nq, int32_t j0, int32_t nk, int32_t* visible) {
  mask_block(a, mask, t, lay, i0, nq, j0, nk, visible);
}

void attend_f32_tiles(const AttendF32& a, const AttendMask& mask, int32_t tile_begin,
                      int32_t tile_end, void* slice) {
  hwy::attend_f32_tiles(a, mask, tile_begin, tile_end, slice);
}

void attend_f32(const AttendF32& a, const AttendMask& mask, void* scratch) {
  hwy::attend_f32_tiles(a, mask, 0, attend_f32_tile_count(a.seq_q), scratch);
}

void attend_f32_key_part(const AttendF32& a, const AttendMask& mask, int32_t part, int32_t parts,
                         void* slice) {
  hwy::attend_f32_key_part(a, mask, part, parts, slice);
}

void attend_f32_key_probs(const AttendF32& a, const AttendMask& mask, int32_t part, int32_t parts,
                          void* slices, std::size_t slice_bytes) {
  hwy::attend_f32_key_probs(a, mask, part, parts, slices, slice_bytes);
}

#else
// Every other build: the loops here, over the build's backend.

#include "core/attend_f32_entries-inl.h"

void attend_f32(const AttendF32& a, const AttendMask& mask, void* scratch) {
  run_tiles<LoopKernels>(a, mask, 0, attend_f32_tile_count(a.seq_q), scratch);
}

#endif

int32_t attend_f32_key_parts(const AttendF32& a, const AttendMask& mask, int32_t workers) {
  if (workers <= 1 || a.seq_q > kRowLayoutMaxQueries) return 1;
  const int32_t kv_end = row_limit(a, mask, a.seq_q - 1);
  // Ranges of whole key blocks, each at least the minimum work per task.
  const int64_t block_work = static_cast<int64_t>(a.seq_q) * kSdpaKeyBlock *
                             (static_cast<int64_t>(a.dim_k) + a.dim_v + kSoftmaxWork);
  const int32_t blocks = kv_end / kSdpaKeyBlock;
  return split_count(blocks, block_work, workers);
}

void attend_f32_merge_parts(const AttendF32& a, int32_t parts, void* slices,
                            std::size_t slice_bytes) {
  auto* base = static_cast<unsigned char*>(slices);
  const Tile t0 = carve(base, a.dim_k, a.dim_v);
  for (int32_t p = 1; p < parts; ++p) {
    const Tile tp = carve(base + idx(p) * slice_bytes, a.dim_k, a.dim_v);
    for (int32_t r = 0; r < a.seq_q; ++r) {
      float* acc0 = t0.acc + idx(r) * idx(a.dim_v);
      float* accp = tp.acc + idx(r) * idx(a.dim_v);
      const float m_new = tp.m[r] > t0.m[r] ? tp.m[r] : t0.m[r];
      rescale_state(m_new, &t0.m[r], &t0.l[r], acc0, a.dim_v);
      rescale_state(m_new, &tp.m[r], &tp.l[r], accp, a.dim_v);
      t0.l[r] += tp.l[r];
      for (int32_t c = 0; c < a.dim_v; ++c) acc0[c] += accp[c];
      t0.visible[r] += tp.visible[r];
    }
  }
  write_output_rows(a, t0, 0, a.seq_q);
}

void attend_f32_item(const Executor& ex, const AttendF32Item& it, void* scratch) {
  auto* base = static_cast<unsigned char*>(scratch);
  const std::size_t slice = attend_f32_slice_bytes(it.a.dim_k, it.a.dim_v);
  const int32_t parts = attend_f32_key_parts(it.a, it.mask, ex.workers);
  if (parts == 1) {
    const int32_t tiles = attend_f32_tile_count(it.a.seq_q);
    const int32_t n_tasks = split_count(
        tiles, attend_f32_tile_work(it.a.seq_q, it.a.seq_kv, it.a.dim_k, it.a.dim_v), tiles);
    auto tile_task = [&](int32_t t, int32_t worker) {
      int64_t begin = 0;
      int64_t end = 0;
      split_range(tiles, t, n_tasks, &begin, &end);
      attend_f32_tiles(it.a, it.mask, static_cast<int32_t>(begin), static_cast<int32_t>(end),
                       base + idx(worker) * slice);
    };
    parallel_for(ex, n_tasks, tile_task);
    return;
  }
  auto part_task = [&](int32_t p, int32_t) {
    attend_f32_key_part(it.a, it.mask, p, parts, base + idx(p) * slice);
  };
  auto probs_task = [&](int32_t p, int32_t) {
    attend_f32_key_probs(it.a, it.mask, p, parts, base, slice);
  };
  parallel_for(ex, parts, part_task);
  attend_f32_merge_parts(it.a, parts, base, slice);
  if (it.a.probs != nullptr) parallel_for(ex, parts, probs_task);
}

}  // namespace detail
}  // namespace attn
