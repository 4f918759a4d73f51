// ember::data (LibTorch's torch::data): data sets, transforms, samplers and data loaders.
//
//   namespace data = ember::data;
//   auto train = data::datasets::MNIST("/usr/share/datasets/fashion-mnist")
//                    .map(data::transforms::Normalize<>(0.2860, 0.3530))
//                    .map(data::transforms::Stack<>());
//   auto loader = data::make_data_loader(std::move(train),
//                                        data::DataLoaderOptions().batch_size(64).workers(2));
//   for (auto& batch : *loader) { /* batch.data [64, 1, 28, 28], batch.target [64] */ }
#pragma once

#include "ember/data/dataloader.h"
#include "ember/data/dataloader_options.h"
#include "ember/data/datasets.h"
#include "ember/data/example.h"
#include "ember/data/iterator.h"
#include "ember/data/samplers.h"
#include "ember/data/transforms.h"
#include "ember/data/worker_exception.h"
