#include "ember/core/tensor_impl.h"

namespace ember {

DimVector contiguous_strides(IntArrayRef sizes) {
  DimVector strides(sizes.size());
  int64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = s;
    s *= sizes[i] > 1 ? sizes[i] : 1;
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
  int64_t n = 1;
  for (int64_t s : sizes_) n *= s;
  numel_ = n;
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
  is_contiguous_ = contiguous || n == 0;
}

}  // namespace ember
