// How the parallel ops cut their work into tasks (internal): the number of
// tasks under attn/parallel.h's minimum work per task, and the even ranges
// of units each task covers.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attn/parallel.h"

namespace attn {
namespace detail {

// The work of one score's softmax (its exp, sum and scaling), beside the
// dim_k + dim_v multiply-adds of its dot product and value row.
inline constexpr int64_t kSoftmaxWork = 4;

// Tasks for `units` units of about `unit_work` each (kParallelMinTaskWork's
// unit): as many as fit, at most max_tasks, none with less than
// kParallelMinTaskWork of work (1 when the whole is less than two tasks' worth).
// 32-bit divisions only: the int8 core compiles this for Cortex-M, which has
// no 64-bit division instruction (and no helper for it in the int8 objects).
inline int32_t split_count(int64_t units, int64_t unit_work, int64_t max_tasks) {
  if (units <= 1 || max_tasks <= 1) return 1;
  const auto n_units = static_cast<uint32_t>(units < INT32_MAX ? units : INT32_MAX);
  const auto min_work = static_cast<uint32_t>(kParallelMinTaskWork);
  const uint32_t w =
      unit_work >= min_work ? min_work : (unit_work < 1 ? 1u : static_cast<uint32_t>(unit_work));
  const uint32_t n = n_units / ((min_work + w - 1) / w);
  const int64_t cap = max_tasks < n ? max_tasks : n;
  return cap < 1 ? 1 : static_cast<int32_t>(cap);
}

// Units [*begin, *end) of task t of n over `units` units: even ranges, the
// first units % n of them one unit longer.
inline void split_range(int64_t units, int32_t t, int32_t n, int64_t* begin, int64_t* end) {
  const int64_t per = units / n;
  const int64_t extra = units % n;
  *begin = t * per + (t < extra ? t : extra);
  *end = *begin + per + (t < extra ? 1 : 0);
}

// Row blocks of a float GEMM (linear_f32 / gemm_nt_f32) of m rows: the SIMD
// GEMMs compute each output from the same products in the same order in any
// call of at least 4 rows (below 4 rows, one row at a time), so blocks of at
// least 4 rows (any rows when m < 4) give the single call's bits. Returns the
// number of blocks for row_work work per row and at most max_tasks blocks.
inline int32_t gemm_row_blocks(int32_t m, int64_t row_work, int64_t max_tasks) {
  constexpr int32_t kMinRows = 4;
  const int64_t max_blocks = m < kMinRows ? m : m / kMinRows;
  return split_count(m, row_work, max_tasks < max_blocks ? max_tasks : max_blocks);
}

// Runs f(item, row_begin, row_end) over the rows of `batch` items of `rows`
// rows each through `ex`: tasks of consecutive rows (one call per item they
// touch), each at least kParallelMinTaskWork at row_work per row, at most
// 4 per worker (the GEMMs behind f prefer long calls).
template <class F>
void parallel_rows(const Executor& ex, int32_t batch, int32_t rows, int64_t row_work, F& f) {
  const int64_t units = static_cast<int64_t>(batch) * rows;
  const int32_t n = split_count(units, row_work, 4 * static_cast<int64_t>(ex.workers));
  auto task = [&](int32_t t, int32_t) {
    int64_t u = 0;
    int64_t end = 0;
    split_range(units, t, n, &u, &end);
    while (u < end) {
      const auto b = static_cast<int32_t>(u / rows);
      const int64_t item_end = static_cast<int64_t>(b + 1) * rows;
      const int64_t stop = end < item_end ? end : item_end;
      f(b, static_cast<int32_t>(u - item_end + rows), static_cast<int32_t>(stop - item_end + rows));
      u = stop;
    }
  };
  parallel_for(ex, n, task);
}

// parallel_rows over N matrices of rows[m] rows each: f(m, row_begin, row_end).
template <std::size_t N, class F>
void parallel_matrix_rows(const Executor& ex, const int32_t (&rows)[N], int64_t row_work, F& f) {
  constexpr auto n = static_cast<int32_t>(N);
  int64_t units = 0;
  int64_t first[N + 1] = {};
  for (std::size_t m = 0; m < N; ++m) first[m + 1] = units += rows[m];
  const int32_t n_tasks = split_count(units, row_work, 4 * static_cast<int64_t>(ex.workers));
  auto task = [&](int32_t t, int32_t) {
    int64_t u = 0;
    int64_t end = 0;
    split_range(units, t, n_tasks, &u, &end);
    for (int32_t m = 0; m < n && u < end; ++m) {
      if (u >= first[m + 1]) continue;
      const int64_t stop = end < first[m + 1] ? end : first[m + 1];
      f(m, static_cast<int32_t>(u - first[m]), static_cast<int32_t>(stop - first[m]));
      u = stop;
    }
  };
  parallel_for(ex, n_tasks, task);
}

}  // namespace detail
}  // namespace attn
