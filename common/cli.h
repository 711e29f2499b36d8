// cli.h: the command line every chapter shares (README.md, "Quick start"; each chapter's --help).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "input.h"
#include "op.h"

namespace reduction {

struct Options {
  std::size_t n = std::size_t(1) << 24;  // 16M, the size the source articles measure
  bool n_given = false;
  DType type = DType::Int;
  int block = 0;  // 0: the chapter's default
  int grid = 0;   // 0: the chapter's default (read off the device)
  int reps = 30;
  std::uint64_t seed = 0;
  bool seed_given = false;
  std::string input;
  bool flush = true;
  bool json = false;
  bool help = false;
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
