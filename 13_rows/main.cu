// 13_rows as a program. The kernels are the copy unit (rows.cuh/.cu), the CUB
// yardsticks are cub_rows.cuh/.cu; this file tells the harness (common/rows_harness.h)
// how to launch each --method for each element type and operator, what each does at a
// given shape, how deep its combining goes (the float error bounds), and which shapes
// the CUB calls cannot take. The harness does the rest: command line, input, reference,
// timing, report, sweep.
#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>

#include "cub_rows.cuh"
#include "read_floor.h"
#include "rows.cuh"
#include "rows_harness.h"

namespace {

using namespace reduction::rows_harness;

constexpr std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

std::size_t ceil_log2(std::size_t x) {
  std::size_t k = 0;
  while ((std::size_t(1) << k) < x) ++k;
  return k;
}

rows::Method copy_unit_method(RowMethod method) {
  switch (method) {
    case RowMethod::Thread: return rows::Method::Thread;
    case RowMethod::Group: return rows::Method::Group;
    case RowMethod::Warp: return rows::Method::Warp;
    case RowMethod::Block: return rows::Method::Block;
    default: return rows::Method::Auto;
  }
}

// ---------------------------------------------------------------- the launchers

template <rows::Method kMethod, typename In, typename Op>
cudaError_t copy_unit(const void* input, std::size_t rows, std::size_t cols, void* output, void* /*temp*/,
                      std::size_t /*temp_bytes*/, cudaStream_t stream) {
  return rows::reduce_rows<In, Op>(static_cast<const In*>(input), rows, cols,
                                   static_cast<typename Op::Result*>(output), kMethod, stream);
}

template <typename In, typename Op>
cudaError_t segmented(const void* input, std::size_t rows, std::size_t cols, void* output, void* temp,
                      std::size_t temp_bytes, cudaStream_t stream) {
  return cub_rows::segmented_reduce<In, Op>(static_cast<const In*>(input), rows, cols,
                                            static_cast<typename Op::Result*>(output), temp, temp_bytes, stream);
}

template <typename In, typename Op>
cudaError_t collective(const void* input, std::size_t rows, std::size_t cols, void* output, void* /*temp*/,
                       std::size_t /*temp_bytes*/, cudaStream_t stream) {
  return cub_rows::collective_reduce<In, Op>(static_cast<const In*>(input), rows, cols,
                                             static_cast<typename Op::Result*>(output), stream);
}

template <typename In, typename Op>
RowLaunch launcher_of(RowMethod method) {
  RowLaunch launch;
  switch (method) {
    case RowMethod::Auto: launch.launch = copy_unit<rows::Method::Auto, In, Op>; break;
    case RowMethod::Thread: launch.launch = copy_unit<rows::Method::Thread, In, Op>; break;
    case RowMethod::Group: launch.launch = copy_unit<rows::Method::Group, In, Op>; break;
    case RowMethod::Warp: launch.launch = copy_unit<rows::Method::Warp, In, Op>; break;
    case RowMethod::Block: launch.launch = copy_unit<rows::Method::Block, In, Op>; break;
    case RowMethod::CubSegmented:
      if constexpr (cub_rows::kSegmentedOffers<Op>) {
        launch.launch = segmented<In, Op>;
        launch.temp_bytes_for = cub_rows::segmented_temp_bytes<In, Op>;
      }
      break;
    case RowMethod::CubBlock: launch.launch = collective<In, Op>; break;
  }
  return launch;
}

template <typename In>
RowLaunch launcher_of_type(RowMethod method, RowOp op) {
  switch (op) {
    case RowOp::Sum: return launcher_of<In, rows::Sum>(method);
    case RowOp::Max: return launcher_of<In, rows::Max>(method);
    case RowOp::ArgMax: return launcher_of<In, rows::ArgMax>(method);
    case RowOp::MeanVar: return launcher_of<In, rows::MeanVar>(method);
  }
  return {};
}

RowLaunch launcher(RowMethod method, ElementType type, RowOp op) {
  switch (type) {
    case ElementType::Float: return launcher_of_type<float>(method, op);
    case ElementType::Half: return launcher_of_type<__half>(method, op);
    case ElementType::BFloat16: return launcher_of_type<__nv_bfloat16>(method, op);
  }
  return {};
}

// ---------------------------------------------------------------- what only this chapter knows

std::string refuse(RowMethod method, RowOp op, std::size_t rows, std::size_t cols, ElementType /*type*/) {
  if ((op == RowOp::ArgMax || op == RowOp::MeanVar) && cols > std::size_t(INT_MAX)) {
    return std::string("--op ") + (op == RowOp::ArgMax ? "argmax" : "meanvar") +
           " takes rows of at most 2^31 - 1 columns (its column or count is a 32-bit int)";
  }
  if (method != RowMethod::CubSegmented) return "";
  if (cols == 0) {
    return "--method cub_segmented needs --cols of at least 1 (CUB's ArgMax gives {1, lowest} for an empty row; "
           "the copy unit's methods take K = 0)";
  }
  if (op == RowOp::ArgMax && rows > std::size_t(INT_MAX) / cols) {
    return "--method cub_segmented --op argmax takes fewer than 2^31 elements (CUB's ArgMax uses int offsets)";
  }
  return "";
}

std::string describe(RowMethod method, std::size_t rows, std::size_t cols, ElementType type) {
  const std::size_t bytes = element_bytes(type);
  if (method == RowMethod::CubSegmented) return "cub::DeviceSegmentedReduce, one segment per row";
  if (method == RowMethod::CubBlock) {
    const int threads = cub_rows::collective_threads_per_row(rows, cols, bytes);
    if (threads == 1) return "one thread per row, one element at a time (no collective needed)";
    if (threads == 32) return "cub::WarpReduce, a warp per row, one element per load";
    if (threads < 32) {
      return "cub::WarpReduce, a logical warp of " + std::to_string(threads) + " lanes per row, one element per load";
    }
    return "cub::BlockReduce, a block of " + std::to_string(threads) + " threads per row, one element per load";
  }
  const rows::Plan plan = rows::plan_rows(rows, cols, bytes, copy_unit_method(method));
  std::string what;
  switch (plan.method) {
    case rows::Method::Thread:
      what = plan.staged ? "one thread per row, " + std::to_string(plan.rows_per_thread) +
                               (plan.rows_per_thread == 1 ? " row" : " rows") +
                               " per thread, staged in shared memory (rows of at most 128 bytes)"
                         : std::string("one thread per row");
      break;
    case rows::Method::Group: what = "a group of " + std::to_string(plan.threads_per_row) + " lanes per row"; break;
    case rows::Method::Warp: what = "one warp (32 lanes) per row"; break;
    case rows::Method::Block: what = "one block of " + std::to_string(plan.threads_per_row) + " threads per row"; break;
    case rows::Method::Auto: break;
  }
  return method == RowMethod::Auto ? "chooses " + what : what;
}

// [snippet:depth]
// The most combining steps (additions, merges) an element takes on its way to its row's
// result, following the code (rows.cu's lane_reduce_row and the kernels; cub_rows.cu):
//   copy unit: inside its vector (log2 of 4 or 8), the pairs of a trip (2), one step per
//     trip into the lane's partial (full trips and the last one), the head and tail
//     elements (at most 2 * ceil((V - 1) / lanes)), then the lanes' shuffle tree
//     (log2 lanes) or, for a block, two shuffle trees of 32 (10);
//     rows of at most 128 bytes (staged in shared memory): inside each vector's worth of
//     the row (log2 of 4 or 8), then one step per later vector's worth or element (K);
//   cub_block: each thread's loop over its elements, then WarpReduce's shuffle tree, or
//     BlockReduce: a shuffle tree in each of the 8 warps, then the warps' totals in turn;
//   cub_segmented: CUB's order is its own, so the bound every order meets: K.
std::size_t depth(RowMethod method, std::size_t rows, std::size_t cols, ElementType type) {
  const std::size_t bytes = element_bytes(type), per_vector = 16 / bytes;
  if (method == RowMethod::CubSegmented) return std::max<std::size_t>(cols, 1);
  if (method == RowMethod::CubBlock) {
    const std::size_t threads = cub_rows::collective_threads_per_row(rows, cols, bytes);
    if (threads > 32) return ceil_div(cols, threads) + 5 + threads / 32;
    return ceil_div(cols, threads) + ceil_log2(threads);
  }
  const rows::Plan plan = rows::plan_rows(rows, cols, bytes, copy_unit_method(method));
  if (plan.staged) return ceil_log2(per_vector) + std::max<std::size_t>(cols, 1);
  const std::size_t lanes = std::size_t(plan.threads_per_row);
  const std::size_t trips = ceil_div(ceil_div(ceil_div(cols, per_vector), lanes), 4) + 1;
  const std::size_t scalars = 2 * ceil_div(per_vector - 1, std::min<std::size_t>(lanes, 32));
  const std::size_t across = plan.method == rows::Method::Block ? 10 : ceil_log2(lanes);
  return ceil_log2(per_vector) + 2 + trips + scalars + across;
}
// [/snippet:depth]

// The tour's read-only floor (tour/read_floor.cu) at its default block and grid, over
// the input's bytes read as floats: a half or bf16 input of odd length leaves its last
// 2 bytes unread. The grid is asked once per size (the harness times many runs of one).
cudaError_t floor_launch(const void* data, std::size_t bytes, void* scratch, cudaStream_t stream) {
  static const reduction::Variant floor = reduction::read_floor_variant();
  static std::size_t grid_for_floats = SIZE_MAX;
  static int grid = 0;
  const std::size_t floats = bytes / sizeof(float);
  if (floats != grid_for_floats) {
    const cudaError_t status = floor.default_grid(floats, floor.default_block, &grid);
    if (status != cudaSuccess) return status;
    grid_for_floats = floats;
  }
  float* input = static_cast<float*>(const_cast<void*>(data));  // only read
  return floor.launcher<float>(reduction::Op::Sum)(input, floats, nullptr, scratch, floor.default_block, grid, stream);
}

}  // namespace

namespace reduction {

rows_harness::RowsProgram rows_program() {
  rows_harness::RowsProgram program;
  program.id = "13_rows";
  program.summary = "one result per row of a row-major M x K matrix (sum, max, argmax, mean and variance), "
                    "from float, half or bf16, by a thread, a group of lanes, a warp or a block per row";
  program.launcher = launcher;
  program.refuse = refuse;
  program.describe = describe;
  program.depth = depth;
  program.floor = floor_launch;
  program.floor_scratch_bytes = sizeof(unsigned);
  return program;
}

}  // namespace reduction

#ifndef REDUCTION_CHAPTER_LIBRARY  // the tests link this file without its main()
int main(int argc, char** argv) {
  return reduction::rows_harness::run_rows_program(reduction::rows_program(), argc, argv);
}
#endif
