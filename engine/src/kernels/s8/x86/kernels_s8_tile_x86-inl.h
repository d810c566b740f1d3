// The query-tile kernels qk_tile_s8 / pv_tile_s8 (see kernels/s8/kernels_s8.h)
// for one x86 vector level, written once over a small set of vector ops.
// Included by kernels_s8_x86.cpp inside namespace ATTN_TILE_NS, which first
// defines (each with the level's target attribute ATTN_TILE_T):
//   V, kLanes (16 int32 lanes for 512-bit vectors, 8 for 256-bit),
//   kQkRows / kQkRows4 / kPvRows (query rows per register block: Q K^T
//   with 2 key vectors, Q K^T with 4 key vectors (512-bit only), P V),
//   zero(), load(p), set1(x),
//   dp(acc, u, s) (vpdpbusd: acc + sum of 4 unsigned u bytes x signed s
//   bytes per lane), sub(a, b), mul(a, b) (low 32 bits), store(p, v).
// No include guard: included once per level.
//
// Packed layouts: a 16-key (K) or 16-column (V) block is 64 bytes, 4 bytes per
// lane; a 256-bit vector takes it in two halves (kLanes * 4 bytes each).

// The 4 bytes at p in every int32 lane.
ATTN_TILE_T inline V bcast4(const void* p) {
  int32_t x = 0;
  std::memcpy(&x, p, 4);
  return set1(x);
}

// The register block both GEMMs run: acc[q][v] from emit.init(row0 + q),
// then over the 4-byte groups g, acc[q][v] = vpdpbusd(acc[q][v], the 4
// bytes of row q of A at a + q astride + 4 g in every lane, vector v of
// group g of B at b + g gstride + v vstride). Always inlined: acc stays in
// registers in its caller.
template <int NQ, int NV, class E>
__attribute__((always_inline)) ATTN_TILE_T inline void dp_block(
    const uint8_t* a, std::size_t astride, const int8_t* b, std::size_t gstride,
    std::size_t vstride, int32_t groups, const E& emit, int32_t row0, V (&acc)[NQ][NV]) {
  for (int q = 0; q < NQ; ++q) {
    const V a0 = emit.init(row0 + q);
    for (int v = 0; v < NV; ++v) acc[q][v] = a0;
  }
  for (int32_t g = 0; g < groups; ++g) {
    V bv[NV];
    const int8_t* bg = b + static_cast<std::size_t>(g) * gstride;
    for (int v = 0; v < NV; ++v) bv[v] = load(bg + v * vstride);
    for (int q = 0; q < NQ; ++q) {
      const V aq =
          bcast4(a + static_cast<std::size_t>(q) * astride + 4 * static_cast<std::size_t>(g));
      for (int v = 0; v < NV; ++v) acc[q][v] = dp(acc[q][v], aq, bv[v]);
    }
  }
}

// Q K^T of NQ query rows x NV key vectors: dp_block over the packed query
// rows u and the key vectors (kp: the first vector's group 0; vector v of
// group g at kp + g * 64 + v * kstep), then the (128 + zp) * ksum
// correction; the NQ x NV result vectors go to emit.block<NQ, NV>(row0,
// kv0, results) (E: StoreI32 below, or a level's fused requantization).
// emit.init: zero, or minus a row constant the emitter wants subtracted.
// int32 wrap-around: the order of the sums does not change the final value.
template <int NQ, int NV, class E>
ATTN_TILE_T inline void qk_block(const uint8_t* u, std::size_t urow, const int8_t* kp,
                                 std::size_t kstep, int32_t groups, V corr_mul, const int32_t* ksum,
                                 const E& emit, int32_t row0, int32_t kv0) {
  V acc[NQ][NV];
  dp_block<NQ, NV>(u, urow, kp, 64, kstep, groups, emit, row0, acc);
  for (int v = 0; v < NV; ++v) {
    const V corr = mul(corr_mul, load(ksum + v * kLanes));
    for (int q = 0; q < NQ; ++q) acc[q][v] = sub(acc[q][v], corr);
  }
  emit.template block<NQ, NV>(row0, kv0, acc);
}

template <int NV, int RB, class E>
ATTN_TILE_T inline void qk_rows(int32_t nq, const uint8_t* u, std::size_t urow, const int8_t* kp,
                                std::size_t kstep, int32_t groups, V corr_mul, const int32_t* ksum,
                                const E& emit, int32_t kv0) {
  int32_t i = 0;
  for (; i + RB <= nq; i += RB) {
    qk_block<RB, NV>(u + static_cast<std::size_t>(i) * urow, urow, kp, kstep, groups, corr_mul,
                     ksum, emit, i, kv0);
  }
  const uint8_t* ut = u + static_cast<std::size_t>(i) * urow;
  switch (nq - i) {
#define ATTN_TILE_QK_CASE(R)                                                        \
  case (R):                                                                         \
    if constexpr ((R) < RB) {                                                       \
      qk_block<(R), NV>(ut, urow, kp, kstep, groups, corr_mul, ksum, emit, i, kv0); \
    }                                                                               \
    break;
    ATTN_TILE_QK_CASE(1)
    ATTN_TILE_QK_CASE(2)
    ATTN_TILE_QK_CASE(3)
    ATTN_TILE_QK_CASE(4)
    ATTN_TILE_QK_CASE(5)
    ATTN_TILE_QK_CASE(6)
    ATTN_TILE_QK_CASE(7)
#undef ATTN_TILE_QK_CASE
    default: break;
  }
}

template <class E>
ATTN_TILE_T void qk_tile_emit(const uint8_t* u, int32_t nq, int32_t zp, const int8_t* kpacked,
                              const int32_t* ksum, int32_t nkeys, int32_t n, const E& emit) {
  const int32_t groups = (n + 3) / 4;
  const std::size_t urow = 4 * static_cast<std::size_t>(groups);
  const V corr_mul = set1(128 + zp);
  // Key vector kv (kLanes keys) starts at block kv * kLanes / 16, lane offset
  // (kv * kLanes % 16) * 4 bytes; for 512-bit vectors that is one block each.
  const int32_t nvec = (nkeys + kLanes - 1) / kLanes;
  const auto vec_at = [&](int32_t kv) {
    const int32_t b = kv * kLanes / 16;
    const int32_t off = (kv * kLanes % 16) * 4;
    return kpacked + static_cast<std::size_t>(b) * urow * 16 + static_cast<std::size_t>(off);
  };
  int32_t kv = 0;
  if constexpr (kLanes == 8) {
    // Two halves of one block: the second vector is 32 bytes on.
    for (; kv + 2 <= nvec; kv += 2) {
      qk_rows<2, kQkRows>(nq, u, urow, vec_at(kv), 32, groups, corr_mul, ksum + kv * kLanes, emit,
                          kv);
    }
  } else {
    // kQkRows4 rows x 4 key vectors while 4 remain (4 key loads and
    // kQkRows4 query broadcasts per 16 vpdpbusd; few row pointers), then
    // kQkRows rows x 2.
    for (; kv + 4 <= nvec; kv += 4) {
      qk_rows<4, kQkRows4>(nq, u, urow, vec_at(kv), urow * 16, groups, corr_mul, ksum + kv * kLanes,
                           emit, kv);
    }
    for (; kv + 2 <= nvec; kv += 2) {
      qk_rows<2, kQkRows>(nq, u, urow, vec_at(kv), urow * 16, groups, corr_mul, ksum + kv * kLanes,
                          emit, kv);
    }
  }
  if (kv < nvec) {
    qk_rows<1, kQkRows>(nq, u, urow, vec_at(kv), 0, groups, corr_mul, ksum + kv * kLanes, emit, kv);
  }
}

// The int32 results (qk_tile_s8, pv_tile_s8). block: the NQ x NV results
// of qk_block, rows row0.., vectors kv0...
struct StoreI32 {
  int32_t* out;
  std::size_t stride;
  ATTN_TILE_T V init(int32_t /*r*/) const { return zero(); }
  ATTN_TILE_T void operator()(int32_t r, int32_t kv, V v) const {
    store(out + static_cast<std::size_t>(r) * stride + static_cast<std::size_t>(kv * kLanes), v);
  }
  template <int NQ, int NV>
  ATTN_TILE_T void block(int32_t row0, int32_t kv0, const V (&res)[NQ][NV]) const {
    for (int q = 0; q < NQ; ++q) {
      for (int v = 0; v < NV; ++v) (*this)(row0 + q, kv0 + v, res[q][v]);
    }
  }
};

ATTN_TILE_T inline void qk_tile(const uint8_t* u, int32_t nq, int32_t zp, const int8_t* kpacked,
                                const int32_t* ksum, int32_t nkeys, int32_t n, int32_t* out,
                                std::size_t out_stride) {
  qk_tile_emit(u, nq, zp, kpacked, ksum, nkeys, n, StoreI32{out, out_stride});
}

// P V of NQ weight rows x NC column vectors: dp_block over the weight
// rows w and the packed V's column vectors (group g's at vp + g gstep, each
// kLanes * 4 bytes), each result vector to emit(row0 + q, cv0 + c, value).
template <int NQ, int NC, class E>
ATTN_TILE_T inline void pv_block(const uint8_t* w, std::size_t w_stride, const int8_t* vp,
                                 std::size_t gstep, int32_t groups, const E& emit, int32_t row0,
                                 int32_t cv0) {
  V a[NQ][NC];
  dp_block<NQ, NC>(w, w_stride, vp, gstep, kLanes * 4, groups, emit, row0, a);
  for (int q = 0; q < NQ; ++q) {
    for (int c = 0; c < NC; ++c) emit(row0 + q, cv0 + c, a[q][c]);
  }
}

template <int NC, class E>
ATTN_TILE_T inline void pv_rows(int32_t nq, const uint8_t* w, std::size_t w_stride,
                                const int8_t* vp, std::size_t gstep, int32_t groups, const E& emit,
                                int32_t cv0) {
  int32_t i = 0;
  for (; i + kPvRows <= nq; i += kPvRows) {
    pv_block<kPvRows, NC>(w + static_cast<std::size_t>(i) * w_stride, w_stride, vp, gstep, groups,
                          emit, i, cv0);
  }
  for (; i < nq; ++i) {
    pv_block<1, NC>(w + static_cast<std::size_t>(i) * w_stride, w_stride, vp, gstep, groups, emit,
                    i, cv0);
  }
}

template <class E>
ATTN_TILE_T inline void pv_tile_emit(const uint8_t* w, std::size_t w_stride, int32_t nq,
                                     const int8_t* vpacked, int32_t nrows, int32_t n,
                                     const E& emit) {
  const int32_t groups = (nrows + 3) / 4;
  const int32_t cblocks = (n + 15) / 16;
  const std::size_t gstep = static_cast<std::size_t>(cblocks) * 64;
  // Column vectors are consecutive (kLanes * 4 bytes each) within a group.
  const int32_t nvec = cblocks * 16 / kLanes;
  int32_t cv = 0;
  for (; cv + 4 <= nvec; cv += 4) {
    pv_rows<4>(nq, w, w_stride, vpacked + cv * kLanes * 4, gstep, groups, emit, cv);
  }
  switch (nvec - cv) {
    case 3: pv_rows<3>(nq, w, w_stride, vpacked + cv * kLanes * 4, gstep, groups, emit, cv); break;
    case 2: pv_rows<2>(nq, w, w_stride, vpacked + cv * kLanes * 4, gstep, groups, emit, cv); break;
    case 1: pv_rows<1>(nq, w, w_stride, vpacked + cv * kLanes * 4, gstep, groups, emit, cv); break;
    default: break;
  }
}

ATTN_TILE_T inline void pv_tile(const uint8_t* w, std::size_t w_stride, int32_t nq,
                                const int8_t* vpacked, int32_t nrows, int32_t n, int32_t* acc,
                                std::size_t acc_stride) {
  pv_tile_emit(w, w_stride, nq, vpacked, nrows, n, StoreI32{acc, acc_stride});
}
