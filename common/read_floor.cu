// read_floor.cu: the tour's floor row: a kernel that only reads the input, with the
// loads of the fastest chapters (16 bytes each, four in flight per thread), and adds
// nothing up. No reduction of the same input can be much faster, so "% of floor"
// says how close a chapter comes to what this GPU can actually read, beside "% of
// peak", which is a datasheet product no kernel reaches.
#include "read_floor.h"

#include <algorithm>
#include <cstdint>

#include "cuda_check.h"

namespace reduction {
namespace {

constexpr int kBlock = 256;
constexpr int kVectorsInFlight = 4;

// Reads every 16-byte vector of [bytes, bytes + count * 16) and then the tail bytes.
// The loads cannot be optimized away: what they read decides whether *sink is written
// (OR of the data equal to a value it practically never has).
__global__ void __launch_bounds__(1024) read_only(const uint4* vectors, std::size_t count, const unsigned char* tail,
                                                    std::size_t tail_bytes, unsigned* sink) {
  const std::size_t threads = std::size_t(gridDim.x) * blockDim.x;
  std::size_t v = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned bits = 0;
  for (; v + (kVectorsInFlight - 1) * threads < count; v += kVectorsInFlight * threads) {
    uint4 loaded[kVectorsInFlight];
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) loaded[k] = __ldg(vectors + v + k * threads);
#pragma unroll
    for (int k = 0; k < kVectorsInFlight; ++k) bits |= loaded[k].x | loaded[k].y | loaded[k].z | loaded[k].w;
  }
  for (; v < count; v += threads) {
    const uint4 last = __ldg(vectors + v);
    bits |= last.x | last.y | last.z | last.w;
  }
  for (std::size_t i = threadIdx.x; blockIdx.x == 0 && i < tail_bytes; i += blockDim.x) bits |= tail[i];
  if (bits == 0x5EEDF1A7u) *sink = bits;
}

template <typename T>
cudaError_t launch_read_only(T* data, std::size_t n, T* /*result*/, void* scratch, std::size_t scratch_bytes,
                             int block, int grid, cudaStream_t stream) {
  if (scratch_bytes < sizeof(unsigned)) return cudaErrorInvalidValue;
  const std::size_t bytes = n * sizeof(T);  // cudaMalloc'd: 16-byte aligned
  const std::size_t count = bytes / 16;
  read_only<<<grid, block, 0, stream>>>(reinterpret_cast<const uint4*>(data), count,
                                         reinterpret_cast<const unsigned char*>(data) + count * 16, bytes % 16,
                                         static_cast<unsigned*>(scratch));
  return cudaGetLastError();
}

}  // namespace

cudaError_t read_floor_wave(int block, int* grid) {
  int device = 0, blocks_per_sm = 0, sm_count = 0;
  cudaError_t status = cudaGetDevice(&device);
  if (status == cudaSuccess) status = cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
  if (status == cudaSuccess) status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, read_only, block, 0);
  *grid = sm_count * (blocks_per_sm > 0 ? blocks_per_sm : 1);
  return status;
}

Variant read_floor_variant() {
  Variant floor;
  floor.chapter = kReadFloor;
  floor.summary = "reads the input with 16-byte loads, four in flight per thread, and adds nothing";
  floor.default_block = kBlock;
  floor.check_shape = [](int, int) { return std::string(); };
  // At most one full wave, no more threads than one trip of four 16-byte loads each needs.
  floor.default_grid = [](std::size_t n, int block, int* grid) {
    const cudaError_t status = read_floor_wave(block, grid);
    const std::size_t threads = (n * sizeof(int) / 16 + kVectorsInFlight - 1) / kVectorsInFlight;  // as 4-byte data
    *grid = static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(*grid, (threads + block - 1) / block)));
    return status;
  };
  // The fastest shapes the small-n bench found for this kernel (09_single_pass/bench/small_n.cu):
  // blocks of 256 threads while the input is small, of 1024 once there are 1024 threads'
  // trips for every two SMs (the same rule as 09's default_shape).
  floor.default_shape = [](std::size_t n, int* block, int* grid) {
    int device = 0, sm_count = 0;
    cudaError_t status = cudaGetDevice(&device);
    if (status == cudaSuccess) status = cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device);
    const std::size_t threads = (n * sizeof(int) / 16 + kVectorsInFlight - 1) / kVectorsInFlight;
    *block = threads < std::size_t(1024) * sm_count / 2 ? 256 : 1024;
    if (status != cudaSuccess) return status;
    int wave = 0;
    status = read_floor_wave(*block, &wave);
    *grid = static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(wave, (threads + *block - 1) / *block)));
    return status;
  };
  floor.scratch_bytes = [](std::size_t, int, int) { return sizeof(unsigned); };
  floor.chain_length = [](std::size_t, int, int) { return std::size_t(0); };
  floor.set_launcher(Op::Sum, [](auto* data, std::size_t n, auto* result, void* scratch, std::size_t bytes, int block,
                                 int grid, cudaStream_t stream) {
    return launch_read_only(data, n, result, scratch, bytes, block, grid, stream);
  });
  return floor;
}

}  // namespace reduction
