// Reader for tests/golden/*.golden and the tolerance-aware comparison the golden tests use.
// The format is described in golden.h; the writer is tests/golden/generate.py.
#include "golden.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <type_traits>
#include <utility>

#include "ember/ops/factory.h"

#ifndef EMBER_GOLDEN_DIR
#define EMBER_GOLDEN_DIR ""
#endif

namespace {

using ember::ScalarType;
using ember::Tensor;

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw std::runtime_error("golden: " + where + ": " + what);
}

// The whitespace-separated tokens of one line, as views into the file buffer. The buffer is a
// std::string, so every token is followed by whitespace or the terminating NUL, which lets
// strtod/strtoll read straight from token.data().
class Tokens {
 public:
  Tokens(std::string_view line, std::string where) : where_(std::move(where)) {
    size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
      size_t j = i;
      while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
      if (j > i) toks_.push_back(line.substr(i, j - i));
      i = j;
    }
  }
  bool empty() const { return toks_.empty(); }
  bool done() const { return pos_ == toks_.size(); }
  std::string_view keyword() const { return toks_[0]; }
  std::string_view next() {
    if (pos_ >= toks_.size()) fail(where_, "line ends too early");
    return toks_[pos_++];
  }
  void skip_keyword() { pos_ = 1; }
  int64_t next_int() {
    std::string_view t = next();
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(t.data(), &end, 10);
    if (end != t.data() + t.size() || errno != 0)
      fail(where_, "bad integer '" + std::string(t) + "'");
    return v;
  }
  double next_double() {
    std::string_view t = next();
    char* end = nullptr;
    double v = std::strtod(t.data(), &end);
    if (end != t.data() + t.size()) fail(where_, "bad number '" + std::string(t) + "'");
    return v;
  }
  float next_float() {
    std::string_view t = next();
    char* end = nullptr;
    float v = std::strtof(t.data(), &end);  // float32 values are stored as shortest strtof strings
    if (end != t.data() + t.size()) fail(where_, "bad number '" + std::string(t) + "'");
    return v;
  }
  const std::string& where() const { return where_; }

 private:
  std::vector<std::string_view> toks_;
  size_t pos_ = 0;
  std::string where_;
};

ScalarType parse_dtype(std::string_view name, const std::string& where) {
#define EMBER_GOLDEN_DTYPE(ctype, enum_name, short_name) \
  if (name == #short_name) return ScalarType::enum_name;
  EMBER_FORALL_SCALAR_TYPES(EMBER_GOLDEN_DTYPE)
#undef EMBER_GOLDEN_DTYPE
  fail(where, "unknown dtype '" + std::string(name) + "'");
}

template <class T>
void fill_values(const Tensor& t, Tokens& tok) {
  T* p = t.numel() ? t.data_ptr<T>() : nullptr;
  for (int64_t i = 0; i < t.numel(); ++i) {
    if constexpr (std::is_same_v<T, bool>) {
      int64_t v = tok.next_int();
      if (v != 0 && v != 1) fail(tok.where(), "bool values are 0 or 1");
      p[i] = v != 0;
    } else if constexpr (std::is_integral_v<T>) {
      int64_t v = tok.next_int();
      if (v < int64_t(std::numeric_limits<T>::min()) || v > int64_t(std::numeric_limits<T>::max()))
        fail(tok.where(), "value " + std::to_string(v) + " does not fit the dtype");
      p[i] = static_cast<T>(v);
    } else if constexpr (std::is_same_v<T, float>) {
      p[i] = tok.next_float();
    } else if constexpr (std::is_same_v<T, double>) {
      p[i] = tok.next_double();
    } else {  // Half, BFloat16: the stored decimal is exact as a double and as a float
      p[i] = T(static_cast<float>(tok.next_double()));
    }
  }
}

Tensor parse_tensor(Tokens& tok) {
  ScalarType dtype = parse_dtype(tok.next(), tok.where());
  int64_t ndim = tok.next_int();
  if (ndim < 0 || ndim > 16) fail(tok.where(), "bad ndim " + std::to_string(ndim));
  std::vector<int64_t> sizes(static_cast<size_t>(ndim));
  for (auto& s : sizes) {
    s = tok.next_int();
    if (s < 0) fail(tok.where(), "negative size");
  }
  Tensor t = ember::empty(sizes, ember::TensorOptions(dtype));
  switch (dtype) {
#define EMBER_GOLDEN_FILL(ctype, enum_name, short_name) \
  case ScalarType::enum_name:                           \
    fill_values<ctype>(t, tok);                         \
    break;
    EMBER_FORALL_SCALAR_TYPES(EMBER_GOLDEN_FILL)
#undef EMBER_GOLDEN_FILL
    default:
      fail(tok.where(), "unsupported dtype");
  }
  if (!tok.done()) fail(tok.where(), "more values than the sizes say");
  return t;
}

ember::Scalar parse_scalar(std::string_view t, const std::string& where) {
  if (t == "true") return ember::Scalar(true);
  if (t == "false") return ember::Scalar(false);
  bool integral = !t.empty();
  for (size_t i = 0; i < t.size(); ++i)
    if (!(std::isdigit(static_cast<unsigned char>(t[i])) ||
          (i == 0 && t[i] == '-' && t.size() > 1)))
      integral = false;
  char* end = nullptr;
  if (integral) {
    errno = 0;
    long long v = std::strtoll(t.data(), &end, 10);
    if (errno != 0) fail(where, "integer scalar out of range '" + std::string(t) + "'");
    return ember::Scalar(static_cast<int64_t>(v));
  }
  double v = std::strtod(t.data(), &end);
  if (end != t.data() + t.size()) fail(where, "bad scalar '" + std::string(t) + "'");
  return ember::Scalar(v);
}

std::string dtype_name(ScalarType t) {
#define EMBER_GOLDEN_NAME(ctype, enum_name, short_name) \
  if (t == ScalarType::enum_name) return #short_name;
  EMBER_FORALL_SCALAR_TYPES(EMBER_GOLDEN_NAME)
#undef EMBER_GOLDEN_NAME
  return "undefined";
}

std::string sizes_str(const std::vector<int64_t>& s) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << "]";
  return os.str();
}

// "7 [1, 3]": the flat index and the multi-index of element `flat` in a row-major tensor.
std::string index_str(int64_t flat, const std::vector<int64_t>& sizes) {
  std::vector<int64_t> idx(sizes.size());
  int64_t rest = flat;
  for (size_t d = sizes.size(); d-- > 0;) {
    idx[d] = sizes[d] ? rest % sizes[d] : 0;
    rest = sizes[d] ? rest / sizes[d] : 0;
  }
  return std::to_string(flat) + " " + sizes_str(idx);
}

std::vector<int64_t> to_vec(ember::IntArrayRef a) {
  return std::vector<int64_t>(a.begin(), a.end());
}

}  // namespace

std::string GoldenCase::op() const { return name.substr(0, name.find('/')); }

std::string GoldenCase::variant() const {
  size_t slash = name.find('/');
  return slash == std::string::npos ? std::string() : name.substr(slash + 1);
}

bool GoldenCase::has_flag(const std::string& flag) const {
  for (const auto& f : flags)
    if (f == flag) return true;
  return false;
}

Tensor GoldenCase::arg(size_t i) const {
  if (i >= args.size())
    throw std::out_of_range("golden: " + location + ": " + name + " has no arg " +
                            std::to_string(i));
  if ((i == 0 && has_flag("transposed")) || (i == 1 && has_flag("transposed_a1")))
    return args[i].transpose(-2, -1);
  return args[i];
}

std::vector<GoldenCase> parse_golden(const std::string& text, const std::string& source) {
  std::vector<GoldenCase> cases;
  GoldenCase cur;
  bool open = false;
  size_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    std::string_view line(text.data() + pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    std::string where = source + ":" + std::to_string(line_no);
    Tokens tok(line, where);
    if (tok.empty() || tok.keyword()[0] == '#') continue;
    std::string_view kw = tok.keyword();
    tok.skip_keyword();
    if (kw == "case") {
      if (open) fail(where, "'case' before the 'end' of " + cur.name);
      cur = GoldenCase();
      cur.name = std::string(tok.next());
      cur.location = where;
      open = true;
      if (!tok.done()) fail(where, "case names have no spaces");
      continue;
    }
    if (!open) fail(where, "'" + std::string(kw) + "' outside a case");
    if (kw == "end") {
      cases.push_back(std::move(cur));
      open = false;
    } else if (kw == "call") {
      size_t start = line.find("call") + 4;
      while (start < line.size() && line[start] == ' ') ++start;
      cur.call = std::string(line.substr(start));
    } else if (kw == "flag") {
      cur.flags.emplace_back(tok.next());
    } else if (kw == "str") {
      cur.strs.emplace_back(tok.next());
    } else if (kw == "sarg") {
      ember::Scalar s = parse_scalar(tok.next(), where);
      cur.scalar_args.push_back(s);
      cur.scalars.push_back(s.toDouble());
    } else if (kw == "iarg") {
      cur.ints.push_back(tok.next_int());
    } else if (kw == "ilist") {
      std::vector<int64_t> list;
      while (!tok.done()) list.push_back(tok.next_int());
      cur.int_lists.push_back(std::move(list));
    } else if (kw == "arg") {
      cur.args.push_back(parse_tensor(tok));
    } else if (kw == "out") {
      cur.outs.push_back(parse_tensor(tok));
    } else {
      fail(where, "unknown line kind '" + std::string(kw) + "'");
    }
    if ((kw == "flag" || kw == "str" || kw == "sarg" || kw == "iarg") && !tok.done())
      fail(where, "one value per '" + std::string(kw) + "' line");
  }
  if (open) fail(source, "the file ends inside case " + cur.name);
  return cases;
}

std::string golden_path(const std::string& family) {
  const char* env = std::getenv("EMBER_GOLDEN_DIR");
  std::string dir = env && *env ? env : EMBER_GOLDEN_DIR;
  if (dir.empty())
    throw std::runtime_error(
        "golden: no golden folder: set EMBER_GOLDEN_DIR (CMake defines it as tests/golden)");
  return dir + "/" + family + ".golden";
}

std::vector<GoldenCase> load_golden(const std::string& family) {
  std::string path = golden_path(family);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("golden: cannot open " + path);
  std::ostringstream buf;
  buf << in.rdbuf();
  return parse_golden(buf.str(), family + ".golden");
}

std::vector<GoldenCase> golden_cases_for(const std::vector<GoldenCase>& cases,
                                         const std::string& op) {
  std::vector<GoldenCase> out;
  for (const auto& c : cases)
    if (c.op() == op) out.push_back(c);
  return out;
}

std::vector<ember::TensorIndex> golden_index(const GoldenCase& c) {
  using ember::TensorIndex;
  namespace idx = ember::indexing;
  std::vector<TensorIndex> out;
  auto parse_opt = [&](const std::string& part) -> std::optional<int64_t> {
    if (part.empty()) return std::nullopt;
    return std::stoll(part);
  };
  for (const std::string& s : c.strs) {
    if (s == "None") {
      out.emplace_back(idx::None);
    } else if (s == "...") {
      out.emplace_back(idx::Ellipsis);
    } else if (s == "True" || s == "False") {
      out.emplace_back(s == "True");
    } else if (!s.empty() && s[0] == '@') {
      out.emplace_back(c.args.at(static_cast<size_t>(std::stoul(s.substr(1)))));
    } else if (s.find(':') != std::string::npos) {
      size_t a = s.find(':');
      size_t b = s.find(':', a + 1);
      std::string start = s.substr(0, a);
      std::string stop = b == std::string::npos ? s.substr(a + 1) : s.substr(a + 1, b - a - 1);
      std::string step = b == std::string::npos ? std::string() : s.substr(b + 1);
      out.emplace_back(idx::Slice(parse_opt(start), parse_opt(stop), parse_opt(step)));
    } else {
      out.emplace_back(static_cast<int64_t>(std::stoll(s)));
    }
  }
  return out;
}

Tolerance default_tolerance(ScalarType dtype) {
  switch (dtype) {
    case ember::kFloat:
      return {1.3e-6, 1e-5};
    case ember::kDouble:
      return {1e-7, 1e-7};
    case ember::kHalf:
      return {1e-3, 1e-3};
    case ember::kBFloat16:
      return {1.6e-2, 1e-2};
    default:
      return {0, 0};
  }
}

ScalarType golden_dtype(const std::string& name) { return parse_dtype(name, "golden_dtype"); }

bool expect_close(const Tensor& actual, const Tensor& expected, double rtol, double atol,
                  const std::string& what) {
  if (!actual.defined()) {
    ADD_FAILURE() << what << ": the result is an undefined tensor";
    return false;
  }
  if (actual.dtype() != expected.dtype()) {
    ADD_FAILURE() << what << ": dtype " << dtype_name(actual.dtype()) << ", expected "
                  << dtype_name(expected.dtype());
    return false;
  }
  std::vector<int64_t> sizes = to_vec(expected.sizes());
  if (to_vec(actual.sizes()) != sizes) {
    ADD_FAILURE() << what << ": sizes " << sizes_str(to_vec(actual.sizes())) << ", expected "
                  << sizes_str(sizes);
    return false;
  }
  Tensor a = actual.is_cpu() ? actual : actual.cpu();
  const int64_t n = expected.numel();
  std::ostringstream msg;
  msg.precision(std::numeric_limits<double>::max_digits10);

  if (!expected.is_floating_point()) {
    // Exact: compare as int64 so that values beyond 2^53 stay exact.
    Tensor av = a.to(ember::kLong).contiguous();
    Tensor ev = expected.to(ember::kLong).contiguous();
    const int64_t* ap = n ? av.data_ptr<int64_t>() : nullptr;
    const int64_t* ep = n ? ev.data_ptr<int64_t>() : nullptr;
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < n; ++i) {
      if (ap[i] != ep[i]) {
        if (first < 0) first = i;
        ++bad;
      }
    }
    if (bad == 0) return true;
    msg << what << ": " << bad << " of " << n << " elements differ ("
        << dtype_name(expected.dtype()) << ", exact); first at index " << index_str(first, sizes)
        << ": actual " << ap[first] << ", expected " << ep[first];
    ADD_FAILURE() << msg.str();
    return false;
  }

  Tensor av = a.to(ember::kDouble).contiguous();
  Tensor ev = expected.to(ember::kDouble).contiguous();
  const double* ap = n ? av.data_ptr<double>() : nullptr;
  const double* ep = n ? ev.data_ptr<double>() : nullptr;
  int64_t bad = 0, worst = -1;
  double worst_ratio = -1;  // |diff| / allowed; infinity for NaN/Inf mismatches
  for (int64_t i = 0; i < n; ++i) {
    const double x = ap[i], e = ep[i];
    if (x == e || (std::isnan(x) && std::isnan(e))) continue;  // also equal infinities
    const double diff = std::fabs(x - e);
    const double allowed = atol + rtol * std::fabs(e);
    double ratio;
    if (std::isnan(diff) || std::isinf(diff) || std::isinf(e)) {
      ratio = std::numeric_limits<double>::infinity();
    } else if (diff <= allowed) {
      continue;
    } else {
      ratio = allowed > 0 ? diff / allowed : std::numeric_limits<double>::infinity();
    }
    ++bad;
    if (ratio > worst_ratio) {
      worst_ratio = ratio;
      worst = i;
    }
  }
  if (bad == 0) return true;
  const double x = ap[worst], e = ep[worst];
  std::ostringstream tol;  // tolerances read best short; values need every digit
  tol << "rtol " << rtol << ", atol " << atol;
  msg << what << ": " << bad << " of " << n << " elements differ (" << dtype_name(expected.dtype())
      << ", " << tol.str() << "); worst at index " << index_str(worst, sizes) << ": actual " << x
      << ", expected " << e << ", |diff| " << std::fabs(x - e) << " > allowed "
      << atol + rtol * std::fabs(e);
  ADD_FAILURE() << msg.str();
  return false;
}

bool expect_close(const Tensor& actual, const Tensor& expected, const std::string& what) {
  Tolerance tol = default_tolerance(expected.dtype());
  return expect_close(actual, expected, tol.rtol, tol.atol, what);
}

void expect_runner_matches(const std::vector<GoldenCase>& cases, const std::string& op,
                           const GoldenRunner& run) {
  const std::vector<GoldenCase> mine = golden_cases_for(cases, op);
  ASSERT_FALSE(mine.empty()) << "no golden case for " << op;
  for (const GoldenCase& c : mine) {
    SCOPED_TRACE(c.location + " " + c.call);
    GoldenOuts actual;
    try {
      actual = run(c);
    } catch (const std::exception& e) {
      ADD_FAILURE() << c.name << " threw: " << e.what();
      continue;
    }
    ASSERT_EQ(actual.size(), c.outs.size()) << c.name;
    for (size_t i = 0; i < actual.size(); ++i)
      expect_close(actual[i], c.outs[i], c.name + " output " + std::to_string(i));
  }
}

void expect_every_op_has_runner(const std::vector<GoldenCase>& cases,
                                const std::map<std::string, GoldenRunner>& runners,
                                size_t min_ops) {
  std::set<std::string> ops;
  for (const GoldenCase& c : cases) ops.insert(c.op());
  EXPECT_GE(ops.size(), min_ops);
  for (const std::string& op : ops) EXPECT_TRUE(runners.count(op)) << "no runner for " << op;
}
