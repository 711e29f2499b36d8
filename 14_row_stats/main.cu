// 14_row_stats as a program: the copy unit row_stats.cuh/.cu (every operator, float, half
// and bf16 input, a warp or a block per row), and --method previous, 13's rows::reduce_rows
// (float sums and maxima), for the lesson's comparison. The harness (common/rows_harness.h)
// does the rest: command line, input, reference, CUB and the floor, timing, report, sweep.
#include <string>
#include <type_traits>

#include "row_stats.cuh"
#include "rows.cuh"
#include "rows_harness.h"

namespace {

using namespace reduction::rows_harness;

row_stats::Method unit_method(RowMethod method) {
  return method == RowMethod::Warp    ? row_stats::Method::Warp
         : method == RowMethod::Block ? row_stats::Method::Block
                                      : row_stats::Method::Auto;
}

template <RowMethod kMethod, typename In, typename Op>
cudaError_t launch(const void* input, std::size_t rows, std::size_t cols, void* output, void*, std::size_t,
                   cudaStream_t stream) {
  return row_stats::reduce_rows<In, Op>(static_cast<const In*>(input), rows, cols,
                                        static_cast<typename Op::Result*>(output), unit_method(kMethod), stream);
}

template <typename Op>  // 13's unit: float input, Sum and Max
cudaError_t launch_previous(const void* input, std::size_t rows, std::size_t cols, void* output, void*, std::size_t,
                            cudaStream_t stream) {
  return rows::reduce_rows<Op>(static_cast<const float*>(input), rows, cols, static_cast<float*>(output),
                               rows::Method::Auto, stream);
}

template <typename In, typename Op, typename PreviousOp>
RowLaunch launcher_of(RowMethod method) {
  switch (method) {
    case RowMethod::Auto: return {launch<RowMethod::Auto, In, Op>};
    case RowMethod::Warp: return {launch<RowMethod::Warp, In, Op>};
    case RowMethod::Block: return {launch<RowMethod::Block, In, Op>};
    case RowMethod::Previous:
      if constexpr (std::is_same_v<In, float> && !std::is_void_v<PreviousOp>) return {launch_previous<PreviousOp>};
      return {};
    default: return {};
  }
}

template <typename In>
RowLaunch launcher_of_type(RowMethod method, RowOp op) {
  switch (op) {
    case RowOp::Sum: return launcher_of<In, row_stats::Sum, rows::Sum>(method);
    case RowOp::Max: return launcher_of<In, row_stats::Max, rows::Max>(method);
    case RowOp::ArgMax: return launcher_of<In, row_stats::ArgMax, void>(method);
    case RowOp::MeanVar: return launcher_of<In, row_stats::MeanVar, void>(method);
  }
  return {};
}

RowLaunch launcher(RowMethod method, ElementType type, RowOp op) {
  return by_element_type(type, [&](auto tag) { return launcher_of_type<typename decltype(tag)::type>(method, op); });
}

std::string refuse(RowMethod, RowOp, std::size_t, std::size_t, ElementType) { return ""; }

// Previous is 13's rows::plan_rows, the same rule and kernels for float rows.
std::string describe(RowMethod method, std::size_t rows, std::size_t cols, ElementType type) {
  const row_stats::Plan plan = row_stats::plan_rows(rows, cols, element_bytes(type), unit_method(method));
  const std::string what = lanes_plan(plan.threads_per_row, plan.method == row_stats::Method::Block);
  if (method == RowMethod::Previous) return "13_rows's auto: " + what;
  return method == RowMethod::Auto ? "chooses " + what : what;
}

std::size_t depth(RowMethod method, std::size_t rows, std::size_t cols, ElementType type) {
  const row_stats::Plan plan = row_stats::plan_rows(rows, cols, element_bytes(type), unit_method(method));
  return lanes_depth(cols, type, plan.threads_per_row, plan.method == row_stats::Method::Block);
}

}  // namespace

namespace reduction {

rows_harness::RowsProgram row_stats_program() {
  rows_harness::RowsProgram program;
  program.id = "14_row_stats";
  program.summary = "sum, max, argmax, mean and variance of every row of a row-major M x K matrix of float, half or "
                    "bf16, a warp or a block per row";
  program.methods = {RowMethod::Auto, RowMethod::Warp, RowMethod::Block, RowMethod::Previous};
  program.types = {ElementType::Float, ElementType::Half, ElementType::BFloat16};
  program.ops = {RowOp::Sum, RowOp::Max, RowOp::ArgMax, RowOp::MeanVar};
  program.sweep_cols = {1024, 8192, 65536};
  program.ops_cols = {1024, 8192, 65536};
  program.launcher = launcher;
  program.refuse = refuse;
  program.describe = describe;
  program.depth = depth;
  return program;
}

}  // namespace reduction

#ifndef REDUCTION_CHAPTER_LIBRARY  // the tests link this file without its main()
int main(int argc, char** argv) {
  return reduction::rows_harness::run_rows_program(reduction::row_stats_program(), argc, argv);
}
#endif
