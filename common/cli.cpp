#include "cli.h"

#include <algorithm>
#include <random>
#include <regex>
#include <set>
#include <sstream>

namespace reduction {

namespace {

// Largest N accepted on the command line: 2^40 elements (4 TiB of ints). Whether it
// fits the device is checked later, against the memory the device actually has.
constexpr std::uint64_t kMaxN = std::uint64_t(1) << 40;
constexpr std::uint64_t kMaxBlock = 1024;       // threads in a CUDA block
constexpr std::uint64_t kMaxGrid = 0x7FFFFFFF;  // blocks along a grid's x dimension
constexpr std::uint64_t kMaxReps = 100000;
constexpr std::uint64_t kMaxGpus = 0x7FFFFFFF;  // an int; 11 checks it against the GPUs it sees

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : "|") + w;
  return out;
}

// The names of the element types a program offers: "int", "float", "double".
std::vector<std::string> type_names(const CliSpec& spec) {
  std::vector<std::string> names;
  for (DType t : spec.types) names.push_back(dtype_name(t));
  return names;
}

// "100000", "1099511627776 = 2^40", "18446744073709551615 = 2^64-1".
std::string limit_text(std::uint64_t max) {
  const std::string digits = std::to_string(max);
  for (int k = 20; k <= 64; ++k) {  // small limits read best as they are
    const std::uint64_t power_minus_one = k == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << k) - 1;
    if (max == power_minus_one) return digits + " = 2^" + std::to_string(k) + "-1";
    if (k < 64 && max == power_minus_one + 1) return digits + " = 2^" + std::to_string(k);
  }
  return digits;
}

// A count from 1 to max that fits an int (--reps, --block, --grid, --gpus).
int positive_int(const std::string& flag, const std::string& text, std::uint64_t max) {
  const std::uint64_t v = parse_count(flag, text, max);
  if (v == 0) throw UsageError(flag + " must be at least 1");
  return static_cast<int>(v);
}

}  // namespace

std::uint64_t parse_count(const std::string& flag, const std::string& text, std::uint64_t max) {
  std::smatch m;
  std::uint64_t value = 0;
  auto too_large = [&] { return UsageError(flag + " " + text + " is too large (at most " + limit_text(max) + ")"); };
  if (std::regex_match(text, m, std::regex("[0-9]{1,20}"))) {
    try {
      value = std::stoull(text);
    } catch (const std::out_of_range&) {
      throw too_large();
    }
  } else if (std::regex_match(text, m, std::regex("2\\^([0-9]{1,2})(([+-])([0-9]{1,12}))?"))) {
    // 2^K+C or 2^K-C without leaving 64 bits; 2^64-C (C >= 1) is the one form with K = 64.
    const int k = std::stoi(m[1]);
    const std::uint64_t c = m[2].matched ? std::stoull(m[4]) : 0;
    if (m[3] == "-") {
      if (k > 64 || (k == 64 && c == 0)) throw too_large();
      if (k < 64 && c > (std::uint64_t(1) << k)) throw UsageError(flag + " " + text + " is negative");
      value = k == 64 ? ~std::uint64_t(0) - (c - 1) : (std::uint64_t(1) << k) - c;
    } else {
      if (k > 63 || c > ~std::uint64_t(0) - (std::uint64_t(1) << k)) throw too_large();
      value = (std::uint64_t(1) << k) + c;
    }
  } else {
    throw UsageError(flag + " expects a whole number such as 1000000 or 2^24+13, not '" + text + "'");
  }
  if (value > max) throw too_large();
  return value;
}

std::string usage(const CliSpec& spec) {
  std::ostringstream out;
  const std::vector<std::string> types = type_names(spec);
  out << "usage: " << spec.program << " [--n N] [--type " << join(types) << "]";
  if (spec.gpu) out << " [--block B] [--grid G]";
  if (spec.ops) out << " [--op sum|max|min]";
  if (spec.multi_gpu) out << " [--gpus K]";
  if (!spec.variants.empty()) out << " [--variant " << join(spec.variants) << "]";
  out << "\n       [--reps R] [--seed S] [--input FILE] [--no-flush] [--json] [--help]";
  if (spec.tour) out << " [--sweep] [--out DIR] [--steps NN]";
  out << "\n\n"
      << "  --n N        elements to reduce (default 16777216 = 2^24; 2^K+C is accepted)\n"
      << "  --type T     element type: "
      << (types.size() == 3 ? "int (default), float or double" : join(types) + " (default " + types.front() + ")")
      << "\n";
  if (spec.gpu) {
    out << "  --block B    threads per block (default: the chapter's choice)\n"
        << "  --grid G     blocks in the first launch (default: read off the device)\n";
  }
  if (spec.ops) out << "  --op OP      the operator: sum (default), max or min\n";
  if (spec.multi_gpu) out << "  --gpus K     split the array over K GPUs (default: all visible)\n";
  if (!spec.variants.empty()) out << "  --variant V  run a variant of the kernel: " << join(spec.variants) << "\n";
  out << "  --reps R     timed repetitions; the median is reported (default 30)\n"
      << "  --seed S     seed of the random input, any 64-bit value (default: a fresh one, printed)\n"
      << "  --input FILE reduce the values in FILE: a 1-D .npy array or raw values of --type\n"
      << "  --no-flush   do not flush the L2 cache before each timed repetition\n"
      << "  --json       print one JSON object instead of the report\n";
  if (spec.tour) {
    out << "  --sweep      run every chapter for N = 2^10 .. 2^30 (as far as the device's memory allows)\n"
        << "               and write sweep_T.csv and sweep_T.json, T the --type (sweep_int.csv, ...)\n"
        << "  --out DIR    folder for the --sweep files, created if missing (default: the current folder)\n"
        << "  --steps NN   chapter NN's changes one at a time (04, 05, 06, 08 or 09): the previous chapter,\n"
        << "               NN's step variants and NN, interleaved at one --type and --n\n";
  }
  out << "\nexit codes: 0 verified, 1 wrong result, 2 bad usage or input, 3 no CUDA device or a CUDA error\n";
  return out.str();
}

void parse_flags(int argc, const char* const* argv, RunFlags& flags, const FlagReader& other) {
  std::set<std::string> seen;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i] == std::string("-h") ? "--help" : argv[i];
    if (!seen.insert(arg).second) throw UsageError(arg + " given twice; give each option once");
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--help") {
      flags.help = true;
    } else if (arg == "--reps") {
      flags.reps = positive_int(arg, value(), kMaxReps);
    } else if (arg == "--seed") {
      flags.seed = parse_count(arg, value(), ~std::uint64_t(0));
      flags.seed_given = true;
    } else if (arg == "--no-flush") {
      flags.flush = false;
    } else if (arg == "--json") {
      flags.json = true;
    } else if (!other(arg, value)) {
      throw UsageError("unknown option '" + arg + "' (run with --help for the list)");
    }
  }
  if (!flags.seed_given) flags.seed = (std::uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();
}

Options parse_options(const CliSpec& spec, int argc, const char* const* argv) {
  Options options;
  bool type_given = false;
  parse_flags(argc, argv, options, [&](const std::string& arg, const std::function<std::string()>& value) {
    if (arg == "--n") {
      options.n = parse_count("--n", value(), kMaxN);
      options.n_given = true;
    } else if (arg == "--type") {
      type_given = true;
      const std::string t = value();
      if (t == "int") options.type = DType::Int;
      else if (t == "float") options.type = DType::Float;
      else if (t == "double") options.type = DType::Double;
      else throw UsageError("--type expects int, float or double, not '" + t + "'");
    } else if (spec.gpu && arg == "--block") {
      options.block = positive_int(arg, value(), kMaxBlock);
    } else if (spec.gpu && arg == "--grid") {
      options.grid = positive_int(arg, value(), kMaxGrid);
    } else if (arg == "--input") {
      options.input = value();
      if (options.input.empty()) throw UsageError("--input needs a file name");
    } else if (spec.ops && arg == "--op") {
      const std::string op = value();
      if (op == "sum") options.op = Op::Sum;
      else if (op == "max") options.op = Op::Max;
      else if (op == "min") options.op = Op::Min;
      else throw UsageError("--op expects sum, max or min, not '" + op + "'");
    } else if (!spec.variants.empty() && arg == "--variant") {
      options.variant = value();
      bool known = false;
      for (const auto& v : spec.variants) known = known || v == options.variant;
      if (!known) throw UsageError("--variant expects one of " + join(spec.variants) + ", not '" + options.variant + "'");
    } else if (spec.multi_gpu && arg == "--gpus") {
      options.gpus = positive_int(arg, value(), kMaxGpus);
    } else if (spec.tour && arg == "--sweep") {
      options.sweep = true;
    } else if (spec.tour && arg == "--out") {
      options.out_dir = value();
    } else if (spec.tour && arg == "--steps") {
      options.steps = value();
    } else if (!spec.gpu && (arg == "--block" || arg == "--grid")) {
      throw UsageError(arg + " does not apply: " +
                       (spec.tour ? "the tour runs every chapter at its own default shape (pass " + arg +
                                        " to one chapter)"
                                  : spec.program + " runs on the CPU"));
    } else if (!spec.ops && arg == "--op") {
      throw UsageError("--op does not apply: " + spec.program + " only sums (09_single_pass, 10_cub take --op)");
    } else {
      return false;
    }
    return true;
  });
  if (options.n_given && !options.input.empty()) {
    throw UsageError("--n and --input both given: the input file's length sets N");
  }
  if (!type_given) options.type = spec.types.front();
  if (std::find(spec.types.begin(), spec.types.end(), options.type) == spec.types.end()) {
    throw UsageError(spec.program + " does not offer --type " + dtype_name(options.type) + ": it takes --type " +
                     join(type_names(spec)));
  }
  return options;
}

}  // namespace reduction
