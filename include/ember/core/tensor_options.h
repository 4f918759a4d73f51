// TensorOptions: dtype, device and requires_grad for factories, with LibTorch's builder idiom:
//   ember::zeros({2, 3}, ember::TensorOptions().dtype(ember::kDouble).requires_grad(true));
//   ember::ones({2}, ember::kLong);   // a dtype or device converts implicitly
#pragma once

#include <optional>

#include "ember/core/device.h"
#include "ember/core/scalar_type.h"

namespace ember {

enum class Layout : int8_t { Strided };
constexpr Layout kStrided = Layout::Strided;

/// Where a factory puts its tensor and with what dtype. Unset fields take the defaults.
class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(ScalarType t) : dtype_(t), has_dtype_(true) {}
  TensorOptions(Device d) : device_(d), has_device_(true) {}
  TensorOptions(DeviceType d) : device_(Device(d)), has_device_(true) {}
  TensorOptions(Layout) {}

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
  TensorOptions layout(Layout) const { return *this; }
  TensorOptions pinned_memory(bool) const { return *this; }

  ScalarType dtype() const { return has_dtype_ ? dtype_ : get_default_dtype(); }
  bool has_dtype() const { return has_dtype_; }
  Device device() const { return has_device_ ? device_ : Device(kCPU); }
  bool has_device() const { return has_device_; }
  bool requires_grad() const { return requires_grad_; }
  Layout layout() const { return kStrided; }

  /// Fields set in *this win; the rest come from `other`.
  TensorOptions merge_in(const TensorOptions& other) const {
    TensorOptions o = other;
    if (has_dtype_) o = o.dtype(dtype_);
    if (has_device_) o = o.device(device_);
    if (requires_grad_) o.requires_grad_ = true;
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
};

inline TensorOptions dtype(ScalarType t) { return TensorOptions().dtype(t); }
template <class T>
TensorOptions dtype() {
  return TensorOptions().dtype<T>();
}
inline TensorOptions device(Device d) { return TensorOptions().device(d); }
inline TensorOptions requires_grad(bool r = true) { return TensorOptions().requires_grad(r); }

}  // namespace ember
