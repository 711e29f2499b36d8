// The copy unit again with a block per tile (RAGGED_SEGMENTS_WITHOUT 2: ranges of one tile, so no tile is
// passed without a barrier), in a namespace of its own, so that bench.cu times it in turns with the unit itself:
// what ranges of 8 tiles buy alone, in the README's step table.
#define RAGGED_SEGMENTS_WITHOUT 2
#define ragged_segments ragged_segments_tile_per_block
#include "../ragged_segments.cu"
#undef ragged_segments
#define BENCH_VARIANT_UNIT ragged_segments_tile_per_block
#define BENCH_VARIANT_FUNCTION reduce_tile_per_block
#include "variant.inc"
