#include "ember/core/tensor_impl.h"

#include "src/core/checked_math.h"

namespace ember {

DimVector contiguous_strides(IntArrayRef sizes) {
  DimVector strides(sizes.size());
  // Unsigned: only an empty tensor (a 0 among sizes whose other product passes int64) gets here
  // with a product that wraps, and its strides are never used to address anything.
  uint64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = static_cast<int64_t>(s);
    s *= static_cast<uint64_t>(sizes[i] > 1 ? sizes[i] : 1);
  }
  return strides;
}

TensorImpl::TensorImpl(intrusive_ptr<StorageImpl> storage, ScalarType dtype, IntArrayRef sizes,
                       IntArrayRef strides, int64_t storage_offset)
    : storage_(std::move(storage)),
      sizes_(sizes),
      strides_(strides),
      storage_offset_(storage_offset),
      dtype_(dtype) {
  refresh_numel_and_contiguity();
}

TensorImpl::TensorImpl(intrusive_ptr<StorageImpl> storage, ScalarType dtype, IntArrayRef sizes)
    : storage_(std::move(storage)),
      sizes_(sizes),
      strides_(contiguous_strides(sizes)),
      dtype_(dtype) {
  refresh_numel_and_contiguity();
}

TensorImpl::~TensorImpl() = default;

void TensorImpl::set_geometry(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset) {
  sizes_ = sizes;
  strides_ = strides;
  storage_offset_ = storage_offset;
  refresh_numel_and_contiguity();
}

void TensorImpl::set_storage(intrusive_ptr<StorageImpl> storage, ScalarType dtype,
                             IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset) {
  storage_ = std::move(storage);
  dtype_ = dtype;
  set_geometry(sizes, strides, storage_offset);
}

void TensorImpl::refresh_numel_and_contiguity() {
  // The ops check their sizes first (detail::checked_numel, naming themselves); this is the
  // backstop for any path that did not.
  numel_ = detail::checked_numel(sizes_, "tensor");
  if (numel_ == 0) {  // every empty tensor is contiguous (and its sizes' product may not fit)
    is_contiguous_ = true;
    return;
  }
  // Contiguous as PyTorch defines it: dims of size 1 may have any stride.
  bool contiguous = true;
  int64_t expected = 1;
  for (size_t i = sizes_.size(); i-- > 0;) {
    if (sizes_[i] == 1) continue;
    if (strides_[i] != expected) {
      contiguous = false;
      break;
    }
    expected *= sizes_[i];
  }
  is_contiguous_ = contiguous;
}

}  // namespace ember
