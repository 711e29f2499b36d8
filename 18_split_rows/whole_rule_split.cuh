// 18_split_rows/whole_rule_split.cuh: the whole rule of the rows chapters 14-18 as one typed
// call, for your own code: 16's whole_rule.cuh, with the rows it gives a block per row sent to
// split_rows instead. Copy it beside 16's whole_rule.cuh and the four units it dispatches to
// (row_stats, lane_groups, short_rows and split_rows, .cuh and .cu each, compiled alone).
// Header only; it compiles from a .cpp too.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "split_rows.cuh"
#include "whole_rule.cuh"

namespace whole_rule_split {

// [snippet:rule]
// 16's operators (whole_rule::Sum, ...) with split_rows's name for each too.
template <typename Rule, typename Split>
struct Operator : Rule { using InSplit = Split; };
struct Sum : Operator<whole_rule::Sum, split_rows::Sum> {};
struct Max : Operator<whole_rule::Max, split_rows::Max> {};
struct ArgMax : Operator<whole_rule::ArgMax, split_rows::ArgMax> {};
struct MeanVar : Operator<whole_rule::MeanVar, split_rows::MeanVar> {};

// 16's rule, except that the rows it gives a block each go to split_rows.
inline bool splits(std::size_t rows, std::size_t row_bytes) {
  return whole_rule::pick(rows, row_bytes) == whole_rule::Method::Block;
}

// The scratch reduce_rows needs at this shape, in *bytes: 0 where 16's rule takes the rows, or
// where the plan gives a row one block. Allocate it and zero it once (cudaMemset).
template <typename In, typename Op>
cudaError_t scratch_bytes(std::size_t rows, std::size_t cols, std::size_t* bytes) {
  *bytes = 0;
  if (!splits(rows, cols * sizeof(In))) return cudaSuccess;
  split_rows::Plan plan{};
  const cudaError_t status = split_rows::default_plan<In, typename Op::InSplit>(rows, cols, &plan);
  if (status == cudaSuccess) *bytes = split_rows::scratch_bytes(rows, plan);
  return status;
}

// One Op::Result per row to output[0, rows) on `stream`; `scratch` (scratch_bytes of device
// memory, from scratch_bytes above) may be null where that gave 0. Returns what the unit
// returns (cudaErrorInvalidValue for scratch too small for this shape's plan).
template <typename In, typename Op>
cudaError_t reduce_rows(const In* input, std::size_t rows, std::size_t cols, typename Op::Result* output,
                        void* scratch, std::size_t scratch_bytes, cudaStream_t stream = 0) {
  if (!splits(rows, cols * sizeof(In))) {
    return whole_rule::reduce_rows<In, Op>(input, rows, cols, output, whole_rule::Method::Auto, stream);
  }
  split_rows::Plan plan{};
  const cudaError_t status = split_rows::default_plan<In, typename Op::InSplit>(rows, cols, &plan);
  if (status != cudaSuccess) return status;
  return split_rows::reduce_rows<In, typename Op::InSplit>(input, rows, cols, output, scratch, scratch_bytes, plan,
                                                           stream);
}
// [/snippet:rule]

}  // namespace whole_rule_split
