#include "reference.h"

#include <climits>
#include <cmath>
#include <cstdio>
#include <limits>
#include <type_traits>

namespace reduction {

const char* op_name(Op op) {
  switch (op) {
    case Op::Sum: return "sum";
    case Op::Max: return "max";
    case Op::Min: return "min";
  }
  return "?";
}

template <typename T>
std::string format_value(T value) {
  if constexpr (!std::is_same_v<T, int>) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  }
  char text[64];
  if constexpr (std::is_same_v<T, int>) std::snprintf(text, sizeof text, "%d", value);
  else if constexpr (std::is_same_v<T, float>) std::snprintf(text, sizeof text, "%.9g", value);
  else std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}
template std::string format_value<int>(int);
template std::string format_value<float>(float);
template std::string format_value<double>(double);

bool Reference::overflows_int() const {
  return type == DType::Int && op == Op::Sum && (int_value > INT_MAX || int_value < INT_MIN);
}

template <typename T>
Reference cpu_reference(const T* values, std::size_t n, Op op) {
  return reference_of<T>(n, op, [values](std::size_t i) { return values[i]; });
}

namespace detail {

void apply_non_finite_rule(Reference& ref) {
  const bool sum = ref.op == Op::Sum;
  if (ref.nans || (sum && ref.pos_infs && ref.neg_infs)) ref.value = std::numeric_limits<double>::quiet_NaN();
  else if (sum && ref.pos_infs) ref.value = std::numeric_limits<double>::infinity();
  else if (sum && ref.neg_infs) ref.value = -std::numeric_limits<double>::infinity();
}

}  // namespace detail

Reference combine(const Reference& a, const Reference& b) {
  Reference combined = a;
  combined.n = a.n + b.n;
  combined.nans = a.nans + b.nans;
  combined.pos_infs = a.pos_infs + b.pos_infs;
  combined.neg_infs = a.neg_infs + b.neg_infs;
  if (a.op == Op::Sum) {
    detail::Compensated total;
    total.add(a.value);
    total.add(b.value);
    combined.value = total.value();
    combined.int_value = a.int_value + b.int_value;
    combined.sum_abs = a.sum_abs + b.sum_abs;
  } else {
    const bool take_b = a.op == Op::Max ? b.value > a.value : b.value < a.value;
    if (take_b) {
      combined.value = b.value;
      combined.int_value = b.int_value;
    }
  }
  detail::apply_non_finite_rule(combined);  // decides wherever a part held a NaN or an inf
  return combined;
}

std::string expected_text(const Reference& ref) {
  return ref.type == DType::Int ? std::to_string(ref.wrapped_int()) : format_value(ref.value);
}

std::string non_finite_note(const Reference& ref) {
  if (!ref.non_finite()) return "";
  std::string counts;
  auto count = [&](std::size_t k, const char* what) {
    if (k) counts += (counts.empty() ? "" : ", ") + std::to_string(k) + " " + what;
  };
  count(ref.nans, "NaN");
  count(ref.pos_infs, "+inf");
  count(ref.neg_infs, "-inf");
  return "the input holds " + counts + ", so its " + op_name(ref.op) + " is " + format_value(ref.value) +
         " (as in NumPy: NaN propagates, +inf with -inf gives NaN)";
}

std::string overflow_note(const Reference& ref) {
  if (!ref.overflows_int()) return "";
  return "the true sum " + std::to_string(ref.int_value) + " overflows int: int addition wraps it to " +
         std::to_string(ref.wrapped_int()) + " (checked against that); for the true sum accumulate in a " +
         "64-bit type, or run with --type double";
}

double sum_error_bound(double u_accumulate, double u_result, std::size_t chain_length, double sum_abs,
                       double exact) {
  const double lu = static_cast<double>(chain_length) * u_accumulate;
  if (lu >= 1.0) return std::numeric_limits<double>::infinity();
  const double gamma = lu / (1.0 - lu);
  return gamma * sum_abs + u_result * std::fabs(exact) + 4.0 * 0x1.0p-53 * sum_abs;
}

template <typename T>
Verdict verify(T result, const Reference& ref, std::size_t chain_length) {
  Verdict verdict;
  if constexpr (std::is_same_v<T, int>) {
    const int expected = ref.wrapped_int();  // int_value itself wherever it fits
    verdict.error = std::fabs(static_cast<double>(result) - static_cast<double>(expected));
    verdict.ok = result == expected;
    verdict.note = overflow_note(ref);
    return verdict;
  } else {
    const double combined = static_cast<double>(result);
    if (!std::isfinite(combined) || !std::isfinite(ref.value)) {
      verdict.ok = same_non_finite(combined, ref.value);
      verdict.error = verdict.ok ? 0.0 : std::numeric_limits<double>::infinity();
      if (verdict.ok) return verdict;
      if (ref.non_finite()) {
        verdict.note = non_finite_note(ref) + ", not " + format_value(result);
      } else if (ref.n == 0) {
        verdict.note = std::string("the ") + op_name(ref.op) + " of no values is its identity, " + format_value(ref.value) +
                 ", not " + format_value(result);
      } else if (!std::isfinite(combined)) {
        verdict.note = "the result is " + format_value(result) + " but every input is finite" +
                 (std::isnan(combined) ? " (an unwritten or poisoned output?)" : " (the sum overflowed the type?)");
      }
      return verdict;
    }
    verdict.error = std::fabs(combined - ref.value);
    if (ref.op != Op::Sum) {
      verdict.ok = combined == ref.value;
      return verdict;
    }
    verdict.tolerance = sum_error_bound(unit_roundoff<T>(), unit_roundoff<T>(), chain_length, ref.sum_abs, ref.value);
    if (std::isinf(verdict.tolerance)) {
      verdict.note = "no error bound: chain length " + std::to_string(chain_length) +
               " times the unit roundoff reaches 1 (too few threads for this N in this type)";
      return verdict;
    }
    verdict.ok = verdict.error <= verdict.tolerance;
    return verdict;
  }
}

#define REDUCTION_INSTANTIATE(T)                                                  \
  template Reference cpu_reference<T>(const T*, std::size_t, Op);                \
  template Verdict verify<T>(T, const Reference&, std::size_t);
REDUCTION_INSTANTIATE(int)
REDUCTION_INSTANTIATE(float)
REDUCTION_INSTANTIATE(double)
#undef REDUCTION_INSTANTIATE

}  // namespace reduction
