#include <cstring>
#include <memory>
#include <vector>

#include "src/core/check.h"
#include "src/serialize/pickle_opcodes.h"
#include "src/serialize/pickle_reader.h"
#include "src/serialize/pickle_unpickler.h"

namespace ember::serialize::detail {

IValue TorchUnpickler::run() {
  while (true) {
    op_pos_ = pos_;
    EMBER_CHECK(pos_ < size_,
                "pickle: {}: the pickle ends at byte {} without a STOP opcode (a truncated "
                "file?)",
                source_, pos_);
    op_ = data_[pos_++];
    if (op_ == pickle_op::kStop) break;
    step();
  }
  if (stack_.empty()) fail("STOP with an empty stack");
  return take_value(pop(), "the result");
}

void TorchUnpickler::fail(const std::string& what) const {
  const char* name = pickle_opcode_name(op_);
  EMBER_FAIL("pickle: {}: {} (opcode {} at byte {})", source_, what,
             name ? name : fmt::format("0x{:02x}", op_), op_pos_);
}

const uint8_t* TorchUnpickler::take(uint64_t n) {
  if (n > size_ - pos_)
    fail(fmt::format("needs {} bytes but only {} are left (a truncated or corrupt pickle)", n,
                     size_ - pos_));
  const uint8_t* p = data_ + pos_;
  pos_ += n;
  return p;
}

uint64_t TorchUnpickler::take_le(int bytes) {
  const uint8_t* p = take(bytes);
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::string TorchUnpickler::take_string(uint64_t n) {
  const uint8_t* p = take(n);
  return std::string(reinterpret_cast<const char*>(p), n);
}

std::string TorchUnpickler::take_line() {
  const void* nl = std::memchr(data_ + pos_, '\n', size_ - pos_);
  if (nl == nullptr) fail("a GLOBAL name has no terminating newline");
  const size_t n = static_cast<const uint8_t*>(nl) - (data_ + pos_);
  std::string s = take_string(n);
  ++pos_;
  return s;
}

int64_t TorchUnpickler::take_long(uint64_t n) {
  if (n > 8) fail(fmt::format("an integer of {} bytes does not fit int64", n));
  const uint8_t* p = take(n);
  uint64_t v = 0;
  for (uint64_t i = n; i-- > 0;) v = (v << 8) | p[i];
  if (n > 0 && n < 8 && (p[n - 1] & 0x80)) v |= ~uint64_t{0} << (8 * n);  // sign-extend
  return static_cast<int64_t>(v);
}

void TorchUnpickler::push(PickleItem item) {
  if (stack_.size() >= kPickleMaxStack)
    fail(fmt::format("the stack exceeds {} items", kPickleMaxStack));
  stack_.push_back(std::move(item));
}

void TorchUnpickler::push(IValue v) {
  PickleItem item;
  item.value = std::move(v);
  push(std::move(item));
}

PickleItem TorchUnpickler::pop() {
  if (stack_.size() <= (marks_.empty() ? 0 : marks_.back())) fail("pops an empty stack");
  PickleItem item = std::move(stack_.back());
  stack_.pop_back();
  return item;
}

PickleItem& TorchUnpickler::top() {
  if (stack_.size() <= (marks_.empty() ? 0 : marks_.back())) fail("reads an empty stack");
  return stack_.back();
}

std::vector<PickleItem> TorchUnpickler::pop_mark() {
  if (marks_.empty()) fail("has no MARK to pop to");
  const size_t m = marks_.back();
  marks_.pop_back();
  std::vector<PickleItem> items(std::make_move_iterator(stack_.begin() + m),
                                std::make_move_iterator(stack_.end()));
  stack_.resize(m);
  return items;
}

const void* TorchUnpickler::container_of(const IValue& v) {
  if (v.isGenericList()) return v.toList().get();
  if (v.isGenericDict()) return &v.toGenericDict();
  if (v.isTuple()) return v.toTuple().get();
  return nullptr;
}

TorchUnpickler::Info* TorchUnpickler::info_of(const IValue& v) {
  const void* c = container_of(v);
  if (c == nullptr) return nullptr;
  auto it = containers_.find(c);
  return it == containers_.end() ? nullptr : &it->second;
}

int TorchUnpickler::depth_of(const PickleItem& item) {
  if (item.kind == PickleItem::Kind::RawTuple) return item.depth;
  if (item.kind != PickleItem::Kind::Value) return 0;
  const Info* info = info_of(item.value);
  return info ? info->depth : 0;
}

void TorchUnpickler::check_depth(int depth) const {
  if (depth > kPickleMaxNesting)
    fail(fmt::format("containers nest deeper than {} levels", kPickleMaxNesting));
}

IValue TorchUnpickler::adopt(Info& parent, PickleItem&& child) {
  const int depth = depth_of(child) + 1;
  check_depth(depth);
  if (depth > parent.depth) parent.depth = depth;
  IValue v = take_value(std::move(child), "a container element");
  if (Info* ci = info_of(v)) {
    if (ci == &parent)
      fail(
          "puts a container inside itself (recursive structures are not "
          "supported)");
    ci->sealed = true;
  }
  return v;
}

IValue TorchUnpickler::take_value(PickleItem&& item, const char* role) {
  if (item.kind != PickleItem::Kind::Value) {
    const char* what = item.kind == PickleItem::Kind::Global    ? "a class or function"
                       : item.kind == PickleItem::Kind::Storage ? "a bare storage"
                                                                : "a tuple holding a storage";
    fail(fmt::format("{} is {}, which only a tensor's rebuild may take", role, what));
  }
  return std::move(item.value);
}

TorchUnpickler::Info& TorchUnpickler::mutable_container(const PickleItem& item, bool want_dict) {
  Info* info = item.kind == PickleItem::Kind::Value ? info_of(item.value) : nullptr;
  const bool kind_ok =
      info && (want_dict ? item.value.isGenericDict() : item.value.isGenericList());
  if (!kind_ok) fail(fmt::format("the target is not a {}", want_dict ? "dict" : "list"));
  if (info->sealed)
    fail(
        "modifies a container already placed inside another (recursive structures are not "
        "supported)");
  return *info;
}

void TorchUnpickler::make_tuple(std::vector<PickleItem> items) {
  int depth = 0;
  bool raw = false;
  for (const PickleItem& it : items) {
    depth = std::max(depth, depth_of(it));
    raw |= it.kind != PickleItem::Kind::Value;
    if (it.kind != PickleItem::Kind::Value) continue;
    if (Info* ci = info_of(it.value)) ci->sealed = true;  // a tuple's elements are fixed
  }
  if (raw) {
    check_depth(depth + 1);
    PickleItem t;
    t.kind = PickleItem::Kind::RawTuple;
    t.depth = depth + 1;
    t.raw = std::make_shared<std::vector<PickleItem>>(std::move(items));
    push(std::move(t));
    return;
  }
  std::vector<IValue> values;
  values.reserve(items.size());
  for (PickleItem& it : items) values.push_back(std::move(it.value));
  push(new_container(Tuple::create(std::move(values)), depth + 1));
}

void TorchUnpickler::set_items(Info& dict_info, GenericDict& dict, std::vector<PickleItem>& items) {
  if (items.size() % 2 != 0) fail("has an odd number of items for key/value pairs");
  for (size_t i = 0; i < items.size(); i += 2) {
    IValue key = take_value(std::move(items[i]), "a dict key");
    IValue value = adopt(dict_info, std::move(items[i + 1]));
    if (!(key.isString() || key.isInt() || key.isBool() || key.isNone() || key.isDouble()))
      fail(fmt::format("a dict key is a {}, not a string, number, bool or None", key.tagKind()));
    dict.insert_or_assign(key, std::move(value));
  }
}

void TorchUnpickler::memo_put(uint64_t index) {
  if (memo_.size() >= kPickleMaxMemo && memo_.count(index) == 0)
    fail(fmt::format("the memo exceeds {} entries", kPickleMaxMemo));
  memo_[index] = top();
}

void TorchUnpickler::memo_get(uint64_t index) {
  auto it = memo_.find(index);
  if (it == memo_.end()) fail(fmt::format("memo entry {} was never stored", index));
  push(it->second);
}

void TorchUnpickler::step() {
  switch (op_) {
    case pickle_op::kProto: {
      const uint64_t v = take_le(1);
      if (v < 2 || v > 5) fail(fmt::format("pickle protocol {} is not supported (2 to 5 are)", v));
      return;
    }
    case pickle_op::kFrame: {
      const uint64_t n = take_le(8);
      if (n > size_ - pos_) fail(fmt::format("a frame of {} bytes runs past the end", n));
      return;
    }
    case pickle_op::kMark:
      if (marks_.size() >= kPickleMaxStack) fail("too many MARKs");
      marks_.push_back(stack_.size());
      return;
    case pickle_op::kPop:
      pop();
      return;
    case pickle_op::kPopMark:
      pop_mark();
      return;
    case pickle_op::kDup:
      push(PickleItem(top()));
      return;
    case pickle_op::kBinInt:
      push(IValue(static_cast<int64_t>(static_cast<int32_t>(take_le(4)))));
      return;
    case pickle_op::kBinInt1:
      push(IValue(static_cast<int64_t>(take_le(1))));
      return;
    case pickle_op::kBinInt2:
      push(IValue(static_cast<int64_t>(take_le(2))));
      return;
    case pickle_op::kLong1:
      push(IValue(take_long(take_le(1))));
      return;
    case pickle_op::kLong4:
      push(IValue(take_long(take_le(4))));
      return;
    case pickle_op::kNone:
      push(IValue());
      return;
    case pickle_op::kNewTrue:
    case pickle_op::kNewFalse:
      push(IValue(op_ == pickle_op::kNewTrue));
      return;
    case pickle_op::kBinFloat: {
      const uint8_t* p = take(8);
      uint64_t bits = 0;
      for (int i = 0; i < 8; ++i) bits = (bits << 8) | p[i];  // big-endian
      double d;
      std::memcpy(&d, &bits, sizeof d);
      push(IValue(d));
      return;
    }
    case pickle_op::kShortBinUnicode:
      push(IValue(take_string(take_le(1))));
      return;
    case pickle_op::kBinUnicode:
      push(IValue(take_string(take_le(4))));
      return;
    case pickle_op::kBinUnicode8:
      push(IValue(take_string(take_le(8))));
      return;
    case pickle_op::kEmptyTuple:
      make_tuple({});
      return;
    case pickle_op::kTuple:
      make_tuple(pop_mark());
      return;
    case pickle_op::kTuple1:
    case pickle_op::kTuple2:
    case pickle_op::kTuple3: {
      const size_t n = op_ - pickle_op::kTuple1 + 1;
      std::vector<PickleItem> items(n);
      for (size_t i = n; i-- > 0;) items[i] = pop();
      make_tuple(std::move(items));
      return;
    }
    case pickle_op::kEmptyList:
      push(new_container(std::make_shared<GenericList>(), 1));
      return;
    case pickle_op::kList:
    case pickle_op::kAppends:
    case pickle_op::kAppend: {
      std::vector<PickleItem> items;
      if (op_ == pickle_op::kAppend) {
        items.push_back(pop());
      } else {
        items = pop_mark();
      }
      if (op_ == pickle_op::kList) push(new_container(std::make_shared<GenericList>(), 1));
      Info& info = mutable_container(top(), false);
      std::shared_ptr<GenericList> list = top().value.toList();
      for (PickleItem& it : items) list->push_back(adopt(info, std::move(it)));
      return;
    }
    case pickle_op::kEmptyDict:
      push(new_container(std::make_shared<GenericDict>(), 1));
      return;
    case pickle_op::kDict:
    case pickle_op::kSetItems:
    case pickle_op::kSetItem: {
      std::vector<PickleItem> items;
      if (op_ == pickle_op::kSetItem) {
        items.resize(2);
        items[1] = pop();
        items[0] = pop();
      } else {
        items = pop_mark();
      }
      if (op_ == pickle_op::kDict) push(new_container(std::make_shared<GenericDict>(), 1));
      Info& info = mutable_container(top(), true);
      set_items(info, top().value.toGenericDict(), items);
      return;
    }
    case pickle_op::kGlobal: {
      std::string module = take_line();
      std::string name = take_line();
      push(resolve_global(module, name));
      return;
    }
    case pickle_op::kStackGlobal: {
      PickleItem name = pop(), module = pop();
      if (name.kind != PickleItem::Kind::Value || !name.value.isString() ||
          module.kind != PickleItem::Kind::Value || !module.value.isString())
        fail("STACK_GLOBAL's module and name are not strings");
      push(resolve_global(module.value.toStringRef(), name.value.toStringRef()));
      return;
    }
    case pickle_op::kReduce:
      reduce();
      return;
    case pickle_op::kBuild:
      build();
      return;
    case pickle_op::kBinPersId:
      push(persistent_load(pop()));
      return;
    case pickle_op::kBinPut:
      memo_put(take_le(1));
      return;
    case pickle_op::kLongBinPut:
      memo_put(take_le(4));
      return;
    case pickle_op::kMemoize:
      memo_put(next_memoize_++);
      return;
    case pickle_op::kBinGet:
      memo_get(take_le(1));
      return;
    case pickle_op::kLongBinGet:
      memo_get(take_le(4));
      return;
    default:
      fail("this opcode is not allowed: a state_dict pickle never uses it");
  }
}

IValue unpickle(const uint8_t* data, size_t size, const std::string& source,
                const PickleStorageLoader& load_storage) {
  return TorchUnpickler(data, size, source, load_storage).run();
}

}  // namespace ember::serialize::detail
