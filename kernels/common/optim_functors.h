// The math of each fused optimizer update (the `*_update` rows of op_table_optim.h), once, for
// CPU and CUDA: kernels/common/optim_math.h has the stage protocol every functor follows and
// the arithmetic rules (the op chain's rounding, op by op); each family's functor has its own
// header.
#pragma once

#include "kernels/common/optim_math.h"
#include "kernels/common/optim_step_adadelta.h"
#include "kernels/common/optim_step_adagrad.h"
#include "kernels/common/optim_step_adam.h"
#include "kernels/common/optim_step_adamax.h"
#include "kernels/common/optim_step_nadam.h"
#include "kernels/common/optim_step_radam.h"
#include "kernels/common/optim_step_rmsprop.h"
#include "kernels/common/optim_step_sgd.h"
