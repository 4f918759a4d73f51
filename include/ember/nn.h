// Everything of ember::nn: Module, holders, containers, layers, functional, init.
#pragma once

#include "ember/nn/cloneable.h"
#include "ember/nn/enum.h"
#include "ember/nn/hooks.h"
#include "ember/nn/module.h"
#include "ember/nn/module_call.h"
#include "ember/nn/pimpl.h"
