// rows_check.h: the check of one row, the piece of check_rows (rows_harness.h) that works
// on a row of any length: the CPU reference of the row in double, and the verdict on the
// result the device wrote for it. For rows that are not one matrix's, such as segments of
// different lengths. rows_check.cpp holds them, with the bounds for mean and variance.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "reference.h"
#include "rows_harness.h"

namespace reduction::rows_harness {

// What an operator's check needs to know about one row, in double: how many NaNs and
// infinities it holds, the compensated sums of its finite values and of their magnitudes,
// its max (NaN if it holds one), its argmax, its largest finite |x| and, for MeanVar, its
// mean and M2 (the sum of the squared deviations from the mean).
struct RowFacts {
  std::size_t nans = 0, pos_infs = 0, neg_infs = 0;
  detail::Compensated sum, sum_abs;
  float max = -std::numeric_limits<float>::infinity();
  std::int64_t argmax = -1;  // the first NaN, else the first largest value; -1 for K = 0
  float argmax_value = -std::numeric_limits<float>::infinity();
  double max_abs = 0;
  double mean = 0, m2 = 0;
};

// The facts of the `cols` values from x (the elements as float, as HostMatrix::values
// holds them) for `op`.
RowFacts facts_of(const float* x, std::size_t cols, RowOp op);

// The verdict on one row: ok, the error over its tolerance (0 for exact checks), the
// result and the reference as text, and why it is wrong when it is.
struct RowVerdict {
  bool ok = true;
  double ratio = 0;  // error / tolerance
  std::string result, reference, why;
};

// One row's result (result_bytes(op) bytes, as the device wrote them) against the facts
// of its `cols` values, every element passing through at most `depth` combining steps.
// The float bounds: reference.h's sum_error_bound for sums (chains of `depth` additions in
// float), mean_error_bound and variance_error_bound (rows_check.cpp derives them) for mean
// and variance, each plus the reference's own error; max and argmax must match exactly.
RowVerdict verdict_of(const RowFacts& f, std::size_t cols, RowOp op, const unsigned char* result, std::size_t depth);

}  // namespace reduction::rows_harness
