#include "reference.h"

#include <climits>
#include <cmath>
#include <limits>
#include <mutex>
#include <type_traits>
#include <vector>

#include "parallel.h"

namespace reduction {

const char* op_name(Op op) {
  switch (op) {
    case Op::Sum: return "sum";
    case Op::Max: return "max";
    case Op::Min: return "min";
  }
  return "?";
}

namespace {

// Neumaier's variant of Kahan summation: c collects the low-order bits that each
// addition to s rounds away, whichever of the two operands is larger.
struct Compensated {
  double s = 0, c = 0;
  void add(double x) {
    double t = s + x;
    c += std::fabs(s) >= std::fabs(x) ? (s - t) + x : (x - t) + s;
    s = t;
  }
  double value() const { return s + c; }
};

}  // namespace

template <typename T>
Reference cpu_reference(const T* values, std::size_t n, Op op) {
  Reference ref;
  ref.op = op;
  ref.type = dtype_of<T>();
  ref.n = n;
  if (op != Op::Sum) {
    T best = op == Op::Max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
    std::mutex lock;
    parallel_chunks(n, [&](unsigned, std::size_t begin, std::size_t end) {
      T local = best;
      for (std::size_t i = begin; i < end; ++i) local = op == Op::Max ? std::max(local, values[i]) : std::min(local, values[i]);
      std::lock_guard<std::mutex> guard(lock);
      best = op == Op::Max ? std::max(best, local) : std::min(best, local);
    });
    ref.value = static_cast<double>(best);
    ref.int_value = std::is_same_v<T, int> ? static_cast<long long>(best) : 0;
    return ref;
  }
  const unsigned threads = cpu_threads();
  std::vector<Compensated> sums(threads);
  std::vector<long long> int_sums(threads, 0);
  std::vector<double> abs_sums(threads, 0.0);
  parallel_chunks(n, [&](unsigned t, std::size_t begin, std::size_t end) {
    if constexpr (std::is_same_v<T, int>) {
      long long s = 0, a = 0;
      for (std::size_t i = begin; i < end; ++i) {
        s += values[i];
        a += values[i] < 0 ? -static_cast<long long>(values[i]) : values[i];
      }
      int_sums[t] = s;
      abs_sums[t] = static_cast<double>(a);
    } else {
      Compensated s, a;
      for (std::size_t i = begin; i < end; ++i) {
        s.add(static_cast<double>(values[i]));
        a.add(std::fabs(static_cast<double>(values[i])));
      }
      sums[t] = s;
      abs_sums[t] = a.value();
    }
  }, threads);
  Compensated total, total_abs;
  long long int_total = 0;
  for (unsigned t = 0; t < threads; ++t) {
    total.add(sums[t].s);
    total.add(sums[t].c);
    total_abs.add(abs_sums[t]);
    int_total += int_sums[t];
  }
  ref.sum_abs = total_abs.value();
  if constexpr (std::is_same_v<T, int>) {
    ref.int_value = int_total;
    ref.value = static_cast<double>(int_total);
  } else {
    ref.value = total.value();
  }
  return ref;
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
