// read_floor.h: the tour's read-only floor row (read_floor.cu).
#pragma once

#include "chapter.h"

namespace reduction {

constexpr const char* kReadFloor = "read-only floor";

// A Variant whose launcher only reads the input: time it, never check its result.
Variant read_floor_variant();

// One full wave of the read-only kernel in blocks of `block` threads (asks the device).
cudaError_t read_floor_wave(int block, int* grid);

}  // namespace reduction
