// Random inputs, and reading the reader's files: good ones round-trip, every broken
// one is refused with a message that names the problem.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>

#include "harness.h"
#include "input.h"
#include "random.h"

namespace reduction {
namespace {

std::string temp_path(const std::string& name) { return ::testing::TempDir() + name; }

std::string load_error(const std::string& path, DType type) {
  try {
    if (type == DType::Int) load_input<int>(path);
    if (type == DType::Float) load_input<float>(path);
    if (type == DType::Double) load_input<double>(path);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

// Writes a .npy file with a hand-made header (to build broken files).
void write_npy(const std::string& path, const std::string& dict, const void* data, std::size_t bytes,
               char version = 1) {
  std::string header = dict;
  std::size_t prefix = version == 1 ? 10 : 12;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY", 6);
  out.put(version);
  out.put(0);
  if (version == 1) {
    out.put(static_cast<char>(header.size() & 0xFF));
    out.put(static_cast<char>(header.size() >> 8));
  } else {
    for (int i = 0; i < 4; ++i) out.put(static_cast<char>((header.size() >> (8 * i)) & 0xFF));
  }
  out << header;
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
}

TEST(Input, GeneratedValuesAreSeededAndInRange) {
  const std::size_t n = 100000;
  const auto a = generate_input<int>(n, 7), b = generate_input<int>(n, 7), c = generate_input<int>(n, 8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  const int m = int_magnitude(n);
  EXPECT_EQ(m, 1000);
  int lowest = INT_MAX, highest = INT_MIN;
  for (int x : a) lowest = std::min(lowest, x), highest = std::max(highest, x);
  EXPECT_EQ(lowest, -m);  // 100000 draws from 2001 values: both ends appear
  EXPECT_EQ(highest, m);
  for (float x : generate_input<float>(n, 3)) ASSERT_TRUE(x >= 0.0f && x < 1.0f) << x;
  for (double x : generate_input<double>(n, 3)) ASSERT_TRUE(x >= 0.0 && x < 1.0) << x;
  // The multi-threaded generator gives the same values as the formula, element by element.
  const auto f = generate_input<float>(n, 11);
  for (std::size_t i = 0; i < n; i += 997) ASSERT_EQ(f[i], random_value<float>(11, i, n));
}

TEST(Input, IntRangeCannotOverflowInAnyOrder) {
  for (std::size_t n : {std::size_t(1), std::size_t(1) << 20, std::size_t(1) << 24, std::size_t(1) << 28,
                        (std::size_t(1) << 31) + 7}) {
    const long long worst = static_cast<long long>(int_magnitude(n)) * static_cast<long long>(n);
    if (n < (std::size_t(1) << 31)) {
      EXPECT_LE(worst, INT_MAX) << n;
    }
    EXPECT_GE(int_magnitude(n), 1);
  }
}

TEST(Input, ExactFloatsSumExactlyInAnyOrder) {
  const std::size_t n = 1 << 20;
  const auto x = generate_input<float>(n, 5, true);
  double exact = 0;
  float forward = 0, backward = 0;
  for (float v : x) {
    ASSERT_EQ(v, static_cast<float>(static_cast<int>(v)));  // small integers
    exact += v;
    forward += v;
  }
  for (std::size_t i = n; i-- > 0;) backward += x[i];
  EXPECT_LE(exact, 16777216.0);
  EXPECT_EQ(forward, exact);
  EXPECT_EQ(backward, exact);
  EXPECT_EQ(exact_magnitude<float>(std::size_t(1) << 25), 0);  // none fits past 2^24 elements
}

TEST(Input, NpyAndRawRoundTripForEveryType) {
  const auto ints = generate_input<int>(1001, 1);
  const auto floats = generate_input<float>(1001, 2);
  const auto doubles = generate_input<double>(1001, 3);
  save_npy(temp_path("rt_i.npy"), ints);
  save_npy(temp_path("rt_f.npy"), floats);
  save_npy(temp_path("rt_d.npy"), doubles);
  EXPECT_EQ(load_input<int>(temp_path("rt_i.npy")), ints);
  EXPECT_EQ(load_input<float>(temp_path("rt_f.npy")), floats);
  EXPECT_EQ(load_input<double>(temp_path("rt_d.npy")), doubles);
  std::ofstream(temp_path("rt.raw"), std::ios::binary)
      .write(reinterpret_cast<const char*>(floats.data()), floats.size() * sizeof(float));
  EXPECT_EQ(load_input<float>(temp_path("rt.raw")), floats);
  // Empty arrays are fine: N = 0.
  save_npy(temp_path("rt_empty.npy"), std::vector<int>{});
  EXPECT_TRUE(load_input<int>(temp_path("rt_empty.npy")).empty());
  std::ofstream(temp_path("rt_empty.raw"), std::ios::binary).flush();
  EXPECT_TRUE(load_input<double>(temp_path("rt_empty.raw")).empty());
  // Version 2 headers (4-byte length) are read too.
  const int three[3] = {4, 5, 6};
  write_npy(temp_path("rt_v2.npy"), "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }", three,
            sizeof three, 2);
  EXPECT_EQ(load_input<int>(temp_path("rt_v2.npy")), (std::vector<int>{4, 5, 6}));
}

TEST(Input, BrokenFilesAreRefusedWithTheReason) {
  const double values[4] = {1, 2, 3, 4};
  const std::string wrong_type = temp_path("bad_type.npy");
  save_npy(wrong_type, std::vector<double>(values, values + 4));
  EXPECT_EQ(load_error(wrong_type, DType::Float),
            wrong_type + ": holds dtype '<f8' but --type float expects '<f4' (use --type double)");

  const std::string two_d = temp_path("bad_2d.npy");
  write_npy(two_d, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }", values, sizeof values);
  EXPECT_EQ(load_error(two_d, DType::Double),
            two_d + ": array has shape (2, 2); only 1-D arrays are accepted (shape (N,))");

  const std::string scalar = temp_path("bad_scalar.npy");
  write_npy(scalar, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", values, 8);
  EXPECT_NE(load_error(scalar, DType::Double).find("only 1-D arrays"), std::string::npos);

  const std::string truncated = temp_path("bad_truncated.npy");
  write_npy(truncated, "{'descr': '<f8', 'fortran_order': False, 'shape': (10,), }", values, sizeof values);
  EXPECT_EQ(load_error(truncated, DType::Double),
            truncated + ": .npy data truncated: expected 10 values, found 4");

  const std::string fortran = temp_path("bad_fortran.npy");
  write_npy(fortran, "{'descr': '<f8', 'fortran_order': True, 'shape': (4,), }", values, sizeof values);
  EXPECT_NE(load_error(fortran, DType::Double).find("Fortran-ordered"), std::string::npos);

  const std::string big_endian = temp_path("bad_be.npy");
  write_npy(big_endian, "{'descr': '>f8', 'fortran_order': False, 'shape': (4,), }", values, sizeof values);
  EXPECT_NE(load_error(big_endian, DType::Double).find("big-endian"), std::string::npos);

  const std::string odd_dtype = temp_path("bad_dtype.npy");
  write_npy(odd_dtype, "{'descr': '<i8', 'fortran_order': False, 'shape': (4,), }", values, sizeof values);
  EXPECT_NE(load_error(odd_dtype, DType::Int).find("supported: <i4 int32, <f4 float32, <f8 float64"),
            std::string::npos);

  const std::string float_as_int = temp_path("bad_float_as_int.npy");
  save_npy(float_as_int, std::vector<float>{1.5f, 2.5f});
  EXPECT_EQ(load_error(float_as_int, DType::Int),
            float_as_int + ": holds dtype '<f4' but --type int expects '<i4' (use --type float)");
  EXPECT_NE(load_error(wrong_type, DType::Int).find("holds dtype '<f8' but --type int"), std::string::npos);

  const std::string no_descr = temp_path("bad_header.npy");
  write_npy(no_descr, "{'fortran_order': False, 'shape': (4,), }", values, sizeof values);
  EXPECT_NE(load_error(no_descr, DType::Double).find("header has no 'descr' entry"), std::string::npos);

  const std::string short_header = temp_path("bad_short.npy");
  std::ofstream(short_header, std::ios::binary) << "\x93NUMPY\x01";
  EXPECT_NE(load_error(short_header, DType::Int).find("truncated header"), std::string::npos);

  const std::string not_npy = temp_path("bad_magic.npy");
  std::ofstream(not_npy, std::ios::binary) << "just text";
  EXPECT_NE(load_error(not_npy, DType::Int).find("does not start with the NumPy magic"), std::string::npos);

  const std::string raw = temp_path("bad.raw");
  std::ofstream(raw, std::ios::binary) << "12345";
  EXPECT_EQ(load_error(raw, DType::Int),
            raw + ": raw file of 5 bytes is not a whole number of int values (4 bytes each); check --type, or save "
                  "a .npy file");

  EXPECT_EQ(load_error("/no/such/file.raw", DType::Int),
            "cannot open input file '/no/such/file.raw': No such file or directory");
}

// Writes a version-2 .npy header that claims header_len bytes of header, then `tail`.
void write_header_claim(const std::string& path, std::uint32_t header_len, const std::string& tail) {
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x02\x00", 8);
  for (int i = 0; i < 4; ++i) out.put(static_cast<char>((header_len >> (8 * i)) & 0xFF));
  out << tail;
}

// In a child process: limits the address space to 256 MiB more than it holds now,
// loads path as doubles and exits 0 when refused with `message`, 2 with another
// message, 3 on std::bad_alloc, 4 when the file is accepted.
[[noreturn]] void load_with_little_memory(const std::string& path, const std::string& message) {
  long pages = 0;
  std::FILE* statm = std::fopen("/proc/self/statm", "r");
  if (!statm || std::fscanf(statm, "%ld", &pages) != 1) std::_Exit(5);
  const rlim_t limit = static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) + (rlim_t(256) << 20);
  rlimit address_space{};
  address_space.rlim_cur = address_space.rlim_max = limit;
  if (setrlimit(RLIMIT_AS, &address_space) != 0) std::_Exit(6);
  try {
    load_input<double>(path);
  } catch (const UsageError& e) {
    std::_Exit(std::string(e.what()).find(message) != std::string::npos ? 0 : 2);
  } catch (const std::bad_alloc&) {
    std::_Exit(3);
  }
  std::_Exit(4);
}

// A file that claims gigabytes must be refused before anything that large is allocated.
void expect_refused_without_allocating(const std::string& path, const std::string& message) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(load_with_little_memory(path, message), ::testing::ExitedWithCode(0), "")
      << path << " (exit 2: another message, 3: it allocated, 4: it was accepted)";
}

TEST(Input, SizesAreCheckedAgainstTheFileBeforeAllocating) {
  // A 148-byte .npy whose header claims 10^9 doubles (8 GB).
  const std::string claims_billion = temp_path("claims_billion.npy");
  const double four[4] = {1, 2, 3, 4};
  write_npy(claims_billion, "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000,), }", four,
            sizeof four);
  EXPECT_EQ(load_error(claims_billion, DType::Double),
            claims_billion + ": .npy data truncated: expected 1000000000 values, found 4");
  expect_refused_without_allocating(claims_billion, "expected 1000000000 values, found 4");

  // A header length of 0xFFFFFFF0 in a file of 40 bytes.
  const std::string huge_header = temp_path("huge_header.npy");
  write_header_claim(huge_header, 0xFFFFFFF0u, std::string(28, ' '));
  EXPECT_EQ(load_error(huge_header, DType::Double),
            huge_header + ": not a valid .npy file: truncated header (it claims 4294967280 bytes, the file has 40)");
  expect_refused_without_allocating(huge_header, "it claims 4294967280 bytes");
}

TEST(Input, AShapeThatDoesNotFitIn64BitsIsRefused) {
  const double one = 1;
  const std::string thirty_digits = temp_path("shape_30_digits.npy");
  write_npy(thirty_digits, "{'descr': '<f8', 'fortran_order': False, 'shape': (123456789012345678901234567890,), }",
            &one, sizeof one);
  EXPECT_EQ(load_error(thirty_digits, DType::Double),
            thirty_digits + ": not a valid .npy file: its shape, a number of 30 digits, does not fit in 64 bits");
  // 2^64 does not fit; 2^64 - 1 does, and is then too long for the file.
  const std::string two_to_64 = temp_path("shape_2_64.npy");
  write_npy(two_to_64, "{'descr': '<f8', 'fortran_order': False, 'shape': (18446744073709551616,), }", &one,
            sizeof one);
  EXPECT_NE(load_error(two_to_64, DType::Double).find("20 digits, does not fit in 64 bits"), std::string::npos);
  const std::string largest = temp_path("shape_2_64_minus_1.npy");
  write_npy(largest, "{'descr': '<f8', 'fortran_order': False, 'shape': (18446744073709551615,), }", &one,
            sizeof one);
  EXPECT_EQ(load_error(largest, DType::Double),
            largest + ": .npy data truncated: expected 18446744073709551615 values, found 1");
}

TEST(Input, OnlyRegularFilesAreRead) {
  const std::string dir = temp_path("input_is_a_directory");
  mkdir(dir.c_str(), 0700);
  EXPECT_EQ(load_error(dir, DType::Int),
            "input file '" + dir + "' is a directory; --input expects a regular file (a .npy array or raw values)");
  EXPECT_NE(load_error("/proc", DType::Float).find("is a directory"), std::string::npos);
  // A pipe: opening it would block until a writer comes; it must be refused at once.
  const std::string fifo = temp_path("input_fifo");
  std::remove(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  EXPECT_NE(load_error(fifo, DType::Double).find("' is a pipe (FIFO); --input expects a regular file"),
            std::string::npos);
  std::remove(fifo.c_str());
  EXPECT_EQ(load_error("/dev/null", DType::Int),
            "input file '/dev/null' is a device file; --input expects a regular file (a .npy array or raw values)");
}

TEST(Input, TrailingBytesAreAWarningNotAnError) {
  const auto values = generate_input<float>(1001, std::random_device{}());
  const std::string exact = temp_path("trailing_none.npy");
  save_npy(exact, values);
  InputInfo info;
  EXPECT_EQ(load_input<float>(exact, &info), values);
  EXPECT_EQ(info.warning, "");
  const std::string trailing = temp_path("trailing_3.npy");
  save_npy(trailing, values);
  std::ofstream(trailing, std::ios::binary | std::ios::app) << "xyz";
  EXPECT_EQ(load_input<float>(trailing, &info), values);
  EXPECT_EQ(info.warning, trailing + ": 3 bytes after the 1001 values of the array are ignored");
}

TEST(Input, NarrowNpyTypesWidenExactlyOnLoad) {
  std::mt19937_64 random(std::random_device{}());
  std::vector<int> ints(10007);
  for (int& v : ints) v = static_cast<int>(random());  // the whole int range
  ints[0] = INT_MIN;
  ints[1] = INT_MAX;
  const std::string int_file = temp_path("widen_int.npy");
  save_npy(int_file, ints);
  InputInfo info;
  const std::vector<double> as_double = load_input<double>(int_file, &info);
  EXPECT_EQ(info.converted_from, "int32");
  ASSERT_EQ(as_double.size(), ints.size());
  for (std::size_t i = 0; i < ints.size(); ++i) ASSERT_EQ(as_double[i], static_cast<double>(ints[i])) << i;

  // int32 to float: only while every value is a float (all of [-2^24, 2^24], some beyond).
  std::vector<int> small(10007);
  for (int& v : small) v = static_cast<int>(random() % 33554433) - 16777216;  // [-2^24, 2^24]
  small[7] = INT_MIN;  // -2^31: a float exactly
  const std::string small_file = temp_path("widen_small.npy");
  save_npy(small_file, small);
  const std::vector<float> as_float = load_input<float>(small_file, &info);
  EXPECT_EQ(info.converted_from, "int32");
  for (std::size_t i = 0; i < small.size(); ++i) ASSERT_EQ(static_cast<double>(as_float[i]), small[i]) << i;
  const std::size_t at = 1 + random() % (small.size() - 1);
  small[at] = 16777217;  // 2^24 + 1: the first integer a float cannot hold
  save_npy(small_file, small);
  EXPECT_EQ(load_error(small_file, DType::Float),
            small_file + ": value 16777217 at index " + std::to_string(at) +
                " is not exactly a float (a float holds integers exactly up to 2^24 = 16777216); use --type double "
                "or --type int");
  EXPECT_NE(load_error(int_file, DType::Float).find("is not exactly a float"), std::string::npos);

  // float32 to double: always exact, NaN and inf included.
  auto floats = generate_input<float>(10007, random());
  floats[random() % floats.size()] = std::nanf("");
  floats[random() % floats.size()] = -INFINITY;
  const std::string float_file = temp_path("widen_float.npy");
  save_npy(float_file, floats);
  const std::vector<double> widened = load_input<double>(float_file, &info);
  EXPECT_EQ(info.converted_from, "float32");
  for (std::size_t i = 0; i < floats.size(); ++i) {
    ASSERT_TRUE(widened[i] == floats[i] || (std::isnan(widened[i]) && std::isnan(floats[i]))) << i;
  }
  // Same type: no conversion reported.
  load_input<float>(float_file, &info);
  EXPECT_EQ(info.converted_from, "");
}

// --sweep --out DIR: the folder is made with its parents; a place that cannot be a folder
// is a usage error that names it.
TEST(SweepFolder, IsCreatedWithItsParents) {
  const std::string dir = temp_path("sweep_folder_" + std::to_string(getpid())) + "/a/b";
  EXPECT_EQ(sweep_folder(dir), dir);
  struct stat info {};
  ASSERT_EQ(stat(dir.c_str(), &info), 0);
  EXPECT_TRUE(S_ISDIR(info.st_mode));
  EXPECT_EQ(sweep_folder(dir), dir);  // already there: nothing to do
  EXPECT_EQ(sweep_folder(""), ".");
}

TEST(SweepFolder, UnderAFileIsAUsageError) {
  const std::string file = temp_path("sweep_folder_file_" + std::to_string(getpid()));
  std::ofstream(file) << "x";
  try {
    sweep_folder(file + "/out");
    FAIL() << "no error for a folder under a file";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find(file + "/out"), std::string::npos) << error.what();
  }
  std::remove(file.c_str());
}

}  // namespace
}  // namespace reduction
