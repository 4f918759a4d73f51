#include "ember/nn/utils/convert_parameters.h"

#include "ember/autograd/grad_mode.h"
#include "ember/ops/shape.h"
#include "src/core/check.h"

namespace ember::nn::utils {

namespace {
// Python's _check_param_device: every parameter on the first one's device.
void convert_params_check_devices(const std::vector<Tensor>& parameters, const char* fn) {
  for (size_t i = 0; i < parameters.size(); ++i) {
    EMBER_CHECK_VALUE(parameters[i].defined(), "{}: parameter {} is undefined", fn, i);
    EMBER_CHECK(parameters[i].device() == parameters[0].device(),
                "{}: Found two parameters on different devices ({} and {} at index {}), this is "
                "currently not supported",
                fn, parameters[0].device().str(), parameters[i].device().str(), i);
  }
}
}  // namespace

Tensor parameters_to_vector(const std::vector<Tensor>& parameters) {
  EMBER_CHECK_VALUE(!parameters.empty(), "parameters_to_vector: expected at least one parameter");
  convert_params_check_devices(parameters, "parameters_to_vector");
  std::vector<Tensor> flat;
  flat.reserve(parameters.size());
  for (const Tensor& p : parameters) flat.push_back(p.reshape({-1}));
  return cat(flat);
}

void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters) {
  EMBER_CHECK_VALUE(vec.defined(),
                    "vector_to_parameters: expected vec to be a tensor, got an "
                    "undefined one");
  EMBER_CHECK_VALUE(vec.dim() == 1, "vector_to_parameters: expected a 1-D vec, got sizes {}",
                    vec.sizes());
  convert_params_check_devices(parameters, "vector_to_parameters");
  int64_t total = 0;
  for (const Tensor& p : parameters) total += p.numel();
  EMBER_CHECK_VALUE(vec.numel() == total,
                    "vector_to_parameters: vec has {} elements but the {} parameters have {} in "
                    "all. Hint: vec must come from parameters_to_vector over the same parameters",
                    vec.numel(), parameters.size(), total);
  NoGradGuard no_grad;
  int64_t offset = 0;
  for (const Tensor& p : parameters) {
    const int64_t n = p.numel();
    p.detach().copy_(vec.slice(0, offset, offset + n).reshape(p.sizes()));
    offset += n;
  }
}

}  // namespace ember::nn::utils
