// Serialization: ember::save / ember::load (LibTorch's torch::save / torch::load) over
// OutputArchive / InputArchive, whose files are safetensors files (ember/serialize/safetensors.h):
//
//   ember::save(model, "model.safetensors");         // a module holder or shared_ptr<Module>
//   ember::load(model, "model.safetensors");         // also a file Python's safetensors wrote
//   ember::save(optimizer, "optim.safetensors");
//   ember::save(std::vector<ember::Tensor>{a, b}, stream);
//
// save(value, args...) writes `archive << value` and calls archive.save_to(args...); load(value,
// args...) calls archive.load_from(args...) and reads `archive >> value`. The operators below
// cover tensors, modules and optimizers; a type of your own gets its pair of operators.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/tensor.h"
#include "ember/nn/module.h"
#include "ember/nn/pimpl.h"
#include "ember/optim/optimizer.h"
#include "ember/serialize/archive.h"
#include "ember/serialize/pickle.h"
#include "ember/serialize/safetensors.h"
#include "ember/serialize/state_dict_file.h"
#include "ember/serialize/torch_format.h"

namespace ember {

/// Writes a tensor under the key "0", as LibTorch does.
inline serialize::OutputArchive& operator<<(serialize::OutputArchive& archive,
                                            const Tensor& tensor) {
  archive.write("0", tensor);
  return archive;
}
/// Reads the tensor under "0" into `tensor` (replacing it: its shape may change).
inline serialize::InputArchive& operator>>(serialize::InputArchive& archive, Tensor& tensor) {
  Tensor loaded;
  archive.read("0", loaded);
  tensor = std::move(loaded);
  return archive;
}

namespace nn {
/// Writes a module (Module::save: parameters, buffers, submodules as nested archives).
inline serialize::OutputArchive& operator<<(serialize::OutputArchive& archive,
                                            const std::shared_ptr<Module>& module) {
  if (!module) throw Error("save: the module pointer is null");
  module->save(archive);
  return archive;
}
/// Reads a module in place (Module::load: all checked, then copied).
inline serialize::InputArchive& operator>>(serialize::InputArchive& archive,
                                           const std::shared_ptr<Module>& module) {
  if (!module) throw Error("load: the module pointer is null");
  module->load(archive);
  return archive;
}
/// The same through a module holder (nn::Linear, a model declared with EMBER_MODULE).
template <typename ModuleType>
serialize::OutputArchive& operator<<(serialize::OutputArchive& archive,
                                     const ModuleHolder<ModuleType>& module) {
  return archive << std::static_pointer_cast<Module>(module.ptr());
}
template <typename ModuleType>
serialize::InputArchive& operator>>(serialize::InputArchive& archive,
                                    ModuleHolder<ModuleType>& module) {
  return archive >> std::static_pointer_cast<Module>(module.ptr());
}
}  // namespace nn

namespace optim {
/// Writes an optimizer (Optimizer::save: options and per-parameter state).
inline serialize::OutputArchive& operator<<(serialize::OutputArchive& archive,
                                            const Optimizer& optimizer) {
  optimizer.save(archive);
  return archive;
}
/// Reads an optimizer's state (Optimizer::load).
inline serialize::InputArchive& operator>>(serialize::InputArchive& archive, Optimizer& optimizer) {
  optimizer.load(archive);
  return archive;
}
}  // namespace optim

/// Saves `value` (a Tensor, module, optimizer, or anything with `archive << value`) to a file
/// name, std::ostream or writer function, as torch::save.
template <typename Value, typename... SaveToArgs>
void save(const Value& value, SaveToArgs&&... args) {
  serialize::OutputArchive archive;
  archive << value;
  archive.save_to(std::forward<SaveToArgs>(args)...);
}

/// Saves tensors under the keys "0", "1", ... (as torch::save of a vector).
template <typename... SaveToArgs>
void save(const std::vector<Tensor>& tensor_vec, SaveToArgs&&... args) {
  serialize::OutputArchive archive;
  for (size_t i = 0; i < tensor_vec.size(); ++i) archive.write(std::to_string(i), tensor_vec[i]);
  archive.save_to(std::forward<SaveToArgs>(args)...);
}

/// Loads into `value` from a file name, std::istream, bytes or reader functions (and optionally
/// a Device), as torch::load.
template <typename Value, typename... LoadFromArgs>
void load(Value& value, LoadFromArgs&&... args) {
  serialize::InputArchive archive;
  archive.load_from(std::forward<LoadFromArgs>(args)...);
  archive >> value;
}

/// Appends the tensors saved under "0", "1", ... to `tensor_vec`.
template <typename... LoadFromArgs>
void load(std::vector<Tensor>& tensor_vec, LoadFromArgs&&... args) {
  serialize::InputArchive archive;
  archive.load_from(std::forward<LoadFromArgs>(args)...);
  Tensor value;
  for (size_t i = 0; archive.try_read(std::to_string(i), value); ++i) {
    tensor_vec.push_back(std::move(value));
    value = Tensor();
  }
}

}  // namespace ember
