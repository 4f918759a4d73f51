// Learning-rate schedulers (LibTorch's torch::optim::LRScheduler and PyTorch's set).
#pragma once

#include "ember/optim/schedulers/composite_lr.h"
#include "ember/optim/schedulers/cosine_lr.h"
#include "ember/optim/schedulers/cyclic_lr.h"
#include "ember/optim/schedulers/lambda_lr.h"
#include "ember/optim/schedulers/lr_scheduler.h"
#include "ember/optim/schedulers/reduce_on_plateau_scheduler.h"
#include "ember/optim/schedulers/step_lr.h"
#include "ember/optim/schedulers/warmup_lr.h"
