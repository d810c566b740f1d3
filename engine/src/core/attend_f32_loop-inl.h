// The loops of the float SDPA core (attend_f32.h has the math): query tiles,
// key blocks, the online softmax and the probs pass, as templates over a
// kernel set K, so that a build compiles them once per kernel set and each
// core call makes one dispatched call (a Highway build: one per target,
// kernels/f32/hwy/attend_f32_hwy.cpp) or none (attend_f32.cpp's own set,
// forwarding to attn::kernels).
//
// K holds ATTN_F32_LOOP_KERNELS(ns) (attend_f32_tile.h) and three steps:
//   mask_scores(a, mask, t, lay, i0, nq, j0, nk, visible)  the core's masking
//       (attend_f32_tile.h): inlined in attend_f32.cpp, called out of line
//       from the Highway targets
//   rescale_state(m_new, m, l, acc, dim_v)  rescale_row<K> below
//   online_softmax_update(s, s_stride, nq, nk, v, v_stride, dim_v, m, l, acc,
//       acc_stride)  online_update<K> below
// (attend_f32.cpp's set calls the last two as the functions of attend_f32.h,
// out of line as the other cores call them; a Highway target's set inlines
// its own instances, which call no dispatching kernel).
//
// Not a normal header: the includer includes core/attend_f32_tile.h, opens
// the loops' namespace (an unnamed one in attn::detail, or a Highway
// target's), includes this file and then defines its K, LoopKernels, over
// which attend_f32_entries-inl.h defines the core's entries. No include
// guard: a Highway build includes it once per target.
// Definitions in a header by design.
// NOLINTBEGIN(misc-definitions-in-headers)

using ::attn::detail::AttendF32;
using ::attn::detail::AttendMask;
using ::attn::detail::key_range;
using ::attn::detail::kNegInf;
using ::attn::detail::kRowLayoutMaxQueries;
using ::attn::detail::Layout;
using ::attn::detail::Tile;

// The helpers below are plain functions, not declared inline: in
// attend_f32.cpp they have internal linkage, as GCC's inlining of the
// Cortex-M core (its code and instruction counts) expects.

std::size_t idx(int32_t i) { return static_cast<std::size_t>(i); }

// Number of keys query row i may see before the matrix masks: min(key_length,
// i + offset + 1) with the causal offset seq_kv - seq_q.
int32_t row_limit(const AttendF32& a, const AttendMask& mask, int32_t i) {
  if (!mask.causal) return mask.key_length;
  const int64_t lim = static_cast<int64_t>(i) + a.seq_kv - a.seq_q + 1;
  if (lim <= 0) return 0;
  return lim < mask.key_length ? static_cast<int32_t>(lim) : mask.key_length;
}

// Score layout of a tile of nq queries (Layout, attend_f32_tile.h); unused
// by a Highway build's attend_f32.cpp, whose loops run per target.
[[maybe_unused]] Layout layout_for(int32_t nq) {
  if (kSdpaQueryTile % 16 != 0 || nq <= kRowLayoutMaxQueries) {
    const int32_t rows = nq == 1 ? 1 : (nq <= 4 ? 4 : kSdpaQueryTile);
    const int32_t bk = kSdpaKeyBlock * kSdpaQueryTile / rows;
    return Layout{false, 0, bk, idx(bk), 1};
  }
  const int32_t tq = (nq + 15) / 16 * 16;
  return Layout{true, tq, kSdpaKeyBlock, 1, idx(tq)};
}

// The tile buffers in a scratch slice. Walks the layout in its order: each
// step is the previous buffer's size.
Tile carve(void* scratch, int32_t dim_k, int32_t dim_v) {
  const SdpaF32Layout<RawBytes> lay(dim_k, dim_v);
  auto* p = static_cast<unsigned char*>(scratch) + lay.scaled_q;
  Tile t{};
  t.qs = static_cast<float*>(static_cast<void*>(p));
  p += lay.scores - lay.scaled_q;
  t.s = static_cast<float*>(static_cast<void*>(p));
  p += lay.acc - lay.scores;
  t.acc = static_cast<float*>(static_cast<void*>(p));
  p += lay.row_max - lay.acc;
  t.m = static_cast<float*>(static_cast<void*>(p));
  p += lay.row_sum - lay.row_max;
  t.l = static_cast<float*>(static_cast<void*>(p));
  p += lay.visible - lay.row_sum;
  t.visible = static_cast<int32_t*>(static_cast<void*>(p));
  return t;
}

// Rescales one running state to the max m_new >= *m: *l and acc[0, dim_v)
// times exp(*m - m_new); nothing when m_new == *m.
template <class K>
ATTN_TILE_INLINE void rescale_row(float m_new, float* m, float* l, float* acc, int32_t dim_v) {
  if (m_new == *m) return;
  const float alpha = ::attn::exp_poly::exp_poly_f32(*m - m_new);
  *l *= alpha;
  K::scale_f32(acc, dim_v, alpha);
  *m = m_new;
}

// The softmax half of an online step (attend_f32.h: online_softmax_rows).
template <class K>
ATTN_TILE_INLINE void softmax_rows(float* s, std::size_t s_stride, int32_t nq, int32_t nk, float* m,
                                   float* l, float* acc, std::size_t acc_stride, int32_t dim_v) {
  for (int32_t r = 0; r < nq; ++r) {
    float* sr = s + idx(r) * s_stride;
    const float block_max = K::max_f32(sr, nk);
    const float m_new = block_max > m[r] ? block_max : m[r];
    // Nothing visible yet (every score -inf or NaN): subtract 0, so masked keys
    // give exp(-inf) = 0 and a NaN score stays NaN and poisons the row's sum,
    // as the SIMD kernels do.
    const float sum = K::exp_sub_sum_f32(sr, nk, m_new == kNegInf ? 0.0f : m_new);
    K::rescale_state(m_new, &m[r], &l[r], acc + idx(r) * acc_stride, dim_v);
    l[r] += sum;
  }
}

// One online step, then acc += P V (attend_f32.h: online_softmax_update).
template <class K>
ATTN_TILE_INLINE void online_update(float* s, std::size_t s_stride, int32_t nq, int32_t nk,
                                    const float* v, std::size_t v_stride, int32_t dim_v, float* m,
                                    float* l, float* acc, std::size_t acc_stride) {
  softmax_rows<K>(s, s_stride, nq, nk, m, l, acc, acc_stride, dim_v);
  K::pv_tile_f32(s, s_stride, nq, nk, v, v_stride, dim_v, acc, acc_stride);
}

// Scores of query rows [i0, i0+nq) against keys [j0, j0+nk) into t.s, then
// masked (K::mask_scores); adds the visible keys per row to `visible` when
// it is not null.
template <class K>
ATTN_TILE_INLINE void score_block(const AttendF32& a, const AttendMask& mask, const Tile& t,
                                  const Layout& lay, int32_t i0, int32_t nq, int32_t j0, int32_t nk,
                                  int32_t* visible) {
  if (lay.transposed) {
    K::qk_tile_t_f32(t.qs, lay.tq, a.dim_k, a.k + idx(j0) * a.k_stride, a.k_stride, nk, t.s);
  } else {
    K::qk_tile_f32(t.qs, idx(a.dim_k), nq, a.k + idx(j0) * a.k_stride, a.k_stride, nk, a.dim_k, t.s,
                   lay.row);
  }
  K::mask_scores(a, mask, t, lay, i0, nq, j0, nk, visible);
}

// One row of the probs output: w[j] (+)= p[j * p_step] * scale for j < valid,
// (+)= 0 for valid <= j < n (accumulated when a.accumulate_probs).
inline void write_probs_row(const AttendF32& a, const float* p, std::size_t p_step, int32_t valid,
                            float scale, float* w, int32_t n) {
  for (int32_t j = 0; j < n; ++j) {
    const float pj = j < valid ? p[idx(j) * p_step] * scale : 0.0f;
    w[j] = a.accumulate_probs ? w[j] + pj : pj;
  }
}

// Second pass: writes softmax probabilities for rows [i0, i0+nq) into probs.
// The scores are recomputed over exactly the key blocks of the first pass
// (keys below kv_end, the same block bounds): a kernel call over more keys may
// group a key differently and round its score differently, and a score above
// the first pass's max would give a probability above 1. Keys from kv_end on
// are masked for every row of the tile: probability 0. Columns [col_begin,
// col_end) in blocks from col_begin (a key range of the key split; the whole
// row otherwise).
template <class K>
ATTN_TILE_INLINE void write_probs(const AttendF32& a, const AttendMask& mask, const Tile& t,
                                  const Layout& lay, int32_t i0, int32_t nq, int32_t col_begin,
                                  int32_t col_end) {
  const int32_t kv_end = row_limit(a, mask, i0 + nq - 1);
  for (int32_t j0 = col_begin; j0 < col_end; j0 += lay.bk) {
    const int32_t nb = col_end - j0 < lay.bk ? col_end - j0 : lay.bk;
    const int32_t left = kv_end - j0;
    const int32_t nk = left <= 0 ? 0 : (left < nb ? left : nb);
    if (nk > 0) score_block<K>(a, mask, t, lay, i0, nq, j0, nk, nullptr);
    // exp(s - m) with the kernels: softmax_t against the final max (which no
    // block exceeds, so nothing is rescaled), or exp_sub_sum per row.
    if (lay.transposed && nk > 0) {
      float m_copy[kSdpaQueryTile];
      float l_unused[kSdpaQueryTile];
      for (int32_t r = 0; r < lay.tq; ++r) {
        m_copy[r] = t.m[r];
        l_unused[r] = 0.0f;
      }
      K::softmax_t_f32(t.s, lay.tq, nk, m_copy, l_unused, 0, nullptr, 0, 0);
    }
    for (int32_t r = 0; r < nq; ++r) {
      float* s = t.s + idx(r) * lay.row;
      float* w = a.probs + idx(i0 + r) * idx(a.seq_kv) + idx(j0);
      const bool empty = t.visible[r] == 0;
      if (!empty && !lay.transposed && nk > 0) K::exp_sub_sum_f32(s, nk, t.m[r]);
      write_probs_row(a, s, lay.col, empty ? 0 : nk, empty ? 0.0f : a.probs_alpha / t.l[r], w, nb);
    }
  }
}

// out_r = acc_r / l_r for rows [i0, i0+nq) (zeros for a row with no visible key).
ATTN_TILE_INLINE void write_output_rows(const AttendF32& a, const Tile& t, int32_t i0, int32_t nq) {
  for (int32_t r = 0; r < nq; ++r) {
    float* out = a.out + idx(i0 + r) * a.out_stride;
    const float* acc = t.acc + idx(r) * idx(a.dim_v);
    const float inv_l = t.visible[r] == 0 ? 0.0f : 1.0f / t.l[r];
    for (int32_t c = 0; c < a.dim_v; ++c) out[c] = t.visible[r] == 0 ? 0.0f : acc[c] * inv_l;
  }
}

// Rows [i0, i0+nq): the scaled queries (rows [r][d], or columns [d][tq] with
// zero padding columns) and an empty online-softmax state.
template <class K>
ATTN_TILE_INLINE void start_tile(const AttendF32& a, const Tile& t, const Layout& lay, int32_t i0,
                                 int32_t nq) {
  if (lay.transposed) {
    K::transpose_scale_f32(a.q + idx(i0) * a.q_stride, a.q_stride, nq, a.dim_k, a.scale, t.qs,
                           lay.tq);
  }
  for (int32_t r = 0; r < (lay.transposed ? lay.tq : nq); ++r) {
    if (!lay.transposed) {
      const float* q = a.q + idx(i0 + r) * a.q_stride;
      float* qs = t.qs + idx(r) * idx(a.dim_k);
      for (int32_t d = 0; d < a.dim_k; ++d) qs[d] = q[d] * a.scale;
    }
    t.m[r] = kNegInf;
    t.l[r] = 0.0f;
    t.visible[r] = 0;
  }
}

// Query rows [i0, i0+nq), nq <= kSdpaQueryTile, through every visible key.
template <class K>
ATTN_TILE_INLINE void attend_tile(const AttendF32& a, const AttendMask& mask, const Tile& t,
                                  int32_t i0, int32_t nq) {
  const Layout lay = layout_for(nq);
  start_tile<K>(a, t, lay, i0, nq);
  // Keys past the last row's limit are masked for the whole tile.
  const int32_t kv_end = row_limit(a, mask, i0 + nq - 1);
  // A tile whose keys fit one block (short sequences; decode up to
  // kSdpaQueryTile * kSdpaKeyBlock keys) needs no online rescaling: P.V
  // accumulates straight into the zeroed output rows (normalised before it
  // in the row layout, by softmax_f32; after it in the transposed one).
  const bool one_block = kv_end <= lay.bk && (lay.transposed || kSdpaQueryTile % 16 == 0);
  for (int32_t r = 0; r < nq; ++r) {
    float* acc = one_block ? a.out + idx(i0 + r) * a.out_stride : t.acc + idx(r) * idx(a.dim_v);
    for (int32_t c = 0; c < a.dim_v; ++c) acc[c] = 0.0f;
  }
  // SIMD builds only (the query tile a multiple of 16): the ref builds'
  // (Cortex-M) rows keep the online path, whose worst-case stack this branch
  // would grow by 40 B (tests/baremetal/ops/stack_budget.json).
  if (kSdpaQueryTile % 16 == 0 && one_block && !lay.transposed) {
    // Rows: softmax_f32 per row (a row with no visible key: all 0), the
    // probs straight from those probabilities.
    if (kv_end > 0) {
      score_block<K>(a, mask, t, lay, i0, nq, 0, kv_end, t.visible);
      for (int32_t r = 0; r < nq; ++r) {
        float* p = t.s + idx(r) * lay.row;
        if (t.visible[r] == 0) {
          for (int32_t j = 0; j < kv_end; ++j) p[j] = 0.0f;
        } else {
          K::softmax_f32(p, kv_end);
        }
      }
      K::pv_tile_f32(t.s, lay.row, nq, kv_end, a.v, a.v_stride, a.dim_v,
                     a.out + idx(i0) * a.out_stride, a.out_stride);
    }
    for (int32_t r = 0; a.probs != nullptr && r < nq; ++r) {
      write_probs_row(a, t.s + idx(r) * lay.row, 1, kv_end, a.probs_alpha,
                      a.probs + idx(i0 + r) * idx(a.seq_kv), a.seq_kv);
    }
    return;
  }
  if (one_block && kv_end > 0) {
    score_block<K>(a, mask, t, lay, i0, nq, 0, kv_end, t.visible);
    // acc is not used (nq = 0 rows): nothing to rescale in the first block.
    K::softmax_t_f32(t.s, lay.tq, kv_end, t.m, t.l, 0, t.acc, idx(a.dim_v), a.dim_v);
    K::pv_tile_t_f32(t.s, lay.tq, nq, kv_end, a.v, a.v_stride, a.dim_v,
                     a.out + idx(i0) * a.out_stride, a.out_stride);
    // Normalised once per output row (dim_v products) rather than per
    // probability (kv_end per row), as the multi-block path does.
    for (int32_t r = 0; r < nq; ++r) {
      K::scale_f32(a.out + idx(i0 + r) * a.out_stride, a.dim_v,
                   t.visible[r] != 0 ? 1.0f / t.l[r] : 0.0f);
    }
  }
  for (int32_t j0 = 0; !one_block && j0 < kv_end; j0 += lay.bk) {
    const int32_t nk = kv_end - j0 < lay.bk ? kv_end - j0 : lay.bk;
    score_block<K>(a, mask, t, lay, i0, nq, j0, nk, t.visible);
    const float* v = a.v + idx(j0) * a.v_stride;
    if (lay.transposed) {
      // The first block finds acc all zero: nothing to rescale (nq = 0 rows).
      K::softmax_t_f32(t.s, lay.tq, nk, t.m, t.l, j0 == 0 ? 0 : nq, t.acc, idx(a.dim_v), a.dim_v);
      K::pv_tile_t_f32(t.s, lay.tq, nq, nk, v, a.v_stride, a.dim_v, t.acc, idx(a.dim_v));
    } else {
      K::online_softmax_update(t.s, lay.row, nq, nk, v, a.v_stride, a.dim_v, t.m, t.l, t.acc,
                               idx(a.dim_v));
    }
  }
  if (!one_block) write_output_rows(a, t, i0, nq);
  if (a.probs != nullptr) write_probs<K>(a, mask, t, lay, i0, nq, 0, a.seq_kv);
}

// attend_f32_tiles: query tiles [tile_begin, tile_end) in one scratch slice.
template <class K>
ATTN_TILE_INLINE void run_tiles(const AttendF32& a, const AttendMask& mask, int32_t tile_begin,
                                int32_t tile_end, void* scratch) {
  const Tile t = carve(scratch, a.dim_k, a.dim_v);
  for (int32_t tile = tile_begin; tile < tile_end; ++tile) {
    const int32_t i0 = tile * kSdpaQueryTile;
    const int32_t nq = a.seq_q - i0 < kSdpaQueryTile ? a.seq_q - i0 : kSdpaQueryTile;
    attend_tile<K>(a, mask, t, i0, nq);
  }
}

// attend_f32_key_part: the online state of key range `part` of `parts`.
template <class K>
ATTN_TILE_INLINE void key_part(const AttendF32& a, const AttendMask& mask, int32_t part,
                               int32_t parts, void* slice) {
  const Tile t = carve(slice, a.dim_k, a.dim_v);
  const int32_t nq = a.seq_q;
  const Layout lay = layout_for(nq);
  start_tile<K>(a, t, lay, 0, nq);
  for (int32_t r = 0; r < nq; ++r) {
    float* acc = t.acc + idx(r) * idx(a.dim_v);
    for (int32_t c = 0; c < a.dim_v; ++c) acc[c] = 0.0f;
  }
  int32_t begin = 0;
  int32_t end = 0;
  key_range(row_limit(a, mask, nq - 1), part, parts, &begin, &end);
  for (int32_t j0 = begin; j0 < end; j0 += lay.bk) {
    const int32_t nk = end - j0 < lay.bk ? end - j0 : lay.bk;
    score_block<K>(a, mask, t, lay, 0, nq, j0, nk, t.visible);
    K::online_softmax_update(t.s, lay.row, nq, nk, a.v + idx(j0) * a.v_stride, a.v_stride, a.dim_v,
                             t.m, t.l, t.acc, idx(a.dim_v));
  }
}

// attend_f32_key_probs: the probs of key range `part` from slice 0's
// merged state.
template <class K>
ATTN_TILE_INLINE void key_probs(const AttendF32& a, const AttendMask& mask, int32_t part,
                                int32_t parts, void* slices, std::size_t slice_bytes) {
  auto* base = static_cast<unsigned char*>(slices);
  const Tile t0 = carve(base, a.dim_k, a.dim_v);
  const Tile tp = carve(base + idx(part) * slice_bytes, a.dim_k, a.dim_v);
  for (int32_t r = 0; part != 0 && r < a.seq_q; ++r) {
    tp.m[r] = t0.m[r];
    tp.l[r] = t0.l[r];
    tp.visible[r] = t0.visible[r];
  }
  int32_t begin = 0;
  int32_t end = 0;
  key_range(row_limit(a, mask, a.seq_q - 1), part, parts, &begin, &end);
  // The last range also writes the zeros of the keys past every row's limit.
  if (part == parts - 1) end = a.seq_kv;
  write_probs<K>(a, mask, tp, layout_for(a.seq_q), 0, a.seq_q, begin, end);
}

// NOLINTEND(misc-definitions-in-headers)
