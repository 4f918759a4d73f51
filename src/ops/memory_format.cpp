// Memory formats (include/ember/core/memory_format.h): the channels-last stride orders, and the
// ops that take a MemoryFormat (contiguous, clone, is_contiguous, suggest_memory_format, empty).
// A channels-last tensor is an ordinary strided tensor whose strides follow N, H, W, C.
#include "ember/core/memory_format.h"

#include "ember/ops/factory.h"
#include "src/autograd/derivatives/copy.h"
#include "src/ops/op_common.h"

namespace ember {

namespace {
const char* memory_format_name(MemoryFormat memory_format) {
  switch (memory_format) {
    case MemoryFormat::Contiguous:
      return "Contiguous";
    case MemoryFormat::Preserve:
      return "Preserve";
    case MemoryFormat::ChannelsLast:
      return "ChannelsLast";
    case MemoryFormat::ChannelsLast3d:
      return "ChannelsLast3d";
    default:
      return "NumOptions";
  }
}

// Strides for `sizes` with the dims laid out in `order`, innermost first (the same arithmetic as
// LibTorch's, sizes taken as they are, so the strides match its).
std::vector<int64_t> strides_in_order(IntArrayRef sizes, std::initializer_list<size_t> order) {
  std::vector<int64_t> strides(sizes.size());
  int64_t stride = 1;
  for (size_t d : order) {
    strides[d] = stride;
    stride *= sizes[d];
  }
  return strides;
}

// Whether `t`'s strides follow `order` (innermost first), size-1 dims taking any stride, as
// LibTorch's is_contiguous(ChannelsLast).
bool strides_follow(const Tensor& t, std::initializer_list<size_t> order) {
  int64_t expected = 1;
  for (size_t d : order) {
    const int64_t size = t.sizes()[d];
    if (size == 1) continue;
    if (t.strides()[d] != expected) return false;
    expected *= size;
  }
  return true;
}

constexpr std::initializer_list<size_t> kChannelsLast2d = {1, 3, 2, 0};
constexpr std::initializer_list<size_t> kChannelsLast3d = {1, 4, 3, 2, 0};

void check_channels_last_rank(const char* op, const Tensor& self, MemoryFormat f) {
  const bool three_d = f == MemoryFormat::ChannelsLast3d;
  const int64_t rank = three_d ? 5 : 4;
  EMBER_CHECK(self.dim() == rank,
              "{}: required rank {} tensor to use {} format, got a tensor of shape {}. Hint: "
              "ChannelsLast is for [N, C, H, W], ChannelsLast3d for [N, C, D, H, W]",
              op, rank, three_d ? "channels_last_3d" : "channels_last", self.sizes());
}

std::vector<int64_t> channels_last_strides(IntArrayRef sizes, MemoryFormat f) {
  return f == MemoryFormat::ChannelsLast3d ? get_channels_last_strides_3d(sizes)
                                           : get_channels_last_strides_2d(sizes);
}

// A copy of self with the given strides, differentiable as clone.
Tensor copy_with_strides(const Tensor& self, IntArrayRef strides) {
  return clone_into(self, empty_strided(self.sizes(), strides, self.options()));
}
}  // namespace

std::ostream& operator<<(std::ostream& os, MemoryFormat memory_format) {
  return os << memory_format_name(memory_format);
}

std::vector<int64_t> get_channels_last_strides_2d(IntArrayRef sizes) {
  if (sizes.size() == 4) return strides_in_order(sizes, kChannelsLast2d);
  EMBER_CHECK(sizes.size() == 3,
              "get_channels_last_strides_2d: ChannelsLast needs sizes of rank 3 or 4, got {}",
              sizes);
  return strides_in_order(sizes, {0, 2, 1});
}

std::vector<int64_t> get_channels_last_strides_3d(IntArrayRef sizes) {
  if (sizes.size() == 5) return strides_in_order(sizes, kChannelsLast3d);
  EMBER_CHECK(sizes.size() == 4,
              "get_channels_last_strides_3d: ChannelsLast3d needs sizes of rank 4 or 5, got {}",
              sizes);
  return strides_in_order(sizes, {0, 3, 2, 1});
}

bool Tensor::is_contiguous(MemoryFormat memory_format) const {
  check_defined(*this, "is_contiguous");
  switch (memory_format) {
    case MemoryFormat::ChannelsLast:
      return dim() == 4 && strides_follow(*this, kChannelsLast2d);
    case MemoryFormat::ChannelsLast3d:
      return dim() == 5 && strides_follow(*this, kChannelsLast3d);
    default:
      return is_contiguous();
  }
}

MemoryFormat Tensor::suggest_memory_format(bool channels_last_strides_exact_match) const {
  check_defined(*this, "suggest_memory_format");
  // A row-major tensor whose size-1 dims also fit channels-last (C == 1, ...) stays Contiguous.
  if (is_contiguous()) return MemoryFormat::Contiguous;
  for (MemoryFormat f : {MemoryFormat::ChannelsLast, MemoryFormat::ChannelsLast3d}) {
    if (!is_contiguous(f)) continue;
    // Exact match: size-1 dims must carry the very strides channels-last gives them too, as
    // LibTorch's flag asks (a [N, 1, H, W] view with odd strides on C is then Contiguous).
    if (!channels_last_strides_exact_match ||
        strides() == IntArrayRef(channels_last_strides(sizes(), f)))
      return f;
  }
  return MemoryFormat::Contiguous;
}

const Tensor& Tensor::resize_(IntArrayRef size, std::optional<MemoryFormat> memory_format) const {
  check_defined(*this, "resize_");
  EMBER_CHECK(!requires_grad(),
              "resize_: cannot resize a tensor that requires grad (shape {}). Hint: resize a "
              "detached copy, or resize inside ember::NoGradGuard before setting requires_grad",
              sizes());
  set_shape_keeping_storage(*this, size, "resize_");
  const MemoryFormat f = memory_format.value_or(MemoryFormat::Contiguous);
  EMBER_CHECK(f != MemoryFormat::Preserve,
              "resize_: preserve memory format is unsupported by resize_. Hint: pass "
              "MemoryFormat::Contiguous or a channels-last format");
  if (f == MemoryFormat::ChannelsLast || f == MemoryFormat::ChannelsLast3d) {
    check_channels_last_rank("resize_", *this, f);
    TensorImpl* impl = unsafeGetTensorImpl();
    impl->set_geometry(size, channels_last_strides(size, f), impl->storage_offset());
  }
  return *this;
}

Tensor Tensor::contiguous(MemoryFormat memory_format) const {
  check_defined(*this, "contiguous");
  switch (memory_format) {
    case MemoryFormat::Contiguous:
      return contiguous();
    case MemoryFormat::Preserve:
      EMBER_CHECK(is_contiguous(),
                  "contiguous: preserve memory format is unsupported by the contiguous operator. "
                  "Hint: use clone(MemoryFormat::Preserve), or contiguous() for a row-major copy");
      return *this;
    case MemoryFormat::ChannelsLast:
    case MemoryFormat::ChannelsLast3d:
      check_channels_last_rank("contiguous", *this, memory_format);
      if (is_contiguous(memory_format)) return *this;
      return copy_with_strides(*this, channels_last_strides(sizes(), memory_format));
    default:
      EMBER_CHECK(false, "contiguous: invalid memory format {}", memory_format_name(memory_format));
      return *this;
  }
}

Tensor Tensor::clone(std::optional<MemoryFormat> memory_format) const {
  check_defined(*this, "clone");
  MemoryFormat f = memory_format.value_or(MemoryFormat::Preserve);
  if (f == MemoryFormat::Preserve) f = suggest_memory_format();
  switch (f) {
    case MemoryFormat::Contiguous:
      return clone();
    case MemoryFormat::ChannelsLast:
    case MemoryFormat::ChannelsLast3d:
      check_channels_last_rank("clone", *this, f);
      return copy_with_strides(*this, channels_last_strides(sizes(), f));
    default:
      EMBER_CHECK(false, "clone: invalid memory format {}", memory_format_name(f));
      return *this;
  }
}

Tensor empty(IntArrayRef size, const TensorOptions& options,
             std::optional<MemoryFormat> memory_format) {
  EMBER_CHECK(!(memory_format && options.has_memory_format()),
              "empty: cannot set memory_format both in TensorOptions and as an argument. Hint: "
              "drop one of them");
  const MemoryFormat f =
      memory_format.value_or(options.memory_format_opt().value_or(MemoryFormat::Contiguous));
  EMBER_CHECK(f != MemoryFormat::Preserve,
              "empty: preserve memory format is unsupported by empty. Hint: use empty_like, or "
              "pass MemoryFormat::Contiguous or a channels-last format");
  const TensorOptions plain = options.memory_format(std::nullopt);
  if (f != MemoryFormat::ChannelsLast && f != MemoryFormat::ChannelsLast3d)
    return empty(size, plain);
  const size_t rank = f == MemoryFormat::ChannelsLast ? 4 : 5;
  EMBER_CHECK(size.size() == rank, "empty: required rank {} tensor to use {} format, got sizes {}",
              rank, f == MemoryFormat::ChannelsLast ? "channels_last" : "channels_last_3d", size);
  return empty_strided(size, channels_last_strides(size, f), plain);
}

}  // namespace ember
