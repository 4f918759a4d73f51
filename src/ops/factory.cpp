// Tensor factories.
#include "ember/ops/factory.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "ember/ops/elementwise.h"
#include "kernels/common/unary_functors.h"
#include "kernels/common/visit.h"
#include "src/autograd/autograd_meta.h"
#include "src/core/checked_math.h"
#include "src/ops/op_common.h"
#include "src/ops/random_draws.h"

namespace ember {

namespace {
// A draw in [0, range), as PyTorch's random_from_to: one 32-bit draw when the range fits in 32
// bits (so a seed gives PyTorch's numbers), else 64 bits.
uint64_t draw_below(Generator& gen, uint64_t range) {
  return (range < (uint64_t{1} << 32) ? gen.next_u32() : gen.next()) % range;
}
}  // namespace

namespace {
void check_sizes(IntArrayRef size, const char* op) {
  for (int64_t s : size)
    EMBER_CHECK_VALUE(s >= 0, "{}: trying to create tensor with negative dimension {}: {}", op, s,
                      size);
}
// Every factory ends in empty()/empty_strided(); a layout other than strided stops it there.
void check_strided(const TensorOptions& options, const char* op) {
  EMBER_CHECK_VALUE(options.layout() == kStrided,
                    "{}: layout {} is not supported; Ember's tensors are strided (kStrided). "
                    "Hint: drop .layout(...) from the options",
                    op, options.layout());
}
// The end of every factory that fills what it allocated: the result starts at version 0, as
// LibTorch's (its own fill is not a write anyone saw), then requires grad if asked.
Tensor finish_options(Tensor t, const TensorOptions& options) {
  t.unsafeGetTensorImpl()->storage()->reset_version();
  if (options.requires_grad()) t.requires_grad_(true);
  return t;
}
}  // namespace

namespace {
// An uninitialised tensor for the factory `op`: sizes, layout and byte count checked, so an error
// names the op the user called.
Tensor allocate(IntArrayRef size, const TensorOptions& options, const char* op) {
  check_sizes(size, op);
  check_strided(options, op);
  const ScalarType t = options.dtype();
  const size_t bytes =
      detail::checked_nbytes(detail::checked_numel(size, op), element_size(t), size, op);
  auto storage = make_storage(bytes, options.device());
  Tensor out(make_intrusive<TensorImpl>(std::move(storage), t, size));
  if (EMBER_UNLIKELY(options.requires_grad())) out.requires_grad_(true);
  return out;
}
}  // namespace

Tensor empty(IntArrayRef size, const TensorOptions& options) {
  // A memory format is read by the overload in memory_format.cpp.
  if (EMBER_UNLIKELY(options.has_memory_format()))
    return empty(size, options.memory_format(std::nullopt), options.memory_format_opt());
  return allocate(size, options, "empty");
}

Tensor empty_strided(IntArrayRef size, IntArrayRef stride, const TensorOptions& options) {
  check_sizes(size, "empty_strided");
  check_strided(options, "empty_strided");
  EMBER_CHECK(size.size() == stride.size(),
              "empty_strided: size {} and stride {} must have the same length", size, stride);
  for (int64_t s : stride)
    EMBER_CHECK_VALUE(s >= 0, "empty_strided: negative strides are not supported, got {}", stride);
  const int64_t extent = detail::checked_extent(size, stride, "empty_strided");
  ScalarType t = options.dtype();
  auto storage = make_storage(
      detail::checked_nbytes(extent, element_size(t), size, "empty_strided"), options.device());
  return finish_options(Tensor(make_intrusive<TensorImpl>(std::move(storage), t, size, stride, 0)),
                        options);
}

Tensor zeros(IntArrayRef size, const TensorOptions& options) {
  Tensor t = allocate(size, options.requires_grad(false), "zeros");
  t.zero_();
  return finish_options(t, options);
}
Tensor ones(IntArrayRef size, const TensorOptions& options) {
  Tensor t = allocate(size, options.requires_grad(false), "ones");  // default dtype, unlike full
  t.fill_(1);
  return finish_options(t, options);
}
Tensor full(IntArrayRef size, const Scalar& fill_value, const TensorOptions& options) {
  TensorOptions o = options.requires_grad(false);
  if (!options.has_dtype()) {
    // ATen infers the dtype from the fill value: bool -> bool, int -> int64, float -> default.
    o = o.dtype(fill_value.isFloatingPoint() ? get_default_dtype() : fill_value.type());
  }
  Tensor t = allocate(size, o, "full");
  t.fill_(fill_value);
  return finish_options(t, options);
}

namespace {
// Fills a new host tensor of `dtype` and `shape` with value_at(i) (double) for each flat index i.
// Factories are not hot paths; clarity wins here.
template <class F>
Tensor host_values(const char* op, IntArrayRef shape, ScalarType dtype, F value_at) {
  Tensor host = allocate(shape, TensorOptions().dtype(dtype), op);
  const int64_t n = host.numel();
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* data = static_cast<T*>(host.data_ptr());
    for (int64_t i = 0; i < n; ++i) data[i] = kernels::CastTo<T>{}(value_at(i));
  });
  return host;
}
Tensor place(Tensor host, const TensorOptions& options) {
  Tensor t = options.device().is_cpu() ? host : host.to(options.device());
  return finish_options(t, options);
}
}  // namespace

Tensor arange(const Scalar& end, const TensorOptions& options) {
  return arange(0, end, 1, options);
}
Tensor arange(const Scalar& start, const Scalar& end, const TensorOptions& options) {
  return arange(start, end, 1, options);
}
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step,
              const TensorOptions& options) {
  bool any_float = start.isFloatingPoint() || end.isFloatingPoint() || step.isFloatingPoint();
  ScalarType t = options.has_dtype() ? options.dtype() : (any_float ? get_default_dtype() : kLong);
  double s = start.toDouble(), e = end.toDouble(), st = step.toDouble();
  EMBER_CHECK_VALUE(st != 0, "arange: step must be nonzero");
  EMBER_CHECK_VALUE((st > 0 && e >= s) || (st < 0 && e <= s),
                    "arange: upper bound and larger bound inconsistent with step sign (start={}, "
                    "end={}, step={})",
                    start, end, step);
  int64_t n;
  if (any_float) {
    EMBER_CHECK_VALUE(std::isfinite(s) && std::isfinite(e) && std::isfinite(st),
                      "arange: unsupported range: {} -> {} with step {}", start, end, step);
    const double count = std::ceil((e - s) / st);
    EMBER_CHECK_VALUE(count < 0x1p63,
                      "arange: [{}, {}) with step {} has {} elements, more than a "
                      "tensor can count",
                      start, end, step, count);
    n = std::max<int64_t>(static_cast<int64_t>(count), 0);
  } else {
    // In 128 bits: end - start + step - 1 wraps in 64 for extreme bounds.
    const __int128 span = static_cast<__int128>(end.toLong()) - start.toLong();
    const __int128 by = step.toLong();
    const __int128 count = (span + by - (by > 0 ? 1 : -1)) / by;
    EMBER_CHECK_VALUE(count <= INT64_MAX,
                      "arange: [{}, {}) with step {} has more elements than a "
                      "tensor can count",
                      start, end, step);
    n = count < 0 ? 0 : static_cast<int64_t>(count);
  }
  Tensor host;
  if (!any_float && is_integral(t, false)) {
    // Filled as int64, not through double, so values past 2^53 stay exact.
    const int64_t s0 = start.toLong(), st0 = step.toLong();
    host = allocate({n}, TensorOptions().dtype(kLong), "arange");
    int64_t* values = host.data_ptr<int64_t>();
    // Every value lies in [start, end), so it fits in int64 even where i * step alone does not:
    // wrapping (unsigned) arithmetic gives it exactly.
    const uint64_t u0 = static_cast<uint64_t>(s0), ustep = static_cast<uint64_t>(st0);
    for (int64_t i = 0; i < n; ++i)
      values[i] = static_cast<int64_t>(u0 + static_cast<uint64_t>(i) * ustep);
    host = cast_to(host, t);
  } else {
    host = host_values("arange", n, t, [&](int64_t i) { return s + static_cast<double>(i) * st; });
  }
  return place(host, options.dtype(t));
}

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps,
                const TensorOptions& options) {
  EMBER_CHECK_VALUE(steps >= 0, "linspace: number of steps must be non-negative, got {}", steps);
  ScalarType t = options.dtype();
  double s = start.toDouble(), e = end.toDouble();
  double step = steps > 1 ? (e - s) / static_cast<double>(steps - 1) : 0.0;
  // Fill from both ends so the last value is exactly `end`, as PyTorch does.
  int64_t half = steps / 2;
  Tensor host = host_values("linspace", steps, t, [&](int64_t i) {
    return i < half ? s + step * static_cast<double>(i)
                    : e - step * static_cast<double>(steps - 1 - i);
  });
  return place(host, options.dtype(t));
}

Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base,
                const TensorOptions& options) {
  ScalarType t = options.dtype();
  double s = start.toDouble(), e = end.toDouble();
  double step = steps > 1 ? (e - s) / static_cast<double>(steps - 1) : 0.0;
  int64_t half = steps / 2;
  Tensor host = host_values("logspace", steps, t, [&](int64_t i) {
    double x = i < half ? s + step * static_cast<double>(i)
                        : e - step * static_cast<double>(steps - 1 - i);
    return std::pow(base, x);
  });
  return place(host, options.dtype(t));
}

Tensor eye(int64_t n, const TensorOptions& options) { return eye(n, n, options); }
Tensor eye(int64_t n, int64_t m, const TensorOptions& options) {
  EMBER_CHECK_VALUE(n >= 0 && m >= 0, "eye: n and m must be non-negative, got n={} m={}", n, m);
  ScalarType t = options.dtype();
  Tensor host =
      host_values("eye", {n, m}, t, [&](int64_t i) { return (i / m == i % m) ? 1.0 : 0.0; });
  return place(host, options.dtype(t));
}

// ---- Random ----

namespace {
template <class F>
Tensor random_values(const char* op, IntArrayRef size, const TensorOptions& options, Generator& gen,
                     F draw) {
  std::lock_guard<std::mutex> lock(gen.mutex());
  Tensor host = host_values(op, size, options.dtype(), [&](int64_t) { return draw(); });
  return place(host, options);
}
void check_float_factory(const TensorOptions& o, const char* op) {
  EMBER_CHECK_TYPE(is_floating_point(o.dtype()), "{}: expected a floating point dtype, got {}", op,
                   o.dtype());
}
}  // namespace

Tensor rand(IntArrayRef size, const TensorOptions& options) {
  return rand(size, default_generator(), options);
}
Tensor rand(IntArrayRef size, Generator& gen, const TensorOptions& options) {
  check_float_factory(options, "rand");
  const ScalarType dtype = options.dtype();
  return random_values("rand", size, options, gen, [&] { return detail::uniform01(gen, dtype); });
}
Tensor randn(IntArrayRef size, const TensorOptions& options) {
  return randn(size, default_generator(), options);
}
Tensor randn(IntArrayRef size, Generator& gen, const TensorOptions& options) {
  check_float_factory(options, "randn");
  check_sizes(size, "randn");
  std::lock_guard<std::mutex> lock(gen.mutex());
  return place(detail::host_normal(size, options.dtype(), 0.0, 1.0, gen, /*blocks=*/true), options);
}
Tensor randint(int64_t high, IntArrayRef size, const TensorOptions& options) {
  return randint(0, high, size, options);
}
namespace {
// The integers a tensor of `dtype` holds exactly: the type's range for integers, +-2^digits for
// floating types (ATen's bounds for random_, randint and randperm).
std::pair<int64_t, int64_t> exact_integer_range(ScalarType t) {
  switch (t) {
    case kBool:
      return {0, 1};
    case kByte:
      return {0, 255};
    case kChar:
      return {-128, 127};
    case kShort:
      return {-32768, 32767};
    case kInt:
      return {INT32_MIN, INT32_MAX};
    case kHalf:
      return {-(int64_t{1} << 11), int64_t{1} << 11};
    case kBFloat16:
      return {-(int64_t{1} << 8), int64_t{1} << 8};
    case kFloat:
      return {-(int64_t{1} << 24), int64_t{1} << 24};
    case kDouble:
      return {-(int64_t{1} << 53), int64_t{1} << 53};
    default:
      return {INT64_MIN, INT64_MAX};
  }
}
}  // namespace

Tensor randint(int64_t low, int64_t high, IntArrayRef size, const TensorOptions& options) {
  EMBER_CHECK_VALUE(low < high,
                    "randint: random_ expects 'from' to be less than 'to', but got from={} >= "
                    "to={}",
                    low, high);
  TensorOptions o = options.has_dtype() ? options : options.dtype(kLong);
  const auto [lowest, highest] = exact_integer_range(o.dtype());
  EMBER_CHECK_VALUE(low >= lowest && high - 1 <= highest,
                    "randint: the range [{}, {}) does not fit in {}, which holds the integers "
                    "[{}, {}] exactly. Hint: choose a wider dtype",
                    low, high, o.dtype(), lowest, highest);
  Generator& gen = default_generator();
  // In uint64: high - low may exceed INT64_MAX, and low + draw wraps back into range.
  const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  Tensor host = allocate(size, TensorOptions().dtype(kLong), "randint");
  int64_t* values = host.data_ptr<int64_t>();
  {
    std::lock_guard<std::mutex> lock(gen.mutex());
    for (int64_t i = 0; i < host.numel(); ++i)
      values[i] = static_cast<int64_t>(static_cast<uint64_t>(low) + draw_below(gen, range));
  }
  return place(cast_to(host, o.dtype()), o);
}
Tensor randperm(int64_t n, const TensorOptions& options) {
  return randperm(n, default_generator(), options);
}
Tensor randperm(int64_t n, Generator& gen, const TensorOptions& options) {
  EMBER_CHECK_VALUE(n >= 0, "randperm: n must be non-negative, got {}", n);
  TensorOptions o = options.has_dtype() ? options : options.dtype(kLong);
  EMBER_CHECK_VALUE(n == 0 || n - 1 <= exact_integer_range(o.dtype()).second,
                    "randperm: n is too large for result tensor type {}: it holds the integers "
                    "up to {} exactly, and the permutation needs {}",
                    o.dtype(), exact_integer_range(o.dtype()).second, n - 1);
  Tensor host = allocate({n}, TensorOptions().dtype(kLong), "randperm");
  int64_t* perm = host.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  {
    std::lock_guard<std::mutex> lock(gen.mutex());
    // PyTorch's CPU shuffle (forward Fisher-Yates on 32-bit draws), so a seed gives PyTorch's
    // permutation.
    for (int64_t i = 0; i + 1 < n; ++i) {
      const uint64_t draw = n - i < (int64_t{1} << 32) ? gen.next_u32() : gen.next();
      int64_t z = static_cast<int64_t>(draw % static_cast<uint64_t>(n - i));
      std::swap(perm[i], perm[i + z]);
    }
  }
  return place(cast_to(host, o.dtype()), o);
}

Tensor empty_like(const Tensor& self, const TensorOptions& options) {
  return empty(self.sizes(), options.merge_in(self.options()));
}
Tensor zeros_like(const Tensor& self, const TensorOptions& options) {
  return zeros(self.sizes(), options.merge_in(self.options()));
}
Tensor ones_like(const Tensor& self, const TensorOptions& options) {
  return ones(self.sizes(), options.merge_in(self.options()));
}
Tensor full_like(const Tensor& self, const Scalar& v, const TensorOptions& options) {
  return full(self.sizes(), v, options.merge_in(self.options()));
}
Tensor rand_like(const Tensor& self, const TensorOptions& options) {
  return rand(self.sizes(), options.merge_in(self.options()));
}
Tensor randn_like(const Tensor& self, const TensorOptions& options) {
  return randn(self.sizes(), options.merge_in(self.options()));
}
Tensor randint_like(const Tensor& self, int64_t low, int64_t high, const TensorOptions& options) {
  return randint(low, high, self.sizes(), options.merge_in(self.options()));
}

// ---- In-place random fills ----

namespace {
template <class F>
const Tensor& fill_random(const Tensor& self, Generator& gen, F draw, const char* op) {
  check_defined(self, op);
  std::lock_guard<std::mutex> lock(gen.mutex());
  Tensor host = host_values(op, self.sizes(), self.dtype(), [&](int64_t) { return draw(); });
  self.copy_(host);
  return self;
}
}  // namespace

const Tensor& uniform_(const Tensor& self, double from, double to, Generator& gen) {
  EMBER_CHECK_VALUE(from <= to,
                    "uniform_: expects to return a [from, to) range, but found "
                    "from={} > to={}",
                    from, to);
  const ScalarType dtype = self.defined() ? self.scalar_type() : kFloat;
  return fill_random(
      self, gen, [&] { return from + (to - from) * detail::uniform01(gen, dtype); }, "uniform_");
}
const Tensor& normal_(const Tensor& self, double mean, double std, Generator& gen) {
  EMBER_CHECK_VALUE(std >= 0, "normal_: expects std >= 0.0, but found std {}", std);
  check_defined(self, "normal_");
  if (self.is_contiguous()) {
    std::lock_guard<std::mutex> lock(gen.mutex());
    self.copy_(detail::host_normal(self.sizes(), self.scalar_type(), mean, std, gen, true));
    return self;
  }
  // ATen draws a strided target one value at a time in memory order (TensorIterator visits the
  // dims by decreasing stride): fill in that order, then permute back to the logical one.
  std::vector<int64_t> order(static_cast<size_t>(self.dim()));
  for (size_t d = 0; d < order.size(); ++d) order[d] = static_cast<int64_t>(d);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return self.stride(a) > self.stride(b); });
  std::vector<int64_t> memory_sizes, back(order.size());
  for (size_t d = 0; d < order.size(); ++d) {
    memory_sizes.push_back(self.size(order[d]));
    back[static_cast<size_t>(order[d])] = static_cast<int64_t>(d);
  }
  std::lock_guard<std::mutex> lock(gen.mutex());
  self.copy_(
      detail::host_normal(memory_sizes, self.scalar_type(), mean, std, gen, false).permute(back));
  return self;
}
const Tensor& bernoulli_(const Tensor& self, double p, Generator& gen) {
  EMBER_CHECK_VALUE(p >= 0 && p <= 1, "bernoulli_: expects p to be in [0, 1], but got p={}", p);
  return fill_random(
      self, gen, [&] { return gen.next_double() < p ? 1.0 : 0.0; }, "bernoulli_");
}
Tensor bernoulli(const Tensor& self) {
  check_defined(self, "bernoulli");
  Tensor probs = self.to(Device(kCPU), kDouble).contiguous();
  Generator& gen = default_generator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  const double* p = probs.data_ptr<double>();
  Tensor host = host_values("bernoulli", self.sizes(), self.dtype(),
                            [&](int64_t i) { return gen.next_double() < p[i] ? 1.0 : 0.0; });
  return host.to(self.device());
}

const Tensor& Tensor::uniform_(double from, double to) const {
  return ember::uniform_(*this, from, to, default_generator());
}
const Tensor& Tensor::normal_(double mean, double std) const {
  return ember::normal_(*this, mean, std, default_generator());
}
const Tensor& Tensor::bernoulli_(double p) const {
  return ember::bernoulli_(*this, p, default_generator());
}
const Tensor& Tensor::random_(int64_t from, int64_t to) const {
  EMBER_CHECK_VALUE(from < to,
                    "random_: expects 'from' to be less than 'to', but got from={} >= "
                    "to={}",
                    from, to);
  Generator& gen = default_generator();
  uint64_t range = static_cast<uint64_t>(to - from);
  return fill_random(
      *this, gen,
      [&] { return static_cast<double>(from + static_cast<int64_t>(draw_below(gen, range))); },
      "random_");
}

// ---- from_blob ----

namespace {
void no_delete(void*, void*) {}
void call_deleter(void* ptr, void* ctx) {
  auto* d = static_cast<std::function<void(void*)>*>(ctx);
  (*d)(ptr);
  delete d;
}
Tensor wrap_blob(void* data, IntArrayRef sizes, IntArrayRef strides, DataPtr dp,
                 const TensorOptions& options) {
  check_sizes(sizes, "from_blob");
  int64_t extent = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) {
      extent = 0;
      break;
    }
    extent += (sizes[i] - 1) * strides[i];
  }
  size_t nbytes = static_cast<size_t>(extent * element_size(options.dtype()));
  auto storage = make_intrusive<StorageImpl>(nbytes, dp, options.device());
  (void)data;
  return finish_options(
      Tensor(make_intrusive<TensorImpl>(std::move(storage), options.dtype(), sizes, strides, 0)),
      options);
}
}  // namespace

Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options) {
  return wrap_blob(data, sizes, contiguous_strides(sizes), DataPtr{data, nullptr, &no_delete},
                   options);
}
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options) {
  EMBER_CHECK(sizes.size() == strides.size(),
              "from_blob: sizes {} and strides {} must have the same length", sizes, strides);
  return wrap_blob(data, sizes, strides, DataPtr{data, nullptr, &no_delete}, options);
}
Tensor from_blob(void* data, IntArrayRef sizes, std::function<void(void*)> deleter,
                 const TensorOptions& options) {
  auto* ctx = new std::function<void(void*)>(std::move(deleter));
  return wrap_blob(data, sizes, contiguous_strides(sizes), DataPtr{data, ctx, &call_deleter},
                   options);
}

// ---- tensor({...}) ----

TensorDataContainer::TensorDataContainer(bool v)
    : values_{v ? 1.0 : 0.0}, ints_{v}, scalar_type_(kBool), is_scalar_(true) {}
TensorDataContainer::TensorDataContainer(int v) : TensorDataContainer(int64_t(v)) {}
TensorDataContainer::TensorDataContainer(long long v) : TensorDataContainer(int64_t(v)) {}
TensorDataContainer::TensorDataContainer(int64_t v)
    : values_{static_cast<double>(v)}, ints_{v}, scalar_type_(kLong), is_scalar_(true) {}
TensorDataContainer::TensorDataContainer(float v) : TensorDataContainer(double(v)) {}
TensorDataContainer::TensorDataContainer(double v)
    : values_{v},
      ints_{static_cast<int64_t>(v)},
      scalar_type_(get_default_dtype()),
      is_scalar_(true) {}

TensorDataContainer::TensorDataContainer(std::initializer_list<TensorDataContainer> list) {
  sizes_ = {static_cast<int64_t>(list.size())};
  if (list.size() == 0) {
    scalar_type_ = get_default_dtype();
    return;
  }
  const TensorDataContainer& first = *list.begin();
  scalar_type_ = first.scalar_type_;
  for (const auto& item : list) {
    EMBER_CHECK_VALUE(item.sizes_ == first.sizes_,
                      "tensor: expected all sub-lists to have sizes {} but got {}. Hint: nested "
                      "lists must be rectangular",
                      IntArrayRef(first.sizes_), IntArrayRef(item.sizes_));
    // Mixed kinds promote by category: bool < int < float, as torch.tensor does.
    if (is_floating_point(item.scalar_type_) ||
        (item.scalar_type_ == kLong && scalar_type_ == kBool))
      scalar_type_ = item.scalar_type_;
    values_.insert(values_.end(), item.values_.begin(), item.values_.end());
    ints_.insert(ints_.end(), item.ints_.begin(), item.ints_.end());
  }
  sizes_.insert(sizes_.end(), first.sizes_.begin(), first.sizes_.end());
}

Tensor TensorDataContainer::to_tensor(const TensorOptions& options) const {
  ScalarType t = options.has_dtype() ? options.dtype() : scalar_type_;
  Tensor host;
  if (is_integral(t, true) && !is_floating_point(scalar_type_) && ints_.size() == values_.size()) {
    host = allocate(IntArrayRef(sizes_), TensorOptions().dtype(kLong), "tensor");
    std::copy(ints_.begin(), ints_.end(), host.data_ptr<int64_t>());
    host = cast_to(host, t);
  } else {
    host = host_values("tensor", IntArrayRef(sizes_), t, [&](int64_t i) { return values_[i]; });
  }
  // Built in its final shape, not as a view of a flat buffer: the result is a plain leaf, so
  // autograd's in-place checks see it as LibTorch's torch::tensor.
  return place(host, options.dtype(t));
}

Tensor tensor(const TensorDataContainer& data, const TensorOptions& options) {
  return data.to_tensor(options);
}

}  // namespace ember
