// torch::serialize::OutputArchive / InputArchive: a tree of named values (tensors, numbers,
// strings, lists) and nested archives, the unit that ember::save / ember::load move to and from a
// file. Modules write their parameters, buffers and submodules into one; optimizers their options
// and per-parameter state; schedulers their counters.
//
//   ember::serialize::OutputArchive out;
//   out.write("weight", w);
//   out.write("step", int64_t{3});
//   out.save_to("ckpt.pt");
//   ember::serialize::InputArchive in;
//   in.load_from("ckpt.pt");
//   ember::Tensor w2;  in.read("weight", w2);
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/core/device.h"
#include "ember/core/ivalue.h"
#include "ember/core/macros.h"
#include "ember/core/tensor.h"

namespace ember::serialize {

/// One node of an archive: its entries in write order. A value entry holds an IValue (with
/// is_buffer for tensors, as LibTorch's Module::save marks buffers); a nested entry holds another
/// node. Shared by OutputArchive and InputArchive, and what the on-disk formats walk.
struct EMBER_API ArchiveNode {
  struct Entry {
    std::string key;
    IValue value;                         // when nested is null
    bool is_buffer = false;               // a tensor entry written as a buffer
    bool is_buffer_known = true;          // false: the file did not say (a plain safetensors or
                                          // state_dict file), so reads as either kind succeed
    std::shared_ptr<ArchiveNode> nested;  // a nested archive
  };
  std::vector<Entry> entries;

  /// The entry named `key`, or nullptr.
  const Entry* find(const std::string& key) const;
  Entry* find(const std::string& key);
};

class EMBER_API OutputArchive {
 public:
  OutputArchive();

  /// Writes a value (a tensor, number, bool, string or list) under `key`. Error when `key` was
  /// already written to this archive.
  void write(const std::string& key, const IValue& ivalue);
  /// Writes a tensor; `is_buffer` marks a module buffer (kept apart from parameters on load).
  void write(const std::string& key, const Tensor& tensor, bool is_buffer = false);
  /// Writes a nested archive (its current content; later writes to it are not seen).
  void write(const std::string& key, OutputArchive& nested_archive);

  /// Writes the archive to a file (atomically: temporary file, fsync, rename), a stream, or a
  /// writer function that returns the number of bytes it took (fewer is an Error).
  void save_to(const std::string& filename);
  void save_to(std::ostream& stream);
  void save_to(const std::function<size_t(const void*, size_t)>& func);

  /// archive(key, value[, is_buffer]) == archive.write(...), as LibTorch.
  template <typename... Ts>
  void operator()(Ts&&... ts) {
    write(std::forward<Ts>(ts)...);
  }

  /// The tree written so far (Ember: what the format writers walk).
  const ArchiveNode& root() const { return *root_; }

 private:
  std::shared_ptr<ArchiveNode> root_;
};

class EMBER_API InputArchive {
 public:
  InputArchive();
  /// An archive over an existing tree (Ember: what the format readers produce).
  explicit InputArchive(std::shared_ptr<ArchiveNode> root);

  /// Reads the value under `key`; Error naming the key (and the keys there are) when absent.
  void read(const std::string& key, IValue& ivalue);
  bool try_read(const std::string& key, IValue& ivalue);
  /// Reads a tensor. When `tensor` is defined the stored values are copied into it (under
  /// NoGradGuard, converting dtype and device; the object a module registered stays the same),
  /// else it is assigned. Error when the entry is not a tensor, its shape differs from a defined
  /// `tensor`'s, or `is_buffer` differs from how it was written (try_read: false instead).
  void read(const std::string& key, Tensor& tensor, bool is_buffer = false);
  bool try_read(const std::string& key, Tensor& tensor, bool is_buffer = false);
  /// Reads a nested archive.
  void read(const std::string& key, InputArchive& archive);
  bool try_read(const std::string& key, InputArchive& archive);

  /// Loads an archive written by OutputArchive::save_to (or a state_dict file Python wrote:
  /// see ember/serialize.h) from a file, stream, memory or reader functions. Tensors are moved
  /// to `device` when given. A corrupt or truncated file is an Error naming what is wrong.
  void load_from(const std::string& filename, std::optional<Device> device = std::nullopt);
  void load_from(std::istream& stream, std::optional<Device> device = std::nullopt);
  void load_from(const char* data, size_t size, std::optional<Device> device = std::nullopt);
  void load_from(const std::function<size_t(uint64_t pos, void* buf, size_t nbytes)>& read_func,
                 const std::function<size_t(void)>& size_func,
                 std::optional<Device> device = std::nullopt);

  /// The keys of this level, in write order.
  std::vector<std::string> keys();

  template <typename... Ts>
  void operator()(Ts&&... ts) {
    read(std::forward<Ts>(ts)...);
  }

  const ArchiveNode& root() const { return *root_; }

 private:
  std::shared_ptr<ArchiveNode> root_;
};

}  // namespace ember::serialize
