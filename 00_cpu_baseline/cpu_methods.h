// cpu_methods.h: chapter 00's CPU sums (cpu_sums.h, its copy unit) timed and checked by
// the harness, for the tour's 00 row and the tests. Defined in main.cpp (the library
// reduction_00_cpu_baseline). Not part of the copy unit.
#pragma once

#include <string>
#include <vector>

namespace reduction {

struct CpuMethodResult {
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
std::vector<CpuMethodResult> run_cpu_methods(const std::vector<T>& x, int reps, bool threaded_only = false);

// The chapter program 00_cpu_baseline (its main() calls it).
int run_cpu_baseline(int argc, char** argv);

}  // namespace reduction
