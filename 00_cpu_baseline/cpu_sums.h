// 00_cpu_baseline: four ways to sum on the CPU: the plain loop (for floats it stalls at
// 2^24), recursive halving (the shape of every GPU tree, correct for any n), a
// compensated sum (the reference the GPU chapters are checked against) and a threaded
// sum with wide accumulators (the CPU time every GPU chapter must beat). No GPU needed.
//
// Use it in your code (input: n floats in host memory):
//   #include "cpu_sums.h"
//   #include <vector>
//   float sum = cpu_baseline::threaded_sum(input, n);            // every core, a double per thread
//   float reference = cpu_baseline::compensated_sum(input, n);   // one core, accurate: check a GPU sum with it
//   std::vector<float> scratch(input, input + n);                // halving_sum overwrites what it sums
//   float halved = cpu_baseline::halving_sum(scratch.data(), n);
//
// Compile: g++ -std=c++17 -c cpu_sums.cpp (or nvcc -std=c++17 -c cpu_sums.cpp); link with
// -pthread where your C++ library needs it for std::thread. int, float and double are built in.
// Another element type, e.g. long long: add `CPU_SUMS_INSTANTIATE(long long)` at the end of cpu_sums.cpp.
#pragma once

#include <cstddef>

namespace cpu_baseline {

// The plain loop, accumulating in the input type (what most first attempts write).
template <typename T> T loop_sum(const T* x, std::size_t n);

// Recursive halving (recursiveReduce in the Professional CUDA C Programming notes,
// Cheng et al., chapter 3) made correct for any n: the upper half is folded onto the
// lower half, with the middle element left in place when the length is odd.
// Overwrites x.
template <typename T> T halving_sum(T* x, std::size_t n);

// Neumaier-compensated sum in double (long double for long double; int64 for integers): the
// reference, one thread.
template <typename T> T compensated_sum(const T* x, std::size_t n);

// All cores: a wide accumulator (int64 for integers, else double or long double) per thread over a
// contiguous chunk. The threads are started by the first call and reused by every later
// one; calls from several threads at once take turns.
template <typename T> T threaded_sum(const T* x, std::size_t n);

// How many threads threaded_sum uses for n elements of T: one below 2^18 ints or 2^17
// floats, all hardware threads from there; its longest chain of additions is
// ceil(n / threads) + threads. Below that, waking the other threads costs more than they
// save (the tour's sweep, README: "Results"). Floats cross over sooner: their loop is one
// chain of double additions, the int loop's int64 additions vectorize.
template <typename T> unsigned threaded_sum_threads(std::size_t n);

}  // namespace cpu_baseline
