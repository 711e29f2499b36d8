#include "cli.h"

#include <random>
#include <regex>
#include <sstream>

namespace reduction {

namespace {

// Largest N accepted on the command line: 2^40 elements (4 TiB of ints). Whether it
// fits the device is checked later, against the memory the device actually has.
constexpr std::uint64_t kMaxN = std::uint64_t(1) << 40;

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : "|") + w;
  return out;
}

}  // namespace

std::uint64_t parse_count(const std::string& flag, const std::string& text, std::uint64_t max) {
  std::smatch m;
  std::uint64_t value = 0;
  auto too_large = [&] {
    return UsageError(flag + " " + text + " is too large (at most " + std::to_string(max) + ")");
  };
  if (std::regex_match(text, m, std::regex("[0-9]{1,20}"))) {
    try {
      value = std::stoull(text);
    } catch (const std::out_of_range&) {
      throw too_large();
    }
  } else if (std::regex_match(text, m, std::regex("2\\^([0-9]{1,2})(([+-])([0-9]{1,12}))?"))) {
    int k = std::stoi(m[1]);
    if (k > 62) throw too_large();
    value = std::uint64_t(1) << k;
    if (m[2].matched) {
      std::uint64_t c = std::stoull(m[4]);
      if (m[3] == "-" && c > value) throw UsageError(flag + " " + text + " is negative");
      value = m[3] == "+" ? value + c : value - c;
    }
  } else {
    throw UsageError(flag + " expects a whole number such as 1000000 or 2^24+13, not '" + text + "'");
  }
  if (value > max) throw too_large();
  return value;
}

std::string usage(const CliSpec& spec) {
  std::ostringstream out;
  out << "usage: " << spec.program << " [--n N] [--type int|float|double]";
  if (spec.gpu) out << " [--block B] [--grid G]";
  if (spec.ops) out << " [--op sum|max|min]";
  if (spec.multi_gpu) out << " [--gpus K]";
  if (!spec.variants.empty()) out << " [--variant " << join(spec.variants) << "]";
  out << "\n       [--reps R] [--seed S] [--input FILE] [--no-flush] [--json] [--help]";
  if (spec.tour) out << " [--sweep] [--out DIR]";
  out << "\n\n"
      << "  --n N        elements to reduce (default 16777216 = 2^24; 2^K+C is accepted)\n"
      << "  --type T     element type: int (default), float or double\n";
  if (spec.gpu) {
    out << "  --block B    threads per block (default: the chapter's choice)\n"
        << "  --grid G     blocks in the first launch (default: read off the device)\n";
  }
  if (spec.ops) out << "  --op OP      the operator: sum (default), max or min\n";
  if (spec.multi_gpu) out << "  --gpus K     split the array over K GPUs (default: all visible)\n";
  if (!spec.variants.empty()) out << "  --variant V  run a variant of the kernel: " << join(spec.variants) << "\n";
  out << "  --reps R     timed repetitions; the median is reported (default 30)\n"
      << "  --seed S     seed of the random input (default: a fresh one, printed)\n"
      << "  --input FILE reduce the values in FILE: a 1-D .npy array or raw values of --type\n"
      << "  --no-flush   do not flush the L2 cache before each timed repetition\n"
      << "  --json       print one JSON object instead of the report\n";
  if (spec.tour) {
    out << "  --sweep      run every chapter for N = 2^10 .. 2^30 and write sweep.csv and sweep.json\n"
        << "  --out DIR    folder for the --sweep files (default: the current folder)\n";
  }
  out << "\nexit codes: 0 verified, 1 wrong result, 2 bad usage or input, 3 no CUDA device or a CUDA error\n";
  return out.str();
}

Options parse_options(const CliSpec& spec, int argc, const char* const* argv) {
  Options o;
  auto value_of = [&](int& i, const std::string& flag) -> std::string {
    if (i + 1 >= argc) throw UsageError(flag + " needs a value");
    return argv[++i];
  };
  auto positive_int = [&](const std::string& flag, const std::string& text) {
    std::uint64_t v = parse_count(flag, text, 0x7FFFFFFF);
    if (v == 0) throw UsageError(flag + " must be at least 1");
    return static_cast<int>(v);
  };
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      o.help = true;
    } else if (arg == "--n") {
      o.n = parse_count("--n", value_of(i, arg), kMaxN);
      o.n_given = true;
    } else if (arg == "--type") {
      const std::string t = value_of(i, arg);
      if (t == "int") o.type = DType::Int;
      else if (t == "float") o.type = DType::Float;
      else if (t == "double") o.type = DType::Double;
      else throw UsageError("--type expects int, float or double, not '" + t + "'");
    } else if (spec.gpu && arg == "--block") {
      o.block = positive_int(arg, value_of(i, arg));
    } else if (spec.gpu && arg == "--grid") {
      o.grid = positive_int(arg, value_of(i, arg));
    } else if (arg == "--reps") {
      o.reps = positive_int(arg, value_of(i, arg));
      if (o.reps > 100000) throw UsageError("--reps " + std::to_string(o.reps) + " is too many (at most 100000)");
    } else if (arg == "--seed") {
      o.seed = parse_count(arg, value_of(i, arg), ~std::uint64_t(0));
      o.seed_given = true;
    } else if (arg == "--input") {
      o.input = value_of(i, arg);
      if (o.input.empty()) throw UsageError("--input needs a file name");
    } else if (arg == "--no-flush") {
      o.flush = false;
    } else if (arg == "--json") {
      o.json = true;
    } else if (spec.ops && arg == "--op") {
      const std::string op = value_of(i, arg);
      if (op == "sum") o.op = Op::Sum;
      else if (op == "max") o.op = Op::Max;
      else if (op == "min") o.op = Op::Min;
      else throw UsageError("--op expects sum, max or min, not '" + op + "'");
    } else if (!spec.variants.empty() && arg == "--variant") {
      o.variant = value_of(i, arg);
      bool known = false;
      for (const auto& v : spec.variants) known = known || v == o.variant;
      if (!known) throw UsageError("--variant expects one of " + join(spec.variants) + ", not '" + o.variant + "'");
    } else if (spec.multi_gpu && arg == "--gpus") {
      o.gpus = positive_int(arg, value_of(i, arg));
    } else if (spec.tour && arg == "--sweep") {
      o.sweep = true;
    } else if (spec.tour && arg == "--out") {
      o.out_dir = value_of(i, arg);
    } else if (!spec.gpu && (arg == "--block" || arg == "--grid")) {
      throw UsageError(arg + " does not apply: " + spec.program + " runs on the CPU");
    } else if (!spec.ops && arg == "--op") {
      throw UsageError("--op does not apply: " + spec.program + " only sums (09_single_pass, 10_cub take --op)");
    } else {
      throw UsageError("unknown option '" + arg + "' (run with --help for the list)");
    }
  }
  if (o.n_given && !o.input.empty()) {
    throw UsageError("--n and --input both given: the input file's length sets N");
  }
  if (!o.seed_given) o.seed = (std::uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();
  return o;
}

}  // namespace reduction
