// read_floor.h: the tour's read-only floor row (read_floor.cu).
#pragma once

#include "chapter.h"

namespace reduction {

constexpr const char* kReadFloor = "read-only floor";

// A Variant whose launcher only reads the input: time it, never check its result.
Variant read_floor_variant();

}  // namespace reduction
