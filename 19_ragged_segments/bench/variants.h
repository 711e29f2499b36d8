// bench/variants.h: 19's copy unit compiled again without one of its changes, for the bench's step table:
// staged.cu without the register path (every tile of ends staged), tile_per_block.cu without ranges (a block per tile),
// binary_search.cu without the partition's 4-way search (one probe a step); and for docs/tuning.md, three_blocks.cu
// with MeanVar at 3 blocks an SM (8 pieces gathered at a time).
#pragma once

#include <cuda_runtime.h>
#include <cstddef>
#include <cstdint>

namespace bench_variants {

enum class Operator { Sum, Max, ArgMax, MeanVar };

// As ragged_segments::reduce_segments with int32 offsets, float (bf16 false) or bf16 input, on stream 0.
cudaError_t reduce_staged(Operator op, bool bf16, const void* input, std::size_t n, const std::int32_t* offsets,
                          std::size_t segments, void* output, void* scratch, std::size_t scratch_bytes);
cudaError_t reduce_tile_per_block(Operator op, bool bf16, const void* input, std::size_t n,
                                  const std::int32_t* offsets, std::size_t segments, void* output, void* scratch,
                                  std::size_t scratch_bytes);
cudaError_t reduce_binary_search(Operator op, bool bf16, const void* input, std::size_t n,
                                 const std::int32_t* offsets, std::size_t segments, void* output, void* scratch,
                                 std::size_t scratch_bytes);
cudaError_t reduce_three_blocks(Operator op, bool bf16, const void* input, std::size_t n,
                                const std::int32_t* offsets, std::size_t segments, void* output, void* scratch,
                                std::size_t scratch_bytes);

}  // namespace bench_variants
