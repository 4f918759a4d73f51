// `archive << sampler` and `archive >> sampler`, as LibTorch's torch/data/samplers/serialize.h.
#pragma once

#include "ember/data/samplers/base.h"
#include "ember/serialize/archive.h"

namespace ember::data::samplers {

/// sampler.save(archive).
template <typename BatchRequest>
serialize::OutputArchive& operator<<(serialize::OutputArchive& archive,
                                     const Sampler<BatchRequest>& sampler) {
  sampler.save(archive);
  return archive;
}

/// sampler.load(archive).
template <typename BatchRequest>
serialize::InputArchive& operator>>(serialize::InputArchive& archive,
                                    Sampler<BatchRequest>& sampler) {
  sampler.load(archive);
  return archive;
}

}  // namespace ember::data::samplers
