// rows_internal.h: what the rows harness's own files share and the chapters do not see:
// the size limits of a matrix, the other dimension of the default one, and how a number
// is written in the checks and the report.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace reduction::rows_harness::internal {

constexpr std::size_t kDefaultElements = std::size_t(1) << 26;  // M x K unless given
constexpr std::uint64_t kMaxDimension = std::uint64_t(1) << 40;  // the most rows, columns or elements

// The other dimension of a matrix of about 2^26 elements (rows_cli.cpp).
std::size_t partner_dimension(std::size_t given, std::size_t default_other);

// x as "%.9g", or "nan", "inf", "-inf" (rows_check.cpp).
std::string text(double x);

}  // namespace reduction::rows_harness::internal
