// torch::data::make_data_loader: a loader over a data set, as a unique_ptr to iterate with
// `for (auto& batch : *loader)`.
//
//   auto loader = ember::data::make_data_loader(
//       std::move(dataset), ember::data::DataLoaderOptions().batch_size(64).workers(2));
//   auto seq = ember::data::make_data_loader<ember::data::samplers::SequentialSampler>(ds, 64);
#pragma once

#include <memory>
#include <type_traits>
#include <utility>

#include "ember/core/error.h"
#include "ember/data/dataloader/base.h"
#include "ember/data/dataloader/stateful.h"
#include "ember/data/dataloader/stateless.h"
#include "ember/data/dataloader_options.h"
#include "ember/data/samplers/random.h"

namespace ember::data {

/// A loader over a stateless `dataset` with the given sampler instance.
template <typename Dataset, typename Sampler>
std::enable_if_t<!Dataset::is_stateful, std::unique_ptr<StatelessDataLoader<Dataset, Sampler>>>
make_data_loader(Dataset dataset, Sampler sampler, DataLoaderOptions options) {
  return std::make_unique<StatelessDataLoader<Dataset, Sampler>>(
      std::move(dataset), std::move(sampler), std::move(options));
}

/// A loader over a stateless, sized `dataset` with a `Sampler(dataset.size())` (random order by
/// default).
template <typename Sampler = samplers::RandomSampler, typename Dataset>
std::enable_if_t<!Dataset::is_stateful && std::is_constructible_v<Sampler, size_t>,
                 std::unique_ptr<StatelessDataLoader<Dataset, Sampler>>>
make_data_loader(Dataset dataset, DataLoaderOptions options = DataLoaderOptions()) {
  const std::optional<size_t> size = dataset.size();
  if (!size)
    throw Error(
        "make_data_loader: the data set has no size(), which the sampler needs. Hint: pass a "
        "sampler instance, or use a stateful data set");
  Sampler sampler(*size);
  return make_data_loader(std::move(dataset), std::move(sampler), std::move(options));
}

/// A loader over a stateful `dataset`.
template <typename Dataset, typename = std::enable_if_t<Dataset::is_stateful>>
std::unique_ptr<StatefulDataLoader<Dataset>> make_data_loader(
    Dataset dataset, DataLoaderOptions options = DataLoaderOptions()) {
  return std::make_unique<StatefulDataLoader<Dataset>>(std::move(dataset), std::move(options));
}

}  // namespace ember::data
