// The shared command-line parser.
#include <gtest/gtest.h>

#include "cli.h"

namespace reduction {
namespace {

Options parse(const CliSpec& spec, std::vector<const char*> args) {
  args.insert(args.begin(), "prog");
  return parse_options(spec, static_cast<int>(args.size()), args.data());
}

CliSpec gpu_spec() {
  CliSpec s;
  s.program = "prog";
  return s;
}

std::string error_of(const CliSpec& spec, std::vector<const char*> args) {
  try {
    parse(spec, args);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Cli, DefaultsFollowTheGuide) {
  const Options o = parse(gpu_spec(), {});
  EXPECT_EQ(o.n, std::size_t(1) << 24);
  EXPECT_EQ(o.type, DType::Int);
  EXPECT_EQ(o.block, 0);
  EXPECT_EQ(o.grid, 0);
  EXPECT_TRUE(o.flush);
  EXPECT_FALSE(o.json);
  EXPECT_EQ(o.op, Op::Sum);
  EXPECT_FALSE(o.seed_given);
  // Without --seed every run draws a fresh one.
  EXPECT_NE(parse(gpu_spec(), {}).seed, parse(gpu_spec(), {}).seed);
}

TEST(Cli, ParsesEveryFlag) {
  CliSpec spec = gpu_spec();
  spec.ops = true;
  spec.variants = {"race"};
  const Options o = parse(spec, {"--n", "2^20+13", "--type", "double", "--block", "96", "--grid", "270", "--reps",
                                 "7", "--seed", "42", "--no-flush", "--json", "--op", "min", "--variant", "race"});
  EXPECT_EQ(o.n, (std::size_t(1) << 20) + 13);
  EXPECT_EQ(o.type, DType::Double);
  EXPECT_EQ(o.block, 96);
  EXPECT_EQ(o.grid, 270);
  EXPECT_EQ(o.reps, 7);
  EXPECT_EQ(o.seed, 42u);
  EXPECT_TRUE(o.seed_given);
  EXPECT_FALSE(o.flush);
  EXPECT_TRUE(o.json);
  EXPECT_EQ(o.op, Op::Min);
  EXPECT_EQ(o.variant, "race");
  EXPECT_EQ(parse(spec, {"--n", "0"}).n, 0u);
  EXPECT_EQ(parse(spec, {"--n", "2^10-1"}).n, 1023u);
}

TEST(Cli, CountsThatDoNotParse) {
  EXPECT_EQ(parse_count("--n", "123", 1000), 123u);
  EXPECT_EQ(parse_count("--n", "2^3+1", 1000), 9u);
  for (const char* bad : {"", "abc", "1e6", "12abc", "-5", "0x10", "2^", "2^x", "3^4", " 5", "1,000"}) {
    EXPECT_THROW(parse_count("--n", bad, 1000), UsageError) << "'" << bad << "'";
  }
  EXPECT_THROW(parse_count("--n", "1001", 1000), UsageError);
  EXPECT_THROW(parse_count("--n", "2^4-17", 1000), UsageError);
  EXPECT_THROW(parse_count("--n", "99999999999999999999999", ~0ull), UsageError);
}

TEST(Cli, CountsReachTheTop64BitValue) {
  EXPECT_EQ(parse_count("--seed", "2^63", ~0ull), 1ull << 63);
  EXPECT_EQ(parse_count("--seed", "2^63+5", ~0ull), (1ull << 63) + 5);
  EXPECT_EQ(parse_count("--seed", "2^64-1", ~0ull), ~0ull);
  EXPECT_EQ(parse_count("--seed", "2^64-10", ~0ull), ~0ull - 9);
  EXPECT_EQ(parse_count("--seed", "18446744073709551615", ~0ull), ~0ull);
  EXPECT_EQ(parse_count("--n", "2^0", 10), 1u);
  const std::string top = "(at most 18446744073709551615 = 2^64-1)";
  for (const char* past : {"2^64", "2^64-0", "2^64+0", "2^65-1", "2^99", "18446744073709551616"}) {
    try {
      parse_count("--seed", past, ~0ull);
      ADD_FAILURE() << past << " was accepted";
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()), std::string("--seed ") + past + " is too large " + top);
    }
  }
}

TEST(Cli, ErrorsNameTheProblem) {
  const CliSpec spec = gpu_spec();
  EXPECT_EQ(error_of(spec, {"--bogus"}), "unknown option '--bogus' (run with --help for the list)");
  EXPECT_EQ(error_of(spec, {"--type"}), "--type needs a value");
  EXPECT_EQ(error_of(spec, {"--type", "int8"}), "--type expects int, float or double, not 'int8'");
  EXPECT_EQ(error_of(spec, {"--block", "0"}), "--block must be at least 1");
  EXPECT_EQ(error_of(spec, {"--reps", "100001"}), "--reps 100001 is too large (at most 100000)");
  EXPECT_EQ(error_of(spec, {"--n", "5", "--input", "f.npy"}), "--n and --input both given: the input file's length sets N");
  EXPECT_EQ(error_of(spec, {"--op", "max"}),
            "--op does not apply: prog only sums (09_single_pass, 10_cub take --op)");
  EXPECT_EQ(error_of(spec, {"--variant", "race"}), "unknown option '--variant' (run with --help for the list)");
  CliSpec cpu = spec;
  cpu.gpu = false;
  EXPECT_EQ(error_of(cpu, {"--grid", "4"}), "--grid does not apply: prog runs on the CPU");
  CliSpec with_variants = spec;
  with_variants.variants = {"race", "volatile"};
  EXPECT_EQ(error_of(with_variants, {"--variant", "fast"}), "--variant expects one of race|volatile, not 'fast'");
  CliSpec ops = spec;
  ops.ops = true;
  EXPECT_EQ(error_of(ops, {"--op", "avg"}), "--op expects sum, max or min, not 'avg'");
}

TEST(Cli, LimitMessagesNameTheRealLimit) {
  const CliSpec spec = gpu_spec();
  EXPECT_EQ(error_of(spec, {"--reps", "99999999999"}), "--reps 99999999999 is too large (at most 100000)");
  EXPECT_EQ(error_of(spec, {"--block", "2000"}), "--block 2000 is too large (at most 1024)");
  EXPECT_EQ(error_of(spec, {"--grid", "2^31"}), "--grid 2^31 is too large (at most 2147483647 = 2^31-1)");
  EXPECT_EQ(error_of(spec, {"--n", "2^40+1"}), "--n 2^40+1 is too large (at most 1099511627776 = 2^40)");
  EXPECT_EQ(error_of(spec, {"--seed", "2^64"}), "--seed 2^64 is too large (at most 18446744073709551615 = 2^64-1)");
  // Each limit itself is accepted.
  const Options o = parse(spec, {"--reps", "100000", "--block", "1024", "--grid", "2147483647", "--n", "2^40",
                                 "--seed", "2^64-1"});
  EXPECT_EQ(o.reps, 100000);
  EXPECT_EQ(o.block, 1024);
  EXPECT_EQ(o.grid, 2147483647);
  EXPECT_EQ(o.n, std::size_t(1) << 40);
  EXPECT_EQ(o.seed, ~0ull);
  EXPECT_EQ(parse(spec, {"--seed", "2^63"}).seed, 1ull << 63);
}

TEST(Cli, AFlagGivenTwiceIsRefused) {
  CliSpec spec = gpu_spec();
  spec.ops = true;
  spec.variants = {"race"};
  EXPECT_EQ(error_of(spec, {"--block", "64", "--block", "128"}), "--block given twice; give each option once");
  EXPECT_EQ(error_of(spec, {"--json", "--n", "5", "--json"}), "--json given twice; give each option once");
  EXPECT_EQ(error_of(spec, {"-h", "--help"}), "--help given twice; give each option once");
  for (const char* flag : {"--n", "--type", "--grid", "--reps", "--seed", "--input", "--op", "--variant"}) {
    const char* value = std::string(flag) == "--type" ? "float"
                        : std::string(flag) == "--op" ? "max"
                        : std::string(flag) == "--variant" ? "race"
                        : std::string(flag) == "--input" ? "f.npy"
                                                          : "7";
    EXPECT_EQ(error_of(spec, {flag, value, flag, value}), std::string(flag) + " given twice; give each option once");
  }
  EXPECT_EQ(error_of(spec, {"--no-flush", "--no-flush"}), "--no-flush given twice; give each option once");
  // A value that looks like a flag is a value, not a second flag.
  EXPECT_EQ(parse(spec, {"--input", "--json", "--json"}).input, "--json");
}

TEST(Cli, TheTourAcceptsOnlyWhatItUses) {
  CliSpec tour;
  tour.program = "tour";
  tour.gpu = false;
  tour.tour = true;
  const std::string text = usage(tour);
  for (const char* absent : {"--block", "--grid", "--op", "--variant", "--gpus"}) {
    EXPECT_EQ(text.find(absent), std::string::npos) << absent << " in:\n" << text;
  }
  for (const char* present : {"--sweep", "--out", "sweep_T.csv", "sweep_T.json", "--json", "--input"}) {
    EXPECT_NE(text.find(present), std::string::npos) << present << " not in:\n" << text;
  }
  EXPECT_EQ(error_of(tour, {"--block", "128"}),
            "--block does not apply: the tour runs every chapter at its own default shape (pass --block to one "
            "chapter)");
  EXPECT_EQ(error_of(tour, {"--op", "max"}), "--op does not apply: tour only sums (09_single_pass, 10_cub take --op)");
  EXPECT_TRUE(parse(tour, {"--sweep", "--out", "dir"}).sweep);
  EXPECT_EQ(error_of(gpu_spec(), {"--sweep"}), "unknown option '--sweep' (run with --help for the list)");
}

TEST(Cli, UsageListsTheProgramsFlags) {
  CliSpec spec = gpu_spec();
  spec.ops = true;
  const std::string text = usage(spec);
  for (const char* flag : {"--n", "--type", "--block", "--grid", "--op", "--reps", "--seed", "--input", "--no-flush",
                           "--json", "--help", "exit codes"}) {
    EXPECT_NE(text.find(flag), std::string::npos) << flag;
  }
  EXPECT_EQ(text.find("--sweep"), std::string::npos);
}

}  // namespace
}  // namespace reduction
