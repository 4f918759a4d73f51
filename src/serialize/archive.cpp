// The in-memory side of OutputArchive / InputArchive (include/ember/serialize/archive.h): writing
// and reading entries of the tree. Files and streams: archive_io.cpp.
#include "ember/serialize/archive.h"

#include <string>

#include "ember/autograd/grad_mode.h"
#include "src/core/check.h"

namespace ember::serialize {

const ArchiveNode::Entry* ArchiveNode::find(const std::string& key) const {
  for (const Entry& e : entries)
    if (e.key == key) return &e;
  return nullptr;
}
ArchiveNode::Entry* ArchiveNode::find(const std::string& key) {
  for (Entry& e : entries)
    if (e.key == key) return &e;
  return nullptr;
}

namespace {

std::string key_list(const ArchiveNode& node) {
  std::string out;
  for (const auto& e : node.entries) out += (out.empty() ? "'" : ", '") + e.key + "'";
  return out.empty() ? "none" : out;
}

ArchiveNode::Entry& new_entry(ArchiveNode& node, const std::string& key) {
  EMBER_CHECK(node.find(key) == nullptr,
              "OutputArchive::write: key '{}' was already written to this archive", key);
  node.entries.emplace_back();
  node.entries.back().key = key;
  return node.entries.back();
}

const ArchiveNode::Entry& existing_entry(const ArchiveNode& node, const std::string& key) {
  const ArchiveNode::Entry* e = node.find(key);
  EMBER_CHECK(e != nullptr, "InputArchive::read: no entry '{}' in the archive (its keys: {})", key,
              key_list(node));
  return *e;
}

}  // namespace

OutputArchive::OutputArchive() : root_(std::make_shared<ArchiveNode>()) {}

void OutputArchive::write(const std::string& key, const IValue& ivalue) {
  new_entry(*root_, key).value = ivalue;
}

void OutputArchive::write(const std::string& key, const Tensor& tensor, bool is_buffer) {
  ArchiveNode::Entry& e = new_entry(*root_, key);
  e.value = IValue(tensor);
  e.is_buffer = is_buffer;
}

void OutputArchive::write(const std::string& key, OutputArchive& nested_archive) {
  new_entry(*root_, key).nested = std::make_shared<ArchiveNode>(*nested_archive.root_);
}

InputArchive::InputArchive() : root_(std::make_shared<ArchiveNode>()) {}
InputArchive::InputArchive(std::shared_ptr<ArchiveNode> root) : root_(std::move(root)) {
  EMBER_CHECK(root_ != nullptr, "InputArchive: null tree");
}

bool InputArchive::try_read(const std::string& key, IValue& ivalue) {
  const ArchiveNode::Entry* e = root_->find(key);
  if (e == nullptr || e->nested) return false;
  ivalue = e->value;
  return true;
}

void InputArchive::read(const std::string& key, IValue& ivalue) {
  const ArchiveNode::Entry& e = existing_entry(*root_, key);
  EMBER_CHECK(!e.nested, "InputArchive::read: entry '{}' is a nested archive, not a value", key);
  ivalue = e.value;
}

bool InputArchive::try_read(const std::string& key, Tensor& tensor, bool is_buffer) {
  const ArchiveNode::Entry* e = root_->find(key);
  if (e == nullptr || e->nested || !e->value.isTensor()) return false;
  if (e->is_buffer_known && e->is_buffer != is_buffer) return false;
  const Tensor& stored = e->value.toTensor();
  if (tensor.defined()) {
    EMBER_CHECK(tensor.sizes().equals(stored.sizes()),
                "InputArchive::read: entry '{}' has shape {}, the tensor to read it into {}", key,
                stored.sizes(), tensor.sizes());
    NoGradGuard no_grad;
    tensor.copy_(stored);  // converts dtype and device to the tensor's own
  } else {
    tensor = stored;
  }
  return true;
}

void InputArchive::read(const std::string& key, Tensor& tensor, bool is_buffer) {
  const ArchiveNode::Entry& e = existing_entry(*root_, key);
  EMBER_CHECK(!e.nested && e.value.isTensor(),
              "InputArchive::read: entry '{}' holds {}, not a Tensor", key,
              e.nested ? "a nested archive" : e.value.tagKind());
  EMBER_CHECK(!e.is_buffer_known || e.is_buffer == is_buffer,
              "InputArchive::read: entry '{}' was written as a {}, read as a {}", key,
              e.is_buffer ? "buffer" : "parameter", is_buffer ? "buffer" : "parameter");
  try_read(key, tensor, is_buffer);
}

bool InputArchive::try_read(const std::string& key, InputArchive& archive) {
  const ArchiveNode::Entry* e = root_->find(key);
  if (e == nullptr || !e->nested) return false;
  archive.root_ = e->nested;
  return true;
}

void InputArchive::read(const std::string& key, InputArchive& archive) {
  const ArchiveNode::Entry& e = existing_entry(*root_, key);
  EMBER_CHECK(e.nested != nullptr, "InputArchive::read: entry '{}' holds {}, not an archive", key,
              e.value.tagKind());
  archive.root_ = e.nested;
}

std::vector<std::string> InputArchive::keys() {
  std::vector<std::string> out;
  out.reserve(root_->entries.size());
  for (const auto& e : root_->entries) out.push_back(e.key);
  return out;
}

}  // namespace ember::serialize
