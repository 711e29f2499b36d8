// rows_harness.h: the plumbing of chapter 13's program (13_rows/main.cu), which reduces
// every row of a matrix rather than one array, and so does not fit chapter.h's Variant:
// its command line, the 2-D .npy input, the CPU reference of every row and the checks,
// timing with the methods interleaved, the report and the sweep. It reuses the common
// pieces (UsageError and parse_count, the L2 flush, GpuTimer with its busy kernel, the
// float error bound, the device query, the JSON helpers). It knows no kernel: main.cu
// hands over its launchers in a RowsProgram.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace reduction::rows_harness {

enum class ElementType { Float, Half, BFloat16 };
enum class RowOp { Sum, Max, ArgMax, MeanVar };
// The --method names: auto thread group warp block (the copy unit), cub_segmented
// (cub::DeviceSegmentedReduce) and cub_block (cub::WarpReduce / cub::BlockReduce).
enum class RowMethod { Auto, Thread, Group, Warp, Block, CubSegmented, CubBlock };

const char* element_name(ElementType type);  // "float", "half", "bf16"
std::size_t element_bytes(ElementType type);
const char* op_name(RowOp op);               // "sum", "max", "argmax", "meanvar"
const char* method_name(RowMethod method);   // as on the command line
std::size_t result_bytes(RowOp op);          // a float; ValueIndex 16; MeanVariance 8

// What one method needs to run: its launcher, reading `input` (rows x cols elements)
// and writing one result per row to `output`, with `temp` (temp_bytes of device memory,
// sized by temp_bytes_for beforehand; null when that is 0) on `stream`.
struct RowLaunch {
  cudaError_t (*launch)(const void* input, std::size_t rows, std::size_t cols, void* output, void* temp,
                        std::size_t temp_bytes, cudaStream_t stream) = nullptr;
  cudaError_t (*temp_bytes_for)(std::size_t rows, std::size_t cols, std::size_t* bytes) = nullptr;  // null: none
};

// What 13_rows/main.cu tells the harness.
struct RowsProgram {
  std::string id;       // "13_rows"
  std::string summary;  // one line for the report and --help
  // The launcher of `method` for this element type and operator (launch == nullptr where
  // the method does not offer the operator).
  RowLaunch (*launcher)(RowMethod method, ElementType type, RowOp op) = nullptr;
  // "" when `method` can run this shape and operator, else why not (a usage error).
  std::string (*refuse)(RowMethod method, RowOp op, std::size_t rows, std::size_t cols, ElementType type) = nullptr;
  // What the method does at this shape, for the report ("a group of 4 lanes per row").
  std::string (*describe)(RowMethod method, std::size_t rows, std::size_t cols, ElementType type) = nullptr;
  // The most combining steps (additions, or merges of (count, mean, M2)) any element
  // passes through on its way to its row's result: the chain length L of the float
  // error bounds (reference.h; the bound for mean and variance in rows_harness.cu).
  std::size_t (*depth)(RowMethod method, std::size_t rows, std::size_t cols, ElementType type) = nullptr;
  // The read-only floor: reads `bytes` bytes at `data` (16-byte aligned) and computes
  // nothing; scratch holds floor_scratch_bytes.
  cudaError_t (*floor)(const void* data, std::size_t bytes, void* scratch, cudaStream_t stream) = nullptr;
  std::size_t floor_scratch_bytes = 0;
};

// The command line:
//   13_rows [--rows M] [--cols K] [--type float|half|bf16] [--op sum|max|argmax|meanvar]
//           [--method auto|thread|group|warp|block|cub_segmented|cub_block] [--input FILE.npy]
//           [--reps R] [--seed S] [--no-flush] [--json] [--sweep] [--out DIR] [--help]
struct RowsOptions {
  std::size_t rows = 65536, cols = 1024;  // M x K = 2^26 elements unless given
  bool rows_given = false, cols_given = false;
  ElementType type = ElementType::Float;
  RowOp op = RowOp::Sum;
  RowMethod method = RowMethod::Auto;
  std::string input;
  int reps = 30;
  std::uint64_t seed = 0;
  bool seed_given = false;
  bool flush = true;
  bool json = false;
  bool sweep = false;
  std::string out_dir;
  bool help = false;
};

// Parses argv; throws UsageError (input.h) with a one-line message naming the problem
// and what would be accepted. Given one of --rows and --cols, the other makes M x K
// about 2^26; a random seed is drawn when --seed is not given.
RowsOptions parse_rows_options(const std::string& program, int argc, const char* const* argv);
std::string rows_usage(const std::string& program);

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
// reference of that row, computed in double (see rows_harness.cu for each bound).
struct RowsCheck {
  bool ok = false;
  std::size_t wrong_rows = 0;
  std::string first_wrong;     // "row 17: 3.25 but the reference is 3.5 (tolerance 1e-6)"
  double worst = 0;            // the largest error / tolerance over the rows (0 for exact checks)
  std::string row0_result, row0_reference;
};
RowsCheck check_rows(const HostMatrix& matrix, RowOp op, const void* results, std::size_t depth);

// The bound on |computed - exact| of a mean and of a population variance in float when
// every element passes through at most `depth` merges (rows_harness.cu derives them);
// max_abs is the largest |x| of the row.
double mean_error_bound(std::size_t depth, double max_abs);
double variance_error_bound(std::size_t depth, double max_abs, double variance);

// The main() of 13_rows.
int run_rows_program(const RowsProgram& program, int argc, char** argv);

}  // namespace reduction::rows_harness
