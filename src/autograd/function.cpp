// The library side of custom functions (include/ember/autograd/function.h).
#include "ember/autograd/function.h"

#include <cxxabi.h>

#include <cstdlib>

#include "ember/ops/factory.h"
#include "src/autograd/autograd_meta.h"
#include "src/autograd/record.h"
#include "src/core/check.h"
#include "src/ops/op_common.h"

namespace ember::autograd {

namespace {
bool contains(const std::unordered_set<const TensorImpl*>& set, const Tensor& t) {
  return t.defined() && set.count(t.unsafeGetTensorImpl());
}

// A view of all of `t` without history (LibTorch's view_as for an input that forward returns
// unchanged): the caller's tensor keeps its own grad_fn, and an in-place change of the output is
// seen, and checked, as one of a view of the input.
Tensor view_of(const Tensor& t) { return make_view(t, t.sizes(), t.strides(), t.storage_offset()); }
}  // namespace

variable_list AutogradContext::get_saved_variables() const {
  variable_list out;
  out.reserve(saved_.size());
  for (const SavedVariable& s : saved_) out.push_back(s.unpack());
  return out;
}

void AutogradContext::mark_dirty(const variable_list& inputs) {
  for (const Tensor& t : inputs)
    if (t.defined()) dirty_.insert(t.unsafeGetTensorImpl());
}

void AutogradContext::mark_non_differentiable(const variable_list& outputs) {
  for (const Tensor& t : outputs)
    if (t.defined()) non_differentiable_.insert(t.unsafeGetTensorImpl());
}

bool AutogradContext::needs_input_grad(size_t index) const {
  EMBER_CHECK_INDEX(index < needs_input_grad_.size(),
                    "needs_input_grad: index {} is out of range for a function with {} tensor "
                    "inputs. Hint: the index counts forward's tensor arguments only",
                    index, needs_input_grad_.size());
  return needs_input_grad_[index];
}

bool FunctionImpl::prepare(Node& node, AutogradContext& ctx, const variable_list& inputs) {
  bool any = false;
  for (const Tensor& t : inputs) any = any || (t.defined() && t.requires_grad());
  const bool executable = GradMode::is_enabled() && any;
  ctx.needs_input_grad_.assign(inputs.size(), false);
  if (!executable) return false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Edge e = gradient_edge(inputs[i]);
    ctx.needs_input_grad_[i] = e.is_valid();
    node.add_next_edge(std::move(e));
  }
  return true;
}

void FunctionImpl::wrap_outputs(const std::shared_ptr<Node>& node, AutogradContext& ctx,
                                const variable_list& inputs, variable_list& outputs,
                                bool executable) {
  const std::string name = node->name();
  for (const Tensor& in : inputs) {
    if (!contains(ctx.dirty_, in)) continue;
    bool returned = false;
    for (const Tensor& o : outputs) returned = returned || o.is_same(in);
    EMBER_CHECK(returned,
                "{}: some elements marked as dirty weren't returned as outputs. Hint: return "
                "every tensor you pass to mark_dirty",
                name);
  }
  for (size_t j = 0; j < outputs.size(); ++j) {
    Tensor& o = outputs[j];
    bool is_input = false;
    for (const Tensor& in : inputs) is_input = is_input || (in.defined() && o.is_same(in));
    const bool dirty = contains(ctx.dirty_, o);
    if (!executable) {
      if (is_input && !dirty) o = o.variable_data();  // a fresh tensor, as LibTorch returns
      continue;
    }
    if (!o.defined()) {
      node->add_input_metadata(zeros({}));  // keeps output numbering; no gradient flows here
      continue;
    }
    if (contains(ctx.non_differentiable_, o) || !o.is_floating_point()) {
      if (is_input && !dirty) o = o.variable_data();
      node->add_input_metadata(o);
      continue;
    }
    if (dirty) {
      InplaceRecording::check_inplace(name.c_str(), o);
      EMBER_CHECK(!o.is_view() || outputs.size() == 1,
                  "{}: a view modified in place (mark_dirty) must be the function's only output",
                  name);
      if (o.is_view()) {
        rebase_history(o, node);
      } else {
        node->add_input_metadata(o);
        set_history(o, node, static_cast<uint32_t>(j));
      }
      continue;
    }
    if (is_input) o = view_of(o);  // an input returned as is: a view of it, with this history
    node->add_input_metadata(o);
    set_history(o, node, static_cast<uint32_t>(j));
  }
  for (const Tensor& t : ctx.to_save_) {
    bool is_output = false;
    for (const Tensor& o : outputs) is_output = is_output || (t.defined() && o.is_same(t));
    ctx.saved_.emplace_back(t, is_output && executable);
  }
  ctx.to_save_.clear();
}

variable_list FunctionImpl::materialize(const Node& node, const AutogradContext& ctx,
                                        ArrayRef<Tensor> grads) {
  variable_list out(grads.begin(), grads.end());
  if (!ctx.materialize_grads_) return out;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i].defined()) continue;
    const InputMetadata& m = node.input_metadata(i);
    out[i] = zeros(m.shape, TensorOptions().dtype(m.dtype).device(m.device));
  }
  return out;
}

void FunctionImpl::collect_grads(const std::string& name, const std::vector<bool>& is_input,
                                 variable_list&& user_grads, variable_list& out) {
  EMBER_CHECK(user_grads.size() >= is_input.size(),
              "{}: function backward returned an incorrect number of gradients (expected {}, got "
              "{}). Hint: return one gradient per forward argument, Tensor() for non-tensors",
              name, is_input.size(), user_grads.size());
  for (size_t i = is_input.size(); i < user_grads.size(); ++i)
    EMBER_CHECK(!user_grads[i].defined(),
                "{}: function backward returned an incorrect number of gradients (expected {}, "
                "got {})",
                name, is_input.size(), user_grads.size());
  size_t k = 0;
  for (size_t i = 0; i < is_input.size(); ++i) {
    if (!is_input[i]) {
      EMBER_CHECK(!user_grads[i].defined(),
                  "{}: function backward returned a defined gradient at position {}, but the "
                  "corresponding forward argument is not a tensor input. Hint: return Tensor() "
                  "there",
                  name, i + 1);
      continue;
    }
    if (k < out.size()) out[k] = std::move(user_grads[i]);
    ++k;
  }
}

void FunctionImpl::release(AutogradContext& ctx) {
  for (SavedVariable& s : ctx.saved_) s.reset();
  ctx.has_freed_ = true;
}

std::string FunctionImpl::demangle(const char* name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = (status == 0 && d) ? d : name;
  std::free(d);
  return out;
}

}  // namespace ember::autograd
