// CPU kernels that move values: cast (dtype conversion, also plain strided copy) and fill.
#include <cstring>

#include "kernels/cpu/elementwise_kernels.h"

namespace ember {

namespace {
// Output dtype is L.out_dtype, input dtype is L.dtype: one loop per pair.
void cpu_cast(const ElementwiseLoop& L) {
  if (L.contiguous && L.dtype == L.out_dtype) {
    const int64_t bytes = element_size(L.dtype);
    parallel_for(0, L.numel, kElementwiseGrain * 4, [&](int64_t b, int64_t e) {
      std::memcpy(L.data[0] + b * bytes, L.data[1] + b * bytes, (e - b) * bytes);
    });
    return;
  }
  visit_dtype(L.out_dtype, [&](auto out_tag) {
    using To = typename decltype(out_tag)::type;
    visit_dtype(L.dtype, [&](auto in_tag) {
      using From = typename decltype(in_tag)::type;
      kernels::cpu_kernel<To, From>(L, kernels::CastTo<To>{});
    });
  });
}

// Writes one value everywhere: integers from the exact int64 parameter, floats from the double.
void cpu_fill(const ElementwiseLoop& L) {
  visit_dtype(L.out_dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T value;
    if (L.scalars.is_integral)
      value = kernels::CastTo<T>{}(L.scalars.i[0]);
    else
      value = kernels::CastTo<T>{}(L.scalars.s[0]);
    kernels::cpu_kernel<T>(L, [value]() { return value; });
  });
}
}  // namespace

void register_cpu_cast_kernels() {
  register_kernel<OpId::cast>(kCPU, &cpu_cast, kAllDtypes);
  register_kernel<OpId::fill>(kCPU, &cpu_fill, kAllDtypes);
}

}  // namespace ember
