// One-node splits and the composed LSTM cell of nn_rnn_common.h.
#include "src/ops/nn_rnn_common.h"

#include "ember/ops/factory.h"
#include "ember/ops/shape.h"
#include "src/autograd/record.h"

namespace ember::detail {
namespace {

std::vector<Tensor> pieces_recorded(const Tensor& x, int64_t dim, IntArrayRef sizes, bool unbind) {
  autograd::OpRecording rec(x);
  std::vector<Tensor> pieces = unbind ? x.unbind(dim) : x.split_with_sizes(sizes, dim);
  if (!rec) return pieces;
  std::vector<DimVector> shapes;
  for (const Tensor& p : pieces) shapes.emplace_back(p.sizes());
  autograd::record_list(unbind ? "UnbindBackward0" : "SplitBackward0", pieces,
                        autograd::edges_of(x),
                        [dim, unbind, shapes = std::move(shapes), options = x.options()](
                            ArrayRef<Tensor> grads, autograd::NeedsGrad) -> autograd::Grads {
                          std::vector<Tensor> parts(grads.begin(), grads.end());
                          for (size_t k = 0; k < parts.size(); ++k)
                            if (!parts[k].defined()) parts[k] = zeros(shapes[k], options);
                          return unbind ? stack(parts, dim) : cat(parts, dim);
                        });
  return pieces;
}

}  // namespace

std::vector<Tensor> split_recorded(const Tensor& x, int64_t dim, IntArrayRef sizes) {
  return pieces_recorded(x, dim, sizes, false);
}

std::vector<Tensor> unbind_recorded(const Tensor& x, int64_t dim) {
  return pieces_recorded(x, dim, {}, true);
}

LstmCellParts lstm_cell_composed(const Tensor& gates, const Tensor& c_prev) {
  const int64_t hidden = gates.size(1) / 4;
  const std::vector<int64_t> quarters(4, hidden);
  std::vector<Tensor> g = split_recorded(gates, 1, quarters);
  LstmCellParts p;
  p.i = g[0].sigmoid();
  p.f = g[1].sigmoid();
  p.g = g[2].tanh();
  p.o = g[3].sigmoid();
  p.c = p.f * c_prev + p.i * p.g;
  p.tanh_c = p.c.tanh();
  p.h_raw = p.o * p.tanh_c;
  return p;
}

}  // namespace ember::detail
