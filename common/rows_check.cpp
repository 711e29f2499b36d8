// rows_check.cpp: the check of the rows chapters' results: the error bounds for mean and
// variance, the CPU reference of one row in double and the verdict on its result
// (rows_check.h), and check_rows over every row of a matrix (rows_harness.h). Host code,
// compiled without nvcc.
#include "rows_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "parallel.h"
#include "reference.h"
#include "rows_internal.h"

namespace reduction::rows_harness {

using internal::text;

// ---------------------------------------------------------------- the bounds for mean and variance

// [snippet:meanvar_bound]
// The error bound of MeanVar, first order in u = 2^-24 (float), written with
// gamma(k) = k*u / (1 - k*u) so that the higher orders are covered too. D = depth: the
// most merges of (count, mean, M2) on the way from an element (or from a set of up to
// 32 elements, a vector or a trip of four, whose state a thread computes directly) to
// the row's result; A = max |x|.
//   Mean. A merge computes mean_a + (mean_b - mean_a) * w, w = nb / n: a weighted
//   average of its two inputs, so their errors do not grow (the weights add to 1), plus
//   new rounding: at most u*|mean| + 3u*w*|mean_b - mean_a| <= u*A + 6u*A = 7u*A. A
//   set's own mean (a pairwise sum of N <= 32 values, 5 levels at most, times 1/N,
//   exact for N a power of two) is off by at most 5u*A.
//     |mean - exact| <= gamma(5 + 7D) * A = E.
//   M2. A merge adds three non-negative terms, M2a + M2b + delta^2 * na*nb/n: rounding
//   costs at most 8u of the exact node's M2 (each of its terms carries at most 6
//   roundings, and the two additions). The means entering delta are off by at most E
//   each, which changes delta^2 * na*nb/n by at most 4E*|delta|*na*nb/n <= 2E*sqrt(n*M2)
//   (because na*nb/n <= n/4 and delta^2 * na*nb/n <= M2). The nodes at one depth hold
//   disjoint elements, so their M2 add up to at most the row's M2, and by Cauchy-Schwarz
//   their sqrt(n_i * M2_i) to at most sqrt(K * M2). A set's own M2 (the pairwise sum of
//   N <= 32 squared deviations from its computed mean: 3u for each square, 5 levels)
//   is off by 8u <= 10u of itself, plus N * e^2 because it is taken around a mean that
//   is off by e <= 5u*A: at most (gamma(5) * A)^2 on the row's variance (the sets' N add
//   up to at most K). Over D depths, and after M2 / K:
//     |variance - exact| <= gamma(11 + 8D) * variance + 2D * E * sqrt(variance) + (gamma(5) * A)^2.
// (Chan, Golub and LeVeque bound the pairwise algorithm the same way: an error growing
// with the depth of the tree, times the condition number sqrt(1 + mean^2 / variance).)
static double gamma_float(double k) {
  const double ku = k * 0x1.0p-24;
  return ku >= 1.0 ? std::numeric_limits<double>::infinity() : ku / (1.0 - ku);
}

double mean_error_bound(std::size_t depth, double max_abs) {
  return gamma_float(5.0 + 7.0 * double(depth)) * max_abs;
}

double variance_error_bound(std::size_t depth, double max_abs, double variance) {
  const double shift = gamma_float(5.0) * max_abs;  // a set's M2 taken around its computed mean
  return gamma_float(11.0 + 8.0 * double(depth)) * variance +
         2.0 * double(depth) * mean_error_bound(depth, max_abs) * std::sqrt(variance) + shift * shift;
}
// [/snippet:meanvar_bound]

// ---------------------------------------------------------------- the CPU reference of a row, and the checks

namespace {

constexpr double kDoubleU = 0x1.0p-53;

}  // namespace

RowFacts facts_of(const float* x, std::size_t cols, RowOp op) {
  RowFacts f;
  bool seen_nan = false;
  for (std::size_t j = 0; j < cols; ++j) {
    const float v = x[j];
    if (std::isnan(v)) {
      ++f.nans;
      if (!seen_nan) {
        seen_nan = true;
        f.argmax = static_cast<std::int64_t>(j);
        f.argmax_value = v;
      }
      continue;
    }
    if (std::isinf(v)) ++(v > 0 ? f.pos_infs : f.neg_infs);
    if (!seen_nan && (f.argmax < 0 || v > f.argmax_value)) {
      f.argmax = static_cast<std::int64_t>(j);
      f.argmax_value = v;
    }
    f.max = std::max(f.max, v);
    if (std::isfinite(v)) {
      f.sum.add(v);
      f.sum_abs.add(std::fabs(v));
      f.max_abs = std::max(f.max_abs, double(std::fabs(v)));
    }
  }
  if (f.nans) f.max = std::numeric_limits<float>::quiet_NaN();
  if (op == RowOp::MeanVar && cols > 0) {
    f.mean = f.sum.value() / double(cols);
    detail::Compensated m2;
    for (std::size_t j = 0; j < cols; ++j) {
      const double d = double(x[j]) - f.mean;
      m2.add(d * d);
    }
    f.m2 = m2.value();
  }
  return f;
}

namespace internal {

std::string text(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.9g", x);
  return buffer;
}

}  // namespace internal

RowVerdict verdict_of(const RowFacts& f, std::size_t cols, RowOp op, const unsigned char* result, std::size_t depth) {
  RowVerdict v;
  auto tolerance_check = [&](double got, double exact, double tolerance, const char* what) {
    const double error = std::fabs(got - exact);
    if (!std::isfinite(got)) {
      v.ok = false;
      v.why = std::string(what) + " is " + text(got) + " but every input is finite";
    } else if (std::isinf(tolerance)) {
      v.ok = false;
      v.why = std::string("no error bound for ") + what + ": chains of " + std::to_string(depth) + " steps are too long";
    } else if (error > tolerance) {
      v.ok = false;
      v.why = std::string(what) + " off by " + text(error) + ", tolerance " + text(tolerance);
    }
    if (tolerance > 0 && std::isfinite(tolerance)) v.ratio = std::max(v.ratio, error / tolerance);
    else if (error > 0) v.ratio = std::numeric_limits<double>::infinity();
  };
  const bool any_inf = f.pos_infs + f.neg_infs > 0;
  switch (op) {
    case RowOp::Sum: {
      float got = 0;
      std::memcpy(&got, result, 4);
      double exact = f.sum.value();
      if (f.nans || (f.pos_infs && f.neg_infs)) exact = std::numeric_limits<double>::quiet_NaN();
      else if (f.pos_infs) exact = std::numeric_limits<double>::infinity();
      else if (f.neg_infs) exact = -std::numeric_limits<double>::infinity();
      v.result = text(got);
      v.reference = text(exact);
      if (!std::isfinite(exact)) {
        v.ok = same_non_finite(got, exact);
        if (!v.ok) v.why = "the row holds NaN or inf, so its sum is " + text(exact);
      } else {
        tolerance_check(got, exact, sum_error_bound(0x1.0p-24, 0x1.0p-24, depth, f.sum_abs.value(), exact), "the sum");
      }
      break;
    }
    case RowOp::Max: {
      float got = 0;
      std::memcpy(&got, result, 4);
      v.result = text(got);
      v.reference = text(f.max);
      v.ok = std::isnan(f.max) ? std::isnan(got) : got == f.max;
      if (!v.ok) v.why = "max must match exactly";
      break;
    }
    case RowOp::ArgMax: {
      float value = 0;
      std::int32_t index = 0;
      std::memcpy(&value, result, 4);
      std::memcpy(&index, result + 4, 4);
      v.result = text(value) + " at column " + std::to_string(index);
      v.reference = text(f.argmax_value) + " at column " + std::to_string(f.argmax);
      const bool same_value = std::isnan(f.argmax_value) ? std::isnan(value) : value == f.argmax_value;
      v.ok = index == f.argmax && same_value;
      if (!v.ok) v.why = "argmax must match exactly (first column on ties, the first NaN wins)";
      break;
    }
    case RowOp::MeanVar: {
      float mean = 0, variance = 0;
      std::memcpy(&mean, result, 4);
      std::memcpy(&variance, result + 4, 4);
      const double exact_variance = cols ? f.m2 / double(cols) : 0.0;
      v.result = "mean " + text(mean) + ", variance " + text(variance);
      if (cols == 0 || f.nans) {
        v.reference = "mean nan, variance nan";
        v.ok = std::isnan(mean) && std::isnan(variance);
        if (!v.ok) v.why = cols ? "the row holds NaN" : "a row of no columns has no mean";
      } else if (any_inf) {  // as numpy: the mean is the infinity (NaN for both signs), the variance NaN
        const float exact_mean = f.pos_infs && f.neg_infs ? std::numeric_limits<float>::quiet_NaN()
                                 : f.pos_infs             ? std::numeric_limits<float>::infinity()
                                                          : -std::numeric_limits<float>::infinity();
        v.reference = "mean " + text(exact_mean) + ", variance nan";
        v.ok = same_non_finite(mean, exact_mean) && std::isnan(variance);
        if (!v.ok) v.why = "the row holds an infinity";
      } else {
        v.reference = "mean " + text(f.mean) + ", variance " + text(exact_variance);
        // The reference's own error (compensated sums in double) is added to each bound.
        tolerance_check(mean, f.mean, mean_error_bound(depth, f.max_abs) + 4 * kDoubleU * f.max_abs, "the mean");
        if (v.ok) {
          tolerance_check(variance, exact_variance,
                          variance_error_bound(depth, f.max_abs, exact_variance) +
                              (double(cols) + 4) * kDoubleU * exact_variance,
                          "the variance");
        }
      }
      break;
    }
  }
  return v;
}

RowsCheck check_rows(const HostMatrix& matrix, RowOp op, const void* results, std::size_t depth) {
  const std::size_t stride = result_bytes(op);
  const unsigned char* bytes = static_cast<const unsigned char*>(results);
  struct Part {
    std::size_t wrong = 0, first = SIZE_MAX;
    std::string first_text;
    double worst = 0;
  };
  std::vector<Part> parts(cpu_threads());
  parallel_chunks(matrix.rows, [&](unsigned t, std::size_t begin, std::size_t end) {
    Part p;
    for (std::size_t r = begin; r < end; ++r) {
      const RowFacts f = facts_of(matrix.values.data() + r * matrix.cols, matrix.cols, op);
      const RowVerdict v = verdict_of(f, matrix.cols, op, bytes + r * stride, depth);
      p.worst = std::max(p.worst, v.ratio);
      if (!v.ok) {
        if (p.wrong++ == 0) {
          p.first = r;
          p.first_text = "row " + std::to_string(r) + ": " + v.result + ", reference " + v.reference + " (" + v.why + ")";
        }
      }
    }
    parts[t] = p;
  });
  RowsCheck check;
  std::size_t first = SIZE_MAX;
  for (const Part& p : parts) {
    check.wrong_rows += p.wrong;
    check.worst = std::max(check.worst, p.worst);
    if (p.wrong && p.first < first) {
      first = p.first;
      check.first_wrong = p.first_text;
    }
  }
  check.ok = check.wrong_rows == 0;
  if (matrix.rows > 0) {
    const RowVerdict v = verdict_of(facts_of(matrix.values.data(), matrix.cols, op), matrix.cols, op, bytes, depth);
    check.row0_result = v.result;
    check.row0_reference = v.reference;
  }
  return check;
}

}  // namespace reduction::rows_harness
