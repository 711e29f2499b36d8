// op.h: the operators a reduction can apply (names and parsing live in
// reference.cpp and cli.cpp; each chapter with operators defines its own functors).
#pragma once

namespace reduction {

enum class Op { Sum, Max, Min };

}  // namespace reduction
