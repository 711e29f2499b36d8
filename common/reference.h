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

#include <cstddef>
#include <cstdint>
#include <string>

#include "input.h"
#include "op.h"

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

}  // namespace reduction
