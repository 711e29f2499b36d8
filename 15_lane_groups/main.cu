// 15_lane_groups as a program: the copy unit lane_groups.cuh/.cu (a group of 2 to 16 lanes
// or a warp per row), and --method previous, 14's row_stats::reduce_rows (a warp or a block
// per row), for the lesson's comparison. The harness (common/rows_harness.h) does the rest.
#include <string>

#include "lane_groups.cuh"
#include "row_stats.cuh"
#include "rows_harness.h"

namespace {

using namespace reduction::rows_harness;

lane_groups::Method unit_method(RowMethod method) {
  return method == RowMethod::Group  ? lane_groups::Method::Group
         : method == RowMethod::Warp ? lane_groups::Method::Warp
                                     : lane_groups::Method::Auto;
}

template <RowMethod kMethod, typename In, typename Op, typename PreviousOp>
cudaError_t launch(const void* input, std::size_t rows, std::size_t cols, void* output, void*, std::size_t,
                   cudaStream_t stream) {
  if constexpr (kMethod == RowMethod::Previous) {
    return row_stats::reduce_rows<In, PreviousOp>(static_cast<const In*>(input), rows, cols,
                                                  static_cast<typename PreviousOp::Result*>(output),
                                                  row_stats::Method::Auto, stream);
  } else {
    return lane_groups::reduce_rows<In, Op>(static_cast<const In*>(input), rows, cols,
                                            static_cast<typename Op::Result*>(output), unit_method(kMethod), stream);
  }
}

template <typename In, typename Op, typename PreviousOp>
RowLaunch launcher_of(RowMethod method) {
  switch (method) {
    case RowMethod::Auto: return {launch<RowMethod::Auto, In, Op, PreviousOp>};
    case RowMethod::Group: return {launch<RowMethod::Group, In, Op, PreviousOp>};
    case RowMethod::Warp: return {launch<RowMethod::Warp, In, Op, PreviousOp>};
    case RowMethod::Previous: return {launch<RowMethod::Previous, In, Op, PreviousOp>};
    default: return {};
  }
}

template <typename In>
RowLaunch launcher_of_type(RowMethod method, RowOp op) {
  switch (op) {
    case RowOp::Sum: return launcher_of<In, lane_groups::Sum, row_stats::Sum>(method);
    case RowOp::Max: return launcher_of<In, lane_groups::Max, row_stats::Max>(method);
    case RowOp::ArgMax: return launcher_of<In, lane_groups::ArgMax, row_stats::ArgMax>(method);
    case RowOp::MeanVar: return launcher_of<In, lane_groups::MeanVar, row_stats::MeanVar>(method);
  }
  return {};
}

RowLaunch launcher(RowMethod method, ElementType type, RowOp op) {
  return by_element_type(type, [&](auto tag) { return launcher_of_type<typename decltype(tag)::type>(method, op); });
}

std::string refuse(RowMethod, RowOp, std::size_t, std::size_t, ElementType) { return ""; }

std::string describe(RowMethod method, std::size_t rows, std::size_t cols, ElementType type) {
  if (method == RowMethod::Previous) {
    const row_stats::Plan plan = row_stats::plan_rows(rows, cols, element_bytes(type));
    return "14_row_stats's auto: " + lanes_plan(plan.threads_per_row, plan.method == row_stats::Method::Block);
  }
  const lane_groups::Plan plan = lane_groups::plan_rows(cols, element_bytes(type), unit_method(method));
  const std::string what = lanes_plan(plan.threads_per_row, false);
  return method == RowMethod::Auto ? "chooses " + what : what;
}

std::size_t depth(RowMethod method, std::size_t rows, std::size_t cols, ElementType type) {
  if (method == RowMethod::Previous) {
    const row_stats::Plan plan = row_stats::plan_rows(rows, cols, element_bytes(type));
    return lanes_depth(cols, type, plan.threads_per_row, plan.method == row_stats::Method::Block);
  }
  return lanes_depth(cols, type, lane_groups::plan_rows(cols, element_bytes(type), unit_method(method)).threads_per_row,
                     false);
}

}  // namespace

namespace reduction {

rows_harness::RowsProgram lane_groups_program() {
  rows_harness::RowsProgram program;
  program.id = "15_lane_groups";
  program.summary = "sum, max, argmax, mean and variance of every row of a row-major M x K matrix of float, half or "
                    "bf16, a group of 2 to 16 lanes or a warp per row";
  program.methods = {RowMethod::Auto, RowMethod::Group, RowMethod::Warp, RowMethod::Previous};
  program.types = {ElementType::Float, ElementType::Half, ElementType::BFloat16};
  program.ops = {RowOp::Sum, RowOp::Max, RowOp::ArgMax, RowOp::MeanVar};
  program.sweep_cols = {8, 32, 33, 128, 256, 1000};
  program.ops_cols = {32, 128};
  program.launcher = launcher;
  program.refuse = refuse;
  program.describe = describe;
  program.depth = depth;
  return program;
}

}  // namespace reduction

#ifndef REDUCTION_CHAPTER_LIBRARY  // the tests link this file without its main()
int main(int argc, char** argv) {
  return reduction::rows_harness::run_rows_program(reduction::lane_groups_program(), argc, argv);
}
#endif
