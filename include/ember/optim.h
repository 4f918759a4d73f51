// Everything of ember::optim: the Optimizer base and the optimizers.
#pragma once

#include "ember/optim/adadelta.h"
#include "ember/optim/adagrad.h"
#include "ember/optim/adam.h"
#include "ember/optim/adamax.h"
#include "ember/optim/adamw.h"
#include "ember/optim/lbfgs.h"
#include "ember/optim/nadam.h"
#include "ember/optim/optimizer.h"
#include "ember/optim/radam.h"
#include "ember/optim/rmsprop.h"
#include "ember/optim/schedulers.h"
#include "ember/optim/sgd.h"
