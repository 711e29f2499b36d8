// segments_harness.h: the plumbing of chapter 19's program (ragged segments given by CSR
// offsets), which the rows harness (matrices, rows_harness.h) does not model: the segment
// lengths' distributions (shared with bench_ragged.cu), the two methods (the copy unit's merge
// path and CUB's DeviceSegmentedReduce) behind one call, the command line, the check of every
// segment against the CPU reference (rows_check.h), timing with the read-only floor, and the
// report. It reuses common/: UsageError and parse_count, the L2 flush and time_in_turns, the
// read-only floor, run_head, json.h, facts_of/verdict_of and the rows harness's element types
// and operators. It serves one chapter, so it lives in the chapter's folder.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "rows_harness.h"

namespace reduction::segments_harness {

using rows_harness::ElementType;
using rows_harness::RowOp;

// ---------------------------------------------------------------- the distributions

// The lengths of the segments (--lengths): splitmix64 draws of the seed.
//   uniform       lengths uniform in 1..2048 until n elements are used (the last one trimmed)
//   pareto        floor(x_m / U^(1/1.1)), x_m = 1, U uniform in (0, 1], capped at what is left
//   one_half      1..8 over the first n/4 elements, one segment of n/2, 1..8 over the rest
//   four_eighths  four times: 1..64 over n/8 elements, then one segment of n/8 (1..64 over the rest)
//   equal         M segments (--rows) of n / M, the first n mod M of them one longer
enum class Lengths { Uniform, Pareto, OneHalf, FourEighths, Equal };

const char* lengths_name(Lengths lengths);  // as on the command line: "uniform", ...

struct Distribution {
  std::string name;                     // "uniform 1..2048", "equal rows M=64", ...
  std::vector<std::int64_t> offsets{0}; // segments + 1 CSR offsets, offsets[0] = 0, the last n
  std::size_t longest = 0, longest_at = 0;
  std::size_t segments() const { return offsets.size() - 1; }
  std::size_t n() const { return std::size_t(offsets.back()); }
  std::size_t length(std::size_t s) const { return std::size_t(offsets[s + 1] - offsets[s]); }
  void add(std::size_t length) {
    if (length > longest) longest = length, longest_at = segments();
    offsets.push_back(offsets.back() + std::int64_t(length));
  }
};

// The segments of n elements with these lengths (rows: M, for Equal only), drawn from `seed`
// (each distribution from its own stream: seed + 1, + 2, + 3, + 4).
Distribution make_distribution(Lengths lengths, std::size_t n, std::uint64_t seed, std::size_t rows = 1);

// ---------------------------------------------------------------- the methods

// --method: auto (the chapter's rule: merge path, the copy unit, at every shape), merge_path,
// cub_segmented (cub::DeviceSegmentedReduce, the yardstick; no meanvar).
enum class Method { Auto, MergePath, CubSegmented };
const char* method_name(Method method);

// CUB's order is its own. Assumed: a block of at least 128 threads per segment, each thread
// combining its share (at most length / 128 + 32 items), then a tree of at most 32 levels;
// never more steps than the segment has elements.
std::size_t cub_depth(std::size_t length);

// What a launcher reads and writes: input (n elements of `type`), offsets (segments + 1,
// int64 when wide_offsets, else int32), output (segments results of result_bytes(op)), temp
// (temp_bytes of device memory, sized by temp_bytes_for beforehand and zeroed once).
struct SegmentsLaunch {
  cudaError_t (*launch)(ElementType type, RowOp op, const void* input, std::size_t n, const void* offsets,
                        bool wide_offsets, std::size_t segments, void* output, void* temp, std::size_t temp_bytes,
                        cudaStream_t stream) = nullptr;
  cudaError_t (*temp_bytes_for)(ElementType type, RowOp op, std::size_t n, bool wide_offsets, std::size_t segments,
                                std::size_t* bytes) = nullptr;
};

// CUB's DeviceSegmentedReduce as bench_ragged.cu times it: Reduce for sum and max (widening to
// float as common/cub_rows.cu does, max propagating NaN), ArgMax written as a ValueIndex; no
// meanvar (cudaErrorInvalidValue). temp == nullptr asks for the temp storage's size.
cudaError_t cub_segmented_call(ElementType type, RowOp op, void* temp, std::size_t* temp_bytes, const void* input,
                               const void* offsets, bool wide_offsets, std::size_t segments, void* output,
                               cudaStream_t stream);
SegmentsLaunch cub_segmented_launch();

// What chapter 19's main.cu tells the harness: the copy unit's launcher (--method auto and
// merge_path) and its depth.
struct SegmentsProgram {
  std::string id;       // "19_ragged_segments"
  std::string summary;  // one line for the report and --help
  SegmentsLaunch merge_path;
  std::size_t (*depth)(std::size_t n, std::size_t segments) = nullptr;
};

// ---------------------------------------------------------------- the command line

//   19_ragged_segments [--n N] [--lengths uniform|pareto|one_half|four_eighths|equal] [--rows M]
//                      [--type float|half|bf16] [--offsets int32|int64] [--op sum|max|argmax|meanvar]
//                      [--method auto|merge_path|cub_segmented] [--reps R] [--seed S] [--no-flush]
//                      [--json] [--help]
struct SegmentsOptions : RunFlags {  // cli.h: --reps, --seed, --no-flush, --json, --help
  std::size_t n = std::size_t(1) << 26;
  Lengths lengths = Lengths::Uniform;
  std::size_t rows = 4096;
  bool rows_given = false;
  ElementType type = ElementType::Float;
  bool wide_offsets = false;
  RowOp op = RowOp::Sum;
  Method method = Method::Auto;
};

// Parses argv; throws UsageError (input.h) with a one-line message naming the problem and what
// would be accepted. A random seed is drawn when --seed is not given.
SegmentsOptions parse_segments_options(const std::string& program, int argc, const char* const* argv);
std::string segments_usage(const std::string& program);

// The main() of chapter 19.
int run_segments_program(const SegmentsProgram& program, int argc, char** argv);

}  // namespace reduction::segments_harness
