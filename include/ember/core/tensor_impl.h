// TensorImpl: the storage a tensor reads, and how (sizes, strides in elements, offset, dtype).
// Views are TensorImpls over the same StorageImpl.
#pragma once

#include <memory>

#include "ember/core/intrusive_ptr.h"
#include "ember/core/scalar_type.h"
#include "ember/core/small_vector.h"
#include "ember/core/storage.h"

namespace ember {

/// Per-tensor autograd state, defined by the autograd layer; null for tensors that never took
/// part in autograd, so plain tensors pay one pointer.
struct EMBER_API AutogradMetaInterface {
  virtual ~AutogradMetaInterface() = default;
  virtual bool requires_grad() const = 0;
};

class EMBER_API TensorImpl : public RefCounted {
 public:
  TensorImpl(intrusive_ptr<StorageImpl> storage, ScalarType dtype, IntArrayRef sizes,
             IntArrayRef strides, int64_t storage_offset);
  /// A contiguous tensor of `sizes` over `storage` from offset 0.
  TensorImpl(intrusive_ptr<StorageImpl> storage, ScalarType dtype, IntArrayRef sizes);
  ~TensorImpl() override;

  IntArrayRef sizes() const { return sizes_; }
  IntArrayRef strides() const { return strides_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t size(int64_t d) const { return sizes_[d]; }
  int64_t stride(int64_t d) const { return strides_[d]; }
  int64_t numel() const { return numel_; }
  int64_t storage_offset() const { return storage_offset_; }
  ScalarType dtype() const { return dtype_; }
  int64_t itemsize() const { return element_size(dtype_); }
  Device device() const { return storage_->device(); }
  bool is_contiguous() const { return is_contiguous_; }
  const intrusive_ptr<StorageImpl>& storage() const { return storage_; }
  /// Address of element 0 (storage data + offset).
  void* data() const {
    return static_cast<char*>(storage_->data()) + storage_offset_ * element_size(dtype_);
  }

  /// Re-points this impl at new geometry (used by in-place shape ops such as squeeze_).
  void set_geometry(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset);
  /// Swaps in a new storage and dtype (used by Module::to to keep user handles valid).
  void set_storage(intrusive_ptr<StorageImpl> storage, ScalarType dtype, IntArrayRef sizes,
                   IntArrayRef strides, int64_t storage_offset);

  AutogradMetaInterface* autograd_meta() const { return autograd_meta_.get(); }
  void set_autograd_meta(std::unique_ptr<AutogradMetaInterface> m) {
    autograd_meta_ = std::move(m);
  }
  bool requires_grad() const { return autograd_meta_ && autograd_meta_->requires_grad(); }

  /// For views, the tensor whose memory they alias (never itself a view); null otherwise.
  TensorImpl* view_base() const { return view_base_.get(); }
  bool is_view() const { return static_cast<bool>(view_base_); }
  void set_view_base(intrusive_ptr<TensorImpl> base) { view_base_ = std::move(base); }

  uint32_t version() const { return storage_->version(); }
  void bump_version() { storage_->bump_version(); }

 private:
  void refresh_numel_and_contiguity();

  intrusive_ptr<StorageImpl> storage_;
  DimVector sizes_;
  DimVector strides_;
  int64_t storage_offset_ = 0;
  int64_t numel_ = 1;
  ScalarType dtype_;
  bool is_contiguous_ = true;
  std::unique_ptr<AutogradMetaInterface> autograd_meta_;
  intrusive_ptr<TensorImpl> view_base_;
};

/// Strides of a contiguous (row-major) tensor of `sizes`.
DimVector contiguous_strides(IntArrayRef sizes);

}  // namespace ember
