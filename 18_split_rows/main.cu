// 18_split_rows as a program: the copy unit split_rows.cuh/.cu (a long row over several
// blocks) wherever 16's whole rule gives a row a block, and 16's program (linked as a
// library) for every shorter row, so that --method auto is the whole rule of the rows
// chapters. --method split runs the unit at any shape, cluster the same pieces combined in a
// thread-block cluster (cluster_rows.cu), previous is 16's auto, and single_pass 09's sum of
// the one row of a 1 x K float matrix (the floor a split row aims at). The harness
// (common/rows_harness.h) does the rest.
#include <string>
#include <type_traits>

#include "harness.h"
#include "rows_harness.h"
#include "split_rows.cuh"

namespace reduction {
rows_harness::RowsProgram short_rows_program();                          // 16_short_rows/main.cu
bool whole_rule_gives_a_block(std::size_t rows, std::size_t row_bytes);  // 16_short_rows/main.cu
Chapter single_pass_chapter();                                           // 09_single_pass/main.cu
}  // namespace reduction

namespace split_rows {  // cluster_rows.cu
template <typename In, typename Op>
cudaError_t reduce_rows_in_clusters(const In* input, std::size_t rows, std::size_t cols,
                                    typename Op::Result* output, unsigned blocks_per_row, cudaStream_t stream);
}  // namespace split_rows

namespace {

using namespace reduction::rows_harness;

const RowsProgram& previous() {
  static const RowsProgram program = reduction::short_rows_program();
  return program;
}

// --method auto: the split unit where 16's whole rule gives a row a block (rows of more
// than 8 KiB, or 2 KiB with fewer than 4096 rows); 16's auto for shorter rows
// (the rule the README's whole_rule_split prints for your own code).
bool splits(RowMethod method, std::size_t rows, std::size_t cols, ElementType type) {
  return method == RowMethod::Split || method == RowMethod::Cluster ||
         (method == RowMethod::Auto && reduction::whole_rule_gives_a_block(rows, cols * element_bytes(type)));
}

template <typename Op>  // the harness's name for one of the unit's operators
constexpr RowOp row_op() {
  return std::is_same_v<Op, split_rows::Sum>      ? RowOp::Sum
         : std::is_same_v<Op, split_rows::Max>    ? RowOp::Max
         : std::is_same_v<Op, split_rows::ArgMax> ? RowOp::ArgMax
                                                  : RowOp::MeanVar;
}

template <typename In>
constexpr ElementType type_of() {
  return std::is_same_v<In, float> ? ElementType::Float
         : std::is_same_v<In, __half> ? ElementType::Half
                                       : ElementType::BFloat16;
}

// The unit's plan on this device (without one: a block per row; nothing launches then).
template <typename In, typename Op>
split_rows::Plan plan_of(std::size_t rows, std::size_t cols) {
  split_rows::Plan plan{};
  if (split_rows::default_plan<In, Op>(rows, cols, &plan) != cudaSuccess) {
    cudaGetLastError();  // clear it
    plan = split_rows::plan_rows(rows, cols, sizeof(In), 0);
  }
  return plan;
}

template <RowMethod kMethod, typename In, typename Op>
cudaError_t scratch_for(std::size_t rows, std::size_t cols, std::size_t* bytes) {  // clusters need none
  const bool split = kMethod != RowMethod::Cluster && splits(kMethod, rows, cols, type_of<In>());
  *bytes = split ? split_rows::scratch_bytes(rows, plan_of<In, Op>(rows, cols)) : 0;
  return cudaSuccess;
}

template <RowMethod kMethod, typename In, typename Op>
cudaError_t launch(const void* input, std::size_t rows, std::size_t cols, void* output, void* scratch,
                   std::size_t scratch_bytes, cudaStream_t stream) {
  if (!splits(kMethod, rows, cols, type_of<In>())) {  // 16's auto: its methods need no scratch
    const RowLaunch shorter = previous().launcher(RowMethod::Auto, type_of<In>(), row_op<Op>());
    return shorter.launch(input, rows, cols, output, nullptr, 0, stream);
  }
  const split_rows::Plan plan = plan_of<In, Op>(rows, cols);
  if (kMethod == RowMethod::Cluster) {
    return split_rows::reduce_rows_in_clusters<In, Op>(static_cast<const In*>(input), rows, cols,
                                                       static_cast<typename Op::Result*>(output),
                                                       plan.blocks_per_row, stream);
  }
  return split_rows::reduce_rows<In, Op>(static_cast<const In*>(input), rows, cols,
                                         static_cast<typename Op::Result*>(output), scratch, scratch_bytes, plan,
                                         stream);
}

// 09 on the one row of a 1 x K float matrix, through its chapter description.
const reduction::Variant& single_pass() {
  static const reduction::Chapter chapter = reduction::single_pass_chapter();
  return chapter.main();
}

cudaError_t single_pass_scratch(std::size_t rows, std::size_t cols, std::size_t* bytes) {
  int block = 0, grid = 0;
  const cudaError_t status = single_pass().default_shape(rows * cols, &block, &grid);
  *bytes = status == cudaSuccess ? single_pass().scratch_bytes(rows * cols, block, grid) : 0;
  return status;
}

cudaError_t launch_single_pass(const void* input, std::size_t rows, std::size_t cols, void* output, void* scratch,
                               std::size_t scratch_bytes, cudaStream_t stream) {
  int block = 0, grid = 0;
  const cudaError_t status = single_pass().default_shape(rows * cols, &block, &grid);
  if (status != cudaSuccess) return status;
  float* in = static_cast<float*>(const_cast<void*>(input));  // 09 only reads it
  return single_pass().launcher<float>(reduction::Op::Sum)(in, rows * cols, static_cast<float*>(output), scratch,
                                                            scratch_bytes, block, grid, stream);
}

template <typename In, typename Op>
RowLaunch launcher_of(RowMethod method) {
  switch (method) {
    case RowMethod::Auto: return {launch<RowMethod::Auto, In, Op>, scratch_for<RowMethod::Auto, In, Op>};
    case RowMethod::Split: return {launch<RowMethod::Split, In, Op>, scratch_for<RowMethod::Split, In, Op>};
    case RowMethod::Cluster: return {launch<RowMethod::Cluster, In, Op>, scratch_for<RowMethod::Cluster, In, Op>};
    default: return {};
  }
}

RowLaunch launcher(RowMethod method, ElementType type, RowOp op) {
  if (method == RowMethod::SinglePass) {
    return type == ElementType::Float && op == RowOp::Sum ? RowLaunch{launch_single_pass, single_pass_scratch}
                                                           : RowLaunch{};
  }
  if (method == RowMethod::Previous) return previous().launcher(RowMethod::Auto, type, op);
  return by_element_type(type, [&](auto tag) {
    using In = typename decltype(tag)::type;
    switch (op) {
      case RowOp::Sum: return launcher_of<In, split_rows::Sum>(method);
      case RowOp::Max: return launcher_of<In, split_rows::Max>(method);
      case RowOp::ArgMax: return launcher_of<In, split_rows::ArgMax>(method);
      default: return launcher_of<In, split_rows::MeanVar>(method);
    }
  });
}

std::string refuse(RowMethod method, RowOp op, std::size_t rows, std::size_t cols, ElementType type) {
  if (method == RowMethod::SinglePass && rows != 1) {
    return "--method single_pass is 09's sum of one array: it takes --rows 1 (and --type float --op sum)";
  }
  if (method == RowMethod::Previous) return previous().refuse(RowMethod::Auto, op, rows, cols, type);
  int device = 0, major = 0;
  if (method == RowMethod::Cluster && cudaGetDevice(&device) == cudaSuccess &&
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess && major < 9) {
    return "--method cluster needs thread-block clusters: a GPU of compute capability 9.0 or newer";
  }
  cudaGetLastError();  // no device: the harness says so next
  return "";
}

// The most blocks per row any operator's kernel gets here: the plan with every SM full of
// blocks of 256 threads (no kernel fits more), for the report and the depth bound.
unsigned most_blocks_per_row(std::size_t rows, std::size_t cols, ElementType type) {
  int device = 0, sms = 0, threads = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, device) != cudaSuccess) {
    cudaGetLastError();  // no device: one block per row, as plan_of
    return 1;
  }
  return split_rows::plan_rows(rows, cols, element_bytes(type), std::size_t(sms) * std::size_t(threads / 256))
      .blocks_per_row;
}

std::string describe(RowMethod method, std::size_t rows, std::size_t cols, ElementType type) {
  if (method == RowMethod::SinglePass) return "09_single_pass: the matrix as one array";
  if (method == RowMethod::Previous) return previous().describe(RowMethod::Auto, rows, cols, type);
  if (!splits(method, rows, cols, type)) return previous().describe(method, rows, cols, type);
  const unsigned most = most_blocks_per_row(rows, cols, type);
  if (method == RowMethod::Cluster) {
    return "a thread-block cluster of up to " + std::to_string(most < 16 ? most : 16) +
           " blocks of 256 threads per row, combined in distributed shared memory";
  }
  return (method == RowMethod::Auto ? "chooses " : "") +
         (most == 1 ? lanes_plan(256, true)
                    : "up to " + std::to_string(most) + " blocks of 256 threads per row, combined by its last block");
}

// The split kernel: 14's block of 256 lanes over the row (an upper bound for a piece), then
// in the last block each thread's chain over ceil(blocks / 256) states and a second block tree.
std::size_t depth(RowMethod method, std::size_t rows, std::size_t cols, ElementType type) {
  if (method == RowMethod::SinglePass) {
    int block = 0, grid = 0;
    if (single_pass().default_shape(rows * cols, &block, &grid) != cudaSuccess) return rows * cols + 64;
    return single_pass().chain_length(rows * cols, block, grid);
  }
  if (method == RowMethod::Previous || !splits(method, rows, cols, type)) {
    return previous().depth(RowMethod::Auto, rows, cols, type);
  }
  if (method == RowMethod::Cluster) return lanes_depth(cols, type, 256, true) + 16;  // block 0: a chain of states
  const unsigned blocks = most_blocks_per_row(rows, cols, type);
  return lanes_depth(cols, type, 256, true) + (blocks > 1 ? (blocks + 255) / 256 + 10 : 0);
}

}  // namespace

namespace reduction {

rows_harness::RowsProgram split_rows_program() {
  rows_harness::RowsProgram program;
  program.id = "18_split_rows";
  program.summary = "sum, max, argmax, mean and variance of every row of a row-major M x K matrix of float, half or "
                    "bf16: a long row over several blocks when few rows leave the GPU idle; the whole rule of the "
                    "rows chapters";
  program.methods = {RowMethod::Auto, RowMethod::Split, RowMethod::Cluster, RowMethod::Previous, RowMethod::SinglePass};
  program.types = {ElementType::Float, ElementType::Half, ElementType::BFloat16};
  program.ops = {RowOp::Sum, RowOp::Max, RowOp::ArgMax, RowOp::MeanVar};
  // M x K = 2^26 at M = 4096, 1024, 256, 64, 16, 4, 2, 1.
  program.sweep_cols = {16384, 65536, 262144, 1048576, 4194304, 16777216, 33554432, 67108864};
  program.ops_cols = program.sweep_cols;
  program.launcher = launcher;
  program.refuse = refuse;
  program.describe = describe;
  program.depth = depth;
  return program;
}

}  // namespace reduction

#ifndef REDUCTION_CHAPTER_LIBRARY  // the tests link this file without its main()
int main(int argc, char** argv) {
  return reduction::rows_harness::run_rows_program(reduction::split_rows_program(), argc, argv);
}
#endif
