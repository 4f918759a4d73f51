// The restricted unpickler's machine (see pickle_reader.h for what it accepts and why): a stack
// of items, a memo, MARK positions and a table of the containers it built. pickle_reader.cpp runs
// the opcodes and keeps the containers bounded; pickle_reader_torch.cpp holds what is specific to
// PyTorch (the allowed globals, persistent ids, tensor rebuilds, REDUCE and BUILD).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/serialize/pickle_reader.h"

namespace ember::serialize::detail {

enum class PickleGlobal { OrderedDict, RebuildTensorV2, RebuildParameter, StorageClass };

// One stack or memo entry: a value, or one of the things only a state_dict's machinery handles
// (a whitelisted global, a loaded storage, a tuple holding either).
struct PickleItem {
  enum class Kind { Value, Global, Storage, RawTuple } kind = Kind::Value;
  IValue value;
  PickleGlobal global = PickleGlobal::OrderedDict;
  ScalarType dtype = ScalarType::Undefined;  // a storage class, or a storage's dtype
  std::string name;                          // a global's "module.name"
  intrusive_ptr<StorageImpl> storage;
  int64_t numel = 0;
  std::shared_ptr<std::vector<PickleItem>> raw;  // a raw tuple's elements
  int depth = 0;                                 // a raw tuple's nesting
};

// One run over one pickle; run() returns what STOP finds on the stack.
class TorchUnpickler {
 public:
  TorchUnpickler(const uint8_t* data, size_t size, const std::string& source,
                 const PickleStorageLoader& load)
      : data_(data), size_(size), source_(source), load_(load) {}

  IValue run();

 private:
  [[noreturn]] void fail(const std::string& what) const;

  // ---- input ----
  const uint8_t* take(uint64_t n);
  uint64_t take_le(int bytes);
  std::string take_string(uint64_t n);
  std::string take_line();
  int64_t take_long(uint64_t n);

  // ---- stack ----
  void push(PickleItem item);
  void push(IValue v);
  PickleItem pop();
  PickleItem& top();
  // The items pushed since the last MARK, which is removed.
  std::vector<PickleItem> pop_mark();

  // ---- containers: nesting is tracked per container; one placed inside another is sealed ----
  struct Info {
    std::shared_ptr<const void> keep;  // keeps the address unique while the table lives
    int depth = 1;
    bool sealed = false;
  };
  static const void* container_of(const IValue& v);
  Info* info_of(const IValue& v);
  int depth_of(const PickleItem& item);
  template <class T>
  IValue new_container(std::shared_ptr<T> c, int depth) {
    check_depth(depth);
    containers_[c.get()] = Info{c, depth, false};
    return IValue(std::move(c));
  }
  void check_depth(int depth) const;
  // Places `child` inside `parent` (a list or dict on the stack, not yet sealed).
  IValue adopt(Info& parent, PickleItem&& child);
  IValue take_value(PickleItem&& item, const char* role);
  Info& mutable_container(const PickleItem& item, bool want_dict);
  void make_tuple(std::vector<PickleItem> items);
  void set_items(Info& dict_info, GenericDict& dict, std::vector<PickleItem>& items);

  // ---- memo ----
  void memo_put(uint64_t index);
  void memo_get(uint64_t index);

  // ---- PyTorch's part (pickle_reader_torch.cpp): globals, persistent ids, REDUCE, BUILD ----
  struct LoadedStorage {
    intrusive_ptr<StorageImpl> storage;
    ScalarType dtype;
    int64_t numel;
  };
  PickleItem resolve_global(const std::string& module, const std::string& name);
  PickleItem persistent_load(PickleItem pid);
  std::vector<int64_t> int_tuple(const PickleItem& item, const char* what);
  Tensor rebuild_tensor(const std::vector<PickleItem>& a);
  void set_requires_grad(const Tensor& t);
  void reduce();
  void build();

  // Runs the opcode in op_.
  void step();

  const uint8_t* data_;
  size_t size_;
  const std::string& source_;
  const PickleStorageLoader& load_;
  size_t pos_ = 0, op_pos_ = 0;
  uint8_t op_ = 0;
  std::vector<PickleItem> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, PickleItem> memo_;
  uint64_t next_memoize_ = 0;
  std::unordered_map<const void*, Info> containers_;
  std::unordered_map<std::string, LoadedStorage> storages_;
};

}  // namespace ember::serialize::detail
