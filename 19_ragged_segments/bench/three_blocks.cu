// The copy unit again with MeanVar at 3 blocks an SM, gathering 8 pieces at a time (RAGGED_SEGMENTS_WITHOUT 4),
// in a namespace of its own, so that bench.cu times it in turns with the unit itself: what 4 blocks an SM buy
// MeanVar, in docs/tuning.md (the other operators' code is the unit's).
#define RAGGED_SEGMENTS_WITHOUT 4
#define ragged_segments ragged_segments_three_blocks
#include "../ragged_segments.cu"
#undef ragged_segments
#define BENCH_VARIANT_UNIT ragged_segments_three_blocks
#define BENCH_VARIANT_FUNCTION reduce_three_blocks
#include "variant.inc"
