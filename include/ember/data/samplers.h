// torch::data::samplers: Sampler, SequentialSampler, RandomSampler, DistributedRandomSampler,
// DistributedSequentialSampler, StreamSampler, CustomBatchRequest.
#pragma once

#include "ember/data/samplers/base.h"
#include "ember/data/samplers/custom_batch_request.h"
#include "ember/data/samplers/distributed.h"
#include "ember/data/samplers/random.h"
#include "ember/data/samplers/sequential.h"
#include "ember/data/samplers/serialize.h"
#include "ember/data/samplers/stream.h"
