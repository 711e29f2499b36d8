// The copy unit again with every tile staged and walked (RAGGED_SEGMENTS_STAGED_ONLY: no tile reduced
// from registers), in a namespace of its own, so that bench.cu times it in turns with the unit itself: the
// README's step table ("Each change alone").
#define RAGGED_SEGMENTS_STAGED_ONLY
#define ragged_segments ragged_segments_staged
#include "../ragged_segments.cu"
#undef ragged_segments
#include "staged.h"

namespace bench_staged {

template <typename In>
cudaError_t reduce_typed(Operator op, const In* input, std::size_t n, const std::int32_t* offsets, std::size_t segments,
                         void* output, void* scratch, std::size_t scratch_bytes) {
  namespace rs = ::ragged_segments_staged;
  switch (op) {
    case Operator::Sum:
      return rs::reduce_segments<In, std::int32_t, rs::Sum>(input, n, offsets, segments, static_cast<float*>(output),
                                                            scratch, scratch_bytes);
    case Operator::Max:
      return rs::reduce_segments<In, std::int32_t, rs::Max>(input, n, offsets, segments, static_cast<float*>(output),
                                                            scratch, scratch_bytes);
    case Operator::ArgMax:
      return rs::reduce_segments<In, std::int32_t, rs::ArgMax>(
          input, n, offsets, segments, static_cast<rs::ValueIndex*>(output), scratch, scratch_bytes);
    default:
      return rs::reduce_segments<In, std::int32_t, rs::MeanVar>(
          input, n, offsets, segments, static_cast<rs::MeanVariance*>(output), scratch, scratch_bytes);
  }
}

cudaError_t reduce(Operator op, bool bf16, const void* input, std::size_t n, const std::int32_t* offsets,
                   std::size_t segments, void* output, void* scratch, std::size_t scratch_bytes) {
  return bf16 ? reduce_typed(op, static_cast<const __nv_bfloat16*>(input), n, offsets, segments, output, scratch,
                             scratch_bytes)
              : reduce_typed(op, static_cast<const float*>(input), n, offsets, segments, output, scratch, scratch_bytes);
}

}  // namespace bench_staged
