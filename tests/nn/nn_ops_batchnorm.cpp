// nn op table entries of the normalisation functionals (golden family "nn_batchnorm"; the layout
// of each op's record is documented in tests/golden/gen/nn_batchnorm.py).
#include "ember/nn/functional/batchnorm.h"
#include "ember/nn/functional/instancenorm.h"
#include "ember/nn/functional/normalization.h"
#include "ember/nn/modules/normalization.h"
#include "tests/nn/nn_op_info.h"

namespace F = ember::nn::functional;
using ember::Tensor;
using ember_test::Args;
using ember_test::nn_op;
using ember_test::NnOpInfo;

namespace {

const char* const kBnFamily = "nn_batchnorm";

// The tensor a flag says is passed, or an undefined one.
Tensor bn_unless(const GoldenCase& c, const char* flag, const Tensor& t) {
  return c.has_flag(flag) ? Tensor() : t;
}

// A clone, so that the op's in-place running update does not touch the case's tensors.
Tensor bn_running_arg(const GoldenCase& c, const Tensor& t) {
  return c.has_flag("no_running") ? Tensor() : t.detach().clone();
}

Tensor bn_call(const Args& a, const GoldenCase& c, const Tensor& rm, const Tensor& rv) {
  return F::batch_norm(a[0], rm, rv,
                       F::BatchNormFuncOptions()
                           .weight(bn_unless(c, "no_weight", a[1]))
                           .bias(bn_unless(c, "no_bias", a[2]))
                           .training(c.has_flag("training"))
                           .momentum(c.scalars.at(0))
                           .eps(c.scalars.at(1)));
}

Tensor in_call(const Args& a, const GoldenCase& c, const Tensor& rm, const Tensor& rv) {
  return F::instance_norm(a[0], F::InstanceNormFuncOptions()
                                    .running_mean(rm)
                                    .running_var(rv)
                                    .weight(bn_unless(c, "no_weight", a[1]))
                                    .bias(bn_unless(c, "no_bias", a[2]))
                                    .use_input_stats(c.has_flag("use_input_stats"))
                                    .momentum(c.scalars.at(0))
                                    .eps(c.scalars.at(1)));
}

NnOpInfo bn_not_differentiable(NnOpInfo info) {
  info.no_gradcheck_reason = "the running statistics are buffers, not differentiable outputs";
  return info;
}

}  // namespace

EMBER_NN_OP_FAMILY(batchnorm) {
  return {
      nn_op("batch_norm", kBnFamily, {0, 1, 2},
            [](const Args& a, const GoldenCase& c) {
              return bn_call(a, c, bn_running_arg(c, a[3]), bn_running_arg(c, a[4]));
            }),
      bn_not_differentiable(nn_op("batch_norm_running", kBnFamily, {},
                                  [](const Args& a, const GoldenCase& c) {
                                    Tensor rm = a[3].clone(), rv = a[4].clone();
                                    bn_call(a, c, rm, rv);
                                    return ember::stack({rm, rv});
                                  })),
      nn_op("instance_norm", kBnFamily, {0, 1, 2},
            [](const Args& a, const GoldenCase& c) {
              return in_call(a, c, bn_running_arg(c, a[3]), bn_running_arg(c, a[4]));
            }),
      bn_not_differentiable(nn_op("instance_norm_running", kBnFamily, {},
                                  [](const Args& a, const GoldenCase& c) {
                                    Tensor rm = a[3].clone(), rv = a[4].clone();
                                    in_call(a, c, rm, rv);
                                    return ember::stack({rm, rv});
                                  })),
      nn_op("group_norm", kBnFamily, {0, 1, 2},
            [](const Args& a, const GoldenCase& c) {
              return F::group_norm(a[0], F::GroupNormFuncOptions(c.ints.at(0))
                                             .weight(bn_unless(c, "no_weight", a[1]))
                                             .bias(bn_unless(c, "no_bias", a[2]))
                                             .eps(c.scalars.at(0)));
            }),
      nn_op("local_response_norm", kBnFamily, {0},
            [](const Args& a, const GoldenCase& c) {
              return F::local_response_norm(a[0], F::LocalResponseNormFuncOptions(c.ints.at(0))
                                                      .alpha(c.scalars.at(0))
                                                      .beta(c.scalars.at(1))
                                                      .k(c.scalars.at(2)));
            }),
      nn_op("normalize", kBnFamily, {0},
            [](const Args& a, const GoldenCase& c) {
              return F::normalize(a[0], F::NormalizeFuncOptions()
                                            .p(c.scalars.at(0))
                                            .dim(c.ints.at(0))
                                            .eps(c.scalars.at(1)));
            }),
      // Forward only here: PyTorch's CrossMapLRN2d gradients are not its forward's (see the
      // golden file); tests/nn/batchnorm_modules_test.cpp gradchecks Ember's.
      nn_op("cross_map_lrn2d", kBnFamily, {},
            [](const Args& a, const GoldenCase& c) {
              ember::nn::CrossMapLRN2d m(ember::nn::CrossMapLRN2dOptions(c.ints.at(0))
                                             .alpha(c.scalars.at(0))
                                             .beta(c.scalars.at(1))
                                             .k(static_cast<int64_t>(c.scalars.at(2))));
              return m(a[0]);
            }),
  };
}
