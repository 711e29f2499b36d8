#include "cpu_sums.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <type_traits>

#include "harness.h"
#include "launch_rules.h"
#include "parallel.h"
#include "reference.h"
#include "timer.h"

namespace cpu_baseline {

using reduction::ceil_div;

namespace {
// The type a careful CPU sum accumulates in.
template <typename T> using Wide = std::conditional_t<std::is_same_v<T, int>, long long, double>;
}  // namespace

template <typename T>
T loop_sum(const T* x, std::size_t n) {
  T sum = T(0);
  for (std::size_t i = 0; i < n; ++i) sum += x[i];
  return sum;
}

// [snippet:halving_sum]
template <typename T>
T halving_sum(T* x, std::size_t n) {
  if (n == 0) return T(0);
  for (std::size_t length = n; length > 1;) {
    const std::size_t upper = (length + 1) / 2;  // start of the upper half; x[length/2] stays when odd
    for (std::size_t i = 0; i < length / 2; ++i) x[i] += x[i + upper];
    length = upper;
  }
  return x[0];
}
// [/snippet:halving_sum]

// [snippet:compensated_sum]
template <typename T>
T compensated_sum(const T* x, std::size_t n) {
  if constexpr (std::is_same_v<T, int>) {
    long long sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += x[i];
    return static_cast<T>(sum);
  } else {
    double sum = 0, lost = 0;  // Neumaier: `lost` keeps the low bits each addition drops
    for (std::size_t i = 0; i < n; ++i) {
      const double value = x[i], t = sum + value;
      lost += std::fabs(sum) >= std::fabs(value) ? (sum - t) + value : (value - t) + sum;
      sum = t;
    }
    return static_cast<T>(std::isfinite(sum) ? sum + lost : sum);  // past an inf or NaN, `lost` is NaN
  }
}
// [/snippet:compensated_sum]

template <typename T>
T threaded_sum(const T* x, std::size_t n) {
  std::vector<Wide<T>> partial(reduction::cpu_threads(), 0);
  // The threads come from common/parallel.h's pool, started once per process (by the
  // untimed warm-up in run_methods), so the timed runs do not pay for starting them.
  reduction::parallel_chunks(n, [&](unsigned t, std::size_t begin, std::size_t end) {
    Wide<T> sum = 0;
    for (std::size_t i = begin; i < end; ++i) sum += x[i];
    partial[t] = sum;
  });
  Wide<T> total = 0;
  for (Wide<T> p : partial) total += p;
  return static_cast<T>(total);
}

template <typename T>
std::vector<MethodResult> run_methods(const std::vector<T>& x, int reps, bool threaded_only) {
  const std::size_t n = x.size();
  const reduction::Reference ref = reduction::cpu_reference(x.data(), n);
  const double u_t = reduction::unit_roundoff<T>(), u_d = reduction::unit_roundoff<double>();
  const std::size_t threads = reduction::cpu_threads();
  struct Method {
    const char* name;
    double u_accumulate;  // unit roundoff of the accumulator (0: exact integers)
    std::size_t chain;    // additions along the longest chain
    bool destroys_input;
    T (*sum)(T*, std::size_t);
  };
  const Method methods[] = {
      {"loop in the input type", u_t, n > 0 ? n - 1 : 0, false, [](T* values, std::size_t k) { return loop_sum(values, k); }},
      {"recursive halving", u_t, reduction::ceil_log2(n), true, [](T* values, std::size_t k) { return halving_sum(values, k); }},
      {"compensated (reference)", 2 * u_d * u_d, n, false, [](T* values, std::size_t k) { return compensated_sum(values, k); }},
      {"threaded, wide accumulator", u_d, ceil_div(n, threads) + threads, false,
       [](T* values, std::size_t k) { return threaded_sum(values, k); }},
  };
  std::vector<MethodResult> results;
  std::vector<T> scratch;
  for (const Method& method : methods) {
    if (threaded_only && &method != &methods[3]) continue;
    std::vector<double> times;
    T value{};
    for (int r = -1; r < reps; ++r) {  // r = -1: the warm-up (starts the thread pool), not timed
      T* data = const_cast<T*>(x.data());
      if (method.destroys_input) {  // work on a copy, made outside the timed region
        scratch = x;
        data = scratch.data();
      }
      reduction::CpuTimer timer;
      timer.start();
      value = method.sum(data, n);
      if (r >= 0) times.push_back(timer.elapsed_ms());
    }
    MethodResult m;
    m.name = method.name;
    m.value = static_cast<double>(value);
    m.value_text = reduction::format_value(value);
    const reduction::Spread spread = reduction::summarize(times);
    m.median_ms = spread.median;
    m.min_ms = spread.min;
    m.iqr_ms = spread.iqr;
    m.gbps = m.median_ms > 0 ? n * sizeof(T) / (m.median_ms * 1e-3) / 1e9 : 0;
    if constexpr (std::is_same_v<T, int>) {
      const reduction::Verdict verdict = reduction::verify(value, ref, method.chain);
      m.error = verdict.error;
      m.ok = verdict.ok;
    } else {
      m.error = std::fabs(m.value - ref.value);
      m.tolerance = reduction::sum_error_bound(method.u_accumulate, u_t, method.chain, ref.sum_abs, ref.value);
      m.bounded = std::isfinite(m.tolerance);
      m.ok = m.bounded && m.error <= m.tolerance;
      if (!std::isfinite(m.value) || !std::isfinite(ref.value)) {  // NaN and inf: the rule of reference.h
        m.ok = reduction::same_non_finite(m.value, ref.value);
        m.error = m.ok ? 0.0 : std::numeric_limits<double>::infinity();
      }
    }
    results.push_back(m);
  }
  return results;
}

namespace {

template <typename T>
int run_typed(const reduction::Options& options) {
  std::string converted_from;
  const std::vector<T> x = reduction::make_input<T>(options, "00_cpu_baseline", &converted_from);
  const std::size_t n = x.size();
  const reduction::Reference ref = reduction::cpu_reference(x.data(), n);
  const std::string ref_text = reduction::expected_text(ref);
  std::string notes;  // NaN and inf in the input, an int sum that overflows
  for (const std::string& note : {reduction::non_finite_note(ref), reduction::overflow_note(ref)}) {
    if (!note.empty()) notes += (notes.empty() ? "" : "; ") + note;
  }
  const std::vector<MethodResult> results = run_methods(x, options.reps);
  bool all_ok = true;
  for (const auto& m : results) all_ok = all_ok && (m.ok || !m.bounded);
  const MethodResult& fastest = results.back();

  if (options.json) {
    std::printf("{\"chapter\": \"00_cpu_baseline\", \"type\": \"%s\", \"n\": %zu, \"result\": %s, \"reference\": %s, "
                "\"ok\": %s, \"note\": \"%s\", \"non_finite\": %s, \"ms\": %.6f, \"gbps\": %.3f, "
                "\"peak_gbps\": null, \"threads\": %u, \"reps\": %d, \"seed\": %llu, \"methods\": [",
                reduction::dtype_name(options.type), n, reduction::json_number(fastest.value_text).c_str(),
                reduction::json_number(ref_text).c_str(), all_ok ? "true" : "false",
                reduction::json_escape(notes).c_str(), reduction::json_non_finite(ref).c_str(), fastest.median_ms,
                fastest.gbps, reduction::cpu_threads(), options.reps, static_cast<unsigned long long>(options.seed));
    for (std::size_t i = 0; i < results.size(); ++i) {
      const auto& m = results[i];
      std::printf("%s{\"name\": \"%s\", \"result\": %s, \"error\": %s, \"tolerance\": %s, \"ok\": %s, "
                  "\"ms\": %.6f, \"min_ms\": %.6f, \"iqr_ms\": %.6f, \"gbps\": %.3f}",
                  i ? ", " : "", m.name.c_str(), reduction::json_number(m.value_text).c_str(),
                  reduction::json_number(reduction::format_value(m.error)).c_str(),
                  m.bounded ? reduction::json_number(reduction::format_value(m.tolerance)).c_str() : "null",
                  m.ok ? "true" : "false", m.median_ms, m.min_ms, m.iqr_ms, m.gbps);
    }
    std::printf("]}\n");
    return all_ok ? 0 : 1;
  }
  std::printf("00_cpu_baseline: CPU sums, the reference and the number to beat\n");
  std::printf("input      %s\n", reduction::describe_input(options, n, converted_from).c_str());
  std::printf("reference  %s\n", ref_text.c_str());
  if (!notes.empty()) std::printf("note       %s\n", notes.c_str());
  std::printf("\n");
  std::printf("%-28s %22s %12s %12s %10s %8s  %s\n", "method", "result", "error", "bound", "ms", "GB/s", "check");
  for (const auto& m : results) {
    char bound[32];
    if (!m.bounded) std::snprintf(bound, sizeof bound, "none");
    else std::snprintf(bound, sizeof bound, "%.3g", m.tolerance);
    std::printf("%-28s %22s %12.3g %12s %10s %8.2f  %s\n", m.name.c_str(), m.value_text.c_str(), m.error, bound,
                reduction::format_ms(m.median_ms).c_str(), m.gbps,
                m.ok ? "ok" : (m.bounded ? "WRONG" : "no guarantee"));
  }
  std::printf("\nmedian of %d runs after an untimed warm-up; %u threads for the threaded sum.\n\"no guarantee\": "
              "n * u >= 1, so the float loop's error bound exceeds the sum itself\n(see README: the "
              "accumulator stalls at 2^24).\n",
              options.reps, reduction::cpu_threads());
  return all_ok ? 0 : 1;
}

}  // namespace

int run(int argc, char** argv) {
  reduction::CliSpec spec;
  spec.program = "00_cpu_baseline";
  spec.gpu = false;
  try {
    const reduction::Options options = reduction::parse_options(spec, argc, argv);
    if (options.help) {
      std::printf("00_cpu_baseline: CPU sums, the reference and the number to beat\n\n%s",
                  reduction::usage(spec).c_str());
      return 0;
    }
    switch (options.type) {
      case reduction::DType::Int: return run_typed<int>(options);
      case reduction::DType::Float: return run_typed<float>(options);
      case reduction::DType::Double: return run_typed<double>(options);
    }
  } catch (const std::exception& error) {
    return reduction::report_exception(spec.program, error);
  }
  return 3;
}

#define CPU_BASELINE_INSTANTIATE(T)                                           \
  template T loop_sum<T>(const T*, std::size_t);                             \
  template T halving_sum<T>(T*, std::size_t);                                \
  template T compensated_sum<T>(const T*, std::size_t);                      \
  template T threaded_sum<T>(const T*, std::size_t);                         \
  template std::vector<MethodResult> run_methods<T>(const std::vector<T>&, int, bool);
CPU_BASELINE_INSTANTIATE(int)
CPU_BASELINE_INSTANTIATE(float)
CPU_BASELINE_INSTANTIATE(double)
#undef CPU_BASELINE_INSTANTIATE

}  // namespace cpu_baseline
