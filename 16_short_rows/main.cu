// 16_short_rows as a program: the copy unit short_rows.cuh/.cu (one thread per row through
// shared memory, rows of at most 128 bytes) and, for longer rows, 15's groups and warps
// and 14's blocks, all through whole_rule below (one typed call, the whole rule of the rows
// chapters for --method auto, which the README prints for your own code), so that the
// sweep measures where each method wins. The harness (common/rows_harness.h) does the
// rest: command line, input, reference, CUB and the floor, timing, report, sweep. 18_split_rows runs this program's auto as its --method previous.
#include <algorithm>
#include <string>

#include "lane_groups.cuh"
#include "row_stats.cuh"
#include "rows_harness.h"
#include "short_rows.cuh"

// The whole rule of 14-16 as one typed call: README "The whole rule" prints it for a student's
// own code, beside the three units (tests/copy_test.py builds it so, alone with them).
// [snippet:whole_rule]
namespace whole_rule {

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

}  // namespace whole_rule
// [/snippet:whole_rule]

namespace {

using namespace reduction::rows_harness;

// The harness's method as whole_rule's (Auto, Thread, Group, Warp, Block), and back.
whole_rule::Method rule_method(RowMethod method) {
  switch (method) {
    case RowMethod::Thread: return whole_rule::Method::Thread;
    case RowMethod::Group: return whole_rule::Method::Group;
    case RowMethod::Warp: return whole_rule::Method::Warp;
    case RowMethod::Block: return whole_rule::Method::Block;
    default: return whole_rule::Method::Auto;
  }
}

RowMethod resolve(RowMethod method, std::size_t rows, std::size_t cols, ElementType type) {
  if (method != RowMethod::Auto) return method;
  switch (whole_rule::pick(rows, cols * element_bytes(type))) {
    case whole_rule::Method::Thread: return RowMethod::Thread;
    case whole_rule::Method::Group: return RowMethod::Group;
    case whole_rule::Method::Warp: return RowMethod::Warp;
    default: return RowMethod::Block;
  }
}

// The harness hands every method the same untyped buffers; from here on one typed call
// (Op: whole_rule::Sum, ...), whichever unit runs.
template <RowMethod kMethod, typename In, typename Op>
cudaError_t launch_as(const void* input, std::size_t rows, std::size_t cols, void* output, void*, std::size_t,
                      cudaStream_t stream) {
  return whole_rule::reduce_rows<In, Op>(static_cast<const In*>(input), rows, cols,
                                         static_cast<typename Op::Result*>(output), rule_method(kMethod), stream);
}

template <typename In, typename Op>
RowLaunch launcher_of(RowMethod method) {
  switch (method) {
    case RowMethod::Auto: return {launch_as<RowMethod::Auto, In, Op>};
    case RowMethod::Thread: return {launch_as<RowMethod::Thread, In, Op>};
    case RowMethod::Group: return {launch_as<RowMethod::Group, In, Op>};
    case RowMethod::Warp: return {launch_as<RowMethod::Warp, In, Op>};
    case RowMethod::Block: return {launch_as<RowMethod::Block, In, Op>};
    default: return {};
  }
}

template <typename In>
RowLaunch launcher_of_type(RowMethod method, RowOp op) {
  switch (op) {
    case RowOp::Sum: return launcher_of<In, whole_rule::Sum>(method);
    case RowOp::Max: return launcher_of<In, whole_rule::Max>(method);
    case RowOp::ArgMax: return launcher_of<In, whole_rule::ArgMax>(method);
    case RowOp::MeanVar: return launcher_of<In, whole_rule::MeanVar>(method);
  }
  return {};
}

RowLaunch launcher(RowMethod method, ElementType type, RowOp op) {
  return by_element_type(type, [&](auto tag) { return launcher_of_type<typename decltype(tag)::type>(method, op); });
}

std::string refuse(RowMethod method, RowOp, std::size_t, std::size_t cols, ElementType type) {
  if (method == RowMethod::Thread && cols * element_bytes(type) > short_rows::kMaxRowBytes) {
    return "--method thread takes rows of at most 128 bytes (32 floats, 64 halves); longer rows: --method group, "
           "warp or block, or auto";
  }
  return "";
}

std::string describe(RowMethod method, std::size_t rows, std::size_t cols, ElementType type) {
  const std::size_t bytes = element_bytes(type);
  std::string what;
  switch (resolve(method, rows, cols, type)) {
    case RowMethod::Thread: {
      const int per_thread = short_rows::plan_rows(cols, bytes).rows_per_thread;
      what = "one thread per row, " + std::to_string(per_thread) + (per_thread == 1 ? " row" : " rows") +
             " per thread, staged in shared memory (rows of at most 128 bytes)";
      break;
    }
    case RowMethod::Block:
      what = lanes_plan(row_stats::plan_rows(rows, cols, bytes, row_stats::Method::Block).threads_per_row, true);
      break;
    default: {
      const bool group = resolve(method, rows, cols, type) == RowMethod::Group;
      what = lanes_plan(lane_groups::plan_rows(cols, bytes, group ? lane_groups::Method::Group : lane_groups::Method::Warp)
                            .threads_per_row,
                        false);
    }
  }
  return method == RowMethod::Auto ? "chooses " + what : what;
}

// The staged kernel: inside each vector's worth of the row (log2 of 4 or 8), then one step
// per later vector's worth or element (at most K); the others: lanes_depth.
std::size_t depth(RowMethod method, std::size_t rows, std::size_t cols, ElementType type) {
  const std::size_t bytes = element_bytes(type);
  switch (resolve(method, rows, cols, type)) {
    case RowMethod::Thread: return (bytes == 2 ? 3 : 2) + std::max<std::size_t>(cols, 1);
    case RowMethod::Block:
      return lanes_depth(cols, type, row_stats::plan_rows(rows, cols, bytes, row_stats::Method::Block).threads_per_row,
                         true);
    default: {
      const bool group = resolve(method, rows, cols, type) == RowMethod::Group;
      return lanes_depth(
          cols, type,
          lane_groups::plan_rows(cols, bytes, group ? lane_groups::Method::Group : lane_groups::Method::Warp)
              .threads_per_row,
          false);
    }
  }
}

}  // namespace

namespace reduction {

// Whether 16's whole rule gives rows of row_bytes a block each (18 splits those rows).
bool whole_rule_gives_a_block(std::size_t rows, std::size_t row_bytes) {
  return whole_rule::pick(rows, row_bytes) == whole_rule::Method::Block;
}

rows_harness::RowsProgram short_rows_program() {
  rows_harness::RowsProgram program;
  program.id = "16_short_rows";
  program.summary = "sum, max, argmax, mean and variance of every row of a row-major M x K matrix of float, half or "
                    "bf16: one thread per row for rows of up to 128 bytes, and the whole rule of 14-16";
  program.methods = {RowMethod::Thread, RowMethod::Group, RowMethod::Warp, RowMethod::Block, RowMethod::Auto};
  program.types = {ElementType::Float, ElementType::Half, ElementType::BFloat16};
  program.ops = {RowOp::Sum, RowOp::Max, RowOp::ArgMax, RowOp::MeanVar};
  program.sweep_cols = {1, 3, 8, 32, 33, 128, 1000, 1024, 8192, 65536};
  program.ops_cols = {8, 32, 128, 1024, 8192, 65536};
  program.launcher = launcher;
  program.refuse = refuse;
  program.describe = describe;
  program.depth = depth;
  return program;
}

}  // namespace reduction

#ifndef REDUCTION_CHAPTER_LIBRARY  // the tests link this file without its main()
int main(int argc, char** argv) {
  return reduction::rows_harness::run_rows_program(reduction::short_rows_program(), argc, argv);
}
#endif
