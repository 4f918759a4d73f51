// visit_width(bytes, f): calls f(T{}) with T the unsigned type of that many bytes (1, 2, 4, else
// 8). For code that only moves or segments elements (gathers, puts, collectives): one
// instantiation per width instead of one per dtype.
#pragma once

#include <cstdint>

namespace ember {

template <class F>
decltype(auto) visit_width(int64_t bytes, F&& f) {
  switch (bytes) {
    case 1:
      return f(uint8_t{});
    case 2:
      return f(uint16_t{});
    case 4:
      return f(uint32_t{});
    default:
      return f(uint64_t{});
  }
}

}  // namespace ember
