// 00_cpu_baseline as a program. The sums are the copy unit (cpu_sums.h/.cpp); this file
// times each of them on the harness's input, checks it against the reference within the
// error bound of its summation order (the chain lengths below), and prints the table.
#include <cmath>
#include <cstdio>
#include <limits>
#include <type_traits>

#include "cpu_methods.h"
#include "cpu_sums.h"
#include "harness.h"
#include "launch_rules.h"
#include "reference.h"
#include "run_head.h"
#include "timer.h"

namespace reduction {

template <typename T>
std::vector<CpuMethodResult> run_cpu_methods(const std::vector<T>& x, int reps, bool threaded_only) {
  const std::size_t n = x.size();
  const Reference ref = cpu_reference(x.data(), n);
  const double u_t = unit_roundoff<T>(), u_d = unit_roundoff<double>();
  const std::size_t threads = cpu_baseline::threaded_sum_threads<T>(n);  // its chunks: one per thread
  struct Method {
    const char* name;
    double u_accumulate;  // unit roundoff of the accumulator (0: exact integers)
    std::size_t chain;    // additions along the longest chain
    bool destroys_input;
    T (*sum)(T*, std::size_t);
  };
  const Method methods[] = {
      {"loop in the input type", u_t, n > 0 ? n - 1 : 0, false,
       [](T* values, std::size_t k) { return cpu_baseline::loop_sum(values, k); }},
      {"recursive halving", u_t, ceil_log2(n), true,
       [](T* values, std::size_t k) { return cpu_baseline::halving_sum(values, k); }},
      {"compensated (reference)", 2 * u_d * u_d, n, false,
       [](T* values, std::size_t k) { return cpu_baseline::compensated_sum(values, k); }},
      {"threaded, wide accumulator", u_d, ceil_div(n, threads) + threads, false,
       [](T* values, std::size_t k) { return cpu_baseline::threaded_sum(values, k); }},
  };
  std::vector<CpuMethodResult> results;
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
      CpuTimer timer;
      timer.start();
      value = method.sum(data, n);
      if (r >= 0) times.push_back(timer.elapsed_ms());
    }
    CpuMethodResult m;
    m.name = method.name;
    m.value = static_cast<double>(value);
    m.value_text = format_value(value);
    const Spread spread = summarize(times);
    m.median_ms = spread.median;
    m.min_ms = spread.min;
    m.iqr_ms = spread.iqr;
    m.gbps = m.median_ms > 0 ? n * sizeof(T) / (m.median_ms * 1e-3) / 1e9 : 0;
    if constexpr (std::is_same_v<T, int>) {
      const Verdict verdict = verify(value, ref, method.chain);
      m.error = verdict.error;
      m.ok = verdict.ok;
    } else {
      m.error = std::fabs(m.value - ref.value);
      m.tolerance = sum_error_bound(method.u_accumulate, u_t, method.chain, ref.sum_abs, ref.value);
      m.bounded = std::isfinite(m.tolerance);
      m.ok = m.bounded && m.error <= m.tolerance;
      if (!std::isfinite(m.value) || !std::isfinite(ref.value)) {  // NaN and inf: the rule of reference.h
        m.ok = same_non_finite(m.value, ref.value);
        m.error = m.ok ? 0.0 : std::numeric_limits<double>::infinity();
      }
    }
    results.push_back(m);
  }
  return results;
}

namespace {

template <typename T>
int run_typed(const Options& options) {
  std::string converted_from;
  const std::vector<T> x = make_input<T>(options, "00_cpu_baseline", &converted_from);
  const std::size_t n = x.size();
  const Reference ref = cpu_reference(x.data(), n);
  const std::string ref_text = expected_text(ref);
  std::string notes;  // NaN and inf in the input, an int sum that overflows
  for (const std::string& note : {non_finite_note(ref), overflow_note(ref)}) {
    if (!note.empty()) notes += (notes.empty() ? "" : "; ") + note;
  }
  const std::vector<CpuMethodResult> results = run_cpu_methods(x, options.reps);
  bool all_ok = true;
  for (const auto& m : results) all_ok = all_ok && (m.ok || !m.bounded);
  const CpuMethodResult& fastest = results.back();
  const unsigned threads = cpu_baseline::threaded_sum_threads<T>(n);  // the threaded sum's

  if (options.json) {
    std::printf("%s\n", run_head(nullptr, options.reps, options.flush).c_str());  // no GPU: device null
    std::vector<std::string> methods;
    for (const auto& m : results) {
      methods.push_back(JsonObject().str("name", m.name).raw("result", json_number(m.value_text))
                            .raw("error", json_number(format_value(m.error)))
                            .raw("tolerance", m.bounded ? json_number(format_value(m.tolerance)) : "null")
                            .flag("ok", m.ok).num("median_ms", m.median_ms, "%.6f").num("min_ms", m.min_ms, "%.6f")
                            .num("iqr_ms", m.iqr_ms, "%.6f").num("gbps", m.gbps, "%.3f").text());
    }
    JsonObject json;
    json.str("chapter", "00_cpu_baseline").str("type", dtype_name(options.type)).num("n", n)
        .raw("result", json_number(fastest.value_text)).raw("reference", json_number(ref_text)).flag("ok", all_ok)
        .str("note", notes).raw("non_finite", json_non_finite(ref))
        .num("median_ms", fastest.median_ms, "%.6f").num("min_ms", fastest.min_ms, "%.6f")
        .num("iqr_ms", fastest.iqr_ms, "%.6f").num("gbps", fastest.gbps, "%.3f")
        .num("threads", threads).num("seed", options.seed)
        .raw("methods", json_list(methods));
    std::printf("%s\n", json.text().c_str());
    return all_ok ? 0 : 1;
  }
  std::printf("00_cpu_baseline: CPU sums, the reference and the number to beat\n");
  std::printf("input      %s\n", describe_input(options, n, converted_from).c_str());
  std::printf("reference  %s\n", ref_text.c_str());
  if (!notes.empty()) std::printf("note       %s\n", notes.c_str());
  std::printf("\n");
  std::printf("%-28s %22s %12s %12s %10s %8s  %s\n", "method", "result", "error", "bound", "ms", "GB/s", "check");
  for (const auto& m : results) {
    char bound[32];
    if (!m.bounded) std::snprintf(bound, sizeof bound, "none");
    else std::snprintf(bound, sizeof bound, "%.3g", m.tolerance);
    std::printf("%-28s %22s %12.3g %12s %10s %8.2f  %s\n", m.name.c_str(), m.value_text.c_str(), m.error, bound,
                format_ms(m.median_ms).c_str(), m.gbps,
                m.ok ? "ok" : (m.bounded ? "WRONG" : "no guarantee"));
  }
  std::printf("\nmedian of %d runs after an untimed warm-up; %u thread%s for the threaded sum.\n\"no guarantee\": "
              "n * u >= 1, so the float loop's error bound exceeds the sum itself\n(see README: the "
              "accumulator stalls at 2^24).\n",
              options.reps, threads, threads == 1 ? "" : "s");
  return all_ok ? 0 : 1;
}

}  // namespace

int run_cpu_baseline(int argc, char** argv) {
  CliSpec spec;
  spec.program = "00_cpu_baseline";
  spec.gpu = false;
  try {
    const Options options = parse_options(spec, argc, argv);
    if (options.help) {
      std::printf("00_cpu_baseline: CPU sums, the reference and the number to beat\n\n%s",
                  usage(spec).c_str());
      return 0;
    }
    switch (options.type) {
      case DType::Int: return run_typed<int>(options);
      case DType::Float: return run_typed<float>(options);
      case DType::Double: return run_typed<double>(options);
    }
  } catch (const std::exception& error) {
    return report_exception(spec.program, error);
  }
  return 3;
}

template std::vector<CpuMethodResult> run_cpu_methods<int>(const std::vector<int>&, int, bool);
template std::vector<CpuMethodResult> run_cpu_methods<float>(const std::vector<float>&, int, bool);
template std::vector<CpuMethodResult> run_cpu_methods<double>(const std::vector<double>&, int, bool);

}  // namespace reduction

#ifndef REDUCTION_CHAPTER_LIBRARY  // the tour and the tests link this file without its main()
int main(int argc, char** argv) { return reduction::run_cpu_baseline(argc, argv); }
#endif
