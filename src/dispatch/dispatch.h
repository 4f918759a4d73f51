// The dispatcher: one kernel slot per (op, device type), of the function type the op's row names,
// filled by each backend's registration function, looked up with an indexed load. The dtype switch
// happens inside the kernel (one visitor, kernels/common/visit.h); the slot records which dtypes
// the kernel accepts.
#pragma once

#include <cstdint>

#include "ember/core/device.h"
#include "ember/core/macros.h"
#include "ember/core/scalar_type.h"
#include "ember/ops/op_table.h"
#include "src/dispatch/kernel_signatures.h"

namespace ember {

enum class OpId : int16_t {
#define EMBER_OPID_ROW3(name, Name, x) name,
#define EMBER_OPID_ROW2(name, Kind) name,
  EMBER_UNARY_OPS(EMBER_OPID_ROW3) EMBER_BINARY_OPS(EMBER_OPID_ROW3)
      EMBER_SPECIAL_ELEMENTWISE_OPS(EMBER_OPID_ROW3) EMBER_KERNEL_OPS(EMBER_OPID_ROW2)
#undef EMBER_OPID_ROW3
#undef EMBER_OPID_ROW2
          NumOps
};
constexpr int kNumOps = static_cast<int>(OpId::NumOps);

// op_name and supports are exported (EMBER_API) for the coverage tests in tests/ops; the rest of
// the dispatcher is internal to libember.

/// "exp", "add", ... as the public function is named.
EMBER_API const char* op_name(OpId op);

/// A bit per ScalarType.
using DtypeMask = uint32_t;
constexpr DtypeMask dtype_bit(ScalarType t) { return DtypeMask(1) << static_cast<int>(t); }
constexpr DtypeMask kAllDtypes = (DtypeMask(1) << kNumScalarTypes) - 1;

/// The function type of op's kernel slot: kernel_kind::Elementwise for every elementwise row,
/// the kind its EMBER_KERNEL_OPS row names otherwise.
template <OpId op>
struct KernelKindOf {
  using type = kernel_kind::Elementwise;
};
#define EMBER_KERNEL_KIND_ROW(name, Kind) \
  template <>                             \
  struct KernelKindOf<OpId::name> {       \
    using type = kernel_kind::Kind;       \
  };
EMBER_KERNEL_OPS(EMBER_KERNEL_KIND_ROW)
#undef EMBER_KERNEL_KIND_ROW
template <OpId op>
using KernelFn = typename KernelKindOf<op>::type;

namespace detail {
/// The slots holding kernels of type Fn, one per (op, device type). Each kind has its own table,
/// so nothing is stored as an untyped pointer and cast back: an op looked up as the wrong kind
/// finds an empty slot.
template <class Fn>
struct KernelTable {
  static inline Fn fns[kNumOps][kNumDeviceTypes] = {};
};
/// The dtypes each registered kernel accepts (0: none registered).
extern DtypeMask g_kernel_dtypes[kNumOps][kNumDeviceTypes];
void ensure_registered();
[[noreturn]] void throw_missing_kernel(OpId op, DeviceType device, ScalarType dtype);
}  // namespace detail

/// Registers op's kernel for `device`; `fn` must have op's kernel type (a mismatch does not
/// compile). An empty dtype mask is an error.
template <OpId op>
void register_kernel(DeviceType device, KernelFn<op> fn, DtypeMask dtypes) {
  detail::KernelTable<KernelFn<op>>::fns[static_cast<int>(op)][static_cast<int>(device)] = fn;
  detail::g_kernel_dtypes[static_cast<int>(op)][static_cast<int>(device)] = fn ? dtypes : 0;
}

/// True when a kernel for (op, device) exists and accepts dtype.
EMBER_API bool supports(OpId op, DeviceType device, ScalarType dtype);

/// The kernel of `op` (of kind Fn) for `device`; throws NotImplementedError naming the op and
/// device when there is none, TypeError naming the accepted dtypes when it refuses dtype.
template <class Fn>
inline Fn get_kernel(OpId op, DeviceType device, ScalarType dtype) {
  const int o = static_cast<int>(op), d = static_cast<int>(device);
  const Fn fn = detail::KernelTable<Fn>::fns[o][d];
  if (EMBER_UNLIKELY(fn == nullptr || !(detail::g_kernel_dtypes[o][d] & dtype_bit(dtype))))
    detail::throw_missing_kernel(op, device, dtype);
  return fn;
}
/// The same for an op known at compile time: its kind is implied.
template <OpId op>
inline KernelFn<op> get_kernel(DeviceType device, ScalarType dtype) {
  return get_kernel<KernelFn<op>>(op, device, dtype);
}

}  // namespace ember
