// A small, strict JSON reader and the string escaping of its writer, for the safetensors header and
// the archive tree stored in it. Strict: RFC 8259 only (no comments, trailing commas, NaN), valid
// UTF-8, bounded nesting (kJsonMaxDepth) and duplicate object keys refused. Numbers keep their text
// so 64-bit integers read back exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ember::serialize::detail {

/// Deeper nesting is refused: the reader recurses once per level.
constexpr int kJsonMaxDepth = 64;

struct JsonValue {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  std::string text;  // a String's value, a Number's literal text
  std::vector<JsonValue> items;
  std::vector<std::pair<std::string, JsonValue>> members;  // in document order

  /// The member named `key`, or nullptr (members are unique: the reader refuses duplicates).
  const JsonValue* find(std::string_view key) const;
  /// "object", "string", ... for messages.
  const char* kind_name() const;
};

/// Parses a whole document (whitespace around it allowed). Throws ember::Error
/// "<what>: invalid JSON at byte <n>: <reason>" naming `what` (e.g. the file).
JsonValue parse_json(std::string_view text, const std::string& what);

/// A Number as a non-negative integer: digits only, no sign, fraction or exponent, at most
/// 2^64 - 1. False otherwise.
bool json_to_uint64(const JsonValue& v, uint64_t& out);
/// A Number as an int64 (optional '-', digits only, in range). False otherwise.
bool json_to_int64(const JsonValue& v, int64_t& out);

/// Whether `s` is valid UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
bool is_valid_utf8(std::string_view s);

/// Appends `s` as a JSON string literal, escaping as serde_json and Python's
/// json.dumps(ensure_ascii=False) do: \" \\ \b \f \n \r \t, other control characters as \u00xx,
/// everything else (UTF-8 included) as is.
void append_json_string(std::string& out, std::string_view s);

}  // namespace ember::serialize::detail
