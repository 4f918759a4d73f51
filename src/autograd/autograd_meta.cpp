#include "src/autograd/autograd_meta.h"

#include "src/autograd/accumulate_grad.h"
#include "src/autograd/view_nodes.h"
#include "src/core/check.h"

namespace ember::autograd {

namespace {
Tensor base_of(const TensorImpl* view) {
  return Tensor(intrusive_ptr<TensorImpl>(view->view_base()));
}
// A view whose memory changed in place since its grad_fn was set must get a fresh grad_fn.
bool view_is_stale(const AutogradMeta& m) {
  return m.view_ && m.view_->attr_version != m.owner_->version();
}
}  // namespace

bool AutogradMeta::requires_grad() const {
  if (requires_grad_ || grad_fn_) return true;
  return view_is_stale(*this) && owner_->view_base()->requires_grad();
}

AutogradMeta& materialize_autograd_meta(const Tensor& t) {
  TensorImpl* impl = t.unsafeGetTensorImpl();
  if (!impl->autograd_meta()) impl->set_autograd_meta(std::make_unique<AutogradMeta>(impl));
  return *static_cast<AutogradMeta*>(impl->autograd_meta());
}

const std::shared_ptr<Node>& grad_fn_of(const Tensor& t) {
  static const std::shared_ptr<Node> kNone;
  AutogradMeta* m = get_autograd_meta(t);
  if (!m) return kNone;
  if (EMBER_UNLIKELY(view_is_stale(*m))) {
    Tensor base = base_of(m->owner_);
    m->view_->attr_version = m->owner_->version();
    if (base.requires_grad()) {
      m->grad_fn_ = std::make_shared<AsStridedViewBackward>(base, t);
      m->output_nr_ = 0;
    } else {
      m->grad_fn_ = nullptr;
    }
  }
  return m->grad_fn_;
}

std::shared_ptr<Node> grad_accumulator(const Tensor& leaf) {
  AutogradMeta& m = materialize_autograd_meta(leaf);
  if (auto acc = m.grad_accumulator_.lock()) return acc;
  auto acc = std::make_shared<AccumulateGrad>(leaf);
  m.grad_accumulator_ = acc;
  return acc;
}

Edge gradient_edge(const Tensor& t) {
  if (!t.defined()) return {};
  if (const auto& fn = grad_fn_of(t)) return Edge(fn, get_autograd_meta(t)->output_nr_);
  if (t.requires_grad()) return Edge(grad_accumulator(t), 0);
  return {};
}

void set_history(const Tensor& t, const std::shared_ptr<Node>& fn, uint32_t output_nr) {
  AutogradMeta& m = materialize_autograd_meta(t);
  m.grad_fn_ = fn;
  m.output_nr_ = output_nr;
  TensorImpl* impl = t.unsafeGetTensorImpl();
  if (impl->is_view()) {
    if (!m.view_) m.view_ = std::make_unique<ViewInfo>();
    m.view_->attr_version = impl->version();
  }
}

}  // namespace ember::autograd
