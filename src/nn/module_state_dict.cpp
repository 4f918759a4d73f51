// Module::state_dict and load_state_dict, with Python's key names, hooks and strict rules, plus
// one guarantee Python lacks: a load that fails leaves every tensor of the module as it was.
#include <sstream>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/module.h"
#include "src/core/check.h"
#include "src/nn/hook_lists.h"

namespace ember::nn {
namespace {

std::string shape_of(const Tensor& t) {
  std::ostringstream s;
  s << "[";
  for (int64_t d = 0; d < t.dim(); ++d) s << (d ? ", " : "") << t.size(d);
  s << "]";
  return s.str();
}

std::string quoted_list(const std::vector<std::string>& keys) {
  std::string out;
  for (size_t i = 0; i < keys.size(); ++i) out += (i ? ", \"" : "\"") + keys[i] + "\"";
  return out;
}

// What matching a state dict against a module tree found.
struct LoadPlan {
  std::vector<std::pair<Tensor, Tensor>> copies;  // (module tensor, checkpoint tensor)
  IncompatibleKeys keys;
  std::vector<std::string> errors;
  std::vector<Module*> with_post_hooks;  // in the order Python runs them (children first)
};

}  // namespace

StateDict Module::state_dict(const std::string& prefix, bool keep_vars) const {
  StateDict out("State dict key");
  auto visit = [&](auto& self, const Module& m, const std::string& pre) -> void {
    if (m.hooks_)
      for (auto& e : m.hooks_->state_dict_pre.entries)
        e.second(const_cast<Module&>(m), pre, keep_vars);
    for (const auto& p : m.parameters_)
      if (p.value().defined())
        out.insert_or_assign(pre + p.key(), keep_vars ? p.value() : p.value().detach());
    for (const auto& b : m.buffers_)
      if (b.value().defined() && m.is_persistent_buffer(b.key()))
        out.insert_or_assign(pre + b.key(), keep_vars ? b.value() : b.value().detach());
    for (const auto& child : m.children_) self(self, *child.value(), pre + child.key() + ".");
    if (m.hooks_)
      for (auto& e : m.hooks_->state_dict_post.entries) e.second(const_cast<Module&>(m), out, pre);
  };
  visit(visit, *this, prefix);
  return out;
}

IncompatibleKeys Module::load_state_dict(const StateDict& state_dict, bool strict) {
  StateDict sd = state_dict;  // pre-hooks may edit it
  LoadPlan plan;
  auto match = [&](auto& self, Module& m, const std::string& pre) -> void {
    if (m.hooks_)
      for (auto& e : m.hooks_->load_state_dict_pre.entries)
        e.second(m, sd, pre, strict, plan.keys.missing_keys, plan.keys.unexpected_keys,
                 plan.errors);
    auto expect = [&](const std::string& name, const Tensor& mine, const char* kind) {
      const std::string key = pre + name;
      const Tensor* theirs = sd.find(key);
      if (!theirs) {
        plan.keys.missing_keys.push_back(key);
        return;
      }
      if (!theirs->defined()) {
        plan.errors.push_back("undefined tensor for " + key + " in the checkpoint");
      } else if (!theirs->sizes().equals(mine.sizes())) {
        plan.errors.push_back("size mismatch for " + key + ": copying a " + kind + " with shape " +
                              shape_of(*theirs) +
                              " from checkpoint, the shape in current model is " + shape_of(mine) +
                              ".");
      } else if (theirs->scalar_type() != mine.scalar_type()) {
        plan.errors.push_back("dtype mismatch for " + key + ": copying a " + kind + " of dtype " +
                              to_string(theirs->scalar_type()) +
                              " from checkpoint, the dtype in current model is " +
                              to_string(mine.scalar_type()) + ".");
      } else {
        plan.copies.emplace_back(mine, *theirs);
      }
    };
    for (const auto& p : m.parameters_)
      if (p.value().defined()) expect(p.key(), p.value(), "param");
    for (const auto& b : m.buffers_)
      if (b.value().defined() && m.is_persistent_buffer(b.key()))
        expect(b.key(), b.value(), "buffer");
    for (const auto& item : sd) {
      const std::string& key = item.key();
      if (key.compare(0, pre.size(), pre) != 0) continue;
      std::string rest = key.substr(pre.size());
      std::string first = rest.substr(0, rest.find('.'));
      const bool local =
          (m.parameters_.find(first) && m.parameters_[first].defined()) ||
          (m.buffers_.find(first) && m.buffers_[first].defined() && m.is_persistent_buffer(first));
      if (!m.children_.contains(first) && !local) plan.keys.unexpected_keys.push_back(key);
    }
    for (const auto& child : m.children_) self(self, *child.value(), pre + child.key() + ".");
    if (m.hooks_ && !m.hooks_->load_state_dict_post.empty()) plan.with_post_hooks.push_back(&m);
  };
  match(match, *this, "");

  auto fail = [&](const IncompatibleKeys& keys) {
    std::vector<std::string> all;
    if (strict && !keys.missing_keys.empty())
      all.push_back("Missing key(s) in state_dict: " + quoted_list(keys.missing_keys) + ".");
    if (strict && !keys.unexpected_keys.empty())
      all.push_back("Unexpected key(s) in state_dict: " + quoted_list(keys.unexpected_keys) + ".");
    all.insert(all.end(), plan.errors.begin(), plan.errors.end());
    if (all.empty()) return false;
    std::string msg = "load_state_dict: Error(s) in loading state_dict for " + name() + ":";
    for (const std::string& e : all) msg += "\n\t" + e;
    msg += "\nNothing was loaded.";
    throw Error(msg);
  };
  // Problems known before any copy: fail with the module untouched. Post-hooks may still forgive
  // missing/unexpected keys, so with post-hooks that check waits until after they ran.
  if (!plan.errors.empty() || plan.with_post_hooks.empty()) fail(plan.keys);

  autograd::NoGradGuard no_grad;
  std::vector<Tensor> snapshot;
  if (!plan.with_post_hooks.empty())
    for (auto& c : plan.copies) snapshot.push_back(c.first.clone());
  for (auto& c : plan.copies) c.first.copy_(c.second);
  if (plan.with_post_hooks.empty()) return plan.keys;

  for (Module* m : plan.with_post_hooks)
    for (auto& e : std::vector(m->hooks_->load_state_dict_post.entries)) e.second(*m, plan.keys);
  try {
    fail(plan.keys);
  } catch (...) {
    for (size_t i = 0; i < plan.copies.size(); ++i) plan.copies[i].first.copy_(snapshot[i]);
    throw;
  }
  return plan.keys;
}

}  // namespace ember::nn
