// Chapter 00: each CPU sum is right where it should be, and the float accumulator
// stalls exactly where the theory says.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <stdexcept>

#include "cpu_methods.h"
#include "cpu_sums.h"
#include "input.h"
#include "parallel.h"
#include "program_runner.h"
#include "reference.h"

namespace reduction {
namespace {

TEST(CpuBaseline, EveryMethodIsExactForInts) {
  for (std::size_t n : {0, 1, 2, 3, 5, 31, 33, 1000, 4097, 65537, 262143, 262144, 262145, 1000003}) {
    auto x = generate_input<int>(n, 100 + n);
    long long expect = 0;
    for (int v : x) expect += v;
    EXPECT_EQ(cpu_baseline::loop_sum(x.data(), n), expect) << n;
    EXPECT_EQ(cpu_baseline::compensated_sum(x.data(), n), expect) << n;
    EXPECT_EQ(cpu_baseline::threaded_sum(x.data(), n), expect) << n;
    EXPECT_EQ(cpu_baseline::halving_sum(x.data(), n), expect) << n;  // last: it overwrites x
  }
}

// One thread below 2^18 ints or 2^17 floats (starting the others costs more there), every
// hardware thread from there on.
TEST(CpuBaseline, ThreadedSumWakesTheOthersFrom2To18IntsAnd2To17Floats) {
  const unsigned all = cpu_threads();  // parallel.h: every hardware thread
  EXPECT_EQ(cpu_baseline::threaded_sum_threads<int>(0), 1u);
  EXPECT_EQ(cpu_baseline::threaded_sum_threads<int>((1 << 18) - 1), 1u);
  EXPECT_EQ(cpu_baseline::threaded_sum_threads<int>(1 << 18), all);
  EXPECT_EQ(cpu_baseline::threaded_sum_threads<float>((1 << 17) - 1), 1u);
  EXPECT_EQ(cpu_baseline::threaded_sum_threads<float>(1 << 17), all);
  EXPECT_EQ(cpu_baseline::threaded_sum_threads<double>(1 << 17), all);
}

TEST(CpuBaseline, FloatLoopStallsAt2To24AndTheOthersDoNot) {
  // 2^24 + 1000 ones: the float loop reaches 2^24 = 16777216, where 1 is half an ulp
  // and every further +1 rounds back down (round to nearest even).
  const std::size_t n = (std::size_t(1) << 24) + 1000;
  std::vector<float> ones(n, 1.0f);
  EXPECT_EQ(cpu_baseline::loop_sum(ones.data(), n), 16777216.0f);
  EXPECT_EQ(cpu_baseline::threaded_sum(ones.data(), n), static_cast<float>(n));
  EXPECT_EQ(cpu_baseline::compensated_sum(ones.data(), n), static_cast<float>(n));
  EXPECT_EQ(cpu_baseline::halving_sum(ones.data(), n), static_cast<float>(n));
}

// parallel.h's pool: every index in exactly one chunk, call after call (the threads
// are reused), also when a chunk's body makes a parallel call of its own or throws.
TEST(CpuBaseline, ThreadPoolCoversEveryIndexOnceAndIsReused) {
  for (std::size_t n : {0, 1, 65535, 65536, 65537, 1000003}) {
    for (int call = 0; call < 20; ++call) {
      std::vector<int> hits(n, 0);
      parallel_chunks(n, [&](unsigned, std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) ++hits[i];
      });
      ASSERT_EQ(std::count(hits.begin(), hits.end(), 1), static_cast<std::ptrdiff_t>(n)) << n << " call " << call;
    }
  }
  std::vector<std::size_t> inner(cpu_threads(), 0);
  const unsigned outer = parallel_chunks(1 << 20, [&](unsigned t, std::size_t, std::size_t) {
    std::size_t covered = 0;  // each chunk is written by one thread: no race
    parallel_chunks(1 << 17, [&](unsigned, std::size_t begin, std::size_t end) { covered += end - begin; });
    inner[t] = covered;
  });
  for (unsigned t = 0; t < outer; ++t) EXPECT_EQ(inner[t], std::size_t(1) << 17) << "chunk " << t;
  if (cpu_threads() > 1) {
    EXPECT_THROW(parallel_chunks(1 << 20, [](unsigned t, std::size_t, std::size_t) {
      if (t == 1) throw std::runtime_error("chunk 1");
    }), std::runtime_error);
  }
  EXPECT_EQ(cpu_baseline::threaded_sum(std::vector<int>(1 << 20, 1).data(), 1 << 20), 1 << 20);  // still works
}

TEST(CpuBaseline, RunMethodsChecksEachAgainstTheReference) {
  const auto x = generate_input<float>(300001, 77);
  const auto results = run_cpu_methods(x, 2);
  ASSERT_EQ(results.size(), 4u);
  for (const auto& m : results) {
    EXPECT_TRUE(m.ok) << m.name << " error " << m.error << " bound " << m.tolerance;
    EXPECT_GT(m.gbps, 0) << m.name;
  }
  EXPECT_EQ(results.back().name, "threaded, wide accumulator");
  EXPECT_EQ(run_cpu_methods(x, 1, true).size(), 1u);
}

TEST(CpuBaseline, ProgramShowsTheFloatLoopErrorPast2To24) {
  // 2^26 values in [0, 1), true sum near 2^25: the loop stalls near 2^24. Its bound no
  // longer exists (n*u >= 1) and its error
  // is large; the compensated and threaded sums stay within theirs. Exit 0: no method
  // that has a bound is outside it.
  const testing::ProgramRun run =
      testing::run_program("00_cpu_baseline", "--n 2^26 --type float --reps 1 --seed 5");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(run.output, m, std::regex("loop in the input type +[0-9.e+]+ +([0-9.e+]+) +none")))
      << run.output;
  EXPECT_GT(std::stod(m[1]), 1e7) << "the float loop should be far off past 2^24 elements";
  EXPECT_NE(run.output.find("no guarantee"), std::string::npos);
  EXPECT_TRUE(std::regex_search(run.output, std::regex("compensated \\(reference\\) .* ok")));
  EXPECT_TRUE(std::regex_search(run.output, std::regex("threaded, wide accumulator .* ok")));
  EXPECT_TRUE(std::regex_search(run.output, std::regex("recursive halving .* ok")));
}

TEST(CpuBaseline, JsonHasTheGuideKeys) {
  const testing::ProgramRun run = testing::run_program("00_cpu_baseline", "--n 4097 --reps 2 --json --type double");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  for (const char* key : {"\"chapter\": \"00_cpu_baseline\"", "\"type\": \"double\"", "\"n\": 4097", "\"result\": ",
                          "\"reference\": ", "\"ok\": true", "\"median_ms\": ", "\"min_ms\": ", "\"iqr_ms\": ",
                          "\"gbps\": "}) {
    EXPECT_NE(run.output.find(key), std::string::npos) << key << " in " << run.output;
  }
  // The run head first (common/run_head.h): no GPU, so no device and no peak.
  EXPECT_EQ(run.output.rfind("{\"head\": true, \"device\": null, ", 0), 0u) << run.output;
  const std::string head = run.output.substr(0, run.output.find('\n'));
  for (const char* key : {"\"cuda\": ", "\"driver\": ", "\"date\": ", "\"sms\": null", "\"peak_gbps\": null",
                          "\"reps\": 2", "\"flush\": "}) {
    EXPECT_NE(head.find(key), std::string::npos) << key << " in " << head;
  }
  EXPECT_EQ(run.output.find("\"ms\""), std::string::npos) << run.output;
}

}  // namespace
}  // namespace reduction
