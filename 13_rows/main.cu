// 13_rows as a program: the copy unit rows.cuh/.cu for float sums and maxima of rows, with
// a warp or a block per row. This file tells the harness (common/rows_harness.h) how to
// launch each --method, what it does at a shape and how deep its combining goes (the float
// error bound); the harness does the rest: command line, input, reference, CUB and the
// read-only floor beside it, timing, report, sweep.
#include <string>

#include "rows.cuh"
#include "rows_harness.h"

namespace {

using namespace reduction::rows_harness;

rows::Method unit_method(RowMethod method) {
  return method == RowMethod::Warp ? rows::Method::Warp : method == RowMethod::Block ? rows::Method::Block
                                                                                     : rows::Method::Auto;
}

template <typename Op>
cudaError_t launch(RowMethod method, const void* input, std::size_t rows, std::size_t cols, void* output,
                   cudaStream_t stream) {
  return rows::reduce_rows<Op>(static_cast<const float*>(input), rows, cols, static_cast<float*>(output),
                               unit_method(method), stream);
}

template <RowMethod kMethod, typename Op>
cudaError_t launch_as(const void* input, std::size_t rows, std::size_t cols, void* output, void*, std::size_t,
                      cudaStream_t stream) {
  return launch<Op>(kMethod, input, rows, cols, output, stream);
}

template <typename Op>
RowLaunch launcher_of(RowMethod method) {
  switch (method) {
    case RowMethod::Auto: return {launch_as<RowMethod::Auto, Op>};
    case RowMethod::Warp: return {launch_as<RowMethod::Warp, Op>};
    case RowMethod::Block: return {launch_as<RowMethod::Block, Op>};
    default: return {};
  }
}

RowLaunch launcher(RowMethod method, ElementType type, RowOp op) {
  if (type != ElementType::Float) return {};
  if (op == RowOp::Sum) return launcher_of<rows::Sum>(method);
  if (op == RowOp::Max) return launcher_of<rows::Max>(method);
  return {};
}

std::string refuse(RowMethod, RowOp, std::size_t, std::size_t, ElementType) { return ""; }

std::string describe(RowMethod method, std::size_t rows, std::size_t cols, ElementType) {
  const rows::Plan plan = rows::plan_rows(rows, cols, unit_method(method));
  const std::string what = lanes_plan(plan.threads_per_row, plan.method == rows::Method::Block);
  return method == RowMethod::Auto ? "chooses " + what : what;
}

std::size_t depth(RowMethod method, std::size_t rows, std::size_t cols, ElementType type) {
  const rows::Plan plan = rows::plan_rows(rows, cols, unit_method(method));
  return lanes_depth(cols, type, plan.threads_per_row, plan.method == rows::Method::Block);
}

}  // namespace

namespace reduction {

rows_harness::RowsProgram rows_program() {
  rows_harness::RowsProgram program;
  program.id = "13_rows";
  program.summary = "the sum or max of every row of a row-major M x K float matrix, a warp or a block per row";
  program.methods = {RowMethod::Auto, RowMethod::Warp, RowMethod::Block};
  program.types = {ElementType::Float};
  program.ops = {RowOp::Sum, RowOp::Max};
  program.sweep_cols = {32, 128, 1024, 8192, 65536};
  program.ops_cols = {1024, 65536};
  program.launcher = launcher;
  program.refuse = refuse;
  program.describe = describe;
  program.depth = depth;
  return program;
}

}  // namespace reduction

#ifndef REDUCTION_CHAPTER_LIBRARY  // the tests link this file without its main()
int main(int argc, char** argv) { return reduction::rows_harness::run_rows_program(reduction::rows_program(), argc, argv); }
#endif
