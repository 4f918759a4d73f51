// The argument generator and op table of the API fuzzer (tests/fuzz/api_fuzz.cpp): Ctx draws
// arguments and records them for reports, each family file lists its calls.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ember/ember.h"

namespace ember_fuzz {

using namespace ember;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

/// Records the call in flight (for the crash handler and the watchdog of api_fuzz.cpp).
void set_current(const std::string& text);

struct Ctx {
  std::mt19937_64 rng;
  std::string head;         // seed, call number and op
  std::ostringstream desc;  // what this call was given, for reports

  // Keeps the crash handler's copy of the call up to date as arguments are drawn.
  void noted() { set_current(head + " (args:" + desc.str() + ")"); }

  int64_t below(int64_t n) { return static_cast<int64_t>(rng() % static_cast<uint64_t>(n)); }
  bool chance(int percent) { return below(100) < percent; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<size_t>(below(static_cast<int64_t>(v.size())))];
  }

  ScalarType dtype() {
    static const std::vector<ScalarType> all = {kByte, kChar,  kShort,    kInt,  kLong,
                                                kHalf, kFloat, kBFloat16, kBool, kDouble};
    // Float32 and int64 most often: they reach the most code.
    ScalarType t = chance(40) ? (chance(60) ? kFloat : kLong) : pick(all);
    desc << " dtype=" << to_string(t);
    noted();
    return t;
  }
  ScalarType float_dtype() {
    static const std::vector<ScalarType> all = {kFloat, kDouble, kHalf, kBFloat16};
    ScalarType t = chance(60) ? kFloat : pick(all);
    desc << " dtype=" << to_string(t);
    noted();
    return t;
  }
  // An integer argument: mostly small, sometimes at or past the int64 limits.
  int64_t integer() {
    static const std::vector<int64_t> extreme = {
        kMax, kMin, kMax - 1, kMin + 1, int64_t{1} << 40, -(int64_t{1} << 40), int64_t{1} << 62};
    int64_t v = chance(85) ? below(9) - 3 : pick(extreme);
    desc << " i=" << v;
    noted();
    return v;
  }
  int64_t dim(int64_t ndim) {
    int64_t v = chance(85) ? below(std::max<int64_t>(ndim, 1) * 2 + 1) - std::max<int64_t>(ndim, 1)
                           : integer();
    desc << " dim=" << v;
    noted();
    return v;
  }
  // Sizes as an argument (view, reshape, expand, repeat, factories): -1, 0, negatives and huge.
  std::vector<int64_t> sizes_arg() {
    std::vector<int64_t> s(static_cast<size_t>(below(4)));
    for (int64_t& v : s) v = chance(80) ? below(4) : (chance(50) ? -1 : integer());
    desc << " sizes=" << IntArrayRef(s);
    noted();
    return s;
  }
  std::vector<int64_t> shape() {
    std::vector<int64_t> s(static_cast<size_t>(below(5)));
    for (int64_t& v : s) v = chance(10) ? 0 : below(3) + 1;
    return s;
  }
  Scalar scalar() {
    Scalar v;
    switch (below(6)) {
      case 0:
        v = std::numeric_limits<double>::quiet_NaN();
        break;
      case 1:
        v = -std::numeric_limits<double>::infinity();
        break;
      case 2:
        v = integer();
        break;
      case 3:
        v = true;
        break;
      default:
        v = static_cast<double>(below(2001) - 1000) / 100.0;
    }
    desc << " s=" << v;
    noted();
    return v;
  }
  // A tensor of `shape` and `dtype`, laid out plainly or as a transposed, stepped, expanded or
  // offset view, sometimes requiring grad.
  Tensor tensor(ScalarType t, std::vector<int64_t> s) {
    Tensor base;
    const std::vector<int64_t> wide = [&] {
      std::vector<int64_t> w = s;
      for (int64_t& v : w) v *= 2;
      return w;
    }();
    const int layout = static_cast<int>(below(6));
    const char* names[] = {"plain", "transposed", "stepped", "expanded", "offset", "plain"};
    desc << " tensor(" << to_string(t) << " " << IntArrayRef(s) << " " << names[layout];
    auto values = [&](IntArrayRef shape) {
      if (t == kBool) return randint(0, 2, shape, kBool);
      if (is_floating_point(t)) {
        Tensor v = (rand(shape, kDouble) * 10 - 5);
        if (chance(10) && v.numel() > 0) v.view({-1})[0] = std::numeric_limits<double>::quiet_NaN();
        if (chance(10) && v.numel() > 0) v.view({-1})[-1] = std::numeric_limits<double>::infinity();
        return v.to(t);
      }
      return randint(t == kByte ? 0 : -5, 6, shape, t);
    };
    switch (layout) {
      case 1:
        if (s.size() >= 2) {
          std::vector<int64_t> r(s.rbegin(), s.rend());
          base = values(r).permute([&] {
            std::vector<int64_t> p(s.size());
            for (size_t i = 0; i < p.size(); ++i) p[i] = static_cast<int64_t>(p.size() - 1 - i);
            return p;
          }());
          break;
        }
        [[fallthrough]];
      case 2:
        if (!s.empty()) {
          base = values(wide);
          for (size_t d = 0; d < s.size(); ++d) base = base.slice(int64_t(d), 0, kMax, 2);
          break;
        }
        [[fallthrough]];
      case 3:
        if (!s.empty()) {
          std::vector<int64_t> ones = s;
          ones[0] = 1;
          base = values(ones).expand(s);  // overlapping: several elements, one location
          break;
        }
        [[fallthrough]];
      case 4: {  // starts one element into its storage
        int64_t n = 1;
        for (int64_t v : s) n *= v;
        Tensor flat = values({n + 2});
        base = flat.narrow(0, 1, n).view(s);
        break;
      }
      default:
        base = values(s);
    }
    if (is_floating_point(t) && chance(20)) {
      base = base.detach().requires_grad_(true);
      desc << " grad";
    }
    desc << ")";
    noted();
    return base;
  }
  Tensor tensor() {
    ScalarType t = dtype();
    return tensor(t, shape());
  }
  Tensor float_tensor() {
    ScalarType t = float_dtype();
    return tensor(t, shape());
  }
  Tensor index_tensor(int64_t bound) {
    std::vector<int64_t> s(static_cast<size_t>(below(3)));
    for (int64_t& v : s) v = below(3);
    Tensor i = randint(-bound - 1, bound + 2, s, kLong);
    if (chance(10) && i.numel() > 0) i.view({-1})[0] = chance(50) ? kMax : kMin;
    desc << " index" << IntArrayRef(s);
    noted();
    return i;
  }
};

using Call = std::function<void(Ctx&)>;
struct Op {
  const char* name;
  Call call;
};

// The calls of each family (fuzz_ops_tensor.cpp, fuzz_ops_other.cpp, fuzz_ops_modules.cpp).
std::vector<Op> elementwise_ops();
std::vector<Op> shape_ops();
std::vector<Op> reduction_ops();
std::vector<Op> indexing_ops();
std::vector<Op> factory_ops();
std::vector<Op> linalg_ops();
std::vector<Op> nn_ops();
std::vector<Op> autograd_ops();
std::vector<Op> module_ops();  // fuzz_ops_modules.cpp

}  // namespace ember_fuzz
