// CUDA kernels that move values: cast (dtype conversion, also the same-device strided copy behind
// copy_, contiguous and clone) and fill. The mirror of kernels/cpu/cast_kernels.cpp.
#include <cstring>

#include "kernels/cuda/elementwise_kernels.cuh"

namespace ember::cuda_detail {

namespace {
// CastTo, except that a floating value goes to uint8 through int64, as PyTorch does on both
// devices. A C++ float -> uint8 cast of a negative value is undefined: x86 truncates through a
// 32-bit int (-3.0 -> 253, which the CPU kernels give), while the GPU's cvt saturates (-> 0), so
// without this detour x.to(kByte) on CUDA would disagree with the CPU for every negative input.
template <class To>
struct DeviceCastTo {
  template <class From>
  EMBER_HOST_DEVICE To operator()(From x) const {
    if constexpr (std::is_same_v<To, uint8_t> && is_float_type_v<From>) {
      return static_cast<uint8_t>(static_cast<int64_t>(static_cast<opmath_t<From>>(x)));
    } else {
      return kernels::CastTo<To>{}(x);
    }
  }
};

// Output dtype is L.out_dtype, input dtype is L.dtype: one kernel per pair (100 pairs).
void cuda_cast(const ElementwiseLoop& L) {
  if (L.numel == 0) return;
  if (L.contiguous && L.dtype == L.out_dtype) {
    // A dense same-dtype copy is a memcpy: the copy engine runs at full bandwidth.
    EMBER_CUDA_CHECK(cudaMemcpyAsync(L.data[0], L.data[1],
                                     static_cast<size_t>(L.numel * element_size(L.dtype)),
                                     cudaMemcpyDeviceToDevice, current_stream()));
    return;
  }
  visit_dtype(L.out_dtype, [&](auto out_tag) {
    using To = typename decltype(out_tag)::type;
    visit_dtype(L.dtype, [&](auto in_tag) {
      using From = typename decltype(in_tag)::type;
      kernels::cuda::cuda_kernel<To, From>(L, DeviceCastTo<To>{});
    });
  });
}

// A zero-input functor that returns one value.
template <class T>
struct FillValue {
  T value;
  EMBER_HOST_DEVICE T operator()() const { return value; }
};

// Writes one value everywhere: integers from the exact int64 parameter, floats from the double.
void cuda_fill(const ElementwiseLoop& L) {
  if (L.numel == 0) return;
  visit_dtype(L.out_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T value;
    if (L.scalars.is_integral)
      value = kernels::CastTo<T>{}(L.scalars.i[0]);
    else
      value = kernels::CastTo<T>{}(L.scalars.s[0]);
    const T zero{};
    if (L.contiguous && std::memcmp(&value, &zero, sizeof(T)) == 0) {
      // zero_() and zeros(): all-zero bytes, which the driver's memset writes at full bandwidth.
      EMBER_CUDA_CHECK(cudaMemsetAsync(L.data[0], 0, static_cast<size_t>(L.numel) * sizeof(T),
                                       current_stream()));
      return;
    }
    kernels::cuda::cuda_kernel<T>(L, FillValue<T>{value});
  });
}
}  // namespace

void register_cuda_cast_kernels() {
  register_kernel<OpId::cast>(kCUDA, &cuda_cast, kAllDtypes);
  register_kernel<OpId::fill>(kCUDA, &cuda_fill, kAllDtypes);
}

}  // namespace ember::cuda_detail
