// torch::data::datasets: Dataset, BatchDataset, StreamDataset, StatefulDataset, MapDataset,
// TensorDataset, SharedBatchDataset, ChunkDataset, MNIST.
#pragma once

#include "ember/data/datasets/base.h"
#include "ember/data/datasets/chunk.h"
#include "ember/data/datasets/map.h"
#include "ember/data/datasets/mnist.h"
#include "ember/data/datasets/shared.h"
#include "ember/data/datasets/stateful.h"
#include "ember/data/datasets/tensor.h"
