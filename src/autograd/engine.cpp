// The backward engine. It runs on the calling thread and keeps its per-pass bookkeeping inside
// the nodes (dependency count, input buffer) and in reused scratch vectors, so a pass over a chain
// of N nodes allocates nothing per node beyond the gradient tensors the formulas create.
#include <algorithm>
#include <atomic>
#include <vector>

#include "ember/autograd/anomaly_mode.h"
#include "ember/autograd/autograd.h"
#include "ember/autograd/grad_mode.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/reduction.h"
#include "src/autograd/autograd_meta.h"
#include "src/autograd/engine_state.h"
#include "src/autograd/grad_mode_state.h"
#include "src/autograd/grad_utils.h"
#include "src/autograd/node_internal.h"
#include "src/core/check.h"

namespace ember::autograd {

namespace {
EMBER_FAST_TLS Node* tls_current_node = nullptr;
std::atomic<uint64_t> g_task_id{1};
std::atomic<bool> g_anomaly{false};

// A gradient the caller asked for (autograd::grad) or a non-leaf backward(inputs=) target.
struct Capture {
  Node* node;
  uint32_t input_nr;
  size_t slot;
};

// Vectors reused across passes on a thread (a stack of them, for reentrant backward).
struct Scratch {
  std::vector<Node*> seen;
  std::vector<std::pair<Node*, uint32_t>> dfs;  // node, next edge to visit
  std::vector<Node*> ready;                     // a max-heap on sequence_nr
  variable_list out;
  InlineVector<Tensor, 1> grads;
};
thread_local std::vector<std::unique_ptr<Scratch>> tls_scratch_pool;

class ScratchLease {
 public:
  ScratchLease() {
    if (tls_scratch_pool.empty()) {
      s_ = std::make_unique<Scratch>();
    } else {
      s_ = std::move(tls_scratch_pool.back());
      tls_scratch_pool.pop_back();
    }
  }
  ~ScratchLease() {
    s_->seen.clear();
    s_->dfs.clear();
    s_->ready.clear();
    s_->out.clear();
    tls_scratch_pool.push_back(std::move(s_));
  }
  Scratch& operator*() { return *s_; }

 private:
  std::unique_ptr<Scratch> s_;
};

bool later_first(const Node* a, const Node* b) { return a->sequence_nr() < b->sequence_nr(); }

// Checks a produced gradient against what the receiving node expects, and sum-reduces
// (broadcast inputs) or casts (promoted inputs) it.
Tensor validate(Tensor g, const InputMetadata& m, const Node& producer, size_t index) {
  if (EMBER_UNLIKELY(g.sizes() != IntArrayRef(m.shape))) {
    EMBER_CHECK(is_expandable_to(m.shape, g.sizes()),
                "Function {} returned an invalid gradient at index {}: got {} but expected shape "
                "compatible with {}",
                producer.name(), index, g.sizes(), m.shape);
    g = sum_to(g, m.shape);
  }
  if (EMBER_UNLIKELY(g.dtype() != m.dtype)) g = g.to(m.dtype);
  EMBER_CHECK(g.device() == m.device,
              "Function {} returned an invalid gradient at index {}: expected device {} but got {}",
              producer.name(), index, m.device, g.device());
  return g;
}

void accumulate(Tensor& slot, Tensor g, bool create_graph) {
  if (!slot.defined()) {
    slot = std::move(g);
  } else if (!create_graph && slot.use_count() == 1 && !slot.is_view() &&
             slot.sizes() == g.sizes() && slot.dtype() == g.dtype() && slot.is_contiguous()) {
    slot.add_(g);  // nobody else holds this buffer: add in place, no new allocation
  } else {
    slot = slot + g;
  }
}

void check_nan(const Node& node, const variable_list& out) {
  for (size_t i = 0; i < out.size(); ++i) {
    if (!out[i].defined() || !out[i].is_floating_point()) continue;
    EMBER_CHECK(!out[i].isnan().any().item<bool>(),
                "Function '{}' returned nan values in its {}th output. Hint: the forward op of "
                "this node produced values whose gradient is undefined (e.g. sqrt or log at 0)",
                node.name(), i);
  }
}

// Runs tensor hooks and retain_grad captures registered on the node's inputs, then node
// pre-hooks.
void run_pre_hooks(Node& node, InlineVector<Tensor, 1>& grads) {
  Node::Hooks* h = NodeAccess::hooks_if_any(node);
  if (!h) return;
  for (auto& hook : h->tensor_pre_hooks) {
    Tensor& g = grads[hook.output_nr];
    if (!g.defined()) continue;
    Tensor r = hook.fn(g);
    if (!r.defined()) continue;
    // As LibTorch: a hook may replace the gradient's values, not its shape, dtype or device.
    EMBER_CHECK(r.sizes() == g.sizes() && r.dtype() == g.dtype() && r.device() == g.device(),
                "backward: a tensor hook returned a gradient of sizes {}, dtype {} on {} for a "
                "gradient of sizes {}, dtype {} on {}; a hook must not change the size, type or "
                "device of the gradient",
                r.sizes(), r.dtype(), r.device(), g.sizes(), g.dtype(), g.device());
    g = std::move(r);
  }
  for (auto& [nr, slot] : h->retained) {
    const Tensor& g = grads[nr];
    if (!g.defined()) continue;
    *slot = slot->defined() ? *slot + g : (GradMode::is_enabled() ? g : g.detach().clone());
  }
  if (!h->pre_hooks.empty()) {
    variable_list gl(grads.begin(), grads.end());
    for (auto& [id, hook] : h->pre_hooks)
      if (auto r = hook(gl)) gl = std::move(*r);
    for (size_t i = 0; i < grads.size() && i < gl.size(); ++i) grads[i] = gl[i];
  }
}

void run_post_hooks(Node& node, variable_list& out, const InlineVector<Tensor, 1>& grads) {
  Node::Hooks* h = NodeAccess::hooks_if_any(node);
  if (!h || h->post_hooks.empty()) return;
  variable_list in(grads.begin(), grads.end());
  for (auto& [id, hook] : h->post_hooks)
    if (auto r = hook(out, in)) out = std::move(*r);
}

struct PassOptions {
  bool keep_graph = false;
  bool create_graph = false;
  bool restrict_to_targets = false;  // only run nodes that lead to a capture or target leaf
  // Treat captures as the graph's boundary: their nodes are neither visited nor run, and the
  // gradient on an edge into one is captured as it is sent. A pass nested in another's backward
  // (activation checkpointing) must not touch nodes the outer pass is still counting on.
  bool stop_at_captures = false;
};

// Runs one backward pass from `roots` (with their gradients); fills `captured`.
void execute(const std::vector<Edge>& roots, variable_list& root_grads,
             const std::vector<Capture>& captures, const std::vector<Node*>& target_leaves,
             variable_list& captured, const PassOptions& opt) {
  ScratchLease lease;
  Scratch& s = *lease;
  const uint64_t task = g_task_id.fetch_add(1, std::memory_order_relaxed);

  // 1. Discover the graph (iterative post-order DFS) and count each node's dependencies.
  auto visit = [&](Node* n) {
    if (NodeAccess::task_id(*n) == task) return false;
    NodeAccess::task_id(*n) = task;
    NodeAccess::dependencies(*n) = 0;
    NodeAccess::needed(*n) = !opt.restrict_to_targets;
    s.seen.push_back(n);
    return true;
  };
  auto is_capture_node = [&](const Node* n) {
    for (const Capture& cap : captures)
      if (cap.node == n) return true;
    return false;
  };
  // The capture an edge leads into when captures bound the pass, or null.
  auto boundary_capture = [&](const Edge& e) -> const Capture* {
    if (!opt.stop_at_captures) return nullptr;
    for (const Capture& cap : captures)
      if (cap.node == e.function.get() && cap.input_nr == e.input_nr) return &cap;
    return nullptr;
  };
  auto capture_into = [&](const Capture& cap, const Tensor& g) {
    if (!g.defined()) return;
    Tensor& slot = captured[cap.slot];
    slot = slot.defined() ? slot + g : g;
  };
  for (const Edge& root : roots) {
    if (!root.is_valid()) continue;
    if (opt.stop_at_captures && is_capture_node(root.function.get())) continue;
    NodeAccess::dependencies(*root.function);  // keep order below
    if (visit(root.function.get())) s.dfs.emplace_back(root.function.get(), 0);
    while (!s.dfs.empty()) {
      auto& [n, next] = s.dfs.back();
      const auto& edges = n->next_edges();
      if (next < edges.size()) {
        Node* child = edges[next++].function.get();
        if (!child || (opt.stop_at_captures && is_capture_node(child))) continue;
        bool fresh = visit(child);
        ++NodeAccess::dependencies(*child);
        if (fresh) s.dfs.emplace_back(child, 0);
        continue;
      }
      if (opt.restrict_to_targets) {
        // Post-order: every child is final, so "leads to a target" is known.
        bool needed =
            std::find(target_leaves.begin(), target_leaves.end(), n) != target_leaves.end();
        for (const Edge& e : edges) {
          if (!e.is_valid()) continue;
          Node* c = e.function.get();
          if (NodeAccess::needed(*c)) needed = true;
          for (const Capture& cap : captures)
            if (cap.node == c) needed = true;
        }
        NodeAccess::needed(*n) = needed;
      }
      s.dfs.pop_back();
    }
  }
  for (const Edge& root : roots)
    if (root.is_valid() && !(opt.stop_at_captures && is_capture_node(root.function.get())))
      ++NodeAccess::dependencies(*root.function);

  struct Cleanup {  // buffers must not leak into the next pass, even when a formula throws
    Scratch& s;
    ~Cleanup() {
      for (Node* n : s.seen) NodeAccess::input_buffer(*n).reset_values();
    }
  } cleanup{s};

  AutoGradMode grad_mode(opt.create_graph);
  auto deliver = [&](const Edge& e, Tensor g) {
    Node* n = e.function.get();
    if (g.defined())
      accumulate(NodeAccess::input_buffer(*n)[e.input_nr], std::move(g), opt.create_graph);
    if (--NodeAccess::dependencies(*n) == 0) {
      s.ready.push_back(n);
      std::push_heap(s.ready.begin(), s.ready.end(), later_first);
    }
  };
  for (size_t i = 0; i < roots.size(); ++i) {
    if (!roots[i].is_valid()) continue;
    if (opt.stop_at_captures && is_capture_node(roots[i].function.get())) {
      if (const Capture* cap = boundary_capture(roots[i])) capture_into(*cap, root_grads[i]);
      continue;
    }
    deliver(roots[i], std::move(root_grads[i]));
  }

  const bool anomaly = g_anomaly.load(std::memory_order_relaxed);
  // 2. Run nodes as they become ready, latest-created first.
  while (!s.ready.empty()) {
    std::pop_heap(s.ready.begin(), s.ready.end(), later_first);
    Node* node = s.ready.back();
    s.ready.pop_back();
    InlineVector<Tensor, 1>& grads = s.grads;
    grads.resize(node->num_inputs());
    auto& buffer = NodeAccess::input_buffer(*node);
    for (size_t i = 0; i < grads.size(); ++i) grads[i] = std::move(buffer[i]);

    run_pre_hooks(*node, grads);
    for (const Capture& cap : captures) {
      if (cap.node != node || !grads[cap.input_nr].defined()) continue;
      Tensor& slot = captured[cap.slot];
      slot = slot.defined() ? slot + grads[cap.input_nr] : grads[cap.input_nr];
    }

    variable_list& out = s.out;
    out.clear();
    out.resize(node->num_outputs());
    bool any = false;
    for (const Tensor& g : grads) any = any || g.defined();
    if (NodeAccess::needed(*node) && any) {
      {
        CurrentNodeGuard running(node);
        node->apply(ArrayRef<Tensor>(grads.data(), grads.size()), out);
      }
      if (!opt.keep_graph) node->release_variables();
      if (EMBER_UNLIKELY(anomaly)) check_nan(*node, out);
      run_post_hooks(*node, out, grads);
    }
    grads.reset_values();

    const auto& edges = node->next_edges();
    for (size_t i = 0; i < edges.size(); ++i) {
      const Edge& e = edges[i];
      if (!e.is_valid()) continue;
      Tensor g = i < out.size() ? std::move(out[i]) : Tensor();
      if (g.defined()) g = validate(std::move(g), e.function->input_metadata(e.input_nr), *node, i);
      if (opt.stop_at_captures && is_capture_node(e.function.get())) {
        if (const Capture* cap = boundary_capture(e)) capture_into(*cap, g);
        continue;
      }
      deliver(e, std::move(g));
    }
  }
}

// The root gradients: the given ones, or ones for one-element outputs.
variable_list make_root_grads(const variable_list& outputs, const variable_list& given,
                              const char* api) {
  EMBER_CHECK(given.empty() || given.size() == outputs.size(),
              "{}: got {} gradients for {} tensors", api, given.size(), outputs.size());
  variable_list grads(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    EMBER_CHECK(out.defined(), "{}: tensor {} is undefined", api, i);
    EMBER_CHECK(out.requires_grad(),
                "{}: element {} of tensors does not require grad and does not have a grad_fn", api,
                i);
    if (!given.empty() && given[i].defined()) {
      EMBER_CHECK(given[i].sizes() == out.sizes(),
                  "{}: mismatch in shape: grad_output[{}] has a shape of {} and output[{}] has a "
                  "shape of {}",
                  api, i, given[i].sizes(), i, out.sizes());
      // A gradient of another dtype (an int64 one included) is cast to the output's, as
      // LibTorch's engine does; run in its own dtype, x / 3 would floor an integer gradient.
      grads[i] = given[i].dtype() == out.dtype() ? given[i] : given[i].to(out.dtype());
    } else {
      EMBER_CHECK(out.numel() == 1,
                  "{}: grad can be implicitly created only for scalar outputs, got shape {}. Hint: "
                  "pass a gradient of the output's shape",
                  api, out.sizes());
      grads[i] = ones_like(out);
    }
  }
  return grads;
}

std::vector<Edge> root_edges(const variable_list& outputs) {
  std::vector<Edge> roots;
  roots.reserve(outputs.size());
  for (const Tensor& t : outputs) roots.push_back(gradient_edge(t));
  return roots;
}
}  // namespace

std::shared_ptr<Node> current_node_shared() {
  return tls_current_node ? tls_current_node->shared_from_this() : nullptr;
}
CurrentNodeGuard::CurrentNodeGuard(Node* node) : prev_(tls_current_node) {
  tls_current_node = node;
}
CurrentNodeGuard::~CurrentNodeGuard() { tls_current_node = prev_; }

bool AnomalyMode::is_enabled() { return g_anomaly.load(); }
void AnomalyMode::set_enabled(bool enabled) { g_anomaly.store(enabled); }
DetectAnomalyGuard::DetectAnomalyGuard() : prev_(AnomalyMode::is_enabled()) {
  AnomalyMode::set_enabled(true);
}
DetectAnomalyGuard::~DetectAnomalyGuard() { AnomalyMode::set_enabled(prev_); }

void backward(const variable_list& tensors, const variable_list& grad_tensors,
              std::optional<bool> retain_graph, bool create_graph, const variable_list& inputs) {
  variable_list root_grads = make_root_grads(tensors, grad_tensors, "backward");
  PassOptions opt;
  opt.create_graph = create_graph;
  opt.keep_graph = retain_graph.value_or(create_graph);
  std::vector<Capture> captures;
  std::vector<Node*> target_leaves;
  variable_list captured;
  std::vector<Tensor> nonleaf_inputs;
  if (!inputs.empty()) {
    opt.restrict_to_targets = true;
    for (const Tensor& in : inputs) {
      EMBER_CHECK(in.defined() && in.requires_grad(),
                  "backward: one of the inputs does not require grad");
      if (in.is_leaf()) {
        target_leaves.push_back(grad_accumulator(in).get());
      } else {
        captures.push_back({in.grad_fn().get(), in.output_nr(), captured.size()});
        captured.emplace_back();
        nonleaf_inputs.push_back(in);
      }
    }
  }
  // Keep the accumulators alive for the pass (the graph holds them only if it reaches them).
  std::vector<std::shared_ptr<Node>> keep;
  for (const Tensor& in : inputs)
    if (in.is_leaf()) keep.push_back(grad_accumulator(in));
  execute(root_edges(tensors), root_grads, captures, target_leaves, captured, opt);
  for (size_t i = 0; i < nonleaf_inputs.size(); ++i) {
    if (!captured[i].defined()) continue;
    Tensor& slot = nonleaf_inputs[i].mutable_grad();
    slot = slot.defined() ? slot + captured[i] : captured[i];
  }
}

variable_list grad(const variable_list& outputs, const variable_list& inputs,
                   const variable_list& grad_outputs, std::optional<bool> retain_graph,
                   bool create_graph, bool allow_unused) {
  variable_list root_grads = make_root_grads(outputs, grad_outputs, "grad");
  PassOptions opt;
  opt.create_graph = create_graph;
  opt.keep_graph = retain_graph.value_or(create_graph);
  opt.restrict_to_targets = true;
  std::vector<Capture> captures;
  std::vector<std::shared_ptr<Node>> keep;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& in = inputs[i];
    EMBER_CHECK(in.defined() && in.requires_grad(),
                "grad: One of the differentiated Tensors does not require grad (input {})", i);
    Edge e = gradient_edge(in);
    captures.push_back({e.function.get(), e.input_nr, i});
    keep.push_back(std::move(e.function));
  }
  variable_list captured(inputs.size());
  execute(root_edges(outputs), root_grads, captures, {}, captured, opt);
  for (size_t i = 0; i < inputs.size(); ++i) {
    EMBER_CHECK(captured[i].defined() || allow_unused,
                "grad: One of the differentiated Tensors appears to not have been used in the "
                "graph (input {}). Hint: set allow_unused=true if this is the desired behavior",
                i);
    if (captured[i].defined() && !create_graph) captured[i] = captured[i].detach();
  }
  return captured;
}

variable_list grad_at_edges(const variable_list& outputs, const variable_list& grad_outputs,
                            const std::vector<Edge>& edges, bool create_graph) {
  variable_list root_grads = make_root_grads(outputs, grad_outputs, "grad");
  PassOptions opt;
  opt.create_graph = create_graph;
  opt.keep_graph = create_graph;
  opt.restrict_to_targets = true;
  opt.stop_at_captures = true;
  std::vector<Capture> captures;
  for (size_t i = 0; i < edges.size(); ++i)
    if (edges[i].is_valid()) captures.push_back({edges[i].function.get(), edges[i].input_nr, i});
  variable_list captured(edges.size());
  execute(root_edges(outputs), root_grads, captures, {}, captured, opt);
  if (!create_graph)
    for (Tensor& g : captured)
      if (g.defined()) g = g.detach();
  return captured;
}

}  // namespace ember::autograd

namespace ember {
void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph,
                      TensorList inputs) const {
  autograd::backward(
      {*this}, gradient.defined() ? autograd::variable_list{gradient} : autograd::variable_list{},
      retain_graph, create_graph, autograd::variable_list(inputs.begin(), inputs.end()));
}
}  // namespace ember
