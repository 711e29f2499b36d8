// 00_cpu_baseline: four ways to sum on the CPU, each timed and checked against the
// compensated reference: the number every GPU chapter must beat, and the precision
// lessons the GPU chapters rely on.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "cli.h"

namespace cpu_baseline {

// The plain loop, accumulating in the input type (what most first attempts write).
template <typename T> T loop_sum(const T* x, std::size_t n);

// Recursive halving (recursiveReduce in the Professional CUDA C Programming notes,
// Cheng et al., chapter 3) made correct for any n: the upper half is folded onto the
// lower half, with the middle element left in place when the length is odd.
// Overwrites x.
template <typename T> T halving_sum(T* x, std::size_t n);

// Neumaier-compensated sum in double (int64 for ints): the reference, one thread.
template <typename T> T compensated_sum(const T* x, std::size_t n);

// All cores: a wide accumulator (int64 or double) per thread over a contiguous chunk.
template <typename T> T threaded_sum(const T* x, std::size_t n);

struct MethodResult {
  std::string name;
  std::string value_text;
  double value = 0;
  double median_ms = 0;
  double min_ms = 0, iqr_ms = 0;  // the fastest run; the interquartile range (timer.h)
  double gbps = 0;
  double error = 0, tolerance = 0;  // tolerance is +inf when no error bound exists
  bool bounded = true;               // false: the method has no error bound at this n
  bool ok = false;
};

// Times each method (one untimed warm-up, then the median of reps) on x and checks it;
// the last entry is the multi-threaded sum, the CPU time the GPU chapters are compared
// with (threaded_only: time just that one, as the tour does, with the same reps as the
// GPU chapters).
template <typename T>
std::vector<MethodResult> run_methods(const std::vector<T>& x, int reps, bool threaded_only = false);

// The chapter program (main.cpp calls it).
int run(int argc, char** argv);

}  // namespace cpu_baseline
