// The typed reads and writes every optimizer's Options::serialize and ParamState::serialize use
// (Optimizer::save / load, src/optim/optimizer_serialize.cpp). Private to the library.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/core/ivalue.h"
#include "ember/core/tensor.h"
#include "ember/serialize/archive.h"

namespace ember::optim::detail {

/// Writes a number, flag or string under `key`.
void put_double(serialize::OutputArchive& archive, const char* key, double value);
void put_int(serialize::OutputArchive& archive, const char* key, int64_t value);
void put_bool(serialize::OutputArchive& archive, const char* key, bool value);
void put_string(serialize::OutputArchive& archive, const char* key, const std::string& value);
/// Writes (beta1, beta2) as a list of two doubles.
void put_pair(serialize::OutputArchive& archive, const char* key,
              const std::tuple<double, double>& value);
/// Writes a detached copy of `value`, or nothing when it is undefined (the key's absence means
/// undefined, as LibTorch's optimizers do).
void put_tensor(serialize::OutputArchive& archive, const char* key, const Tensor& value);
/// Writes detached copies of `values` as a tensor list.
void put_tensors(serialize::OutputArchive& archive, const char* key,
                 const std::deque<Tensor>& values);

/// Reads the value under `key`; Error naming the key and the kind found when it is not of the
/// kind asked (an integer is accepted where a double is asked).
double get_double(serialize::InputArchive& archive, const char* key);
int64_t get_int(serialize::InputArchive& archive, const char* key);
bool get_bool(serialize::InputArchive& archive, const char* key);
std::string get_string(serialize::InputArchive& archive, const char* key);
std::tuple<double, double> get_pair(serialize::InputArchive& archive, const char* key);
/// The tensor under `key` (a copy the caller owns), or an undefined tensor when there is none.
Tensor get_tensor(serialize::InputArchive& archive, const char* key);
/// The tensors under `key` (copies), or an empty list when there is none.
std::deque<Tensor> get_tensors(serialize::InputArchive& archive, const char* key);
/// Whether the archive holds a value under `key`.
bool has_value(serialize::InputArchive& archive, const char* key);

}  // namespace ember::optim::detail
