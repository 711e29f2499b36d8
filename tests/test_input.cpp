// Random inputs, and reading the reader's files: good ones round-trip, every broken
// one is refused with a message that names the problem.
#include <gtest/gtest.h>

#include <climits>
#include <cstring>
#include <fstream>

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

}  // namespace
}  // namespace reduction
