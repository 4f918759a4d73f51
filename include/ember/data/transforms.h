// torch::data::transforms: Transform, BatchTransform, Lambda, BatchLambda, TensorTransform,
// TensorLambda, Normalize, Stack, Collate.
#pragma once

#include "ember/data/transforms/base.h"
#include "ember/data/transforms/collate.h"
#include "ember/data/transforms/lambda.h"
#include "ember/data/transforms/stack.h"
#include "ember/data/transforms/tensor.h"
