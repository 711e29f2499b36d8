// cli.h: the command line every chapter shares (README.md, "Quick start"; each chapter's --help).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "input.h"
#include "op.h"

namespace reduction {

// The flags every program reads alike (its options derive from this): --reps R, --seed S, --no-flush, --json,
// --help (or -h).
struct RunFlags {
  int reps = 30;           // timed repetitions; the median is reported
  std::uint64_t seed = 0;  // drawn at random when --seed is not given
  bool seed_given = false;
  bool flush = true;       // flush the L2 cache before each timed repetition
  bool json = false;
  bool help = false;
};

// Reads argv[1..] in order: the run flags into `flags`, every other flag through `other(flag, value)`, which returns
// false for a flag it does not know; value() reads the flag's value. Throws UsageError for a flag given twice, an
// unknown flag or a missing value; draws the seed when --seed is not given.
using FlagReader = std::function<bool(const std::string& flag, const std::function<std::string()>& value)>;
void parse_flags(int argc, const char* const* argv, RunFlags& flags, const FlagReader& other);

// The names of `values`, joined by '|' ("sum|max|argmax").
template <typename Enum, typename Name>
std::string names_of(const std::vector<Enum>& values, Name name) {
  std::string text;
  for (Enum v : values) text += (text.empty() ? "" : "|") + std::string(name(v));
  return text;
}
// The value of `flag` among `values` (by name(v)), or a UsageError naming the choices in `program`.
template <typename Enum, typename Name>
Enum pick(const std::string& program, const std::string& flag, const std::string& text,
          const std::vector<Enum>& values, Name name) {
  for (Enum v : values) {
    if (text == name(v)) return v;
  }
  throw UsageError(flag + " expects " + names_of(values, name) + " in " + program + ", not '" + text + "'");
}

struct Options : RunFlags {
  std::size_t n = std::size_t(1) << 24;  // 16M, the size the source articles measure
  bool n_given = false;
  DType type = DType::Int;
  int block = 0;  // 0: the chapter's default
  int grid = 0;   // 0: the chapter's default (read off the device)
  std::string input;
  Op op = Op::Sum;
  std::string variant;
  int gpus = 0;          // 11 only: how many GPUs (0: all visible)
  bool sweep = false;    // tour only
  std::string out_dir;   // tour only: where --sweep writes its CSV and JSON
  std::string steps;     // tour only: the chapter whose changes --steps times one at a time ("04")
};

// What a program accepts beyond the common flags.
struct CliSpec {
  std::string program;                 // "04_shared_tree"
  bool gpu = true;                     // accepts --block and --grid (the tour does not)
  bool ops = false;                    // accepts --op max|min
  std::vector<std::string> variants;   // names accepted by --variant
  bool tour = false;                   // accepts --sweep, --out and --steps
  bool multi_gpu = false;              // accepts --gpus K (chapter 11)
  std::vector<DType> types{DType::Int, DType::Float, DType::Double};  // offered; the first is the default
};

// Parses argv; throws UsageError with a one-line message naming the problem and what
// would be accepted (an unknown flag, a flag given twice, a value past its limit). A
// random seed is drawn when --seed is not given.
Options parse_options(const CliSpec& spec, int argc, const char* const* argv);

std::string usage(const CliSpec& spec);

// Parses a count: decimal digits, or 2^K optionally followed by +C or -C ("2^24+13",
// "2^64-1"). Throws UsageError naming the flag when the text does not parse or exceeds
// max (the message names max).
std::uint64_t parse_count(const std::string& flag, const std::string& text, std::uint64_t max);

}  // namespace reduction
