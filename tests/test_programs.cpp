// The command line of every program, on a machine with or without a GPU: every bad
// input exits 2 with a one-line message that names the problem, before any device
// work; a missing device exits 3 and says so.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <random>
#include <regex>

#include "all_chapters.h"
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

// What a program prints on stdout alone (stderr dropped): results, never diagnostics.
std::string stdout_of(const std::string& program, const std::string& args, const std::string& env = "") {
  const std::string command = env + std::string(REDUCTION_BIN_DIR) + "/" + program + " " + args + " 2>/dev/null";
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return out;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe)) out += buffer;
  pclose(pipe);
  return out;
}

// A JSON text holds no bare nan or inf (JSON has no such numbers: they must be strings).
void expect_no_bare_non_finite(const std::string& json) {
  EXPECT_FALSE(std::regex_search(json, std::regex("(:|,|\\[)\\s*-?(nan|inf)"))) << json;
}

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
    // The chapters whose tree halves the block (03, 04) must refuse 100 threads; the
    // others must run it (01 and 02 double the stride over slices of any length).
    const bool power_of_two_only = c.id.rfind("03", 0) == 0 || c.id.rfind("04", 0) == 0;
    // 01 and 02 shrink the values pass by pass: a block of 1 would never end.
    if (c.id.rfind("01", 0) == 0 || c.id.rfind("02", 0) == 0) expect_usage_error(c.id, "--block 1", "--block 1");
    if (c.id == "10_cub") {
      expect_usage_error(c.id, "--block 128", "CUB chooses its own launch shape");
    } else if (power_of_two_only) {
      expect_usage_error(c.id, "--block 100", "power of two");
    } else {
      EXPECT_EQ(c.main().check_shape(100, 0), "") << c.id << " must accept any block size";
    }
  }
}

// 01-03 launch one block per B elements and a grid holds at most 2^31 - 1 blocks: an n
// past (2^31 - 1) * B is refused with its reason (the program exits 2 before it touches
// the device's memory: tests/test_gpu_programs.cpp), never launched on a wrapped grid.
TEST(Programs, BlockPerElementChaptersRefuseAGridPast2To31Blocks) {
  const std::size_t most_blocks = 2147483647;
  int checked = 0;
  for (const Chapter& c : all_gpu_chapters()) {
    const Variant& v = c.main();
    const bool block_per_element = c.id.rfind("01", 0) == 0 || c.id.rfind("02", 0) == 0 || c.id.rfind("03", 0) == 0;
    ASSERT_EQ(v.check_n != nullptr, block_per_element) << c.id << ": only 01-03 limit n by their grid";
    if (!block_per_element) continue;
    ++checked;
    for (int block : {32, 256, 1024}) {
      EXPECT_EQ(v.check_n(most_blocks * block, block), "") << c.id << " block " << block;
      const std::string why = v.check_n(most_blocks * block + 1, block);
      EXPECT_NE(why.find("more than a grid holds"), std::string::npos) << c.id << " block " << block << ": " << why;
      EXPECT_NE(why.find(std::to_string(most_blocks + 1) + " blocks"), std::string::npos) << why;
    }
    EXPECT_EQ(v.check_n(0, 256), "") << c.id;
  }
  EXPECT_EQ(checked, 3);
}

TEST(Programs, OperatorFlagOnlyWhereTheChapterHasOperators) {
  expect_usage_error("00_cpu_baseline", "--op max", "--op does not apply");
  expect_usage_error("00_cpu_baseline", "--block 256", "--block does not apply: 00_cpu_baseline runs on the CPU");
  for (const Chapter& c : all_gpu_chapters()) {
    if (c.main().has_operators()) {
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

TEST(Programs, AFlagGivenTwiceExitsTwo) {
  for (const std::string& p : all_programs()) {
    SCOPED_TRACE(p);
    expect_usage_error(p, "--reps 3 --reps 4", "--reps given twice; give each option once");
    expect_usage_error(p, "--json --n 10 --json", "--json given twice");
  }
  expect_usage_error("05_pow2ceil", "--block 96 --block 100", "--block given twice");
}

TEST(Programs, LimitsAreTheRealOnes) {
  for (const std::string& p : all_programs()) {
    SCOPED_TRACE(p);
    expect_usage_error(p, "--reps 99999999999", "--reps 99999999999 is too large (at most 100000)");
    expect_usage_error(p, "--seed 2^64", "(at most 18446744073709551615 = 2^64-1)");
  }
  // The seed is any 64-bit value: 2^63 and 2^64-1 run (no device needed for 00; a GPU
  // chapter gets past the command line to the device check).
  const ProgramRun cpu = run_program("00_cpu_baseline", "--n 1000 --reps 1 --seed 2^63");
  EXPECT_EQ(cpu.exit_code, 0) << cpu.output;
  EXPECT_NE(cpu.output.find("--seed 9223372036854775808"), std::string::npos) << cpu.output;
  for (const Chapter& c : all_gpu_chapters()) {
    const ProgramRun run = run_program(c.id, "--n 1000 --seed 2^64-1", "CUDA_VISIBLE_DEVICES= ");
    EXPECT_EQ(run.exit_code, 3) << c.id << "\n" << run.output;
  }
}

TEST(Programs, InputsThatAreNotRegularFilesExitTwo) {
  const std::string dir = temp_path("programs_input_dir");
  mkdir(dir.c_str(), 0700);
  const std::string fifo = temp_path("programs_input_fifo");
  std::remove(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::string shape = temp_path("programs_shape_30_digits.npy");
  {
    std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (123456789012345678901234567890,), }";
    header.append(64 - (10 + header.size() + 1) % 64, ' ');
    header += '\n';
    std::ofstream out(shape, std::ios::binary);
    out.write("\x93NUMPY\x01\x00", 8);
    out.put(static_cast<char>(header.size()));
    out.put(0);
    out << header << "12345678";
  }
  for (const std::string& p : all_programs()) {
    SCOPED_TRACE(p);
    expect_usage_error(p, "--input " + dir, "' is a directory; --input expects a regular file");
    expect_usage_error(p, "--input /proc", "is a directory");
    expect_usage_error(p, "--input /dev/zero", "' is a device file");
    // A program that opened the pipe would wait for a writer: `timeout` ends it (exit 124).
    const ProgramRun run = run_program(p, "--type double --input " + fifo, "timeout 20 ");
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_NE(run.output.find("is a pipe (FIFO)"), std::string::npos) << run.output;
    expect_usage_error(p, "--type double --input " + shape, "does not fit in 64 bits");
  }
  std::remove(fifo.c_str());
}

TEST(Programs, DiagnosticsGoToStderrOnly) {
  for (const std::string& p : all_programs()) {
    EXPECT_EQ(stdout_of(p, "--frobnicate"), "") << p;
    EXPECT_EQ(stdout_of(p, "--input /nonexistent.npy"), "") << p;
  }
  // The tour without a device: the table (chapter 00) on stdout, the notice on stderr.
  const std::string out = stdout_of("tour", "--n 1000 --reps 2", "CUDA_VISIBLE_DEVICES= ");
  EXPECT_NE(out.find("00_cpu_baseline"), std::string::npos) << out;
  EXPECT_EQ(out.find("need a CUDA GPU"), std::string::npos) << out;
}

// Fresh values whose int sum leaves the int range, saved as int32 .npy.
struct OverflowingInts {
  std::vector<int> values;
  long long exact = 0;
  int wrapped = 0;
  explicit OverflowingInts(const std::string& path) : values(4097) {
    std::mt19937_64 random(std::random_device{}());
    std::uint32_t sum = 0;
    for (int& v : values) {
      v = static_cast<int>((1LL << 30) + static_cast<long long>(random() % (1u << 30)));
      exact += v;
      sum += static_cast<std::uint32_t>(v);
    }
    wrapped = static_cast<int>(sum);
    save_npy(path, values);
  }
};

TEST(Programs, AnIntSumThatOverflowsIsCheckedAndExplained) {
  const std::string path = temp_path("programs_overflow.npy");
  const OverflowingInts ints(path);
  const ProgramRun run = run_program("00_cpu_baseline", "--reps 1 --input " + path);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("reference  " + std::to_string(ints.wrapped) + "\n"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("the true sum " + std::to_string(ints.exact) + " overflows int"), std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("--type double"), std::string::npos) << run.output;
  // The way out the note names: the int32 file read as doubles gives the true sum.
  const ProgramRun wide = run_program("00_cpu_baseline", "--reps 1 --json --type double --input " + path);
  EXPECT_EQ(wide.exit_code, 0) << wide.output;
  EXPECT_NE(wide.output.find("\"reference\": " + std::to_string(ints.exact) + ","), std::string::npos) << wide.output;
  const ProgramRun wide_text = run_program("00_cpu_baseline", "--reps 1 --type double --input " + path);
  EXPECT_NE(wide_text.output.find("from " + path + " (int32 values, converted exactly on load)"), std::string::npos)
      << wide_text.output;
}

TEST(Programs, TypeConversionsOnLoadAreExactOrRefused) {
  std::mt19937_64 random(std::random_device{}());
  std::vector<int> ints(1001);
  for (int& v : ints) v = static_cast<int>(random() % 2001) - 1000;
  const std::size_t at = random() % ints.size();
  ints[at] = 16777217;  // 2^24 + 1: not a float
  const std::string path = temp_path("programs_ints.npy");
  save_npy(path, ints);
  const std::string floats = temp_path("programs_floats.npy");
  save_npy<float>(floats, {1.5f, -2.25f});
  for (const std::string& p : all_programs()) {
    SCOPED_TRACE(p);
    expect_usage_error(p, "--type float --input " + path,
                       "value 16777217 at index " + std::to_string(at) + " is not exactly a float");
    expect_usage_error(p, "--type int --input " + floats, "holds dtype '<f4' but --type int expects '<i4'");
  }
  const ProgramRun run = run_program("00_cpu_baseline", "--reps 1 --type double --input " + floats);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("(float32 values, converted exactly on load)"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("reference  -0.75\n"), std::string::npos) << run.output;
}

TEST(Programs, TrailingBytesAreAWarningOnStderr) {
  const std::vector<double> values = generate_input<double>(999, std::random_device{}());
  const std::string path = temp_path("programs_trailing.npy");
  save_npy(path, values);
  std::ofstream(path, std::ios::binary | std::ios::app) << "12345";
  const ProgramRun run = run_program("00_cpu_baseline", "--reps 1 --type double --input " + path);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("00_cpu_baseline: warning: " + path + ": 5 bytes after the 999 values"), std::string::npos)
      << run.output;
  EXPECT_EQ(stdout_of("00_cpu_baseline", "--reps 1 --type double --input " + path).find("warning"), std::string::npos);
}

// Chapter 00 on NaN and inf, as NumPy sums them; its JSON stays valid.
TEST(Programs, NonFiniteInputsGiveNumPysAnswerAndValidJson) {
  std::mt19937_64 random(std::random_device{}());
  struct Case {
    std::vector<float> specials;
    const char* sum;
    const char* counts;
  };
  const float nan = std::nanf(""), inf = INFINITY;
  const Case cases[] = {{{nan}, "nan", "{\"nan\": 1, \"inf\": 0, \"-inf\": 0}"},
                        {{inf}, "inf", "{\"nan\": 0, \"inf\": 1, \"-inf\": 0}"},
                        {{-inf}, "-inf", "{\"nan\": 0, \"inf\": 0, \"-inf\": 1}"},
                        {{inf, -inf}, "nan", "{\"nan\": 0, \"inf\": 1, \"-inf\": 1}"}};
  for (const Case& c : cases) {
    std::vector<float> values = generate_input<float>(5000, random());
    for (float special : c.specials) values[random() % values.size()] = special;
    const std::string path = temp_path("programs_specials.npy");
    save_npy(path, values);
    const ProgramRun json = run_program("00_cpu_baseline", "--reps 1 --json --type float --input " + path);
    SCOPED_TRACE(c.sum);
    EXPECT_EQ(json.exit_code, 0) << json.output;
    EXPECT_NE(json.output.find(std::string("\"reference\": \"") + c.sum + "\""), std::string::npos) << json.output;
    EXPECT_NE(json.output.find(std::string("\"result\": \"") + c.sum + "\""), std::string::npos) << json.output;
    EXPECT_NE(json.output.find(std::string("\"non_finite\": ") + c.counts), std::string::npos) << json.output;
    EXPECT_NE(json.output.find("\"ok\": true"), std::string::npos) << json.output;
    expect_no_bare_non_finite(json.output);
    const ProgramRun text = run_program("00_cpu_baseline", "--reps 1 --type float --input " + path);
    EXPECT_EQ(text.exit_code, 0) << text.output;
    EXPECT_NE(text.output.find(std::string("so its sum is ") + c.sum), std::string::npos) << text.output;
  }
}

// The tour without a device: --json is the run head (device and peak null), then one
// object with n, type and every row it could run; the notice that the GPU chapters need a
// GPU goes to stderr.
TEST(Programs, TourJsonIsOneObjectWithoutAGpu) {
  const std::string both = stdout_of("tour", "--n 1000 --reps 2 --type float --json", "CUDA_VISIBLE_DEVICES= ");
  ASSERT_NE(both.find('\n'), std::string::npos) << both;
  const std::string head = both.substr(0, both.find('\n')), out = both.substr(both.find('\n') + 1);
  EXPECT_EQ(head.rfind("{\"head\": true, \"device\": null, ", 0), 0u) << head;
  EXPECT_NE(head.find("\"peak_gbps\": null, \"reps\": 2, \"flush\": true}"), std::string::npos) << head;
  ASSERT_FALSE(out.empty());
  EXPECT_EQ(out.front(), '{') << out;
  EXPECT_EQ(out.substr(out.size() - 2), "}\n") << out;
  EXPECT_EQ(out.find('\n'), out.size() - 1) << "more than one line after the head:\n" << out;
  EXPECT_NE(out.find("\"median_ms\": "), std::string::npos) << out;
  for (const char* key : {"\"n\": 1000", "\"type\": \"float\"", "\"reference\": ",
                          "\"rows\": [{\"chapter\": \"00_cpu_baseline\"", "\"ok\": true"}) {
    EXPECT_NE(out.find(key), std::string::npos) << key << " not in " << out;
  }
  expect_no_bare_non_finite(out);
  const ProgramRun run = run_program("tour", "--n 1000 --reps 2 --json", "CUDA_VISIBLE_DEVICES= ");
  EXPECT_EQ(run.exit_code, 3) << run.output;
  EXPECT_NE(run.output.find("need a CUDA GPU"), std::string::npos) << run.output;
  expect_usage_error("tour", "--sweep --json", "--json does not apply to --sweep");
}

// tour --steps NN: a chapter with step variants (04, 05, 06, 08, 09). Anything else is
// refused with its reason before the device is touched (exit 2); without a device it says so
// (exit 3).
TEST(Programs, TourStepsTakesOnlyAChapterWithSteps) {
  expect_usage_error("tour", "--steps", "--steps needs a value");
  expect_usage_error("tour", "--steps 07", "07_warp_shuffle has no step variants: --steps takes 04, 05, 06, 08 or 09");
  expect_usage_error("tour", "--steps 03_interleaved", "03_interleaved has no step variants");
  expect_usage_error("tour", "--steps 99",
                     "--steps expects a chapter with step variants, 04, 05, 06, 08 or 09, not '99'");
  expect_usage_error("tour", "--steps 00_cpu_baseline", "not '00_cpu_baseline'");
  expect_usage_error("tour", "--steps 04_shared", "not '04_shared'");
  expect_usage_error("tour", "--steps 04 --sweep", "--steps and --sweep do not go together");
  expect_usage_error("tour", "--sweep --steps 06", "--steps and --sweep do not go together");
  expect_usage_error("tour", "--steps 06 --out somewhere", "--out does not apply to --steps");
  expect_usage_error("tour", "--steps 04 --block 256", "the tour runs every chapter at its own default shape");
  expect_usage_error("tour", "--steps 04 --steps 06", "--steps given twice");
  expect_usage_error("tour", "--steps 04 --input /nonexistent/data.npy", "cannot open input file");
  for (const char* chapter : {"04", "05", "06_warp_unroll", "08", "09_single_pass"}) {
    const ProgramRun run = run_program("tour", std::string("--steps ") + chapter + " --n 1000 --reps 2 --json",
                                       "CUDA_VISIBLE_DEVICES= ");
    EXPECT_EQ(run.exit_code, 3) << chapter << "\n" << run.output;
    EXPECT_NE(run.output.find("no CUDA device"), std::string::npos) << run.output;
    EXPECT_EQ(stdout_of("tour", std::string("--steps ") + chapter + " --n 1000 --reps 2", "CUDA_VISIBLE_DEVICES= "), "");
  }
  const ProgramRun help = run_program("tour", "--help");
  EXPECT_NE(help.output.find("--steps NN"), std::string::npos) << help.output;
}

// The step variants are --variants of their chapters, refusing what they cannot run as
// the chapters do (one_each, like 03, derives its grid from n; 05's grid_only runs 04's
// kernel, which takes only a power-of-two block).
TEST(Programs, StepVariantsAreVariantsOfTheirChapters) {
  expect_usage_error("04_shared_tree", "--variant nope", "--variant expects one of one_each|strided");
  expect_usage_error("05_pow2ceil", "--variant nope", "--variant expects one of tree_only|grid_only");
  expect_usage_error("06_warp_unroll", "--variant nope", "--variant expects one of tree_only|loop_only|volatile");
  expect_usage_error("08_vectorized", "--variant nope", "--variant expects one of block_only|loads_only");
  expect_usage_error("09_single_pass", "--variant nope", "--variant expects one of ticket_only|shape_only");
  expect_usage_error("04_shared_tree", "--variant one_each --grid 10", "--grid does not apply");
  expect_usage_error("04_shared_tree", "--variant one_each --block 100", "power of two");
  expect_usage_error("05_pow2ceil", "--variant grid_only --block 100", "runs 04's kernel");
  for (const std::string args : {"04_shared_tree --variant one_each", "06_warp_unroll --variant tree_only",
                                 "06_warp_unroll --variant loop_only --block 100 --grid 7",
                                 "05_pow2ceil --variant tree_only --block 100", "05_pow2ceil --variant grid_only",
                                 "08_vectorized --variant block_only", "08_vectorized --variant loads_only --block 40",
                                 "09_single_pass --variant ticket_only", "09_single_pass --variant shape_only"}) {
    const std::string program = args.substr(0, args.find(' '));
    const ProgramRun run = run_program(program, args.substr(args.find(' ') + 1) + " --n 1000", "CUDA_VISIBLE_DEVICES= ");
    EXPECT_EQ(run.exit_code, 3) << args << "\n" << run.output;  // past the command line, to the device check
  }
}

TEST(Programs, TourHelpListsOnlyWhatTheTourAccepts) {
  const ProgramRun run = run_program("tour", "--help");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  for (const char* absent : {"--block", "--grid", "--op", "--variant"}) {
    EXPECT_EQ(run.output.find(absent), std::string::npos) << absent << " in:\n" << run.output;
  }
  EXPECT_NE(run.output.find("sweep_T.csv and sweep_T.json"), std::string::npos) << run.output;
}

// 19_ragged_segments: ragged segments by
// CSR offsets, with its own harness (harness/segments_harness.h) and command line.
TEST(Programs, RaggedSegmentsHelpListsEveryOption) {
  const ProgramRun run = run_program("19_ragged_segments", "--help");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("usage: 19_ragged_segments"), std::string::npos) << run.output;
  for (const char* option : {"--n", "--lengths", "--rows", "--type", "--offsets", "--op", "--method", "--reps",
                             "--seed", "--no-flush", "--json", "--help", "uniform", "pareto", "one_half",
                             "four_eighths", "equal", "float|half|bf16", "int32|int64", "sum|max|argmax|meanvar",
                             "auto|merge_path|cub_segmented", "exit codes"}) {
    EXPECT_NE(run.output.find(option), std::string::npos) << option << " missing from:\n" << run.output;
  }
}

TEST(Programs, RaggedSegmentsBadUsageExitsTwo) {
  const std::string p = "19_ragged_segments";
  expect_usage_error(p, "--frobnicate", "unknown option '--frobnicate'");
  expect_usage_error(p, "--n", "--n needs a value");
  expect_usage_error(p, "--n 12abc", "--n expects a whole number");
  expect_usage_error(p, "--n -5", "--n expects a whole number");
  expect_usage_error(p, "--n 2^41", "--n 2^41 is too large");
  expect_usage_error(p, "--n 2^31", "does not fit int32 offsets");
  expect_usage_error(p, "--lengths zipf", "--lengths expects uniform|pareto|one_half|four_eighths|equal");
  expect_usage_error(p, "--lengths", "--lengths needs a value");
  expect_usage_error(p, "--rows 64", "--rows applies to --lengths equal only");
  expect_usage_error(p, "--lengths pareto --rows 64", "--rows applies to --lengths equal only, not pareto");
  expect_usage_error(p, "--lengths equal --rows 0", "--rows must be at least 1");
  expect_usage_error(p, "--lengths equal --rows x", "--rows expects a whole number");
  expect_usage_error(p, "--type int", "--type expects float|half|bf16");
  expect_usage_error(p, "--type double", "--type expects float|half|bf16");
  expect_usage_error(p, "--offsets int16", "--offsets expects int32|int64");
  expect_usage_error(p, "--op min", "--op expects sum|max|argmax|meanvar");
  expect_usage_error(p, "--method warp", "--method expects auto|merge_path|cub_segmented");
  expect_usage_error(p, "--method cub_segmented --op meanvar", "--method cub_segmented does not offer --op meanvar");
  expect_usage_error(p, "--op meanvar --method cub_segmented", "CUB has no mean and variance");
  expect_usage_error(p, "--reps 0", "--reps must be at least 1");
  expect_usage_error(p, "--reps 99999999999", "--reps 99999999999 is too large (at most 100000)");
  expect_usage_error(p, "--seed x", "--seed expects a whole number");
  expect_usage_error(p, "--seed 2^64", "(at most 18446744073709551615 = 2^64-1)");
  expect_usage_error(p, "--reps 3 --reps 4", "--reps given twice; give each option once");
  expect_usage_error(p, "--cols 100", "--cols does not apply");
  expect_usage_error(p, "--block 256", "--block does not apply");
  expect_usage_error(p, "--input x.npy", "--input does not apply");
}

TEST(Programs, RaggedSegmentsWithoutADeviceExitsThree) {
  for (const char* args : {"--n 1000", "--n 2^20+3 --lengths pareto --type bf16 --op argmax --reps 2",
                           "--n 0 --lengths equal --rows 5 --offsets int64 --op meanvar --json",
                           "--n 2^31 --offsets int64 --method cub_segmented --op max --no-flush --seed 2^64-1"}) {
    const ProgramRun run = run_program("19_ragged_segments", args, "CUDA_VISIBLE_DEVICES= ");
    EXPECT_EQ(run.exit_code, 3) << args << "\n" << run.output;
    EXPECT_NE(run.output.find("no CUDA device"), std::string::npos) << args << "\n" << run.output;
  }
}

}  // namespace
}  // namespace reduction::testing
