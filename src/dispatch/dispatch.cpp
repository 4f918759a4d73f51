#include "dispatch.h"

#include "../core/check.h"

namespace ember {

void register_cpu_kernels();
#ifdef EMBER_WITH_CUDA
void register_cuda_kernels();
#endif

namespace detail {
DtypeMask g_kernel_dtypes[kNumOps][kNumDeviceTypes];

void ensure_registered() {
  static const bool done = [] {
    register_cpu_kernels();
#ifdef EMBER_WITH_CUDA
    register_cuda_kernels();
#endif
    return true;
  }();
  (void)done;
}

// Registration runs when the library loads, so the hot path needs no "registered yet?" check.
namespace {
struct RegisterAtLoad {
  RegisterAtLoad() { ensure_registered(); }
} g_register_at_load;
}  // namespace

void throw_missing_kernel(OpId op, DeviceType device, ScalarType dtype) {
  const DtypeMask dtypes = g_kernel_dtypes[static_cast<int>(op)][static_cast<int>(device)];
  if (dtypes == 0)
    throw NotImplementedError(fmt::format(
        "{}: not implemented on {} (no kernel registered). Hint: move the tensors to the CPU{}",
        op_name(op), device, device == kCUDA ? " or build Ember with CUDA" : ""));
  std::string accepted;
  for (int t = 0; t < kNumScalarTypes; ++t)
    if (dtypes & dtype_bit(static_cast<ScalarType>(t)))
      accepted +=
          (accepted.empty() ? "" : ", ") + std::string(to_string(static_cast<ScalarType>(t)));
  throw TypeError(fmt::format("{}: not implemented for dtype {} on {}: expected one of {}",
                              op_name(op), dtype, device, accepted));
}
}  // namespace detail

const char* op_name(OpId op) {
  static const char* const kNames[] = {
#define EMBER_NAME_ROW3(name, Name, x) #name,
#define EMBER_NAME_ROW2(name, Kind) #name,
      EMBER_UNARY_OPS(EMBER_NAME_ROW3) EMBER_BINARY_OPS(EMBER_NAME_ROW3)
          EMBER_SPECIAL_ELEMENTWISE_OPS(EMBER_NAME_ROW3) EMBER_KERNEL_OPS(EMBER_NAME_ROW2)
#undef EMBER_NAME_ROW3
#undef EMBER_NAME_ROW2
  };
  int i = static_cast<int>(op);
  return i >= 0 && i < kNumOps ? kNames[i] : "unknown";
}

bool supports(OpId op, DeviceType device, ScalarType dtype) {
  return detail::g_kernel_dtypes[static_cast<int>(op)][static_cast<int>(device)] & dtype_bit(dtype);
}

}  // namespace ember
