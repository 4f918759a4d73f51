// The strict JSON reader of json.h. Recursive descent with an explicit depth bound; every read
// checks the remaining length first, so no input can read out of bounds or recurse without limit.
#include "src/serialize/json.h"

#include <limits>

#include "src/core/check.h"

namespace ember::serialize::detail {

const JsonValue* JsonValue::find(std::string_view key) const {
  for (const auto& m : members)
    if (m.first == key) return &m.second;
  return nullptr;
}

const char* JsonValue::kind_name() const {
  switch (kind) {
    case Kind::Null:
      return "null";
    case Kind::Bool:
      return "bool";
    case Kind::Number:
      return "number";
    case Kind::String:
      return "string";
    case Kind::Array:
      return "array";
    case Kind::Object:
      return "object";
  }
  return "?";
}

namespace {

// Length of the UTF-8 sequence starting at s[i] when it is valid, else 0.
size_t json_utf8_sequence(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t n;
  uint32_t cp;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (s.size() - i < n) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  // Overlong 3/4-byte forms, UTF-16 surrogates and code points past U+10FFFF are invalid.
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
      (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return n;
}

void json_append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

class JsonReader {
 public:
  JsonReader(std::string_view text, const std::string& what) : s_(text), what_(what) {}

  JsonValue document() {
    skip_ws();
    JsonValue v = value(0);
    skip_ws();
    if (pos_ != s_.size()) fail("unexpected data after the value");
    return v;
  }

 private:
  [[noreturn]] void fail(const char* why) const {
    EMBER_FAIL("{}: invalid JSON at byte {}: {}", what_, pos_, why);
  }
  bool at_end() const { return pos_ >= s_.size(); }
  char peek() const { return s_[pos_]; }
  void skip_ws() {
    while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r'))
      ++pos_;
  }
  void expect_literal(std::string_view lit) {
    if (s_.substr(pos_, lit.size()) != lit) fail("unknown literal");
    pos_ += lit.size();
  }

  JsonValue value(int depth) {
    if (at_end()) fail("unexpected end");
    JsonValue v;
    switch (peek()) {
      case '{':
        object(v, depth + 1);
        break;
      case '[':
        array(v, depth + 1);
        break;
      case '"':
        v.kind = JsonValue::Kind::String;
        v.text = string();
        break;
      case 't':
        expect_literal("true");
        v.kind = JsonValue::Kind::Bool;
        v.boolean = true;
        break;
      case 'f':
        expect_literal("false");
        v.kind = JsonValue::Kind::Bool;
        break;
      case 'n':
        expect_literal("null");
        break;
      default:
        number(v);
    }
    return v;
  }

  void object(JsonValue& v, int depth) {
    if (depth > kJsonMaxDepth) fail("nested deeper than 64 levels");
    v.kind = JsonValue::Kind::Object;
    ++pos_;  // '{'
    skip_ws();
    if (!at_end() && peek() == '}') {
      ++pos_;
      return;
    }
    for (;;) {
      skip_ws();
      if (at_end() || peek() != '"') fail("expected a string key");
      std::string key = string();
      if (v.find(key) != nullptr) fail(("duplicate key \"" + key + "\"").c_str());
      skip_ws();
      if (at_end() || peek() != ':') fail("expected ':'");
      ++pos_;
      skip_ws();
      v.members.emplace_back(std::move(key), value(depth));
      skip_ws();
      if (at_end()) fail("unexpected end in an object");
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == '}') {
        ++pos_;
        return;
      }
      fail("expected ',' or '}'");
    }
  }

  void array(JsonValue& v, int depth) {
    if (depth > kJsonMaxDepth) fail("nested deeper than 64 levels");
    v.kind = JsonValue::Kind::Array;
    ++pos_;  // '['
    skip_ws();
    if (!at_end() && peek() == ']') {
      ++pos_;
      return;
    }
    for (;;) {
      skip_ws();
      v.items.push_back(value(depth));
      skip_ws();
      if (at_end()) fail("unexpected end in an array");
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == ']') {
        ++pos_;
        return;
      }
      fail("expected ',' or ']'");
    }
  }

  uint32_t hex4() {
    if (s_.size() - pos_ < 4) fail("truncated \\u escape");
    uint32_t cp = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = s_[pos_++];
      cp <<= 4;
      if (c >= '0' && c <= '9') {
        cp |= static_cast<uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        cp |= static_cast<uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        cp |= static_cast<uint32_t>(c - 'A' + 10);
      } else {
        fail("bad hex digit in a \\u escape");
      }
    }
    return cp;
  }

  std::string string() {
    ++pos_;  // '"'
    std::string out;
    for (;;) {
      if (at_end()) fail("unterminated string");
      const unsigned char c = static_cast<unsigned char>(peek());
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (c < 0x20) fail("control character in a string");
      if (c != '\\') {
        const size_t n = json_utf8_sequence(s_, pos_);
        if (n == 0) fail("invalid UTF-8");
        out.append(s_.substr(pos_, n));
        pos_ += n;
        continue;
      }
      ++pos_;
      if (at_end()) fail("unterminated escape");
      const char e = s_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out += e;
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          uint32_t cp = hex4();
          if (cp >= 0xDC00 && cp <= 0xDFFF) fail("lone low surrogate in a \\u escape");
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (s_.substr(pos_, 2) != "\\u") fail("high surrogate without its low half");
            pos_ += 2;
            const uint32_t lo = hex4();
            if (lo < 0xDC00 || lo > 0xDFFF) fail("high surrogate without its low half");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          json_append_utf8(out, cp);
          break;
        }
        default:
          fail("unknown escape");
      }
    }
  }

  void number(JsonValue& v) {
    const size_t start = pos_;
    const auto digit = [&] { return !at_end() && peek() >= '0' && peek() <= '9'; };
    if (!at_end() && peek() == '-') ++pos_;
    if (!digit()) fail("expected a value");
    if (peek() == '0') {
      ++pos_;
      if (digit()) fail("leading zero in a number");
    } else {
      while (digit()) ++pos_;
    }
    if (!at_end() && peek() == '.') {
      ++pos_;
      if (!digit()) fail("expected a digit after '.'");
      while (digit()) ++pos_;
    }
    if (!at_end() && (peek() == 'e' || peek() == 'E')) {
      ++pos_;
      if (!at_end() && (peek() == '+' || peek() == '-')) ++pos_;
      if (!digit()) fail("expected a digit in the exponent");
      while (digit()) ++pos_;
    }
    v.kind = JsonValue::Kind::Number;
    v.text = std::string(s_.substr(start, pos_ - start));
  }

  std::string_view s_;
  const std::string& what_;
  size_t pos_ = 0;
};

}  // namespace

JsonValue parse_json(std::string_view text, const std::string& what) {
  return JsonReader(text, what).document();
}

bool json_to_uint64(const JsonValue& v, uint64_t& out) {
  if (v.kind != JsonValue::Kind::Number || v.text.empty()) return false;
  uint64_t r = 0;
  for (char c : v.text) {
    if (c < '0' || c > '9') return false;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (r > (std::numeric_limits<uint64_t>::max() - d) / 10) return false;
    r = r * 10 + d;
  }
  out = r;
  return true;
}

bool json_to_int64(const JsonValue& v, int64_t& out) {
  if (v.kind != JsonValue::Kind::Number || v.text.empty()) return false;
  const bool neg = v.text[0] == '-';
  JsonValue mag;
  mag.kind = JsonValue::Kind::Number;
  mag.text = neg ? v.text.substr(1) : v.text;
  uint64_t u = 0;
  if (!json_to_uint64(mag, u)) return false;
  const uint64_t limit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + (neg ? 1 : 0);
  if (u > limit) return false;
  // -2^63 has no positive counterpart: negate in unsigned arithmetic.
  out = neg ? static_cast<int64_t>(0 - u) : static_cast<int64_t>(u);
  return true;
}

bool is_valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = json_utf8_sequence(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

void append_json_string(std::string& out, std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  out += '"';
  for (char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 0xF];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

}  // namespace ember::serialize::detail
