// Module::save / Module::load (LibTorch's archive layout: parameters, buffers, then submodules as
// nested archives), with one guarantee LibTorch lacks: a load that does not fit changes nothing.
#include <string>
#include <vector>

#include "ember/nn/module.h"
#include "ember/serialize/archive.h"
#include "src/core/check.h"

namespace ember::nn {
namespace {

std::string module_archive_shape(IntArrayRef sizes) {
  return fmt::format("[{}]", fmt::join(sizes, ", "));
}

// A submodule with nothing to save (a ReLU, a Dropout) may be absent from an archive: Python's
// state_dict files (and so the archives read from them) have no entry for it.
bool module_has_no_state(const Module& m) { return m.parameters().empty() && m.buffers().empty(); }

}  // namespace

void Module::save(serialize::OutputArchive& archive) const {
  for (const auto& p : parameters_)
    if (p.value().defined()) archive.write(p.key(), p.value());
  for (const auto& b : buffers_)
    if (b.value().defined() && is_persistent_buffer(b.key()))
      archive.write(b.key(), b.value(), /*is_buffer=*/true);
  for (const auto& child : children_) {
    if (!child.value()->is_serializable()) continue;
    serialize::OutputArchive nested;
    child.value()->save(nested);
    archive.write(child.key(), nested);
  }
}

void Module::load(serialize::InputArchive& archive) {
  // Pass 1: match the whole tree against the archive, collecting every problem.
  std::vector<std::string> errors;
  auto check = [&](auto& self, const Module& m, const serialize::ArchiveNode& node,
                   const std::string& pre) -> void {
    auto expect = [&](const std::string& key, const Tensor& mine, bool is_buffer) {
      const char* kind = is_buffer ? "buffer" : "parameter";
      const serialize::ArchiveNode::Entry* e = node.find(key);
      if (e == nullptr) {
        errors.push_back(fmt::format("missing {} '{}{}'", kind, pre, key));
      } else if (e->nested || !e->value.isTensor() || !e->value.toTensor().defined()) {
        errors.push_back(fmt::format("'{}{}' holds {}, not a tensor", pre, key,
                                     e->nested ? "a nested archive" : e->value.tagKind()));
      } else if (e->is_buffer_known && e->is_buffer != is_buffer) {
        errors.push_back(fmt::format("'{}{}' was saved as a {}, the module has a {}", pre, key,
                                     e->is_buffer ? "buffer" : "parameter", kind));
      } else if (!e->value.toTensor().sizes().equals(mine.sizes())) {
        errors.push_back(
            fmt::format("shape mismatch for {} '{}{}': the archive has {}, the "
                        "module {}",
                        kind, pre, key, module_archive_shape(e->value.toTensor().sizes()),
                        module_archive_shape(mine.sizes())));
      }
    };
    for (const auto& p : m.parameters_)
      if (p.value().defined()) expect(p.key(), p.value(), false);
    for (const auto& b : m.buffers_)
      if (b.value().defined() && m.is_persistent_buffer(b.key())) expect(b.key(), b.value(), true);
    for (const auto& child : m.children_) {
      if (!child.value()->is_serializable()) continue;
      const serialize::ArchiveNode::Entry* e = node.find(child.key());
      if (e == nullptr && module_has_no_state(*child.value())) continue;
      if (e == nullptr || !e->nested)
        errors.push_back(fmt::format("missing submodule '{}{}'", pre, child.key()));
      else
        self(self, *child.value(), *e->nested, pre + child.key() + ".");
    }
  };
  check(check, *this, archive.root(), "");
  if (!errors.empty())
    EMBER_FAIL("Module::load: the archive does not fit {}:\n\t{}\nNothing was loaded.", name(),
               fmt::join(errors, "\n\t"));

  // Pass 2: copy (in place, under no-grad, converting dtype and device: InputArchive::read).
  for (auto& p : parameters_)
    if (p.value().defined()) archive.read(p.key(), p.value());
  for (auto& b : buffers_)
    if (b.value().defined() && is_persistent_buffer(b.key()))
      archive.read(b.key(), b.value(), /*is_buffer=*/true);
  for (const auto& child : children_) {
    if (!child.value()->is_serializable()) continue;
    serialize::InputArchive nested;
    if (!archive.try_read(child.key(), nested)) continue;  // stateless: checked in pass 1
    child.value()->load(nested);
  }
}

}  // namespace ember::nn
