// fuse_modules / fuse_modules_qat (Python's torch.ao.quantization.fuse_modules with
// fuse_known_modules and DEFAULT_OP_LIST_TO_FUSER_METHOD), in place. Per group of dotted names: the
// layers are matched against Python's table by type, the fused module takes the first name (the
// others become Identity), and the first layer's forward pre-hooks and the last one's forward
// hooks are registered on it too. Eval-mode batch norms are folded into the layer before them in
// place, so a folded Conv2d stays the same object under the same name, where Python puts its
// fused copy. The old layer objects a C++ model may still hold in members are told what to run
// (nn/fused_forward.h): in eval the first computes the fused result from itself and the others
// pass their input through; in QAT they stay as they are (ConvBn2d computes what they compute).
#include <memory>
#include <string>
#include <vector>

#include "ember/nn/modules/container/module_list.h"
#include "ember/nn/modules/container/sequential.h"
#include "ember/nn/modules/fused.h"
#include "ember/nn/utils/fusion.h"
#include "src/core/check.h"
#include "src/nn/hook_lists.h"

namespace ember::nn::utils {
namespace {

using intrinsic::BNReLU2dImpl;
using intrinsic::BNReLU3dImpl;

// One named layer of a group: its parent, its name there, the object.
struct Slot {
  Module* parent = nullptr;
  std::shared_ptr<Module> parent_owner;  // keeps a nested parent alive
  std::string name;
  std::shared_ptr<Module> module;
};

Slot resolve(Module& model, const std::string& path) {
  Slot s;
  const size_t dot = path.rfind('.');
  if (dot == std::string::npos) {
    s.parent = &model;
    s.name = path;
  } else {
    s.parent_owner = model.get_submodule(path.substr(0, dot));
    s.parent = s.parent_owner.get();
    s.name = path.substr(dot + 1);
  }
  const auto children = s.parent->named_children();
  const std::shared_ptr<Module>* child = children.find(s.name);
  EMBER_CHECK_VALUE(child != nullptr, "fuse_modules: {} has no submodule '{}' (path '{}')",
                    s.parent->name(), s.name, path);
  s.module = *child;
  return s;
}

// Puts `replacement` under the slot's name, in a container's own list too (Sequential's call
// list, ModuleList's and ModuleDict's entries), so iterating the container sees it.
template <class M>
void install(const Slot& slot, const std::shared_ptr<M>& replacement) {
  if (replacement.get() == slot.module.get()) return;
  if (auto* dict = dynamic_cast<ModuleDictImpl*>(slot.parent))
    return dict->insert(slot.name, replacement);  // replaces registry and entry
  slot.parent->replace_module(slot.name, std::shared_ptr<Module>(replacement));
  if (auto* seq = dynamic_cast<SequentialImpl*>(slot.parent)) {
    for (AnyModule& entry : *seq)
      if (entry.ptr().get() == slot.module.get()) entry = AnyModule(replacement);
  } else if (auto* list = dynamic_cast<ModuleListImpl*>(slot.parent)) {
    for (std::shared_ptr<Module>& entry : *list)
      if (entry.get() == slot.module.get()) entry = replacement;
  }
}

// Python moves the first layer's forward pre-hooks and the last layer's forward hooks to the fused
// module. Here they are copied: a model that calls the fused module (a Sequential) runs them
// there, and one that calls its member layers runs them on those, once either way.
void copy_hooks(Module& first, Module& last, Module& fused) {
  if (&first != &fused)
    if (nn::detail::HookLists* lists = first.hook_lists())
      for (const auto& e : lists->forward_pre.entries) fused.register_forward_pre_hook(e.second);
  if (&last != &fused)
    if (nn::detail::HookLists* lists = last.hook_lists())
      for (const auto& e : lists->forward.entries) fused.register_forward_hook(e.second);
}

// The later layers of a fused eval group pass their input through.
template <class Impl>
bool pass_through(Module& layer) {
  auto* impl = dynamic_cast<Impl*>(&layer);
  if (impl) impl->_fused_forward.set(&nn::detail::FusedForward::identity);
  return impl != nullptr;
}
void pass_through_any(Module& layer) {
  pass_through<ReLUImpl>(layer) || pass_through<BatchNorm1dImpl>(layer) ||
      pass_through<BatchNorm2dImpl>(layer) || pass_through<BatchNorm3dImpl>(layer);
}

// What the first layer of a fused eval group computes instead of itself.
template <class ConvImpl>
Tensor conv_relu_forward(Module& layer, const Tensor& x) {
  return static_cast<ConvImpl&>(layer)._conv_relu_forward(x);
}
Tensor linear_relu_forward(Module& layer, const Tensor& x) {
  return intrinsic::detail::linear_relu(static_cast<LinearImpl&>(layer), x);
}
template <class BnImpl>
Tensor bn_relu_forward(Module& layer, const Tensor& x) {
  return intrinsic::detail::bn_relu(static_cast<BnImpl&>(layer), x);
}

std::string type_list(const std::vector<Slot>& slots) {
  std::string out;
  for (const Slot& s : slots) out += (out.empty() ? "" : ", ") + s.module->name();
  return "(" + out + ")";
}

struct Group {
  std::vector<Slot> slots;
  bool qat = false;
  const char* op = "fuse_modules";

  template <class T>
  std::shared_ptr<T> as(size_t i) const {
    return i < slots.size() ? std::dynamic_pointer_cast<T>(slots[i].module) : nullptr;
  }
  void same_mode() const {
    for (const Slot& s : slots)
      EMBER_CHECK_VALUE(s.module->is_training() == slots[0].module->is_training(),
                        "{}: {} must all be in the same mode (train or eval); call train() or "
                        "eval() on the model first",
                        op, type_list(slots));
  }
  template <class Bn>
  void check_qat_bn(const Bn& bn, int64_t channels) const {
    EMBER_CHECK_VALUE(bn->options.num_features() == channels,
                      "{}: the layer has {} output channels, {} has num_features {}", op, channels,
                      bn->name(), bn->options.num_features());
    EMBER_CHECK_VALUE(bn->options.affine(), "{}: only a batch norm with affine=true can be fused",
                      op);
    EMBER_CHECK_VALUE(bn->options.track_running_stats(),
                      "{}: only a batch norm with track_running_stats=true can be fused", op);
  }

  // Replaces the group by `fused` (first name) and Identity (the rest).
  template <class Fused>
  void finish(const std::shared_ptr<Fused>& fused) const {
    copy_hooks(*slots.front().module, *slots.back().module, *fused);
    install(slots[0], fused);
    for (size_t i = 1; i < slots.size(); ++i) {
      auto identity = std::make_shared<IdentityImpl>();
      identity->train(slots[0].module->is_training());
      install(slots[i], identity);
      if (!qat) pass_through_any(*slots[i].module);
    }
  }

  // (ConvNd, BatchNormNd[, ReLU]).
  template <class ConvImpl, class BnImpl, class ConvReLU, class ConvBn, class ConvBnReLU>
  bool conv_bn(bool with_relu) {
    auto conv = as<ConvImpl>(0);
    auto bn = as<BnImpl>(1);
    auto relu = as<ReLUImpl>(2);
    if (!conv || !bn || slots.size() != (with_relu ? 3u : 2u) || (with_relu && !relu)) return false;
    same_mode();
    if (qat) {
      check_qat_bn(bn, conv->options.out_channels());
      if (with_relu) {
        auto fused = std::make_shared<ConvBnReLU>(decltype(ConvBnReLU::conv)(conv),
                                                  decltype(ConvBnReLU::bn)(bn), ReLU(relu));
        finish(fused);
      } else {
        finish(std::make_shared<ConvBn>(decltype(ConvBn::conv)(conv), decltype(ConvBn::bn)(bn)));
      }
      return true;
    }
    fold(*conv, *bn, /*transpose=*/false);
    if (with_relu) {
      conv->_fused_forward.set(&conv_relu_forward<ConvImpl>);
      finish(std::make_shared<ConvReLU>(decltype(ConvReLU::conv)(conv), ReLU(relu)));
    } else {
      finish(conv);
    }
    return true;
  }

  // (ConvTransposeNd, BatchNormNd): eval only, folded in place.
  template <class ConvImpl, class BnImpl>
  bool conv_transpose_bn() {
    auto conv = as<ConvImpl>(0);
    auto bn = as<BnImpl>(1);
    if (!conv || !bn || slots.size() != 2) return false;
    same_mode();
    EMBER_CHECK_AS(NotImplementedError, !qat,
                   "{}: fusing ConvTranspose and BatchNorm is not supported in QAT", op);
    fold(*conv, *bn, /*transpose=*/true);
    finish(conv);
    return true;
  }

  template <class LayerImpl, class BnImpl>
  void fold(LayerImpl& layer, BnImpl& bn, bool transpose) const {
    detail::fuse_into(layer, layer.weight, layer.bias, layer, bn, bn.running_mean, bn.running_var,
                      bn.options.eps(), bn.weight, bn.bias, transpose,
                      std::is_same_v<LayerImpl, LinearImpl>, op);
    layer.options.bias(true);
  }

  // (ConvNd, ReLU): ConvReLUNd in either mode.
  template <class ConvImpl, class ConvReLU>
  bool conv_relu() {
    auto conv = as<ConvImpl>(0);
    auto relu = as<ReLUImpl>(1);
    if (!conv || !relu || slots.size() != 2) return false;
    same_mode();
    if (!qat) conv->_fused_forward.set(&conv_relu_forward<ConvImpl>);
    finish(std::make_shared<ConvReLU>(decltype(ConvReLU::conv)(conv), ReLU(relu)));
    return true;
  }

  bool linear() {
    auto lin = as<LinearImpl>(0);
    if (!lin || slots.size() != 2) return false;
    if (auto relu = as<ReLUImpl>(1)) {
      same_mode();
      if (!qat) lin->_fused_forward.set(&linear_relu_forward);
      finish(std::make_shared<intrinsic::LinearReLUImpl>(Linear(lin), ReLU(relu)));
      return true;
    }
    auto bn = as<BatchNorm1dImpl>(1);
    if (!bn) return false;
    same_mode();
    if (qat) {
      check_qat_bn(bn, lin->options.out_features());
      finish(std::make_shared<intrinsic::LinearBn1dImpl>(Linear(lin), BatchNorm1d(bn)));
    } else {
      fold(*lin, *bn, false);
      finish(lin);
    }
    return true;
  }

  template <class BnImpl, class BNReLU>
  bool bn_relu() {
    auto bn = as<BnImpl>(0);
    auto relu = as<ReLUImpl>(1);
    if (!bn || !relu || slots.size() != 2) return false;
    same_mode();
    if (!qat) bn->_fused_forward.set(&bn_relu_forward<BnImpl>);
    finish(std::make_shared<BNReLU>(decltype(BNReLU::bn)(bn), ReLU(relu)));
    return true;
  }

  void fuse() {
    using namespace intrinsic;
    const bool relu3 = slots.size() == 3;
    const bool done =
        conv_bn<Conv1dImpl, BatchNorm1dImpl, ConvReLU1dImpl, ConvBn1dImpl, ConvBnReLU1dImpl>(
            relu3) ||
        conv_bn<Conv2dImpl, BatchNorm2dImpl, ConvReLU2dImpl, ConvBn2dImpl, ConvBnReLU2dImpl>(
            relu3) ||
        conv_bn<Conv3dImpl, BatchNorm3dImpl, ConvReLU3dImpl, ConvBn3dImpl, ConvBnReLU3dImpl>(
            relu3) ||
        conv_relu<Conv1dImpl, ConvReLU1dImpl>() || conv_relu<Conv2dImpl, ConvReLU2dImpl>() ||
        conv_relu<Conv3dImpl, ConvReLU3dImpl>() || linear() ||
        bn_relu<BatchNorm2dImpl, BNReLU2dImpl>() || bn_relu<BatchNorm3dImpl, BNReLU3dImpl>() ||
        conv_transpose_bn<ConvTranspose1dImpl, BatchNorm1dImpl>() ||
        conv_transpose_bn<ConvTranspose2dImpl, BatchNorm2dImpl>() ||
        conv_transpose_bn<ConvTranspose3dImpl, BatchNorm3dImpl>();
    EMBER_CHECK_AS(NotImplementedError, done,
                   "{}: cannot fuse modules {}: expected (ConvNd, BatchNormNd), (ConvNd, "
                   "BatchNormNd, ReLU), (ConvNd, ReLU), (Linear, BatchNorm1d), (Linear, ReLU), "
                   "(BatchNorm2d/3d, ReLU) or (ConvTransposeNd, BatchNormNd)",
                   op, type_list(slots));
  }
};

void fuse_groups(Module& model, const std::vector<std::vector<std::string>>& modules_to_fuse,
                 bool qat) {
  for (const auto& names : modules_to_fuse) {
    Group group;
    group.qat = qat;
    group.op = qat ? "fuse_modules_qat" : "fuse_modules";
    for (const std::string& path : names) group.slots.push_back(resolve(model, path));
    group.fuse();
  }
}

}  // namespace

void fuse_modules(Module& model, const std::vector<std::vector<std::string>>& modules_to_fuse) {
  fuse_groups(model, modules_to_fuse, /*qat=*/false);
}

void fuse_modules_qat(Module& model, const std::vector<std::vector<std::string>>& modules_to_fuse) {
  fuse_groups(model, modules_to_fuse, /*qat=*/true);
}

}  // namespace ember::nn::utils
