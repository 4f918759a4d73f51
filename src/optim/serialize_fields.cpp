// Typed reads and writes of optimizer options and state (src/optim/serialize_fields.h).
#include "src/optim/serialize_fields.h"

#include "ember/autograd/grad_mode.h"
#include "src/core/check.h"

namespace ember::optim::detail {

namespace {

// A copy that shares nothing with the live state, so stepping after save() (or after load(),
// for the tree loaded from) cannot change the other side.
Tensor optim_fields_copy(const Tensor& t) {
  NoGradGuard no_grad;
  return t.detach().clone();
}

IValue optim_fields_read(serialize::InputArchive& archive, const char* key) {
  IValue value;
  archive.read(key, value);  // Error naming the key and the keys there are when absent
  return value;
}

const char* optim_fields_kind(const IValue& v) { return v.tagKind(); }

}  // namespace

void put_double(serialize::OutputArchive& archive, const char* key, double value) {
  archive.write(key, IValue(value));
}
void put_int(serialize::OutputArchive& archive, const char* key, int64_t value) {
  archive.write(key, IValue(value));
}
void put_bool(serialize::OutputArchive& archive, const char* key, bool value) {
  archive.write(key, IValue(value));
}
void put_string(serialize::OutputArchive& archive, const char* key, const std::string& value) {
  archive.write(key, IValue(value));
}
void put_pair(serialize::OutputArchive& archive, const char* key,
              const std::tuple<double, double>& value) {
  archive.write(key, IValue(std::vector<double>{std::get<0>(value), std::get<1>(value)}));
}
void put_tensor(serialize::OutputArchive& archive, const char* key, const Tensor& value) {
  if (value.defined()) archive.write(key, optim_fields_copy(value));
}
void put_tensors(serialize::OutputArchive& archive, const char* key,
                 const std::deque<Tensor>& values) {
  std::vector<Tensor> copies;
  copies.reserve(values.size());
  for (const Tensor& t : values) copies.push_back(optim_fields_copy(t));
  archive.write(key, IValue(std::move(copies)));
}

double get_double(serialize::InputArchive& archive, const char* key) {
  const IValue v = optim_fields_read(archive, key);
  if (v.isInt()) return static_cast<double>(v.toInt());
  EMBER_CHECK(v.isDouble(), "Optimizer::load: entry '{}' holds {}, expected a Double", key,
              optim_fields_kind(v));
  return v.toDouble();
}

int64_t get_int(serialize::InputArchive& archive, const char* key) {
  const IValue v = optim_fields_read(archive, key);
  EMBER_CHECK(v.isInt(), "Optimizer::load: entry '{}' holds {}, expected an Int", key,
              optim_fields_kind(v));
  return v.toInt();
}

bool get_bool(serialize::InputArchive& archive, const char* key) {
  const IValue v = optim_fields_read(archive, key);
  EMBER_CHECK(v.isBool(), "Optimizer::load: entry '{}' holds {}, expected a Bool", key,
              optim_fields_kind(v));
  return v.toBool();
}

std::string get_string(serialize::InputArchive& archive, const char* key) {
  const IValue v = optim_fields_read(archive, key);
  EMBER_CHECK(v.isString(), "Optimizer::load: entry '{}' holds {}, expected a String", key,
              optim_fields_kind(v));
  return v.toStringRef();
}

std::tuple<double, double> get_pair(serialize::InputArchive& archive, const char* key) {
  const IValue v = optim_fields_read(archive, key);
  EMBER_CHECK(v.isDoubleList() && v.toDoubleVector().size() == 2,
              "Optimizer::load: entry '{}' holds {}, expected a DoubleList of 2 values", key,
              optim_fields_kind(v));
  const std::vector<double> pair = v.toDoubleVector();
  return std::make_tuple(pair[0], pair[1]);
}

Tensor get_tensor(serialize::InputArchive& archive, const char* key) {
  IValue v;
  if (!archive.try_read(key, v)) return Tensor();
  EMBER_CHECK(v.isTensor(), "Optimizer::load: entry '{}' holds {}, expected a Tensor", key,
              optim_fields_kind(v));
  return optim_fields_copy(v.toTensor());
}

std::deque<Tensor> get_tensors(serialize::InputArchive& archive, const char* key) {
  IValue v;
  std::deque<Tensor> out;
  if (!archive.try_read(key, v)) return out;
  EMBER_CHECK(v.isTensorList(), "Optimizer::load: entry '{}' holds {}, expected a TensorList", key,
              optim_fields_kind(v));
  for (const Tensor& t : v.toTensorList()) {
    EMBER_CHECK(t.defined(), "Optimizer::load: entry '{}' holds an undefined tensor", key);
    out.push_back(optim_fields_copy(t));
  }
  return out;
}

bool has_value(serialize::InputArchive& archive, const char* key) {
  IValue v;
  return archive.try_read(key, v);
}

}  // namespace ember::optim::detail
