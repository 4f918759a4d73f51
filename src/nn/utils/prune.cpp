// Pruning methods, their masks and the reparametrization of a module's tensor (Python's
// torch.nn.utils.prune), on the slot binding of tensor_binding.h.
//
// Python finds a tensor's pruning method among the module's forward pre-hooks (the method object
// is the hook). Ember's hooks are plain functions, so each pruned tensor has an entry, owned by
// its hook, that a side table reaches by module address through a weak_ptr: when the hook goes
// (remove(), or the module dies) the entry goes too, and a new module at the same address never
// sees a stale one.
#include "ember/nn/utils/prune.h"

#include <cmath>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include "ember/autograd/grad_mode.h"
#include "ember/ember.h"
#include "src/autograd/tensor_binding.h"
#include "src/core/check.h"
#include "src/nn/utils/module_registry_access.h"

namespace ember::nn::utils::prune {
namespace {

using nn::detail::ModuleRegistryAccess;

// ---- The pruned tensors of each module ----

struct PruneEntry {
  std::string name;
  PruningMethodPtr method;
  Tensor slot;  // the module's member (`lin->weight`), bound to name_orig * name_mask
  RemovableHandle hook;
};

std::mutex table_mutex;
std::unordered_map<const Module*, std::vector<std::weak_ptr<PruneEntry>>> table;

// The live entries of `module`, dropping the expired ones.
std::vector<std::shared_ptr<PruneEntry>> entries_of(const Module& module) {
  std::lock_guard<std::mutex> lock(table_mutex);
  auto it = table.find(&module);
  if (it == table.end()) return {};
  std::vector<std::shared_ptr<PruneEntry>> live;
  std::vector<std::weak_ptr<PruneEntry>> kept;
  for (const auto& weak : it->second)
    if (auto e = weak.lock()) {
      live.push_back(e);
      kept.push_back(weak);
    }
  if (kept.empty())
    table.erase(it);
  else
    it->second = std::move(kept);
  return live;
}

std::shared_ptr<PruneEntry> find_entry(const Module& module, const std::string& name) {
  for (auto& e : entries_of(module))
    if (e->name == name) return e;
  return nullptr;
}

void add_entry(const Module& module, const std::shared_ptr<PruneEntry>& entry) {
  std::lock_guard<std::mutex> lock(table_mutex);
  table[&module].push_back(entry);
}

Tensor registered(Module& module, const std::string& name, bool parameter) {
  auto& registry =
      parameter ? ModuleRegistryAccess::parameters(module) : ModuleRegistryAccess::buffers(module);
  Tensor* t = registry.find(name);
  return t ? *t : Tensor();
}

// Python's apply_mask: name_mask (in name_orig's dtype) times name_orig.
Tensor masked_value(Module& module, const std::string& name) {
  Tensor orig = registered(module, name + "_orig", true);
  Tensor mask = registered(module, name + "_mask", false);
  EMBER_CHECK_VALUE(orig.defined() && mask.defined(),
                    "prune: module '{}' lacks '{}_orig' or '{}_mask' of its pruned tensor '{}'",
                    module.name(), name, name, name);
  return mask.to(orig.scalar_type()) * orig;
}

// What Python's getattr(module, name) gives for a tensor to prune: the pruned value when it is
// pruned already, else the parameter.
Tensor current_tensor(Module& module, const std::string& name, const char* op) {
  if (auto e = find_entry(module, name)) return e->slot;
  Tensor p = registered(module, name, true);
  EMBER_CHECK_VALUE(p.defined(), "{}: module '{}' has no parameter '{}'", op, module.name(), name);
  return p;
}

// Sets `value` at `indices` along `dim` of `t` (t[..., indices, ...] = value).
void put_along(const Tensor& t, int64_t dim, const Tensor& indices, const Tensor& value) {
  std::vector<TensorIndex> where(static_cast<size_t>(dim), TensorIndex(indexing::Slice()));
  where.emplace_back(indices);
  t.index_put_(where, value);
}

int64_t checked_channel_dim(const char* op, const Tensor& t, int64_t dim) {
  EMBER_CHECK_VALUE(t.dim() > 1,
                    "{}: structured pruning can only be applied to multidimensional tensors. "
                    "Found tensor of shape {} with {} dims",
                    op, t.sizes(), t.dim());
  EMBER_CHECK_INDEX(dim < t.dim() && dim >= -t.dim(), "{}: invalid index {} for tensor of size {}",
                    op, dim, t.sizes());
  return dim < 0 ? dim + t.dim() : dim;
}

// A mask of zeros with ones on the channels `keep` along `dim`, times default_mask.
Tensor channel_mask(const Tensor& t, int64_t dim, const Tensor& keep, const Tensor& default_mask) {
  Tensor mask = ember::zeros_like(t);
  put_along(mask, dim, keep, ember::ones({}, t.options()));
  return mask * default_mask.to(mask.scalar_type());
}

std::vector<int64_t> all_dims_but(int64_t ndim, int64_t dim) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < ndim; ++d)
    if (d != dim) dims.push_back(d);
  return dims;
}

}  // namespace

// ---- Amount ----

Amount::Amount(double fraction) : fraction_(fraction) {
  EMBER_CHECK_VALUE(fraction >= 0.0 && fraction <= 1.0,
                    "prune: amount={} should either be a float in the range [0, 1] or a "
                    "non-negative integer",
                    fraction);
}

Amount::Amount(int64_t count, int) : is_count_(true), count_(count) {
  EMBER_CHECK_VALUE(count >= 0,
                    "prune: amount={} should either be a float in the range [0, 1] or a "
                    "non-negative integer",
                    count);
}

int64_t Amount::units_to_prune(int64_t units) const {
  if (is_count_) {
    EMBER_CHECK_VALUE(count_ <= units,
                      "prune: amount={} should be smaller than the number of parameters to "
                      "prune={}",
                      count_, units);
    return count_;
  }
  // Python's round(): to nearest, ties to even (the default floating-point rounding mode).
  return static_cast<int64_t>(std::nearbyint(fraction_ * static_cast<double>(units)));
}

std::string Amount::str() const {
  std::ostringstream s;
  if (is_count_)
    s << count_;
  else
    s << fraction_;
  return s.str();
}

// ---- Methods ----

Tensor BasePruningMethod::prune(const Tensor& t, const Tensor& default_mask) const {
  autograd::NoGradGuard no_grad;
  Tensor mask = compute_mask(t, default_mask.defined() ? default_mask : ember::ones_like(t));
  return t * mask.to(t.scalar_type());
}

Tensor Identity::compute_mask(const Tensor&, const Tensor& default_mask) const {
  return default_mask;
}

RandomUnstructured::RandomUnstructured(Amount amount) : amount_(amount) {}

Tensor RandomUnstructured::compute_mask(const Tensor& t, const Tensor& default_mask) const {
  const int64_t k = amount_.units_to_prune(t.numel());
  Tensor mask = default_mask.clone().contiguous();
  if (k != 0) {
    Tensor prob = ember::rand_like(t);
    Tensor drop = std::get<1>(ember::topk(prob.reshape({-1}), k));
    mask.view({-1}).index_put_({drop}, 0.0);
  }
  return mask;
}

L1Unstructured::L1Unstructured(Amount amount) : amount_(amount) {}

Tensor L1Unstructured::compute_mask(const Tensor& t, const Tensor& default_mask) const {
  const int64_t k = amount_.units_to_prune(t.numel());
  Tensor mask = default_mask.clone().contiguous();
  if (k != 0) {
    Tensor drop = std::get<1>(ember::topk(t.abs().reshape({-1}), k, -1, /*largest=*/false));
    mask.view({-1}).index_put_({drop}, 0.0);
  }
  return mask;
}

RandomStructured::RandomStructured(Amount amount, int64_t dim) : amount_(amount), dim_(dim) {}

Tensor RandomStructured::compute_mask(const Tensor& t, const Tensor& default_mask) const {
  const int64_t dim = checked_channel_dim("random_structured", t, dim_);
  const int64_t channels = t.size(dim);
  const int64_t k = amount_.units_to_prune(channels);
  if (k == 0) return default_mask;
  // The channels whose random draw is above the k-th smallest survive (Python's kthvalue).
  Tensor prob = ember::rand({channels});
  Tensor threshold = std::get<0>(ember::topk(prob, k, -1, /*largest=*/false)).max();
  Tensor keep = ember::nonzero(prob > threshold).flatten();
  return channel_mask(t, dim, keep, default_mask);
}

LnStructured::LnStructured(Amount amount, double n, int64_t dim)
    : amount_(amount), n_(n), dim_(dim) {}

Tensor LnStructured::compute_mask(const Tensor& t, const Tensor& default_mask) const {
  const int64_t dim = checked_channel_dim("ln_structured", t, dim_);
  const int64_t channels = t.size(dim);
  const int64_t k = amount_.units_to_prune(channels);
  if (k == 0) return default_mask;
  Tensor norm = ember::linalg::vector_norm(t, n_, all_dims_but(t.dim(), dim));
  Tensor keep = std::get<1>(ember::topk(norm, channels - k, -1, /*largest=*/true));
  return channel_mask(t, dim, keep, default_mask);
}

CustomFromMask::CustomFromMask(Tensor mask) : mask_(std::move(mask)) {
  EMBER_CHECK_VALUE(mask_.defined(), "custom_from_mask: the mask is undefined");
}

Tensor CustomFromMask::compute_mask(const Tensor&, const Tensor& default_mask) const {
  EMBER_CHECK_VALUE(default_mask.sizes().equals(mask_.sizes()),
                    "custom_from_mask: the mask has shape {}, but the tensor has shape {}",
                    mask_.sizes(), default_mask.sizes());
  return default_mask * mask_.to(default_mask.scalar_type());
}

PruningContainer::PruningContainer(PruningMethodPtr first) {
  set_tensor_name(first->tensor_name());
  add_pruning_method(std::move(first));
}

void PruningContainer::add_pruning_method(PruningMethodPtr method) {
  EMBER_CHECK_VALUE(method != nullptr, "PruningContainer: the method is null");
  EMBER_CHECK_VALUE(method->tensor_name() == tensor_name(),
                    "PruningContainer: can only add pruning methods acting on the parameter "
                    "named '{}'. Found '{}'",
                    tensor_name(), method->tensor_name());
  methods_.push_back(std::move(method));
}

Tensor PruningContainer::compute_mask(const Tensor& t, const Tensor& default_mask) const {
  EMBER_CHECK_VALUE(!methods_.empty(), "PruningContainer: no pruning method to apply");
  const BasePruningMethod& method = *methods_.back();
  Tensor new_mask = default_mask.to(t.scalar_type()).clone();
  switch (method.pruning_type()) {
    case PruningType::unstructured: {
      // Only the entries still unpruned compete (an amount is a share of them).
      Tensor alive = default_mask == 1;
      Tensor partial =
          method.compute_mask(t.masked_select(alive), default_mask.masked_select(alive));
      new_mask.index_put_({alive}, partial.to(new_mask.scalar_type()));
      break;
    }
    case PruningType::structured: {
      int64_t dim = method.dim();
      if (dim < 0) dim += t.dim();
      EMBER_CHECK_INDEX(dim >= 0 && dim < t.dim(),
                        "prune: index {} is out of bounds for tensor with dimensions {}",
                        method.dim(), t.dim());
      // Only the channels not yet entirely zero compete.
      Tensor keep = ember::nonzero(default_mask.sum(all_dims_but(t.dim(), dim)) != 0).flatten();
      Tensor partial =
          method.compute_mask(t.index_select(dim, keep), default_mask.index_select(dim, keep));
      put_along(new_mask, dim, keep, partial.to(new_mask.scalar_type()));
      break;
    }
    case PruningType::global:
      new_mask = method.compute_mask(t, default_mask).to(new_mask.scalar_type());
      break;
  }
  return new_mask;
}

// ---- Applying and removing ----

void apply(Module& module, const std::string& name, PruningMethodPtr method,
           const Tensor& importance_scores) {
  EMBER_CHECK_VALUE(method != nullptr, "prune: the pruning method of '{}' is null", name);
  method->set_tensor_name(name);
  std::shared_ptr<PruneEntry> existing = find_entry(module, name);
  Tensor slot = current_tensor(module, name, "prune");
  // Iterative pruning: the earlier method(s) and this one in a container (a new one, so a
  // failure below leaves the module's as it was).
  PruningMethodPtr combined = method;
  if (existing) {
    std::shared_ptr<PruningContainer> container;
    if (auto old = std::dynamic_pointer_cast<PruningContainer>(existing->method))
      container = std::make_shared<PruningContainer>(*old);
    else
      container = std::make_shared<PruningContainer>(existing->method);
    container->add_pruning_method(method);
    combined = container;
  }
  if (importance_scores.defined())
    EMBER_CHECK_VALUE(importance_scores.sizes().equals(slot.sizes()),
                      "prune: importance_scores should have the same shape as parameter '{}' of "
                      "'{}': {} vs {}",
                      name, module.name(), importance_scores.sizes(), slot.sizes());
  Tensor mask;
  {
    autograd::NoGradGuard no_grad;
    Tensor scores = (importance_scores.defined() ? importance_scores : slot).detach();
    Tensor default_mask = existing ? registered(module, name + "_mask", false).clone().contiguous()
                                   : ember::ones_like(slot.detach());
    mask = combined->compute_mask(scores, default_mask);
  }
  // Nothing has changed yet; from here on nothing throws for a valid module.
  if (existing) {
    autograd::NoGradGuard no_grad;
    registered(module, name + "_mask", false).copy_(mask);
    existing->method = combined;
  } else {
    // name_orig keeps the parameter's memory (and gradient); the slot becomes the pruned value.
    const bool requires_grad = slot.requires_grad();
    Tensor orig = slot.detach();
    autograd::make_slot_leaf(orig, slot.detach(), requires_grad);
    if (slot.grad().defined()) orig.mutable_grad() = slot.grad();
    ModuleRegistryAccess::parameters(module).erase(name);
    module.register_parameter(name + "_orig", orig, requires_grad);
    module.register_buffer(name + "_mask", mask.detach());
    auto entry = std::make_shared<PruneEntry>();
    entry->name = name;
    entry->method = combined;
    entry->slot = slot;
    // The hook owns the entry; the table only watches it.
    entry->hook = module.register_forward_pre_hook(
        [entry](Module& m, const std::vector<IValue>&) -> std::optional<std::vector<IValue>> {
          autograd::bind_slot(entry->slot, masked_value(m, entry->name));
          return std::nullopt;
        });
    add_entry(module, entry);
  }
  autograd::bind_slot(slot, masked_value(module, name));
}

void identity(Module& module, const std::string& name) {
  apply(module, name, std::make_shared<Identity>());
}

void random_unstructured(Module& module, const std::string& name, Amount amount) {
  apply(module, name, std::make_shared<RandomUnstructured>(amount));
}

void l1_unstructured(Module& module, const std::string& name, Amount amount,
                     const Tensor& importance_scores) {
  apply(module, name, std::make_shared<L1Unstructured>(amount), importance_scores);
}

void random_structured(Module& module, const std::string& name, Amount amount, int64_t dim) {
  apply(module, name, std::make_shared<RandomStructured>(amount, dim));
}

void ln_structured(Module& module, const std::string& name, Amount amount, double n, int64_t dim,
                   const Tensor& importance_scores) {
  apply(module, name, std::make_shared<LnStructured>(amount, n, dim), importance_scores);
}

void custom_from_mask(Module& module, const std::string& name, const Tensor& mask) {
  apply(module, name, std::make_shared<CustomFromMask>(mask));
}

void remove(Module& module, const std::string& name) {
  std::shared_ptr<PruneEntry> entry = find_entry(module, name);
  EMBER_CHECK_VALUE(entry != nullptr,
                    "prune.remove: parameter '{}' of module '{}' has to be pruned before pruning "
                    "can be removed",
                    name, module.name());
  Tensor value;
  {
    autograd::NoGradGuard no_grad;
    value = masked_value(module, name).detach();
  }
  Tensor orig = registered(module, name + "_orig", true);
  const bool requires_grad = orig.requires_grad();
  Tensor grad = orig.grad();
  entry->hook.remove();
  ModuleRegistryAccess::parameters(module).erase(name + "_orig");
  ModuleRegistryAccess::buffers(module).erase(name + "_mask");
  // The member becomes the parameter again, holding the pruned values (Python's orig.data = ...).
  autograd::make_slot_leaf(entry->slot, value, false);
  if (grad.defined()) entry->slot.mutable_grad() = grad;
  module.register_parameter(name, entry->slot, requires_grad);
  entry.reset();
  entries_of(module);  // drops the expired entry
}

bool is_pruned(const Module& module) {
  if (!entries_of(module).empty()) return true;
  for (const auto& m : module.modules(/*include_self=*/false))
    if (!entries_of(*m).empty()) return true;
  return false;
}

PruningMethodPtr pruning_method(const Module& module, const std::string& name) {
  auto e = find_entry(module, name);
  return e ? e->method : nullptr;
}

// ---- global_unstructured ----

ParameterRefs detail::raw_refs(const SharedParameterRefs& parameters) {
  ParameterRefs refs;
  refs.reserve(parameters.size());
  for (const auto& [m, name] : parameters) refs.emplace_back(m.get(), name);
  return refs;
}

void detail::global_unstructured(const ParameterRefs& parameters, PruningMethodPtr method,
                                 const ImportanceScores& importance_scores) {
  EMBER_CHECK_TYPE(method->pruning_type() == PruningType::unstructured,
                   "global_unstructured: only \"unstructured\" pruning methods are supported "
                   "for the `pruning_method`");
  EMBER_CHECK_VALUE(!parameters.empty(), "global_unstructured: no parameters to prune");
  std::vector<Tensor> scores, masks, tensors;
  {
    autograd::NoGradGuard no_grad;
    for (const auto& [m, name] : parameters) {
      EMBER_CHECK_VALUE(m != nullptr, "global_unstructured: a null module for '{}'", name);
      Tensor t = current_tensor(*m, name, "global_unstructured").detach();
      tensors.push_back(t);
      auto it = importance_scores.find({m, name});
      Tensor s = it != importance_scores.end() ? it->second : t;
      EMBER_CHECK_VALUE(s.numel() == t.numel(),
                        "global_unstructured: importance scores of '{}' have {} entries, the "
                        "tensor has {}",
                        name, s.numel(), t.numel());
      scores.push_back(s.reshape({-1}));
      Tensor mask =
          find_entry(*m, name) ? registered(*m, name + "_mask", false) : ember::ones_like(t);
      masks.push_back(mask.reshape({-1}));
    }
  }
  method->set_tensor_name("temp");
  PruningContainer container;
  container.set_tensor_name("temp");
  container.add_pruning_method(method);
  Tensor final_mask;
  {
    autograd::NoGradGuard no_grad;
    final_mask = container.compute_mask(ember::cat(scores), ember::cat(masks));
  }
  int64_t offset = 0;
  for (size_t i = 0; i < parameters.size(); ++i) {
    const int64_t n = tensors[i].numel();
    custom_from_mask(*parameters[i].first, parameters[i].second,
                     final_mask.narrow(0, offset, n).view(tensors[i].sizes()));
    offset += n;
  }
}

}  // namespace ember::nn::utils::prune
