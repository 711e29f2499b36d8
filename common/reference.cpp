#include "reference.h"

#include <climits>
#include <cmath>
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
Reference cpu_reference(const T* values, std::size_t n, Op op) {
  return reference_of<T>(n, op, [values](std::size_t i) { return values[i]; });
}

Reference combine(const Reference& a, const Reference& b) {
  Reference r = a;
  r.n = a.n + b.n;
  if (a.op == Op::Sum) {
    detail::Compensated total;
    total.add(a.value);
    total.add(b.value);
    r.value = total.value();
    r.int_value = a.int_value + b.int_value;
    r.sum_abs = a.sum_abs + b.sum_abs;
  } else {
    const bool take_b = a.op == Op::Max ? b.value > a.value : b.value < a.value;
    if (take_b) {
      r.value = b.value;
      r.int_value = b.int_value;
    }
  }
  return r;
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
  Verdict v;
  if constexpr (std::is_same_v<T, int>) {
    v.error = std::fabs(static_cast<double>(result) - static_cast<double>(ref.int_value));
    v.ok = static_cast<long long>(result) == ref.int_value;
    if (ref.int_value > INT_MAX || ref.int_value < INT_MIN) {
      v.ok = false;
      v.note = "the exact " + std::string(op_name(ref.op)) + " " + std::to_string(ref.int_value) +
               " does not fit in a 32-bit int, so the int result overflowed; use --type double";
    }
    return v;
  } else {
    const double r = static_cast<double>(result);
    v.error = std::fabs(r - ref.value);
    if (!std::isfinite(ref.value)) {
      v.note = "the reference is not finite (the input holds inf or NaN)";
      return v;
    }
    if (std::isnan(r)) {
      v.error = std::numeric_limits<double>::infinity();
      v.note = "the result is NaN (an unwritten or poisoned output?)";
      return v;
    }
    if (ref.op != Op::Sum) {
      v.ok = r == ref.value;
      return v;
    }
    v.tolerance = sum_error_bound(unit_roundoff<T>(), unit_roundoff<T>(), chain_length, ref.sum_abs, ref.value);
    if (std::isinf(v.tolerance)) {
      v.note = "no error bound: chain length " + std::to_string(chain_length) +
               " times the unit roundoff reaches 1 (too few threads for this N in this type)";
      return v;
    }
    v.ok = v.error <= v.tolerance;
    return v;
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
