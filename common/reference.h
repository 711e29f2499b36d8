// reference.h: the CPU reference every GPU result is checked against, and the
// tolerance a floating-point result must meet.
//
// Integers are summed exactly in int64; the GPU's int result must equal it.
// Floats and doubles are summed in double with Neumaier's compensated summation
// (chunked over all CPU cores, chunk results combined the same way), which is
// accurate to a few units in the last place of a double: far below any float error.
// max and min are exact in any order, so their results must match exactly.
//
// The float tolerance (Higham, "Accuracy and Stability of Numerical Algorithms",
// section 4.2): if every input value takes part in at most L floating-point
// additions on its way to the result (L is the "chain length" of the summation
// order, which each chapter states for its launch shape), then
//
//     |computed - exact| <= gamma(L) * sum(|x_i|),   gamma(L) = L*u / (1 - L*u),
//
// where u is the unit roundoff of the accumulating type (2^-24 for float, 2^-53 for
// double). We add u*|exact| for the final rounding of the result to its type, and
// 4*u_double*sum(|x_i|) for the error of the reference itself. When L*u >= 1 there
// is no bound at all: the result cannot be verified and is reported as wrong.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "input.h"
#include "op.h"
#include "parallel.h"

namespace reduction {

const char* op_name(Op op);  // "sum", "max", "min"

struct Reference {
  Op op = Op::Sum;
  DType type = DType::Int;
  std::size_t n = 0;
  double value = 0;            // the exact (or compensated) result, as a double
  long long int_value = 0;     // exact, for int inputs
  double sum_abs = 0;          // sum of |x_i|, for the float error bound
};

template <typename T>
Reference cpu_reference(const T* values, std::size_t n, Op op = Op::Sum);

// The same for values that are produced on the fly by get(i), i in [0, n), instead of
// stored (chapter 11 reduces arrays larger than host memory would like).
template <typename T, typename Get>
Reference reference_of(std::size_t n, Op op, Get get);

// The reference of two disjoint parts of one array, from the references of the parts.
Reference combine(const Reference& a, const Reference& b);

// Unit roundoff of an accumulating type: half the distance from 1 to the next value.
template <typename T>
constexpr double unit_roundoff() { return sizeof(T) == 4 ? 0x1.0p-24 : 0x1.0p-53; }

// The bound above; +infinity when L*u >= 1 (no bound exists).
double sum_error_bound(double u_accumulate, double u_result, std::size_t chain_length, double sum_abs,
                       double exact);

struct Verdict {
  bool ok = false;
  double error = 0;      // |result - reference|
  double tolerance = 0;  // 0 for exact checks
  std::string note;      // why a result is not ok, when there is more to say than the numbers
};

// Checks a result of type T computed with additions in T along chains of length L.
template <typename T>
Verdict verify(T result, const Reference& ref, std::size_t chain_length);

namespace detail {

// Neumaier's variant of Kahan summation: c collects the low-order bits that each
// addition to s rounds away, whichever of the two operands is larger.
struct Compensated {
  double s = 0, c = 0;
  void add(double x) {
    const double t = s + x;
    c += std::fabs(s) >= std::fabs(x) ? (s - t) + x : (x - t) + s;
    s = t;
  }
  double value() const { return s + c; }
};

}  // namespace detail

template <typename T, typename Get>
Reference reference_of(std::size_t n, Op op, Get get) {
  Reference ref;
  ref.op = op;
  ref.type = dtype_of<T>();
  ref.n = n;
  if (op != Op::Sum) {
    const bool is_max = op == Op::Max;
    T best = is_max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
    std::mutex lock;
    parallel_chunks(n, [&](unsigned, std::size_t begin, std::size_t end) {
      T local = best;
      for (std::size_t i = begin; i < end; ++i) local = is_max ? std::max(local, get(i)) : std::min(local, get(i));
      std::lock_guard<std::mutex> guard(lock);
      best = is_max ? std::max(best, local) : std::min(best, local);
    });
    ref.value = static_cast<double>(best);
    ref.int_value = std::is_same_v<T, int> ? static_cast<long long>(best) : 0;
    return ref;
  }
  const unsigned threads = cpu_threads();
  std::vector<detail::Compensated> sums(threads);
  std::vector<long long> int_sums(threads, 0);
  std::vector<double> abs_sums(threads, 0.0);
  parallel_chunks(n, [&](unsigned t, std::size_t begin, std::size_t end) {
    if constexpr (std::is_same_v<T, int>) {
      long long s = 0, a = 0;
      for (std::size_t i = begin; i < end; ++i) {
        const long long v = get(i);
        s += v;
        a += v < 0 ? -v : v;
      }
      int_sums[t] = s;
      abs_sums[t] = static_cast<double>(a);
    } else {
      detail::Compensated s, a;
      for (std::size_t i = begin; i < end; ++i) {
        const double v = static_cast<double>(get(i));
        s.add(v);
        a.add(std::fabs(v));
      }
      sums[t] = s;
      abs_sums[t] = a.value();
    }
  }, threads);
  detail::Compensated total, total_abs;
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

}  // namespace reduction
