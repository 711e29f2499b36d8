// 19_ragged_segments: 14's statistics (float, __half, __nv_bfloat16) of ragged segments,
// given by CSR offsets, at any lengths: empty, one element, one segment of half the array beside millions of
// short ones. What changes since 18 is at the top of ragged_segments.cu: the work is cut by merge path, so every
// block gets the same number of elements plus segment ends, whatever the lengths.
//
// Use it in your code (input: n floats and segments + 1 offsets, int32 or int64, in device memory):
//   #include "ragged_segments.cuh"
//   #include <vector>
//   const std::size_t bytes = ragged_segments::ragged_temp_bytes(n, segments);
//   void* scratch = nullptr;
//   float* sums = nullptr;  // one result per segment, in device memory
//   cudaError_t status = cudaMalloc(&scratch, bytes);
//   if (status == cudaSuccess) status = cudaMemset(scratch, 0, bytes);  // once: every call leaves its counters at 0
//   if (status == cudaSuccess) status = cudaMalloc(&sums, segments * sizeof(float));
//   if (status == cudaSuccess) status = ragged_segments::reduce_segments<float, int, ragged_segments::Sum>(input, n, offsets, segments, sums, scratch, bytes);
//   if (status == cudaSuccess) status = cudaDeviceSynchronize();  // the kernels' own errors show here
//   std::vector<float> host(segments);
//   if (status == cudaSuccess) status = cudaMemcpy(host.data(), sums, segments * sizeof(float), cudaMemcpyDeviceToHost);
//   cudaFree(scratch); cudaFree(sums);
// Compile: nvcc -std=c++17 -c ragged_segments.cu. --use_fast_math: subnormals count as 0 in float adds and
// compares, and MeanVar divides approximately.
// Another element type, e.g. short: add `RAGGED_SEGMENTS_INSTANTIATE(short)` at the end of ragged_segments.cu.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>

#ifndef ROW_RESULTS_TYPES  // the result types, the same in 14, 15, 16, 18 and 19: one type for all the units you include
#define ROW_RESULTS_TYPES
namespace row_results { struct ValueIndex { float value; std::int32_t index; }; }
namespace row_results { struct MeanVariance { float mean, variance; }; }
#endif

namespace ragged_segments {

// The operators, as in 14 and 18 (NaN and infinities as numpy; an empty segment: 0, -inf, {-inf, -1},
// {NaN, NaN}). ArgMax's index counts from the segment's first element; the first NaN, else the first maximum.
using row_results::ValueIndex, row_results::MeanVariance;
struct Sum { using Result = float; };
struct Max { using Result = float; };
struct ArgMax { using Result = ValueIndex; };
struct MeanVar { using Result = MeanVariance; };

// Scratch: per tile of 4096 path items (elements + segment ends), a 4-byte counter (the tickets of a cut
// segment that begins in it), then two 16-byte pieces (a block takes 8 tiles and uses one in 8), then per
// tile boundary the 8-byte point where it crosses the path (written by the first of the two kernels):
// 16 x ceil(tiles / 4) + 32 x tiles + 8 x (tiles + 1) bytes, tiles = ceil((n + segments) / 4096). Zero it
// once; each call puts its counters back to 0 (the boundaries need no zeros). One scratch serves one stream
// at a time; any call whose n + segments it was sized for.
std::size_t ragged_temp_bytes(std::size_t n, std::size_t segments);

// One Op::Result per segment to output[0, segments) (device memory); segment i is input[offsets[i],
// offsets[i + 1]), offsets has segments + 1 entries in device memory, int32 (n < 2^31) or int64.
// Refused with cudaErrorInvalidValue before any launch: a null or misaligned pointer (input when n > 0,
// offsets, output when segments > 0), segments == 0 with n > 0, n past the offset type's range,
// n + segments past (2^31 - 1) x 4096 (a block per tile), a missing, misaligned or too small scratch.
// Not checked (the offsets live on the device, and reading them first would cost a copy and a
// synchronization): offsets[0] == 0, offsets[segments] == n, offsets non-decreasing. The kernels clamp
// every offset they read into [0, n], so bad offsets give wrong results but no access out of bounds; they
// may also leave a counter off 0: zero the scratch again before the next call.
// ArgMax: a segment of 2^31 elements or more has no int32 index; its index reads -1 (its value is right).
// Two kernels on `stream`, in order: the partition (the tile boundaries), then the tiles. Returns the
// first CUDA error.
template <typename In, typename Offset, typename Op>
cudaError_t reduce_segments(const In* input, std::size_t n, const Offset* offsets, std::size_t segments,
                            typename Op::Result* output, void* scratch, std::size_t scratch_bytes,
                            cudaStream_t stream = 0);

}  // namespace ragged_segments
