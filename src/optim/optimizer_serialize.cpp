// Optimizer::save / load (include/ember/optim/optimizer.h), written once for every optimizer:
// the base walks the param groups and the state, each optimizer's Options and ParamState
// serialize their own fields (src/optim/serialize_fields.h).
//
// Layout:  param_groups/<g>/options/<option>    every option of group g
//          param_groups/<g>/param_count         how many parameters group g holds
//          state/<i>/<field>                    the state of parameter i, i counting over all
//                                               groups' params in order (stable between
//                                               processes, unlike the TensorImpl addresses)
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "ember/optim/optimizer.h"
#include "ember/serialize/archive.h"
#include "src/core/check.h"
#include "src/optim/serialize_fields.h"

namespace ember::optim {

void OptimizerParamState::serialize(serialize::OutputArchive&) const {
  EMBER_FAIL(
      "OptimizerParamState::serialize: not overridden by this state class. Hint: override both "
      "serialize() overloads in your subclass of ember::optim::OptimizerParamState");
}
void OptimizerParamState::serialize(serialize::InputArchive&) {
  EMBER_FAIL(
      "OptimizerParamState::serialize: not overridden by this state class. Hint: override both "
      "serialize() overloads in your subclass of ember::optim::OptimizerParamState");
}
void OptimizerOptions::serialize(serialize::OutputArchive&) const {
  EMBER_FAIL(
      "OptimizerOptions::serialize: not overridden by this options class. Hint: override both "
      "serialize() overloads in your subclass of ember::optim::OptimizerOptions");
}
void OptimizerOptions::serialize(serialize::InputArchive&) {
  EMBER_FAIL(
      "OptimizerOptions::serialize: not overridden by this options class. Hint: override both "
      "serialize() overloads in your subclass of ember::optim::OptimizerOptions");
}

std::unique_ptr<OptimizerParamState> Optimizer::make_param_state() const {
  EMBER_FAIL(
      "Optimizer::load: this optimizer does not say how to make its state. Hint: override "
      "make_param_state() in your subclass of ember::optim::Optimizer");
}

void Optimizer::check_state_archive(serialize::InputArchive& state, const Tensor& param,
                                    const std::string& where) const {
  for (const std::string& key : state.keys()) {
    IValue v;
    if (!state.try_read(key, v)) continue;  // a nested archive: the state's own business
    std::vector<Tensor> tensors;
    if (v.isTensor()) tensors.push_back(v.toTensor());
    if (v.isTensorList()) tensors = v.toTensorList();
    for (const Tensor& t : tensors)
      EMBER_CHECK(t.defined() && t.sizes().equals(param.sizes()),
                  "Optimizer::load: {}/{} has shape {}, expected the parameter's shape {}. Hint: "
                  "load into an optimizer over the same parameters",
                  where, key, t.defined() ? t.sizes() : IntArrayRef{}, param.sizes());
  }
}

namespace {

// A state tensor as PyTorch's load_state_dict casts it: floating state takes its parameter's dtype
// and device, other state only the device. So a checkpoint written on another device, or for a
// model since converted with to(kDouble), loads into this optimizer's parameters.
Tensor optim_state_cast(const Tensor& t, const Tensor& param) {
  if (!t.defined()) return t;
  if (t.is_floating_point() && param.is_floating_point())
    return t.to(param.device(), param.scalar_type());
  return t.to(param.device());
}

// A copy of a parameter's state archive with every tensor cast as above.
std::shared_ptr<serialize::ArchiveNode> optim_state_cast_node(const serialize::ArchiveNode& node,
                                                              const Tensor& param) {
  auto out = std::make_shared<serialize::ArchiveNode>();
  for (const serialize::ArchiveNode::Entry& e : node.entries) {
    serialize::ArchiveNode::Entry c = e;
    if (e.nested) {
      c.nested = optim_state_cast_node(*e.nested, param);
    } else if (e.value.isTensor()) {
      c.value = IValue(optim_state_cast(e.value.toTensor(), param));
    } else if (e.value.isTensorList()) {
      std::vector<Tensor> list = e.value.toTensorList();
      for (Tensor& t : list) t = optim_state_cast(t, param);
      c.value = IValue(list);
    }
    out->entries.push_back(std::move(c));
  }
  return out;
}

// Runs fn; an Error it throws is rethrown with `where` (the archive path) in front.
template <class Fn>
void optim_load_at(const std::string& where, Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    const std::string msg = e.what();
    // Messages from this file already name their path.
    if (msg.rfind("Optimizer::load: " + where, 0) == 0) throw;
    EMBER_FAIL("Optimizer::load: {}: {}", where, msg);
  }
}

}  // namespace

void Optimizer::save(serialize::OutputArchive& archive) const {
  serialize::OutputArchive groups;
  std::vector<const Tensor*> flat;
  for (size_t g = 0; g < param_groups_.size(); ++g) {
    const OptimizerParamGroup& group = param_groups_[g];
    serialize::OutputArchive group_archive;
    serialize::OutputArchive options;
    group.options().serialize(options);
    group_archive.write("options", options);
    group_archive.write("param_count", IValue(static_cast<int64_t>(group.params().size())));
    groups.write(std::to_string(g), group_archive);
    for (const Tensor& p : group.params()) flat.push_back(&p);
  }
  serialize::OutputArchive states;
  for (size_t i = 0; i < flat.size(); ++i) {
    auto it = state_.find(flat[i]->unsafeGetTensorImpl());
    if (it == state_.end()) continue;
    serialize::OutputArchive one;
    it->second->serialize(one);
    states.write(std::to_string(i), one);
  }
  archive.write("param_groups", groups);
  archive.write("state", states);
}

void Optimizer::load(serialize::InputArchive& archive) {
  // Everything is built aside first; the optimizer changes only once all of it has been read.
  serialize::InputArchive groups;
  optim_load_at("param_groups", [&] { archive.read("param_groups", groups); });
  const std::vector<std::string> group_keys = groups.keys();
  EMBER_CHECK(group_keys.size() == param_groups_.size(),
              "Optimizer::load: param_groups holds {} groups, expected {} (this optimizer's). "
              "Hint: load into an optimizer built over the same param groups",
              group_keys.size(), param_groups_.size());
  std::vector<std::unique_ptr<OptimizerOptions>> options(param_groups_.size());
  std::vector<const Tensor*> flat;
  for (size_t g = 0; g < param_groups_.size(); ++g) {
    const std::string where = "param_groups/" + std::to_string(g);
    const OptimizerParamGroup& group = param_groups_[g];
    optim_load_at(where, [&] {
      serialize::InputArchive group_archive;
      groups.read(std::to_string(g), group_archive);
      IValue count;
      group_archive.read("param_count", count);
      EMBER_CHECK(count.isInt() && count.toInt() == static_cast<int64_t>(group.params().size()),
                  "Optimizer::load: {}/param_count is {}, expected {} (the group's parameters). "
                  "Hint: load into an optimizer built over the same parameters",
                  where, count.isInt() ? std::to_string(count.toInt()) : count.tagKind(),
                  group.params().size());
      serialize::InputArchive options_archive;
      group_archive.read("options", options_archive);
      // A copy of the group's current options gives the right Options class to read into.
      options[g] = group.options().clone();
      optim_load_at(where + "/options", [&] { options[g]->serialize(options_archive); });
    });
    for (const Tensor& p : group.params()) flat.push_back(&p);
  }

  serialize::InputArchive states;
  optim_load_at("state", [&] { archive.read("state", states); });
  StateMap state;
  for (const std::string& key : states.keys()) {
    const std::string where = "state/" + key;
    size_t index = 0;
    size_t used = 0;
    try {
      index = std::stoul(key, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    EMBER_CHECK(used == key.size() && !key.empty() && index < flat.size(),
                "Optimizer::load: {} is not a parameter index: expected 0 to {} (the optimizer "
                "has {} parameters)",
                where, flat.size() == 0 ? 0 : flat.size() - 1, flat.size());
    const Tensor& param = *flat[index];
    serialize::InputArchive one;
    optim_load_at(where, [&] {
      states.read(key, one);
      check_state_archive(one, param, where);
      serialize::InputArchive cast(optim_state_cast_node(one.root(), param));
      std::unique_ptr<OptimizerParamState> fresh = make_param_state();
      fresh->serialize(cast);
      state[param.unsafeGetTensorImpl()] = std::move(fresh);
    });
  }

  for (size_t g = 0; g < param_groups_.size(); ++g)
    param_groups_[g].set_options(std::move(options[g]));
  state_ = std::move(state);
}

}  // namespace ember::optim
