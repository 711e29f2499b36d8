// rows_harness.h: the plumbing of the rows chapters' programs (13 to 16, and 18),
// which reduce every row of a matrix rather than one array, and so do not fit chapter.h's
// Variant: their command line, the 2-D .npy input, the CPU reference of every row and the
// checks, timing with the methods interleaved (with the CUB yardsticks of cub_rows.h and
// the read-only floor), the report and the sweep. It reuses the common pieces (UsageError
// and parse_count, the L2 flush, GpuTimer with its busy kernel, the float error bound, the
// device query, the JSON helpers). It knows no chapter's kernel: each main.cu hands over
// its launchers in a RowsProgram. Its code: the names and the command line in
// rows_cli.cpp, the host matrix and .npy files in rows_input.cpp, the CPU reference and the
// checks in rows_check.cpp (rows_check.h: the check of one row), the timing, the report,
// the sweep and run_rows_program in rows_harness.cu.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cli.h"

namespace reduction::rows_harness {

enum class ElementType { Float, Half, BFloat16 };
enum class RowOp { Sum, Max, ArgMax, MeanVar };
// The --method names: auto thread group warp block split (a chapter's kernels), previous
// (the previous chapter's auto, for comparison), single_pass (09's sum of a one-row matrix as
// one array), cub_segmented (cub::DeviceSegmentedReduce) and cub_block (cub::WarpReduce /
// cub::BlockReduce); the last two are the harness's own.
enum class RowMethod { Auto, Thread, Group, Warp, Block, Split, Cluster, Previous, SinglePass, CubSegmented, CubBlock };

const char* element_name(ElementType type);  // "float", "half", "bf16"
std::size_t element_bytes(ElementType type);
const char* op_name(RowOp op);               // "sum", "max", "argmax", "meanvar"
const char* method_name(RowMethod method);   // as on the command line
std::size_t result_bytes(RowOp op);          // a float; ValueIndex 8; MeanVariance 8
// The read-only floor (common/read_floor.cu) at its default block and grid over `bytes` of data read as
// floats (a half or bf16 input of odd length leaves its last 2 bytes unread); `scratch`: a 4-byte sink. The
// grid is asked once per size (a run times many repetitions of one).
cudaError_t floor_launch(const void* data, std::size_t bytes, void* scratch, cudaStream_t stream = 0);

// What one method needs to run: its launcher, reading `input` (rows x cols elements)
// and writing one result per row to `output`, with `temp` (temp_bytes of device memory,
// sized by temp_bytes_for beforehand; null when that is 0) on `stream`.
struct RowLaunch {
  cudaError_t (*launch)(const void* input, std::size_t rows, std::size_t cols, void* output, void* temp,
                        std::size_t temp_bytes, cudaStream_t stream) = nullptr;
  cudaError_t (*temp_bytes_for)(std::size_t rows, std::size_t cols, std::size_t* bytes) = nullptr;  // null: none
};

// What a rows chapter's main.cu tells the harness.
struct RowsProgram {
  std::string id;       // "13_rows"
  std::string summary;  // one line for the report and --help
  // The --method, --type and --op choices it offers (the CUB methods are added to them).
  std::vector<RowMethod> methods;
  std::vector<ElementType> types;
  std::vector<RowOp> ops;
  // --sweep: M x K = 2^26 at these K, every method for the sum, float and bf16 (where
  // offered); at ops_cols, every other operator with auto too.
  std::vector<std::size_t> sweep_cols, ops_cols;
  // The launcher of `method` for this element type and operator (launch == nullptr where
  // the method does not offer the operator).
  RowLaunch (*launcher)(RowMethod method, ElementType type, RowOp op) = nullptr;
  // "" when `method` can run this shape and operator, else why not (a usage error; the
  // harness itself refuses argmax and meanvar rows of more than INT_MAX columns).
  std::string (*refuse)(RowMethod method, RowOp op, std::size_t rows, std::size_t cols, ElementType type) = nullptr;
  // What the method does at this shape, for the report ("a group of 4 lanes per row").
  std::string (*describe)(RowMethod method, std::size_t rows, std::size_t cols, ElementType type) = nullptr;
  // The most combining steps (additions, or merges of (count, mean, M2)) any element
  // passes through on its way to its row's result: the chain length L of the float
  // error bounds (reference.h; the bound for mean and variance in rows_check.cpp).
  std::size_t (*depth)(RowMethod method, std::size_t rows, std::size_t cols, ElementType type) = nullptr;
};

// Calls f(ElementTag<In>{}) with In the C++ type of `type` (float, __half or
// __nv_bfloat16) and returns what it returns: how the programs pick a launcher's instance.
template <typename T> struct ElementTag { using type = T; };
template <typename F>
auto by_element_type(ElementType type, F f) {
  switch (type) {
    case ElementType::Half: return f(ElementTag<__half>{});
    case ElementType::BFloat16: return f(ElementTag<__nv_bfloat16>{});
    default: return f(ElementTag<float>{});
  }
}

// The program's methods and then the CUB yardsticks: every --method it takes.
std::vector<RowMethod> methods_of(const RowsProgram& program);

// Any --method of the program, the CUB ones included: its launcher (launch == nullptr
// where it does not offer the type or operator), why it refuses a shape ("" if it takes
// it), what it does there, and its depth (RowsProgram::depth).
RowLaunch launcher_of(const RowsProgram& program, RowMethod method, ElementType type, RowOp op);
std::string refusal(const RowsProgram& program, RowMethod method, RowOp op, std::size_t rows, std::size_t cols,
                    ElementType type);
std::string describe_of(const RowsProgram& program, RowMethod method, std::size_t rows, std::size_t cols,
                        ElementType type);
std::size_t depth_of(const RowsProgram& program, RowMethod method, std::size_t rows, std::size_t cols,
                     ElementType type);

// The command line (the choices of --type, --op and --method are the program's):
//   NN_name [--rows M] [--cols K] [--type float|half|bf16] [--op sum|max|argmax|meanvar]
//           [--method auto|thread|group|warp|block|split|previous|single_pass|cub_segmented|cub_block]
//           [--input FILE.npy]
//           [--reps R] [--seed S] [--no-flush] [--json] [--sweep] [--out DIR] [--help]
struct RowsOptions : RunFlags {  // cli.h: --reps, --seed, --no-flush, --json, --help
  std::size_t rows = 65536, cols = 1024;  // M x K = 2^26 elements unless given
  bool rows_given = false, cols_given = false;
  ElementType type = ElementType::Float;
  RowOp op = RowOp::Sum;
  RowMethod method = RowMethod::Auto;
  std::string input;
  bool sweep = false;
  std::string out_dir;
};

// Parses argv; throws UsageError (input.h) with a one-line message naming the problem
// and what would be accepted. Given one of --rows and --cols, the other makes M x K
// about 2^26; a random seed is drawn when --seed is not given.
RowsOptions parse_rows_options(const RowsProgram& program, int argc, const char* const* argv);
std::string rows_usage(const RowsProgram& program);

// A matrix on the host: the bytes the device reads, and the same elements as float
// (exactly: every half and bfloat16 is a float), which the reference reads.
struct HostMatrix {
  std::size_t rows = 0, cols = 0;
  ElementType type = ElementType::Float;
  std::vector<unsigned char> bytes;
  std::vector<float> values;
  std::string source;  // "random, --seed 42", or the file and how it was converted
};

// rows x cols values uniform in [0, 1) from --seed (common/random.h), rounded to `type`.
HostMatrix random_matrix(std::size_t rows, std::size_t cols, ElementType type, std::uint64_t seed);

// A 2-D .npy file (C order, little-endian float32 '<f4', float16 '<f2' or float64
// '<f8'), converted to `type` (exactly where it can be, else rounded to nearest, which
// `source` says). Throws UsageError naming the problem: missing file, not 2-D, Fortran
// order, another dtype, big-endian, truncated data.
HostMatrix load_matrix(const std::string& path, ElementType type);

// Writes a 2-D .npy file of float32 (or, with float16, of numpy's float16, rounded to
// nearest), for the tests and for readers who want a file to start from.
void save_matrix_npy(const std::string& path, std::size_t rows, std::size_t cols, const std::vector<float>& values,
                     bool float16 = false);

// The check of every row of one result array (as the device wrote it) against the CPU
// reference of that row, computed in double (see rows_check.cpp for each bound).
struct RowsCheck {
  bool ok = false;
  std::size_t wrong_rows = 0;
  std::string first_wrong;     // "row 17: 3.25 but the reference is 3.5 (tolerance 1e-6)"
  double worst = 0;            // the largest error / tolerance over the rows (0 for exact checks)
  std::string row0_result, row0_reference;
};
RowsCheck check_rows(const HostMatrix& matrix, RowOp op, const void* results, std::size_t depth);

// The bound on |computed - exact| of a mean and of a population variance in float when
// every element passes through at most `depth` merges (rows_check.cpp derives them);
// max_abs is the largest |x| of the row.
double mean_error_bound(std::size_t depth, double max_abs);
double variance_error_bound(std::size_t depth, double max_abs, double variance);

// For the chapters' describe and depth: what a kernel with `threads` threads per row does
// ("a group of 4 lanes per row"; `block`: a block per row), and the most combining steps
// an element takes in the lane kernels of 13-15 (lane_reduce_row, then the shuffles):
// inside its vector (log2 of 4 or 8), the pairs of a trip (2), one step per trip into the
// lane's partial (full trips and the last one), the head and tail elements (at most
// 2 * ceil((V - 1) / lanes)), then log2(lanes) shuffles, or for a block two trees of 32 (10).
std::string lanes_plan(int threads, bool block);
std::size_t lanes_depth(std::size_t cols, ElementType type, int threads, bool block);

// The main() of a rows chapter.
int run_rows_program(const RowsProgram& program, int argc, char** argv);

}  // namespace reduction::rows_harness
