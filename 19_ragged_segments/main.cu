// 19_ragged_segments as a program: the copy unit ragged_segments.cuh/.cu (every segment of a
// ragged array given by CSR offsets, the work cut by merge path) for --method auto and
// merge_path; the harness beside it (harness/segments_harness.h) adds CUB's DeviceSegmentedReduce,
// the distributions of the lengths, the checks, the timing and the report.
#include <cstdint>

#include "ragged_segments.cuh"
#include "segments_harness.h"

namespace {

using namespace reduction::segments_harness;

template <typename In, typename Offset>
cudaError_t launch_typed(RowOp op, const In* input, std::size_t n, const Offset* offsets, std::size_t segments,
                         void* output, void* scratch, std::size_t scratch_bytes, cudaStream_t stream) {
  namespace rs = ragged_segments;
  switch (op) {
    case RowOp::Sum:
      return rs::reduce_segments<In, Offset, rs::Sum>(input, n, offsets, segments, static_cast<float*>(output), scratch,
                                                      scratch_bytes, stream);
    case RowOp::Max:
      return rs::reduce_segments<In, Offset, rs::Max>(input, n, offsets, segments, static_cast<float*>(output), scratch,
                                                      scratch_bytes, stream);
    case RowOp::ArgMax:
      return rs::reduce_segments<In, Offset, rs::ArgMax>(input, n, offsets, segments,
                                                         static_cast<rs::ValueIndex*>(output), scratch, scratch_bytes,
                                                         stream);
    default:
      return rs::reduce_segments<In, Offset, rs::MeanVar>(input, n, offsets, segments,
                                                          static_cast<rs::MeanVariance*>(output), scratch,
                                                          scratch_bytes, stream);
  }
}

cudaError_t launch(ElementType type, RowOp op, const void* input, std::size_t n, const void* offsets, bool wide_offsets,
                   std::size_t segments, void* output, void* scratch, std::size_t scratch_bytes, cudaStream_t stream) {
  return reduction::rows_harness::by_element_type(type, [&](auto tag) {
    using In = typename decltype(tag)::type;
    const In* typed = static_cast<const In*>(input);
    return wide_offsets ? launch_typed(op, typed, n, static_cast<const std::int64_t*>(offsets), segments, output,
                                       scratch, scratch_bytes, stream)
                        : launch_typed(op, typed, n, static_cast<const std::int32_t*>(offsets), segments, output,
                                       scratch, scratch_bytes, stream);
  });
}

cudaError_t temp_bytes_for(ElementType, RowOp, std::size_t n, bool, std::size_t segments, std::size_t* bytes) {
  *bytes = ragged_segments::ragged_temp_bytes(n, segments);
  return cudaSuccess;
}

// The most combining steps an element's state takes to its segment's result: the walk (30),
// the warp's scan (5), the warps' totals (3 + 1), the thread's first closed segment (1), the
// carry from tile to tile in a block's range (8), the tiles of no end (a thread's share 8, its
// warp's 5, the 8 warps' 8), then a cut segment's pieces: a thread's share (ceil(ranges / 256))
// and the block's tree in order (5 + 3), ranges of 8 tiles of 4096 path items
// (tests/test_ragged.cu's ragged_depth explains each term).
std::size_t depth(std::size_t n, std::size_t segments) {
  const std::size_t ranges = (n + segments + 8 * 4096 - 1) / (8 * 4096);
  return 30 + 5 + 3 + 1 + 1 + 8 + 8 + 5 + 8 + (ranges + 255) / 256 + 5 + 3;
}

}  // namespace

namespace reduction {

segments_harness::SegmentsProgram ragged_segments_program() {
  segments_harness::SegmentsProgram program;
  program.id = "19_ragged_segments";
  program.summary = "sum, max, argmax, mean and variance of every segment of a ragged array of float, half or bf16 "
                    "(CSR offsets, any lengths): the work cut by merge path, the same for every block";
  program.merge_path = {launch, temp_bytes_for};
  program.depth = depth;
  return program;
}

}  // namespace reduction

#ifndef REDUCTION_CHAPTER_LIBRARY  // the tests link this file without its main()
int main(int argc, char** argv) {
  return reduction::segments_harness::run_segments_program(reduction::ragged_segments_program(), argc, argv);
}
#endif
