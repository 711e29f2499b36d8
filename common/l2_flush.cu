#include "l2_flush.h"

#include "cuda_check.h"
#include "timer.h"

namespace reduction {

namespace {

// Reads every 16-byte word of `buffer`. The loads cannot be optimized away: the
// values decide whether `sink` is written (they are all zero, so it never is).
__global__ void read_everything(const uint4* buffer, std::size_t count, unsigned* sink) {
  unsigned bits = 0;
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    const uint4 v = buffer[i];
    bits |= v.x | v.y | v.z | v.w;
  }
  if (bits == 0xFFFFFFFFu) *sink = bits;
}

// One thread spins until `nanoseconds` have passed on the GPU's global timer.
__global__ void spin(unsigned long long nanoseconds) {
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < nanoseconds);
}

}  // namespace

void busy_wait(cudaStream_t stream, unsigned microseconds) {
  spin<<<1, 1, 0, stream>>>(1000ull * microseconds);
  CUDA_CHECK_LAUNCH();
}

L2Flusher::L2Flusher(std::size_t l2_bytes) : buffer_((2 * l2_bytes + 15) / 16), sink_(1) {
  if (buffer_.bytes()) CUDA_CHECK(cudaMemset(buffer_.get(), 0, buffer_.bytes()));
}

void L2Flusher::flush(cudaStream_t stream) {
  if (!buffer_.size()) return;
  read_everything<<<1024, 256, 0, stream>>>(buffer_.get(), buffer_.size(), sink_.get());
  CUDA_CHECK_LAUNCH();
}

}  // namespace reduction
