// The row work of embeddings, through the weight device's kernels (embedding_common.h): gathers,
// max_norm's in-place rescaling, the recorded lookup and the gradient scatter.
#include <algorithm>
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/indexing.h"
#include "ember/ops/reduction.h"
#include "kernels/common/embedding_params.h"
#include "src/autograd/record.h"
#include "src/dispatch/dispatch.h"
#include "src/nn/functional/embedding_common.h"

namespace ember::nn::functional::emb {

std::vector<Tensor> int64_on_device(const Tensor& like,
                                    std::initializer_list<const std::vector<int64_t>*> parts) {
  // One host tensor, one copy: each transfer to a GPU costs a synchronisation (~10 us), more
  // than moving these few kilobytes.
  size_t total = 0;
  for (const auto* p : parts) total += p->size();
  Tensor host = empty({static_cast<int64_t>(total)}, TensorOptions().dtype(kLong));
  int64_t* h = host.data_ptr<int64_t>();
  for (const auto* p : parts) h = std::copy(p->begin(), p->end(), h);
  const Tensor all = like.is_cpu() ? host : host.to(like.device());
  std::vector<Tensor> out;
  int64_t at = 0;
  for (const auto* p : parts) {
    const int64_t len = static_cast<int64_t>(p->size());
    out.push_back(all.narrow(0, at, len));
    at += len;
  }
  return out;
}

Tensor doubles_on_device(const Tensor& like, const std::vector<double>& v) {
  Tensor host = empty({static_cast<int64_t>(v.size())}, TensorOptions().dtype(kDouble));
  std::copy(v.begin(), v.end(), host.data_ptr<double>());
  return like.is_cpu() ? host : host.to(like.device());
}

Tensor gather_rows(const Tensor& table, const Tensor& idx) {
  const Tensor t = table.contiguous(), i = idx.contiguous();
  Tensor out = empty({i.numel(), t.size(1)}, t.options());
  if (out.numel() == 0) return out;
  GatherRowsParams p;
  p.table = t.data_ptr();
  p.d = t.size(1);
  p.idx = i.data_ptr<int64_t>();
  p.n = i.numel();
  p.out = out.data_ptr();
  get_kernel<OpId::embedding>(t.device().type(), t.dtype())(t.dtype(), p);
  return out;
}

// The scale is computed in double from the row's norm (PyTorch's 1e-7 guard included), then
// applied in the weight's accumulation type, as PyTorch's embedding_renorm_ (`row *= scale`).
void renorm_rows(const Tensor& weight, const Tensor& host_idx, double max_norm, double norm_type) {
  NoGradGuard no_grad;
  const int64_t* p = host_idx.data_ptr<int64_t>();
  std::vector<int64_t> uniq(p, p + host_idx.numel());
  std::sort(uniq.begin(), uniq.end());
  uniq.erase(std::unique(uniq.begin(), uniq.end()), uniq.end());
  if (uniq.empty() || weight.size(1) == 0) return;
  const Tensor w = weight.detach();
  const Tensor rows = gather_rows(w, int64_on_device(w, {&uniq})[0]);
  const Tensor norms = rows.norm(norm_type, {1}).to(Device(kCPU), kDouble).contiguous();
  const double* nrm = norms.data_ptr<double>();
  std::vector<int64_t> over, target;
  std::vector<double> scales;
  for (size_t i = 0; i < uniq.size(); ++i) {
    if (nrm[i] > max_norm) {
      over.push_back(static_cast<int64_t>(i));
      target.push_back(uniq[i]);
      scales.push_back(max_norm / (nrm[i] + 1e-7));
    }
  }
  if (over.empty()) return;
  // One overwriting scatter of the rescaled rows (distinct rows, so nothing accumulates).
  const std::vector<Tensor> dev = int64_on_device(w, {&target, &over});
  const Tensor scale = doubles_on_device(w, scales);
  const Tensor dst = w.is_contiguous() ? w : w.contiguous();
  ScatterAddRowsParams s;
  s.dst = dst.data_ptr();
  s.dst_rows = w.size(0);
  s.d = w.size(1);
  s.src = rows.data_ptr();
  s.idx = dev[0].data_ptr<int64_t>();
  s.src_row = dev[1].data_ptr<int64_t>();
  s.coef = scale.data_ptr<double>();
  s.n = static_cast<int64_t>(over.size());
  s.accumulate = false;
  get_kernel<OpId::embedding_backward>(w.device().type(), w.dtype())(w.dtype(), s);
  if (dst.is_same(w))
    w.unsafeGetTensorImpl()->bump_version();  // written through its pointer: an in-place change
  else
    w.copy_(dst);
}

Tensor scatter_rows(const Tensor& src, const Tensor& idx, const Tensor& src_row, const Tensor& coef,
                    int64_t num_rows, ScalarType dtype) {
  const int64_t d = src.size(1);
  if (GradMode::is_enabled() && (src.requires_grad() || (coef.defined() && coef.requires_grad()))) {
    // Differentiable in src and coef (create_graph).
    Tensor g = src_row.defined() ? src.index_select(0, src_row) : src;
    if (coef.defined()) g = g * coef.to(src.dtype()).unsqueeze(1);
    Tensor rows = zeros({num_rows, d}, src.options());
    rows.index_add_(0, idx, g);  // in place: the out-of-place form would clone the zeros
    return rows;
  }
  // float16/bfloat16 gradients are summed in float32 and rounded once.
  const ScalarType acc = src.dtype() == kDouble ? kDouble : kFloat;
  const Tensor s = src.to(acc).contiguous(), i = idx.contiguous();
  const Tensor r = src_row.defined() ? src_row.contiguous() : Tensor();
  const Tensor c = coef.defined() ? coef.to(kDouble).contiguous() : Tensor();
  Tensor out = zeros({num_rows, d}, s.options());
  if (i.numel() > 0 && d > 0) {
    ScatterAddRowsParams p;
    p.dst = out.data_ptr();
    p.dst_rows = num_rows;
    p.d = d;
    p.src = s.data_ptr();
    p.idx = i.data_ptr<int64_t>();
    p.src_row = r.defined() ? r.data_ptr<int64_t>() : nullptr;
    p.coef = c.defined() ? c.data_ptr<double>() : nullptr;
    p.n = i.numel();
    get_kernel<OpId::embedding_backward>(s.device().type(), acc)(acc, p);
  }
  return out.dtype() == dtype ? out : out.to(dtype);
}

Tensor lookup_rows(const Tensor& weight, const Tensor& idx, const Tensor& coef) {
  autograd::OpRecording rec(weight);
  Tensor rows = gather_rows(weight, idx);
  if (rec)
    autograd::record("EmbeddingBackward0", rows, autograd::edges_of(weight),
                     [idx = autograd::save(idx), coef, num = weight.size(0),
                      dtype = weight.dtype()](const Tensor& grad) {
                       return scatter_rows(grad, idx.unpack(), Tensor(), coef, num, dtype);
                     });
  return rows;
}

}  // namespace ember::nn::functional::emb
