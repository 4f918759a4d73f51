// TensorOptions: dtype, device and requires_grad for factories, with LibTorch's builder idiom:
//   ember::zeros({2, 3}, ember::TensorOptions().dtype(ember::kDouble).requires_grad(true));
//   ember::ones({2}, ember::kLong);   // a dtype or device converts implicitly
#pragma once

#include <optional>
#include <ostream>

#include "ember/core/device.h"
#include "ember/core/memory_format.h"
#include "ember/core/scalar_type.h"

namespace ember {

/// Memory layouts, as LibTorch names them. Ember's tensors are strided; the others exist so that
/// code naming them compiles, and a factory asked for one refuses it with an Error.
enum class Layout : int8_t { Strided, Sparse, SparseCsr, SparseCsc, SparseBsr, SparseBsc, Mkldnn };
constexpr Layout kStrided = Layout::Strided;
constexpr Layout kSparse = Layout::Sparse;
constexpr Layout kSparseCsr = Layout::SparseCsr;
constexpr Layout kSparseCsc = Layout::SparseCsc;
constexpr Layout kSparseBsr = Layout::SparseBsr;
constexpr Layout kSparseBsc = Layout::SparseBsc;
constexpr Layout kMkldnn = Layout::Mkldnn;
/// "Strided", "Sparse", ... (LibTorch's printing).
EMBER_API std::ostream& operator<<(std::ostream& os, Layout layout);

/// Where a factory puts its tensor and with what dtype. Unset fields take the defaults.
class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(ScalarType t) : dtype_(t), has_dtype_(true) {}
  TensorOptions(Device d) : device_(d), has_device_(true) {}
  TensorOptions(DeviceType d) : device_(Device(d)), has_device_(true) {}
  TensorOptions(Layout l) : layout_(l) {}
  TensorOptions(MemoryFormat f) : memory_format_(f), has_memory_format_(true) {}

  TensorOptions dtype(ScalarType t) const {
    TensorOptions o = *this;
    o.dtype_ = t;
    o.has_dtype_ = true;
    return o;
  }
  TensorOptions dtype(std::optional<ScalarType> t) const {
    if (t) return dtype(*t);
    TensorOptions o = *this;
    o.has_dtype_ = false;
    return o;
  }
  template <class T>
  TensorOptions dtype() const {
    return dtype(scalar_type_of<T>());
  }
  TensorOptions device(Device d) const {
    TensorOptions o = *this;
    o.device_ = d;
    o.has_device_ = true;
    return o;
  }
  TensorOptions device(DeviceType t, int8_t index = -1) const { return device(Device(t, index)); }
  TensorOptions requires_grad(bool r) const {
    TensorOptions o = *this;
    o.requires_grad_ = r;
    return o;
  }
  TensorOptions layout(Layout l) const {
    TensorOptions o = *this;
    o.layout_ = l;
    return o;
  }
  TensorOptions pinned_memory(bool) const { return *this; }
  /// The layout empty() gives its tensor (MemoryFormat::ChannelsLast, ...). As in LibTorch, only
  /// empty() reads it; the other factories ignore it.
  TensorOptions memory_format(std::optional<MemoryFormat> f) const {
    TensorOptions o = *this;
    o.has_memory_format_ = f.has_value();
    if (f) o.memory_format_ = *f;
    return o;
  }

  ScalarType dtype() const { return has_dtype_ ? dtype_ : get_default_dtype(); }
  bool has_dtype() const { return has_dtype_; }
  Device device() const { return has_device_ ? device_ : Device(kCPU); }
  bool has_device() const { return has_device_; }
  bool requires_grad() const { return requires_grad_; }
  Layout layout() const { return layout_; }
  bool has_memory_format() const { return has_memory_format_; }
  std::optional<MemoryFormat> memory_format_opt() const {
    return has_memory_format_ ? std::optional<MemoryFormat>(memory_format_) : std::nullopt;
  }

  /// Fields set in *this win; the rest come from `other`.
  TensorOptions merge_in(const TensorOptions& other) const {
    TensorOptions o = other;
    if (has_dtype_) o = o.dtype(dtype_);
    if (has_device_) o = o.device(device_);
    if (requires_grad_) o.requires_grad_ = true;
    if (layout_ != kStrided) o.layout_ = layout_;
    if (has_memory_format_) o = o.memory_format(memory_format_);
    return o;
  }

 private:
  // Flags beside always-initialised values rather than std::optional: copying a disengaged
  // optional makes GCC 12 warn (-Wmaybe-uninitialized) at -O1 in every program that copies
  // TensorOptions, and users build with -Werror too.
  ScalarType dtype_ = ScalarType::Float;
  Device device_ = Device(kCPU);
  bool has_dtype_ = false;
  bool has_device_ = false;
  bool requires_grad_ = false;
  Layout layout_ = kStrided;
  MemoryFormat memory_format_ = MemoryFormat::Contiguous;
  bool has_memory_format_ = false;
};

inline TensorOptions dtype(ScalarType t) { return TensorOptions().dtype(t); }
template <class T>
TensorOptions dtype() {
  return TensorOptions().dtype<T>();
}
inline TensorOptions device(Device d) { return TensorOptions().device(d); }
inline TensorOptions requires_grad(bool r = true) { return TensorOptions().requires_grad(r); }
inline TensorOptions layout(Layout l) { return TensorOptions().layout(l); }
inline TensorOptions memory_format(MemoryFormat f) { return TensorOptions().memory_format(f); }

}  // namespace ember
