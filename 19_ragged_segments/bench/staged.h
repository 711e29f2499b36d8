// bench/staged.cu: 19's copy unit with every tile staged, for the bench's step table.
#pragma once

#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>

namespace bench_staged {

enum class Operator { Sum, Max, ArgMax, MeanVar };

// As ragged_segments::reduce_segments with int32 offsets, float (bf16 false) or bf16 input, on stream 0.
cudaError_t reduce(Operator op, bool bf16, const void* input, std::size_t n, const std::int32_t* offsets,
                   std::size_t segments, void* output, void* scratch, std::size_t scratch_bytes);

}  // namespace bench_staged
