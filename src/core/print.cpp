// operator<< for tensors in LibTorch's layout: the values (matrices row by row, higher dims as
// "(i,j,.,.) =" blocks), then "[ CPUFloatType{2,3} ]".
#include <cmath>
#include <iomanip>
#include <sstream>

#include "ember/core/tensor.h"
#include "ember/ops/shape.h"

namespace ember {

namespace {
std::string format_value(double v, bool integral, int precision) {
  std::ostringstream os;
  if (integral) {
    os << static_cast<int64_t>(v);
  } else if (std::isnan(v)) {
    os << "nan";
  } else if (std::isinf(v)) {
    os << (v > 0 ? "inf" : "-inf");
  } else {
    os << std::setprecision(precision) << v;
  }
  return os.str();
}

void print_matrix(std::ostream& os, const Tensor& m, bool integral) {
  // m is a 2-D double tensor on the CPU.
  const int64_t rows = m.size(0), cols = m.size(1);
  std::vector<std::string> cells;
  size_t width = 1;
  const double* d = m.data_ptr<double>();
  for (int64_t i = 0; i < rows * cols; ++i) {
    cells.push_back(format_value(d[i], integral, 5));
    width = std::max(width, cells.back().size());
  }
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c)
      os << std::setw(static_cast<int>(width + 1)) << cells[r * cols + c]
         << (c + 1 < cols ? " " : "");
    os << "\n";
  }
}
}  // namespace

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.defined()) return os << "[ Tensor (undefined) ]";
  const bool integral = !t.is_floating_point();
  Tensor v = t.to(Device(kCPU), kDouble).contiguous();
  if (t.dim() == 0) {
    os << format_value(v.data_ptr<double>()[0], integral, 5) << "\n";
  } else if (t.numel() == 0) {
    os << "[ Tensor (empty) ]\n";
  } else if (t.dim() == 1) {
    print_matrix(os, v.view({t.size(0), 1}), integral);
  } else if (t.dim() == 2) {
    print_matrix(os, v, integral);
  } else {
    Tensor flat = v.reshape({-1, t.size(-2), t.size(-1)});
    DimVector lead(t.sizes().slice(0, t.dim() - 2));
    for (int64_t b = 0; b < flat.size(0); ++b) {
      os << "(";
      int64_t rem = b;
      std::vector<int64_t> idx(lead.size());
      for (size_t i = lead.size(); i-- > 0;) {
        idx[i] = rem % lead[i];
        rem /= lead[i];
      }
      for (size_t i = 0; i < idx.size(); ++i) os << idx[i] << ",";
      os << ".,.) = \n";
      print_matrix(os, flat.select(0, b), integral);
      os << "\n";
    }
  }
  os << "[ " << t.toString() << "{";
  for (int64_t i = 0; i < t.dim(); ++i) os << (i ? "," : "") << t.size(i);
  return os << "} ]";
}

}  // namespace ember
