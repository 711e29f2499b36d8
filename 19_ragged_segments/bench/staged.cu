// The copy unit again with every tile of ends staged and walked (RAGGED_SEGMENTS_WITHOUT 1: no tile of ends
// reduced from registers; for 2-byte inputs, ArgMax and MeanVar the unit itself), in a namespace of its own, so
// that bench.cu times it in turns with the unit itself: what the register path buys alone, in the README's step table.
#define RAGGED_SEGMENTS_WITHOUT 1
#define ragged_segments ragged_segments_staged
#include "../ragged_segments.cu"
#undef ragged_segments
#define BENCH_VARIANT_UNIT ragged_segments_staged
#define BENCH_VARIANT_FUNCTION reduce_staged
#include "variant.inc"
