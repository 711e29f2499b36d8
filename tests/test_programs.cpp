// The command line of every program, on a machine with or without a GPU: every bad
// input exits 2 with a one-line message that names the problem, before any device
// work; a missing device exits 3 and says so.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "chapter.h"
#include "input.h"
#include "program_runner.h"

namespace reduction::testing {
namespace {

std::vector<std::string> all_programs() {
  std::vector<std::string> names = {"00_cpu_baseline", "tour"};
  for (const Chapter& c : all_gpu_chapters()) names.push_back(c.id);
#ifdef REDUCTION_HAVE_MULTI_GPU
  names.push_back("11_multi_gpu");
#endif
  return names;
}

void expect_usage_error(const std::string& program, const std::string& args, const std::string& message) {
  const ProgramRun run = run_program(program, args);
  EXPECT_EQ(run.exit_code, 2) << program << " " << args << "\n" << run.output;
  EXPECT_NE(run.output.find(message), std::string::npos)
      << program << " " << args << ": expected the message to mention '" << message << "', got:\n" << run.output;
}

std::string temp_path(const std::string& name) { return ::testing::TempDir() + name; }

TEST(Programs, BadFlagsExitTwoWithAMessage) {
  for (const std::string& p : all_programs()) {
    SCOPED_TRACE(p);
    expect_usage_error(p, "--frobnicate", "unknown option '--frobnicate'");
    expect_usage_error(p, "--n", "--n needs a value");
    expect_usage_error(p, "--n 12abc", "--n expects a whole number");
    expect_usage_error(p, "--n -5", "--n expects a whole number");
    expect_usage_error(p, "--n 2^41", "--n 2^41 is too large");
    expect_usage_error(p, "--type half", "--type expects int, float or double, not 'half'");
    expect_usage_error(p, "--reps 0", "--reps must be at least 1");
    expect_usage_error(p, "--reps many", "--reps expects a whole number");
    expect_usage_error(p, "--seed x", "--seed expects a whole number");
    expect_usage_error(p, "--input", "--input needs a value");
    expect_usage_error(p, "--input /nonexistent/data.npy", "cannot open input file '/nonexistent/data.npy'");
    expect_usage_error(p, "--n 100 --input x.npy", "--n and --input both given");
  }
}

TEST(Programs, HelpExitsZeroAndListsTheFlags) {
  for (const std::string& p : all_programs()) {
    const ProgramRun run = run_program(p, "--help");
    EXPECT_EQ(run.exit_code, 0) << p << "\n" << run.output;
    EXPECT_NE(run.output.find("usage: " + p), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("--no-flush"), std::string::npos) << run.output;
  }
}

TEST(Programs, LaunchShapesAChapterCannotRunExitTwo) {
  for (const Chapter& c : all_gpu_chapters()) {
    SCOPED_TRACE(c.id);
    // A CUDA block holds at most 1024 threads: no chapter may accept 2000.
    ASSERT_FALSE(c.main().check_shape(2000, 0).empty());
    expect_usage_error(c.id, "--block 2000", "--block");
    expect_usage_error(c.id, "--block 0", "--block must be at least 1");
    expect_usage_error(c.id, "--grid x", "--grid expects a whole number");
    // The power-of-two chapters must refuse 100 threads; 05 on must run it.
    const bool power_of_two_only = c.id < "05";
    if (c.id == "10_cub") {
      expect_usage_error(c.id, "--block 128", "CUB chooses its own launch shape");
    } else if (power_of_two_only) {
      expect_usage_error(c.id, "--block 100", "power of two");
    } else {
      EXPECT_EQ(c.main().check_shape(100, 0), "") << c.id << " must accept any block size";
    }
  }
}

TEST(Programs, OperatorFlagOnlyWhereTheChapterHasOperators) {
  expect_usage_error("00_cpu_baseline", "--op max", "--op does not apply");
  expect_usage_error("00_cpu_baseline", "--block 256", "--block does not apply: 00_cpu_baseline runs on the CPU");
  for (const Chapter& c : all_gpu_chapters()) {
    if (c.main().has_ops) {
      expect_usage_error(c.id, "--op mean", "--op expects sum, max or min, not 'mean'");
    } else {
      expect_usage_error(c.id, "--op max", "--op does not apply");
    }
    if (c.variants.size() > 1) expect_usage_error(c.id, "--variant nope", "--variant expects one of");
  }
  expect_usage_error("tour", "--block 256", "the tour runs every chapter at its own default shape");
}

TEST(Programs, MistypedAndCorruptInputFilesExitTwo) {
  const std::string doubles = temp_path("programs_doubles.npy");
  save_npy<double>(doubles, {1.0, 2.0, 3.0});
  const std::string raw = temp_path("programs_raw.bin");
  std::ofstream(raw, std::ios::binary) << "1234567";  // 7 bytes: not a whole number of ints
  for (const std::string& p : all_programs()) {
    SCOPED_TRACE(p);
    expect_usage_error(p, "--input " + doubles + " --type int", "holds dtype '<f8' but --type int");
    expect_usage_error(p, "--input " + raw + " --type int", "not a whole number of int values");
  }
}

// No usable device (hidden with CUDA_VISIBLE_DEVICES, so this runs on a GPU machine
// too): a GPU chapter says so and exits 3; 00 still runs.
TEST(Programs, NoDeviceExitsThreeAndSaysSo) {
  for (const Chapter& c : all_gpu_chapters()) {
    const ProgramRun run = run_program(c.id, "--n 1000", "CUDA_VISIBLE_DEVICES= ");
    EXPECT_EQ(run.exit_code, 3) << c.id << "\n" << run.output;
    EXPECT_NE(run.output.find("no CUDA device"), std::string::npos) << run.output;
  }
  const ProgramRun tour = run_program("tour", "--n 1000 --reps 2", "CUDA_VISIBLE_DEVICES= ");
  EXPECT_EQ(tour.exit_code, 3) << tour.output;
  EXPECT_NE(tour.output.find("00_cpu_baseline"), std::string::npos) << tour.output;
  EXPECT_NE(tour.output.find("need a CUDA GPU"), std::string::npos) << tour.output;
  const ProgramRun cpu = run_program("00_cpu_baseline", "--n 1000 --reps 2", "CUDA_VISIBLE_DEVICES= ");
  EXPECT_EQ(cpu.exit_code, 0) << cpu.output;
}

}  // namespace
}  // namespace reduction::testing
