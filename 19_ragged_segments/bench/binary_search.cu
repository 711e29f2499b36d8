// The copy unit again with a binary search in the partition (RAGGED_SEGMENTS_WITHOUT 3: one probe a step, not 3),
// in a namespace of its own, so that bench.cu times it in turns with the unit itself: what the 4-way search buys
// alone, in the README's step table.
#define RAGGED_SEGMENTS_WITHOUT 3
#define ragged_segments ragged_segments_binary_search
#include "../ragged_segments.cu"
#undef ragged_segments
#define BENCH_VARIANT_UNIT ragged_segments_binary_search
#define BENCH_VARIANT_FUNCTION reduce_binary_search
#include "variant.inc"
