// The dispatcher: one kernel slot per (op, device type), filled by each backend's registration
// function, looked up with an indexed load. The dtype switch happens inside the kernel (one
// visitor, kernels/common/visit.h); the slot records which dtypes the kernel accepts.
#pragma once

#include <cstdint>

#include "ember/core/device.h"
#include "ember/core/macros.h"
#include "ember/core/scalar_type.h"
#include "ember/ops/op_table.h"

namespace ember {

enum class OpId : int16_t {
#define EMBER_OPID_ROW3(name, Name, x) name,
#define EMBER_OPID_ROW1(name) name,
  EMBER_UNARY_OPS(EMBER_OPID_ROW3) EMBER_BINARY_OPS(EMBER_OPID_ROW3)
      EMBER_SPECIAL_ELEMENTWISE_OPS(EMBER_OPID_ROW3) EMBER_KERNEL_OPS(EMBER_OPID_ROW1)
#undef EMBER_OPID_ROW3
#undef EMBER_OPID_ROW1
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

struct KernelSlot {
  void* fn = nullptr;
  DtypeMask dtypes = 0;
};

namespace detail {
extern KernelSlot g_kernels[kNumOps][kNumDeviceTypes];
void ensure_registered();
[[noreturn]] void throw_missing_kernel(OpId op, DeviceType device, ScalarType dtype);
}  // namespace detail

void register_kernel(OpId op, DeviceType device, void* fn, DtypeMask dtypes);

/// True when a kernel for (op, device) exists and accepts dtype.
EMBER_API bool supports(OpId op, DeviceType device, ScalarType dtype);

/// The kernel of `op` for `device`, as function pointer type Fn; throws NotImplementedError naming
/// the op, device and dtype when there is none.
template <class Fn>
inline Fn get_kernel(OpId op, DeviceType device, ScalarType dtype) {
  const KernelSlot& s = detail::g_kernels[static_cast<int>(op)][static_cast<int>(device)];
  if (EMBER_UNLIKELY(s.fn == nullptr || !(s.dtypes & dtype_bit(dtype))))
    detail::throw_missing_kernel(op, device, dtype);
  return reinterpret_cast<Fn>(s.fn);
}

}  // namespace ember
