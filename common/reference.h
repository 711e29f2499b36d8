// reference.h: the CPU reference every GPU result is checked against, and the
// tolerance a floating-point result must meet.
//
// Integers are summed exactly in int64. An int result must equal that sum modulo 2^32:
// two's-complement int addition wraps, in any order, to exactly that value, so a sum
// that overflows int is still checked (and the report says that it overflowed).
// Floats and doubles are summed in double with Neumaier's compensated summation
// (chunked over all CPU cores, chunk results combined the same way), which is
// accurate to a few units in the last place of a double: far below any float error.
// max and min are exact in any order, so their results must match exactly.
//
// Non-finite inputs (the rule, as NumPy applies it; 09's operators and CUB in 10 must
// follow it too): a sum holding a NaN, or both +inf and -inf, is NaN; one holding +inf
// (-inf) and neither NaN nor -inf (+inf) is +inf (-inf). max and min propagate NaN
// (numpy.max, not numpy.nanmax): one NaN makes the result NaN; +-inf are ordinary
// values, so the identities of max and min are -inf and +inf (the max of {-inf} is
// -inf, not the lowest finite float). A result is then right when it is the same NaN
// or infinity.
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
#include <string>
#include <type_traits>
#include <vector>

#include "input.h"
#include "op.h"
#include "parallel.h"

namespace reduction {

const char* op_name(Op op);  // "sum", "max", "min"

// A value as the reports print it: exactly in its own type (%d, %.9g, %.17g), and
// "nan", "inf" or "-inf" for the non-finite ones (whatever the sign bit of a NaN).
template <typename T> std::string format_value(T value);

struct Reference {
  Op op = Op::Sum;
  DType type = DType::Int;
  std::size_t n = 0;
  double value = 0;            // the exact (or compensated) result, as a double
  long long int_value = 0;     // exact, for int inputs
  double sum_abs = 0;          // sum of |x_i| over the finite x_i, for the float error bound
  std::size_t nans = 0, pos_infs = 0, neg_infs = 0;  // the non-finite inputs (float, double)

  bool non_finite() const { return nans + pos_infs + neg_infs > 0; }
  // An int sum past the int range: the result is checked against int_value modulo 2^32.
  bool overflows_int() const;
  // What an int result must equal: int_value wrapped to 32 bits.
  int wrapped_int() const { return static_cast<int>(static_cast<std::uint32_t>(int_value)); }
};

template <typename T>
Reference cpu_reference(const T* values, std::size_t n, Op op = Op::Sum);

// The same for values that are produced on the fly by get(i), i in [0, n), instead of
// stored (chapter 11 reduces arrays larger than host memory would like).
template <typename T, typename Get>
Reference reference_of(std::size_t n, Op op, Get get);

// The reference of two disjoint parts of one array, from the references of the parts.
Reference combine(const Reference& a, const Reference& b);

// What a result must equal, as the reports print it (for an int sum past the int
// range, the exact sum modulo 2^32).
std::string expected_text(const Reference& ref);

// One line each for the report, "" when there is nothing to say: how many NaN and inf
// the input holds and what they make the result; that an int sum overflows, its true
// value, and how to get it.
std::string non_finite_note(const Reference& ref);
std::string overflow_note(const Reference& ref);

// Unit roundoff of an accumulating type: half the distance from 1 to the next value.
template <typename T>
constexpr double unit_roundoff() { return sizeof(T) == 4 ? 0x1.0p-24 : 0x1.0p-53; }

// The bound above; +infinity when L*u >= 1 (no bound exists).
double sum_error_bound(double u_accumulate, double u_result, std::size_t chain_length, double sum_abs,
                       double exact);

// Whether two values of which at least one is not finite agree: both NaN, or the same
// infinity.
inline bool same_non_finite(double a, double b) { return std::isnan(a) ? std::isnan(b) : a == b; }

struct Verdict {
  bool ok = false;
  double error = 0;      // |result - reference|; +inf when a NaN or inf does not match
  double tolerance = 0;  // 0 for exact checks
  std::string note;      // what the numbers do not say: why a result is wrong, or that it overflowed
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

// Sets ref.value from the non-finite counts where the rule at the top decides it.
void apply_non_finite_rule(Reference& ref);

}  // namespace detail

template <typename T, typename Get>
Reference reference_of(std::size_t n, Op op, Get get) {
  Reference ref;
  ref.op = op;
  ref.type = dtype_of<T>();
  ref.n = n;
  const bool is_max = op == Op::Max;
  // Where max and min start, and what an empty input gives: -inf and +inf for floats
  // (so that the max of {-inf} is -inf), INT_MIN and INT_MAX for ints.
  using limits = std::numeric_limits<T>;
  const T identity = limits::has_infinity ? (is_max ? -limits::infinity() : limits::infinity())
                                          : (is_max ? limits::lowest() : limits::max());
  // One thread's share: NaN and inf are counted apart and kept out of the sums.
  struct Part {
    long long int_sum = 0, int_abs = 0;
    detail::Compensated sum, abs_sum;
    T best{};
    std::size_t nans = 0, pos_infs = 0, neg_infs = 0;
  };
  Part empty;
  empty.best = identity;
  const unsigned threads = cpu_threads();
  std::vector<Part> parts(threads, empty);
  parallel_chunks(n, [&](unsigned t, std::size_t begin, std::size_t end) {
    Part p = empty;
    for (std::size_t i = begin; i < end; ++i) {
      const T v = get(i);
      if constexpr (!std::is_same_v<T, int>) {
        if (std::isnan(v)) {
          ++p.nans;
          continue;
        }
        if (std::isinf(v)) ++(v > 0 ? p.pos_infs : p.neg_infs);
      }
      if (op != Op::Sum) {
        p.best = is_max ? std::max(p.best, v) : std::min(p.best, v);
      } else if constexpr (std::is_same_v<T, int>) {
        p.int_sum += v;
        p.int_abs += v < 0 ? -static_cast<long long>(v) : v;
      } else if (std::isfinite(v)) {
        p.sum.add(v);
        p.abs_sum.add(std::fabs(v));
      }
    }
    parts[t] = p;
  }, threads);
  detail::Compensated total, total_abs;
  T best = identity;
  for (const Part& p : parts) {
    total.add(p.sum.s);
    total.add(p.sum.c);
    total_abs.add(p.abs_sum.value() + static_cast<double>(p.int_abs));
    ref.int_value += p.int_sum;
    best = is_max ? std::max(best, p.best) : std::min(best, p.best);
    ref.nans += p.nans;
    ref.pos_infs += p.pos_infs;
    ref.neg_infs += p.neg_infs;
  }
  if (op != Op::Sum) {
    ref.value = static_cast<double>(best);
    ref.int_value = std::is_same_v<T, int> ? static_cast<long long>(best) : 0;
  } else {
    ref.sum_abs = total_abs.value();
    ref.value = std::is_same_v<T, int> ? static_cast<double>(ref.int_value) : total.value();
  }
  detail::apply_non_finite_rule(ref);
  return ref;
}

}  // namespace reduction
