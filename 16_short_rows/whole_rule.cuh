// 16_short_rows/whole_rule.cuh: the whole rule of the rows chapters as one typed call, for
// your own code: copy it beside the units it dispatches to (row_stats, lane_groups and
// short_rows, .cuh and .cu each, compiled alone) and call whole_rule::reduce_rows. Header
// only; it compiles from a .cpp too. 16's program runs every method through it.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "lane_groups.cuh"
#include "row_stats.cuh"
#include "short_rows.cuh"

namespace whole_rule {

// [snippet:whole_rule]
// One operator under its three units' names (each unit declares its own, so that it compiles
// alone). Their results are one type (row_results::ValueIndex and MeanVariance, which each
// unit defines alike), so one output pointer serves all three.
template <typename Short, typename Groups, typename Stats>
struct Operator {
  using InShort = Short; using InGroups = Groups; using InStats = Stats;
  using Result = typename Stats::Result;  // the same type as Short's and Groups'
};
struct Sum : Operator<short_rows::Sum, lane_groups::Sum, row_stats::Sum> {};
struct Max : Operator<short_rows::Max, lane_groups::Max, row_stats::Max> {};
struct ArgMax : Operator<short_rows::ArgMax, lane_groups::ArgMax, row_stats::ArgMax> {};
struct MeanVar : Operator<short_rows::MeanVar, lane_groups::MeanVar, row_stats::MeanVar> {};

// Which unit reduces M rows of `row_bytes` bytes each, as 16's --method auto picks: one thread
// per row up to 128 bytes (short_rows), a group of lanes up to 1 KiB and a warp up to 2 KiB,
// or 8 KiB with at least 4096 rows (lane_groups), a block per row above (row_stats).
enum class Method { Auto, Thread, Group, Warp, Block };
inline Method pick(std::size_t rows, std::size_t row_bytes) {
  const std::size_t vectors = (row_bytes + 15) / 16;
  if (vectors <= 8) return Method::Thread;
  if (vectors <= 64) return Method::Group;
  if (vectors <= 128 || (vectors <= 512 && rows >= 4096)) return Method::Warp;
  return Method::Block;
}

// One Op::Result per row of input (rows x cols elements of In, row-major, device memory) to
// output[0, rows), by the unit `method` names (Auto: the one pick() names), on `stream`.
// Returns what that unit returns (cudaErrorInvalidValue for an unknown method).
template <typename In, typename Op>
cudaError_t reduce_rows(const In* input, std::size_t rows, std::size_t cols, typename Op::Result* output,
                        Method method = Method::Auto, cudaStream_t stream = 0) {
  using Groups = typename Op::InGroups;
  switch (method == Method::Auto ? pick(rows, cols * sizeof(In)) : method) {
    case Method::Thread:
      return short_rows::reduce_rows<In, typename Op::InShort>(input, rows, cols, output, stream);
    case Method::Group:
      return lane_groups::reduce_rows<In, Groups>(input, rows, cols, output, lane_groups::Method::Group, stream);
    case Method::Warp:
      return lane_groups::reduce_rows<In, Groups>(input, rows, cols, output, lane_groups::Method::Warp, stream);
    case Method::Block:
      return row_stats::reduce_rows<In, typename Op::InStats>(input, rows, cols, output, row_stats::Method::Block,
                                                              stream);
    default:
      return cudaErrorInvalidValue;
  }
}
// [/snippet:whole_rule]

}  // namespace whole_rule
