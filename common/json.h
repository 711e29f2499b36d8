// json.h: the one way the programs write machine-readable output. A JsonObject is built
// field by field, in order, and printed as one line ("key": value pairs joined by ", ");
// a value that is already JSON (null, a number formatted by format_value, a nested
// object or list) goes in with raw().
//
//   std::printf("%s\n", JsonObject().str("chapter", id).num("median_ms", ms, "%.6f").flag("ok", ok).text().c_str());
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <type_traits>
#include <vector>

namespace reduction {

// Today's date in UTC, "YYYY-MM-DD": the "date" of the run head (run_head.h); the only date
// formatter of the programs.
inline std::string utc_date() {
  char text[16];
  const std::time_t now = std::time(nullptr);
  std::strftime(text, sizeof text, "%Y-%m-%d", std::gmtime(&now));
  return text;
}

// A float's 32 bits as "0x%08x": how a result compared bit for bit is printed.
inline std::string float_bits(float x) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", bits);
  return text;
}

// `text` with quotes and backslashes escaped and control characters as spaces (no quotes).
inline std::string json_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
  }
  return out;
}

// `text` as a JSON string, quoted.
inline std::string json_string(const std::string& text) { return "\"" + json_escape(text) + "\""; }

// A number formatted by format_value, as JSON: itself, or "nan", "inf", "-inf" quoted.
inline std::string json_number(const std::string& formatted) {
  const bool finite = formatted != "nan" && formatted != "inf" && formatted != "-inf";
  return finite ? formatted : "\"" + formatted + "\"";
}

// "[a, b, c]" from values that are already JSON.
inline std::string json_list(const std::vector<std::string>& values, const std::string& separator = ", ") {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? separator : "") + values[i];
  return out + "]";
}

class JsonObject {
 public:
  JsonObject& raw(const std::string& key, const std::string& json) {
    body_ += (body_.empty() ? "\"" : ", \"") + key + "\": " + json;
    return *this;
  }
  JsonObject& str(const std::string& key, const std::string& value) { return raw(key, json_string(value)); }
  JsonObject& flag(const std::string& key, bool value) { return raw(key, value ? "true" : "false"); }
  // Integers exactly; a double with a printf format ("%.6f", "%.3f"; default: 6 digits).
  template <typename Number, typename = std::enable_if_t<std::is_arithmetic_v<Number>>>
  JsonObject& num(const std::string& key, Number value, const char* format = "%.6g") {
    if constexpr (std::is_integral_v<Number>) {
      return raw(key, std::to_string(value));
    } else {
      char buffer[64];
      std::snprintf(buffer, sizeof buffer, format, static_cast<double>(value));
      return raw(key, buffer);
    }
  }
  std::string text() const { return "{" + body_ + "}"; }

 private:
  std::string body_;
};

}  // namespace reduction
