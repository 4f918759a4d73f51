#include "src/autograd/tensor_binding.h"

#include "src/autograd/autograd_meta.h"
#include "src/core/check.h"

namespace ember::autograd {
namespace {

void take_memory(const Tensor& slot, const Tensor& from) {
  TensorImpl* s = slot.unsafeGetTensorImpl();
  TensorImpl* f = from.unsafeGetTensorImpl();
  if (s == f) return;
  s->set_storage(f->storage(), f->dtype(), f->sizes(), f->strides(), f->storage_offset());
}

}  // namespace

void bind_slot(const Tensor& slot, const Tensor& value) {
  EMBER_CHECK(slot.defined() && value.defined(), "bind_slot: undefined tensor");
  TensorImpl* impl = slot.unsafeGetTensorImpl();
  if (impl == value.unsafeGetTensorImpl()) return;
  EMBER_CHECK(!impl->is_view(), "bind_slot: a module tensor that is a view cannot be rebound");
  Edge edge = gradient_edge(value);
  take_memory(slot, value);
  auto meta = std::make_unique<AutogradMeta>(impl);
  meta->grad_fn_ = edge.function;
  meta->output_nr_ = edge.input_nr;
  meta->bound_to_ = value;
  impl->set_autograd_meta(std::move(meta));
}

void make_slot_leaf(const Tensor& slot, const Tensor& data, bool requires_grad) {
  TensorImpl* impl = slot.unsafeGetTensorImpl();
  if (impl != data.unsafeGetTensorImpl()) take_memory(slot, data);
  impl->set_autograd_meta(nullptr);
  if (requires_grad) slot.requires_grad_(true);
}

SlotSnapshot::SlotSnapshot(const Tensor& slot) : slot_(slot), data_(slot.variable_data()) {
  EMBER_CHECK(!slot.unsafeGetTensorImpl()->is_view(),
              "functional_call: a module tensor that is a view cannot be replaced");
  if (AutogradMeta* m = get_autograd_meta(slot)) {
    meta_ = std::make_unique<AutogradMeta>(slot.unsafeGetTensorImpl());
    *meta_ = std::move(*m);
  }
}

SlotSnapshot::SlotSnapshot(SlotSnapshot&&) noexcept = default;
SlotSnapshot& SlotSnapshot::operator=(SlotSnapshot&&) noexcept = default;
SlotSnapshot::~SlotSnapshot() = default;

void SlotSnapshot::restore() {
  if (!slot_.defined()) return;
  take_memory(slot_, data_);
  TensorImpl* impl = slot_.unsafeGetTensorImpl();
  impl->set_autograd_meta(std::move(meta_));
  slot_ = Tensor();
}

}  // namespace ember::autograd
