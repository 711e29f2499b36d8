// l2_flush.h: empties the L2 cache of the input before a timed run.
//
// The flush reads a buffer twice the size of the L2, which evicts everything the L2
// held (the input of the previous run among it). It reads rather than writes: writing
// the buffer (cudaMemset) would leave the L2 full of dirty lines, and the timed kernel
// would then pay for writing them back to DRAM, up to one L2 of extra traffic charged
// to whichever kernel runs next.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "device_buffer.h"

namespace reduction {

class L2Flusher {
 public:
  explicit L2Flusher(std::size_t l2_bytes);
  void flush(cudaStream_t stream);

 private:
  DeviceBuffer<uint4> buffer_;
  DeviceBuffer<unsigned> sink_;
};

}  // namespace reduction
