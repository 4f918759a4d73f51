// Everything of ember::nn: Module, holders, containers, layers, functional, init.
#pragma once

#include "ember/nn/cloneable.h"
#include "ember/nn/enum.h"
#include "ember/nn/functional.h"
#include "ember/nn/hooks.h"
#include "ember/nn/init.h"
#include "ember/nn/module.h"
#include "ember/nn/module_call.h"
#include "ember/nn/modules/activation.h"
#include "ember/nn/modules/container/any.h"
#include "ember/nn/modules/container/functional.h"
#include "ember/nn/modules/container/module_list.h"
#include "ember/nn/modules/container/parameter_list.h"
#include "ember/nn/modules/container/sequential.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/pimpl.h"
