// op.h: the operators a reduction can apply (host side: names and parsing live in
// reference.cpp and cli.cpp; the device functors are in ops.cuh).
#pragma once

namespace reduction {

enum class Op { Sum, Max, Min };

}  // namespace reduction
