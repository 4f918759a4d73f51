// The values a FlexAttention score_mod computes with, and the tensors it reads.
//
// A score_mod is a generic callable `(score, b, h, q_idx, kv_idx) -> score`:
//   Captured bias(rel_bias);   // a learned [heads, 2·L − 1] table
//   auto mod = [=](auto score, int64_t b, int64_t h, int64_t q, int64_t kv) {
//     return score + bias(h, q - kv + L - 1);
//   };
// Forward calls it with a plain float (double for float64 inputs), so it inlines into the tiled
// kernel as ordinary arithmetic. Backward calls the same code with a ScoreDual, which carries the
// derivative with respect to the incoming score and to each captured element read, so the score
// gradient and the gradients of captured tensors (bias above) come out of one pass with no graph.
//
// Rules that follow from that (each misuse is reported, not silently wrong, where it can be):
// - take the score as `auto` (a `float` parameter cannot carry derivatives: flex_attention throws
//   when it would record a gradient; such a score_mod also reads its tables' values as they were
//   when the Captured was made, as flex_attention cannot find them to refresh them);
// - read tensors through `Captured`, capture it by value (`[=]`: backward runs after the call);
// - keep reads in expressions: `float x = bias(h, 0)` drops its gradient (the conversion is
//   explicit for that reason);
// - call math functions unqualified (`tanh(score / cap)`), so both types find their overload;
//   `ember::nn::attention::tanh` works too, `std::tanh` only on plain numbers;
// - read every captured tensor unconditionally: flex_attention finds them by calling score_mod
//   at a few positions, and backward throws if a read shows up that it did not find;
// - one Captured serves one flex_attention call (with its backward) at a time: calls refresh the
//   table's values in place, so threads running at once need Captured objects of their own.
#pragma once

#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "ember/core/macros.h"
#include "ember/core/tensor.h"

namespace ember::nn::attention {

namespace detail {

/// A captured tensor as kernels read it: a contiguous float or double copy (or the tensor itself
/// when it already is one), refreshed by each flex_attention call that reads it.
struct EMBER_API CapturedState : std::enable_shared_from_this<CapturedState> {
  static constexpr int kMaxDim = 8;
  Tensor tensor;    // what the user captured (its gradient is what backward produces)
  Tensor prepared;  // contiguous float32 or float64 values of `tensor`
  const float* f = nullptr;
  const double* d = nullptr;
  int64_t dim = 0;
  int64_t sizes[kMaxDim] = {};
  int64_t strides[kMaxDim] = {};
  /// Set by a read outside the table, from any worker thread (the caller checks after).
  mutable std::atomic<bool> out_of_range{false};

  /// Points f/d at the current values of `tensor` (or of `values`, a saved copy, in backward).
  void prepare(const Tensor& values);
  double read(int64_t offset) const { return d ? d[offset] : static_cast<double>(f[offset]); }
};

}  // namespace detail

/// One element of a captured tensor, as an affine function of it: value = coef·x + c, where x is
/// element `index` of the table `table` (index -1 after an out-of-range read: no gradient).
struct CapturedValue {
  double value = 0;
  const detail::CapturedState* table = nullptr;
  int64_t index = 0;
  double coef = 1;

  CapturedValue() = default;
  CapturedValue(double v, const detail::CapturedState* t, int64_t i, double c)
      : value(v), table(t), index(i), coef(c) {}
  /// A plain number (no table): lets `cond ? score + table(i) : score` type-check on floats.
  CapturedValue(double v) : value(v), table(nullptr), index(-1), coef(0) {}  // NOLINT

  explicit operator double() const { return value; }
  explicit operator float() const { return static_cast<float>(value); }
};

/// A score in backward: its value, d(value)/d(incoming score), and d(value)/d(captured element)
/// for up to kMaxTerms elements read (more sets `overflow`, which backward reports).
struct ScoreDual {
  static constexpr int kMaxTerms = 4;
  struct Term {
    const detail::CapturedState* table;
    int64_t index;
    double coef;
  };

  double value = 0;
  double d_score = 0;
  int terms = 0;
  bool overflow = false;
  Term term[kMaxTerms] = {};

  ScoreDual() = default;
  ScoreDual(double v) : value(v) {}  // NOLINT: constants mix with scores implicitly
  ScoreDual(const CapturedValue& c) : value(c.value) {  // NOLINT
    if (c.table) term[terms++] = {c.table, c.index, c.coef};
  }
  /// The incoming score of backward: d(score)/d(score) = 1.
  static ScoreDual score(double v) {
    ScoreDual s(v);
    s.d_score = 1;
    return s;
  }
  explicit operator double() const { return value; }
  explicit operator float() const { return static_cast<float>(value); }

  /// Every derivative times f (the chain rule through a function of this value).
  ScoreDual& scale_derivatives(double f) {
    d_score *= f;
    for (int i = 0; i < terms; ++i) term[i].coef *= f;
    return *this;
  }
  /// Adds f times o's derivatives to this one's (a second read of one element adds to its term).
  ScoreDual& add_derivatives(const ScoreDual& o, double f) {
    d_score += f * o.d_score;
    overflow = overflow || o.overflow;
    for (int i = 0; i < o.terms; ++i) {
      bool merged = false;
      for (int j = 0; j < terms && !merged; ++j)
        if (term[j].table == o.term[i].table && term[j].index == o.term[i].index) {
          term[j].coef += o.term[i].coef * f;
          merged = true;
        }
      if (merged) continue;
      if (terms == kMaxTerms) {
        overflow = true;
        break;
      }
      term[terms++] = {o.term[i].table, o.term[i].index, o.term[i].coef * f};
    }
    return *this;
  }
};

template <class S>
using if_number = std::enable_if_t<std::is_arithmetic_v<S>, int>;

// ---- CapturedValue with numbers: still affine in one element --------------------------------
template <class S, if_number<S> = 0>
CapturedValue operator+(CapturedValue c, S s) {
  c.value += static_cast<double>(s);
  return c;
}
template <class S, if_number<S> = 0>
CapturedValue operator+(S s, CapturedValue c) {
  return c + s;
}
template <class S, if_number<S> = 0>
CapturedValue operator-(CapturedValue c, S s) {
  c.value -= static_cast<double>(s);
  return c;
}
inline CapturedValue operator-(CapturedValue c) {
  c.value = -c.value;
  c.coef = -c.coef;
  return c;
}
template <class S, if_number<S> = 0>
CapturedValue operator-(S s, CapturedValue c) {
  return -c + s;
}
template <class S, if_number<S> = 0>
CapturedValue operator*(CapturedValue c, S s) {
  c.value *= static_cast<double>(s);
  c.coef *= static_cast<double>(s);
  return c;
}
template <class S, if_number<S> = 0>
CapturedValue operator*(S s, CapturedValue c) {
  return c * s;
}
template <class S, if_number<S> = 0>
CapturedValue operator/(CapturedValue c, S s) {
  return c * (1.0 / static_cast<double>(s));
}

// ---- ScoreDual arithmetic (a CapturedValue or a number converts to a ScoreDual) ---------------
inline ScoreDual operator+(const ScoreDual& a, const ScoreDual& b) {
  ScoreDual r = a;
  r.value += b.value;
  return r.add_derivatives(b, 1);
}
inline ScoreDual operator-(const ScoreDual& a) {
  ScoreDual r = a;
  r.value = -r.value;
  return r.scale_derivatives(-1);
}
inline ScoreDual operator-(const ScoreDual& a, const ScoreDual& b) {
  ScoreDual r = a;
  r.value -= b.value;
  return r.add_derivatives(b, -1);
}
inline ScoreDual operator*(const ScoreDual& a, const ScoreDual& b) {
  ScoreDual r = a;
  r.value = a.value * b.value;
  r.scale_derivatives(b.value);
  return r.add_derivatives(b, a.value);
}
inline ScoreDual operator/(const ScoreDual& a, const ScoreDual& b) {
  ScoreDual r = a;
  r.value = a.value / b.value;
  r.scale_derivatives(1 / b.value);
  return r.add_derivatives(b, -r.value / b.value);
}
inline bool operator<(const ScoreDual& a, const ScoreDual& b) { return a.value < b.value; }
inline bool operator>(const ScoreDual& a, const ScoreDual& b) { return a.value > b.value; }
inline bool operator<=(const ScoreDual& a, const ScoreDual& b) { return a.value <= b.value; }
inline bool operator>=(const ScoreDual& a, const ScoreDual& b) { return a.value >= b.value; }
inline bool operator==(const ScoreDual& a, const ScoreDual& b) { return a.value == b.value; }
inline bool operator!=(const ScoreDual& a, const ScoreDual& b) { return a.value != b.value; }

// ---- Functions: f(x) with x' scaled by f'(x); numbers go to <cmath> --------------------------
#define EMBER_FLEX_UNARY(name, value_expr, derivative_expr) \
  inline ScoreDual name(const ScoreDual& x) {               \
    const double v = x.value;                               \
    ScoreDual r = x;                                        \
    r.value = (value_expr);                                 \
    const double y = r.value;                               \
    (void)y;                                                \
    return r.scale_derivatives(derivative_expr);            \
  }                                                         \
  template <class S, if_number<S> = 0>                      \
  auto name(S s) {                                          \
    return std::name(s);                                    \
  }
EMBER_FLEX_UNARY(tanh, std::tanh(v), 1 - y * y)
EMBER_FLEX_UNARY(exp, std::exp(v), y)
EMBER_FLEX_UNARY(log, std::log(v), 1 / v)
EMBER_FLEX_UNARY(sqrt, std::sqrt(v), 0.5 / y)
EMBER_FLEX_UNARY(abs, std::abs(v), v<0 ? -1.0 : v> 0 ? 1.0 : 0.0)
EMBER_FLEX_UNARY(sin, std::sin(v), std::cos(v))
EMBER_FLEX_UNARY(cos, std::cos(v), -std::sin(v))
#undef EMBER_FLEX_UNARY

inline ScoreDual sigmoid(const ScoreDual& x) {
  ScoreDual r = x;
  r.value = 1 / (1 + std::exp(-x.value));
  return r.scale_derivatives(r.value * (1 - r.value));
}
template <class S, if_number<S> = 0>
auto sigmoid(S s) {
  return S(1) / (S(1) + std::exp(-s));
}

/// A tensor a score_mod reads, with gradient when the tensor requires grad (the element read is
/// tracked through ScoreDual in backward). Floating dtypes; any shape up to 8 dims. A handle:
/// copies share the table. `table(i, j)` reads element [i][j]; a read outside the sizes makes
/// flex_attention throw (for the tables it found: see the rules above).
class EMBER_API Captured {
 public:
  explicit Captured(Tensor table);

  template <class... I>
  CapturedValue operator()(I... idx) const {
    const detail::CapturedState& st = *state_;
    const int64_t at[] = {static_cast<int64_t>(idx)...};
    int64_t offset = 0;
    // Out of range: flagged, read as 0 with no gradient (index -1), the table still named so
    // that flex_attention's probe finds it.
    if (static_cast<int64_t>(sizeof...(I)) != st.dim) {
      st.out_of_range.store(true, std::memory_order_relaxed);
      return {0, &st, -1, 0};
    }
    for (size_t i = 0; i < sizeof...(I); ++i) {
      if (at[i] < 0 || at[i] >= st.sizes[i]) {
        st.out_of_range.store(true, std::memory_order_relaxed);
        return {0, &st, -1, 0};
      }
      offset += at[i] * st.strides[i];
    }
    return {st.read(offset), &st, offset, 1.0};
  }

  const Tensor& tensor() const { return state_->tensor; }
  const std::shared_ptr<detail::CapturedState>& state() const { return state_; }

 private:
  std::shared_ptr<detail::CapturedState> state_;
};

}  // namespace ember::nn::attention
