// A seeded random driver of Ember's public API (issue #14). Each call takes arguments drawn from
// every dtype, 0-dim and 0-size shapes, non-contiguous and overlapping (expanded) views, dims,
// indices and sizes near the int64 limits, NaN/inf scalars and misused autograd; a call must end
// in a result or an ember::Error. Another exception fails the test; a crash names the call from its
// signal handler; a call running past the watchdog's limit aborts the program, naming it too.
//
// CI runs a seeded slice (EMBER_FUZZ_CALLS, default 3000; the ASan build runs it too). A long run:
//   EMBER_FUZZ_SEED=7 EMBER_FUZZ_CALLS=200000 build/release/tests/test_fuzz
// EMBER_FUZZ_VERBOSE=1 prints every call before making it.
#include <gtest/gtest.h>

#include <unistd.h>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <typeinfo>
#include <vector>

#include "ember/ember.h"

using namespace ember;

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

int64_t env_int(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  return v ? std::strtoll(v, nullptr, 10) : fallback;
}

// ---- The call in flight, for the crash handler and the watchdog ----

char g_current[512];  // a plain buffer: the signal handler may only write(2) it
std::atomic<int64_t> g_call_started_ms{0};

void set_current(const std::string& text) {
  std::snprintf(g_current, sizeof g_current, "%s", text.c_str());
  g_call_started_ms.store(std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::steady_clock::now().time_since_epoch())
                              .count());
}

void say_current_and_die(int sig) {
  const char prefix[] = "\napi_fuzz: died in call: ";
  (void)!write(2, prefix, sizeof prefix - 1);
  (void)!write(2, g_current, std::strlen(g_current));
  (void)!write(2, "\n", 1);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// ---- Random arguments ----

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

// ---- The calls ----

std::vector<Op> elementwise_ops() {
  std::vector<Op> ops;
#define EMBER_FUZZ_UNARY(name, Name, policy)                        \
  ops.push_back({#name, [](Ctx& c) { ember::name(c.tensor()); }});  \
  ops.push_back({#name "_", [](Ctx& c) { c.tensor().name##_(); }}); \
  ops.push_back({#name "_out", [](Ctx& c) {                         \
                   Tensor out = c.tensor();                         \
                   ember::name##_out(out, c.tensor());              \
                 }});
  EMBER_UNARY_OPS(EMBER_FUZZ_UNARY)
#undef EMBER_FUZZ_UNARY
#define EMBER_FUZZ_BINARY(name, Name, policy)                                            \
  ops.push_back({#name, [](Ctx& c) { ember::name(c.tensor(), c.tensor()); }});           \
  ops.push_back({#name "_scalar", [](Ctx& c) { ember::name(c.tensor(), c.scalar()); }}); \
  ops.push_back({#name "_", [](Ctx& c) { c.tensor().name##_(c.tensor()); }});            \
  ops.push_back({#name "_out", [](Ctx& c) {                                              \
                   Tensor out = c.tensor();                                              \
                   ember::name##_out(out, c.tensor(), c.tensor());                       \
                 }});
  EMBER_BINARY_OPS(EMBER_FUZZ_BINARY)
#undef EMBER_FUZZ_BINARY
  ops.push_back({"add", [](Ctx& c) { add(c.tensor(), c.tensor(), c.scalar()); }});
  ops.push_back({"sub_", [](Ctx& c) { c.tensor().sub_(c.tensor()); }});
  ops.push_back({"div", [](Ctx& c) { div(c.tensor(), c.tensor()); }});
  ops.push_back({"div_trunc", [](Ctx& c) { div(c.tensor(), c.tensor(), "trunc"); }});
  ops.push_back({"div_floor", [](Ctx& c) { div(c.tensor(), c.scalar(), "floor"); }});
  ops.push_back({"div_mode", [](Ctx& c) { div(c.tensor(), c.tensor(), "nonsense"); }});
  ops.push_back({"round", [](Ctx& c) { round(c.tensor(), c.integer()); }});
  ops.push_back({"clamp", [](Ctx& c) { clamp(c.tensor(), c.scalar(), c.scalar()); }});
  ops.push_back({"clamp_t", [](Ctx& c) {
                   clamp(c.tensor(), std::optional<Tensor>(c.tensor()), std::nullopt);
                 }});
  ops.push_back({"gelu", [](Ctx& c) { gelu(c.tensor(), c.chance(50) ? "tanh" : "bogus"); }});
  ops.push_back({"logit", [](Ctx& c) { logit(c.tensor(), 1e-3); }});
  ops.push_back({"nan_to_num", [](Ctx& c) { nan_to_num(c.tensor()); }});
  ops.push_back({"lerp", [](Ctx& c) { lerp(c.tensor(), c.tensor(), c.scalar()); }});
  ops.push_back({"addcmul", [](Ctx& c) { addcmul(c.tensor(), c.tensor(), c.tensor()); }});
  ops.push_back({"where", [](Ctx& c) { where(c.tensor(), c.tensor(), c.tensor()); }});
  ops.push_back({"to", [](Ctx& c) { c.tensor().to(c.dtype()); }});
  ops.push_back({"copy_", [](Ctx& c) { c.tensor().copy_(c.tensor()); }});
  ops.push_back({"fill_", [](Ctx& c) { c.tensor().fill_(c.scalar()); }});
  ops.push_back({"item", [](Ctx& c) { c.tensor().item<double>(); }});
  return ops;
}

std::vector<Op> shape_ops() {
  return {
      {"view", [](Ctx& c) { c.tensor().view(c.sizes_arg()); }},
      {"reshape", [](Ctx& c) { c.tensor().reshape(c.sizes_arg()); }},
      {"expand", [](Ctx& c) { c.tensor().expand(c.sizes_arg()); }},
      {"repeat", [](Ctx& c) { c.tensor().repeat(c.sizes_arg()); }},
      {"tile", [](Ctx& c) { c.tensor().tile(c.sizes_arg()); }},
      {"permute", [](Ctx& c) { c.tensor().permute(c.sizes_arg()); }},
      {"flip", [](Ctx& c) { c.tensor().flip(c.sizes_arg()); }},
      {"roll", [](Ctx& c) { c.tensor().roll({c.integer()}, {c.integer()}); }},
      {"transpose",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.transpose(c.dim(t.dim()), c.dim(t.dim()));
       }},
      {"movedim",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.movedim(c.dim(t.dim()), c.dim(t.dim()));
       }},
      {"squeeze",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.squeeze(c.dim(t.dim()));
       }},
      {"unsqueeze",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.unsqueeze(c.dim(t.dim() + 1));
       }},
      {"flatten",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.flatten(c.dim(t.dim()), c.dim(t.dim()));
       }},
      {"unflatten",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.unflatten(c.dim(t.dim()), c.sizes_arg());
       }},
      {"narrow",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.narrow(c.dim(t.dim()), c.integer(), c.integer());
       }},
      {"select",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.select(c.dim(t.dim()), c.integer());
       }},
      {"slice",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.slice(c.dim(t.dim()), c.integer(), c.integer(), c.integer());
       }},
      {"chunk",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.chunk(c.integer(), c.dim(t.dim()));
       }},
      {"split",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.split(c.integer(), c.dim(t.dim()));
       }},
      {"unbind",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.unbind(c.dim(t.dim()));
       }},
      {"diagonal",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.diagonal(c.integer(), c.dim(t.dim()), c.dim(t.dim()));
       }},
      {"unfold",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.unfold(c.dim(t.dim()), c.integer(), c.integer());
       }},
      {"as_strided",
       [](Ctx& c) {
         Tensor t = c.tensor();
         std::vector<int64_t> size = c.sizes_arg();
         std::vector<int64_t> stride(size.size());
         for (int64_t& s : stride) s = c.chance(80) ? c.below(4) : c.integer();
         t.as_strided(size, stride,
                      c.chance(50) ? std::optional<int64_t>(c.integer()) : std::nullopt);
       }},
      {"cat",
       [](Ctx& c) {
         Tensor a = c.tensor();
         cat({a, c.chance(50) ? c.tensor(a.scalar_type(), a.sizes().vec()) : c.tensor()},
             c.dim(a.dim()));
       }},
      {"stack",
       [](Ctx& c) {
         Tensor a = c.tensor();
         stack({a, c.chance(70) ? c.tensor(c.dtype(), a.sizes().vec()) : c.tensor()},
               c.dim(a.dim() + 1));
       }},
      {"tril", [](Ctx& c) { c.tensor().tril(c.integer()); }},
      {"triu", [](Ctx& c) { c.tensor().triu(c.integer()); }},
      {"constant_pad_nd", [](Ctx& c) { constant_pad_nd(c.tensor(), c.sizes_arg(), c.scalar()); }},
      {"contiguous", [](Ctx& c) { c.tensor().contiguous(); }},
      {"clone", [](Ctx& c) { c.tensor().clone(); }},
  };
}

std::vector<Op> reduction_ops() {
  return {
      {"sum", [](Ctx& c) { c.tensor().sum(); }},
      {"sum_dims", [](Ctx& c) { c.tensor().sum(c.sizes_arg(), c.chance(50)); }},
      {"mean_dims", [](Ctx& c) { c.tensor().mean(c.sizes_arg(), c.chance(50)); }},
      {"prod",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.prod(c.dim(t.dim()));
       }},
      {"amax", [](Ctx& c) { c.tensor().amax(c.sizes_arg()); }},
      {"max_dim",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.max(c.dim(t.dim()));
       }},
      {"argmax",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.argmax(c.dim(t.dim()));
       }},
      {"var", [](Ctx& c) { c.tensor().var(c.sizes_arg(), std::optional<double>(c.integer())); }},
      {"std_int",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.std(static_cast<int>(c.dim(t.dim()) % 8));
       }},
      {"norm", [](Ctx& c) { c.tensor().norm(c.scalar()); }},
      {"logsumexp", [](Ctx& c) { c.tensor().logsumexp(c.sizes_arg()); }},
      {"softmax",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.softmax(c.dim(t.dim()));
       }},
      {"log_softmax",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.log_softmax(c.dim(t.dim()));
       }},
      {"cumsum",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.cumsum(c.dim(t.dim()));
       }},
      {"sort",
       [](Ctx& c) {
         Tensor t = c.tensor();
         sort(t, c.dim(t.dim()));
       }},
      {"topk",
       [](Ctx& c) {
         Tensor t = c.tensor();
         topk(t, c.integer(), c.dim(t.dim()));
       }},
      {"median",
       [](Ctx& c) {
         Tensor t = c.tensor();
         median(t, c.dim(t.dim()));
       }},
      {"all", [](Ctx& c) { all(c.tensor()); }},
      {"count_nonzero", [](Ctx& c) { count_nonzero(c.tensor()); }},
  };
}

std::vector<Op> indexing_ops() {
  return {
      {"index",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.index({c.index_tensor(t.dim() ? t.size(0) : 1)});
       }},
      {"index_int", [](Ctx& c) { c.tensor().index({c.integer()}); }},
      {"index_put_",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.index_put_({c.index_tensor(t.dim() ? t.size(0) : 1)}, c.scalar());
       }},
      {"index_select",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.index_select(c.dim(t.dim()), c.index_tensor(3).flatten());
       }},
      {"gather",
       [](Ctx& c) {
         Tensor t = c.tensor();
         gather(t, c.dim(t.dim()), c.index_tensor(3));
       }},
      {"scatter_",
       [](Ctx& c) {
         Tensor t = c.tensor();
         t.scatter_(c.dim(t.dim()), c.index_tensor(3), c.scalar());
       }},
      {"masked_fill",
       [](Ctx& c) { masked_fill(c.tensor(), c.tensor(kBool, c.shape()), c.scalar()); }},
      {"take", [](Ctx& c) { take(c.tensor(), c.index_tensor(4)); }},
      {"nonzero", [](Ctx& c) { nonzero(c.tensor()); }},
  };
}

std::vector<Op> factory_ops() {
  return {
      {"zeros", [](Ctx& c) { zeros(c.sizes_arg(), c.dtype()); }},
      {"full", [](Ctx& c) { full(c.sizes_arg(), c.scalar()); }},
      {"empty_strided", [](Ctx& c) { empty_strided(c.sizes_arg(), c.sizes_arg()); }},
      {"arange", [](Ctx& c) { arange(c.integer(), c.integer(), c.integer()); }},
      {"linspace", [](Ctx& c) { linspace(c.scalar(), c.scalar(), c.integer()); }},
      {"eye", [](Ctx& c) { eye(c.integer(), c.integer()); }},
      {"rand", [](Ctx& c) { rand(c.sizes_arg(), c.dtype()); }},
      {"randn", [](Ctx& c) { randn(c.sizes_arg(), c.dtype()); }},
      {"randint", [](Ctx& c) { randint(c.integer(), c.integer(), c.sizes_arg(), c.dtype()); }},
      {"randperm", [](Ctx& c) { randperm(c.integer(), c.dtype()); }},
      {"normal_", [](Ctx& c) { c.tensor().normal_(0, 1); }},
      {"uniform_", [](Ctx& c) { c.tensor().uniform_(0, 1); }},
  };
}

std::vector<Op> linalg_ops() {
  auto matrix = [](Ctx& c) {
    ScalarType t = c.chance(70) ? c.float_dtype() : c.dtype();
    std::vector<int64_t> s = {c.below(4), c.below(4)};
    if (c.chance(30)) s.insert(s.begin(), c.below(3));
    return c.tensor(t, s);
  };
  return {
      {"mm", [=](Ctx& c) { mm(matrix(c), matrix(c)); }},
      {"matmul", [=](Ctx& c) { matmul(c.tensor(), c.tensor()); }},
      {"bmm", [=](Ctx& c) { bmm(matrix(c), matrix(c)); }},
      {"addmm", [=](Ctx& c) { addmm(c.tensor(), matrix(c), matrix(c)); }},
      {"dot", [=](Ctx& c) { dot(c.tensor(), c.tensor()); }},
      {"det", [=](Ctx& c) { linalg::det(matrix(c)); }},
      {"inv", [=](Ctx& c) { linalg::inv(matrix(c)); }},
      {"solve", [=](Ctx& c) { linalg::solve(matrix(c), matrix(c)); }},
      {"qr", [=](Ctx& c) { linalg::qr(matrix(c)); }},
      {"svd", [=](Ctx& c) { linalg::svd(matrix(c)); }},
      {"svdvals", [=](Ctx& c) { linalg::svdvals(matrix(c)); }},
      {"eigh", [=](Ctx& c) { linalg::eigh(matrix(c)); }},
      {"cholesky", [=](Ctx& c) { linalg::cholesky(matrix(c)); }},
      {"matrix_exp", [=](Ctx& c) { linalg::matrix_exp(matrix(c)); }},
      {"einsum",
       [=](Ctx& c) {
         einsum(c.chance(50) ? "ij,jk->ik" : "ii->i", {matrix(c), matrix(c)});
       }},
  };
}

std::vector<Op> nn_ops() {
  namespace F = nn::functional;
  return {
      {"linear", [](Ctx& c) { F::linear(c.float_tensor(), c.float_tensor(), c.float_tensor()); }},
      {"dropout",
       [](Ctx& c) { F::dropout(c.float_tensor(), F::DropoutFuncOptions().p(c.below(3) * 0.5)); }},
      {"layer_norm",
       [](Ctx& c) { F::layer_norm(c.float_tensor(), F::LayerNormFuncOptions(c.sizes_arg())); }},
      {"embedding", [](Ctx& c) { F::embedding(c.index_tensor(3), c.float_tensor()); }},
      {"cross_entropy", [](Ctx& c) { F::cross_entropy(c.float_tensor(), c.index_tensor(2)); }},
      {"mse_loss", [](Ctx& c) { F::mse_loss(c.float_tensor(), c.float_tensor()); }},
      {"nll_loss", [](Ctx& c) { F::nll_loss(c.float_tensor(), c.index_tensor(2)); }},
      {"softmax_f",
       [](Ctx& c) { F::softmax(c.float_tensor(), F::SoftmaxFuncOptions(c.integer())); }},
  };
}

std::vector<Op> autograd_ops() {
  return {
      {"backward", [](Ctx& c) { c.tensor().backward(); }},
      {"backward_sum",
       [](Ctx& c) {
         Tensor x = c.float_tensor();
         Tensor y = (x * 2).sum();
         y.backward();
         if (c.chance(50)) y.backward();  // a second time without retain_graph
       }},
      {"backward_grad",
       [](Ctx& c) {
         Tensor x = c.float_tensor();
         (x * 3).backward(c.tensor());  // a gradient of any shape and dtype
       }},
      {"grad",
       [](Ctx& c) {
         Tensor x = c.float_tensor();
         Tensor y = x.exp().sum();
         autograd::grad({y}, {c.chance(50) ? x : c.float_tensor()});
       }},
      {"inplace_leaf", [](Ctx& c) { c.float_tensor().mul_(2); }},
      {"modified_saved",
       [](Ctx& c) {
         Tensor x = c.float_tensor();
         Tensor y = x.sin();
         Tensor z = (y * y).sum();
         y.add_(1);
         z.backward();
       }},
      {"bad_hook",
       [](Ctx& c) {
         Tensor x = c.float_tensor();
         Tensor y = x * 2;
         const int kind = static_cast<int>(c.below(3));
         y.register_hook([kind](const Tensor& g) {
           if (kind == 0) return ones({5});
           if (kind == 1) return g.to(kDouble);
           return Tensor();
         });
         y.sum().backward();
       }},
  };
}

std::vector<Op> all_ops() {
  std::vector<Op> ops;
  for (auto family : {elementwise_ops(), shape_ops(), reduction_ops(), indexing_ops(),
                      factory_ops(), linalg_ops(), nn_ops(), autograd_ops()})
    ops.insert(ops.end(), family.begin(), family.end());
  return ops;
}

// Aborts the program, naming the call, when one runs longer than `limit_s`.
class Watchdog {
 public:
  explicit Watchdog(int64_t limit_s) : limit_ms_(limit_s * 1000), thread_([this] { run(); }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  void run() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!cv_.wait_for(lock, std::chrono::milliseconds(500), [this] { return stop_; })) {
      const int64_t started = g_call_started_ms.load();
      const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::steady_clock::now().time_since_epoch())
                              .count();
      if (started != 0 && now - started > limit_ms_) {
        std::fprintf(stderr, "\napi_fuzz: a call ran for more than %lld s (a hang): %s\n",
                     static_cast<long long>(limit_ms_ / 1000), g_current);
        std::abort();
      }
    }
  }
  int64_t limit_ms_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

TEST(ApiFuzz, EveryCallEndsInAResultOrAnEmberError) {
  const uint64_t seed = static_cast<uint64_t>(env_int("EMBER_FUZZ_SEED", 20261203));
  const int64_t calls = env_int("EMBER_FUZZ_CALLS", 3000);
  const bool verbose = env_int("EMBER_FUZZ_VERBOSE", 0) != 0;
  for (int sig : {SIGSEGV, SIGFPE, SIGBUS, SIGILL, SIGABRT}) std::signal(sig, say_current_and_die);
  Watchdog watchdog(env_int("EMBER_FUZZ_CALL_LIMIT_S", 60));

  const std::vector<Op> ops = all_ops();
  ASSERT_GT(ops.size(), 250u);
  std::mt19937_64 pick(seed);
  int64_t results = 0, errors = 0, failures = 0;
  for (int64_t i = 0; i < calls; ++i) {
    const Op& op = ops[pick() % ops.size()];
    Ctx c;
    c.rng.seed(seed ^ (static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull));
    manual_seed(seed + static_cast<uint64_t>(i));
    const std::string head =
        "seed " + std::to_string(seed) + " call " + std::to_string(i) + " " + op.name;
    c.head = head;
    set_current(head);
    if (verbose) std::fprintf(stderr, "%s\n", head.c_str());
    try {
      op.call(c);
      ++results;
    } catch (const Error&) {
      ++errors;
    } catch (const std::exception& e) {
      ++failures;
      ADD_FAILURE() << head << " (args:" << c.desc.str() << ") threw a non-Ember "
                    << typeid(e).name() << ": " << e.what();
    }
    g_call_started_ms.store(0);
  }
  std::printf(
      "api_fuzz: seed %llu, %lld calls over %zu op variants: %lld results, %lld "
      "ember::Errors, %lld other exceptions\n",
      static_cast<unsigned long long>(seed), static_cast<long long>(calls), ops.size(),
      static_cast<long long>(results), static_cast<long long>(errors),
      static_cast<long long>(failures));
  EXPECT_EQ(failures, 0);
}

}  // namespace
