#include "src/serialize/pickle_writer.h"

#include <cstring>
#include <unordered_map>

#include "src/core/check.h"
#include "src/serialize/pickle_opcodes.h"
#include "src/serialize/pickle_reader.h"

namespace ember::serialize::detail {

namespace {

class TorchPickler {
 public:
  TorchPickler(bool ordered_dicts, const PickleTensorSink& sink, const char* op)
      : ordered_(ordered_dicts), sink_(sink), op_(op) {}

  std::vector<char> run(const IValue& v) {
    byte(pickle_op::kProto);
    byte(2);
    value(v, 0);
    byte(pickle_op::kStop);
    return std::move(out_);
  }

 private:
  void byte(uint8_t b) { out_.push_back(static_cast<char>(b)); }
  void le(uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) byte(static_cast<uint8_t>(v >> (8 * i)));
  }
  void integer(int64_t v) {
    if (v >= 0 && v < 256) {
      byte(pickle_op::kBinInt1);
      le(static_cast<uint64_t>(v), 1);
    } else if (v >= 0 && v < 65536) {
      byte(pickle_op::kBinInt2);
      le(static_cast<uint64_t>(v), 2);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      byte(pickle_op::kBinInt);
      le(static_cast<uint64_t>(v), 4);
    } else {
      byte(pickle_op::kLong1);
      byte(8);
      le(static_cast<uint64_t>(v), 8);
    }
  }
  void string(const std::string& s) {
    byte(pickle_op::kBinUnicode);
    EMBER_CHECK(s.size() <= UINT32_MAX, "{}: a string of {} bytes is too long to pickle", op_,
                s.size());
    le(s.size(), 4);
    out_.insert(out_.end(), s.begin(), s.end());
  }
  void floating(double d) {
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    byte(pickle_op::kBinFloat);
    for (int i = 7; i >= 0; --i) byte(static_cast<uint8_t>(bits >> (8 * i)));  // big-endian
  }
  void put_memo(const void* key) {
    const uint64_t index = memo_.size();
    memo_.emplace(key, index);
    if (index < 256) {
      byte(pickle_op::kBinPut);
      le(index, 1);
    } else {
      byte(pickle_op::kLongBinPut);
      le(index, 4);
    }
  }
  // Writes a memo GET when `key` was memoized; false when not.
  bool get_memo(const void* key) {
    auto it = memo_.find(key);
    if (it == memo_.end()) return false;
    if (it->second < 256) {
      byte(pickle_op::kBinGet);
      le(it->second, 1);
    } else {
      byte(pickle_op::kLongBinGet);
      le(it->second, 4);
    }
    return true;
  }
  void global(const std::string& module, const std::string& name) {
    auto [it, fresh] = global_keys_.emplace(module + "\n" + name, nullptr);
    if (fresh) it->second = &it->first;
    if (get_memo(it->second)) return;
    byte(pickle_op::kGlobal);
    out_.insert(out_.end(), module.begin(), module.end());
    byte('\n');
    out_.insert(out_.end(), name.begin(), name.end());
    byte('\n');
    put_memo(it->second);
  }
  void int_tuple(IntArrayRef v) {
    if (v.empty()) {
      byte(pickle_op::kEmptyTuple);
      return;
    }
    if (v.size() > 3) byte(pickle_op::kMark);
    for (int64_t x : v) integer(x);
    byte(v.size() > 3 ? pickle_op::kTuple
                      : static_cast<uint8_t>(pickle_op::kTuple1 + v.size() - 1));
  }
  void empty_ordered_dict() {
    global("collections", "OrderedDict");
    byte(pickle_op::kEmptyTuple);
    byte(pickle_op::kReduce);
  }

  void tensor(const Tensor& t) {
    EMBER_CHECK(t.defined(), "{}: cannot pickle an undefined tensor", op_);
    const PickleStorageRef ref = sink_(t);
    global("torch._utils", "_rebuild_tensor_v2");
    byte(pickle_op::kMark);
    byte(pickle_op::kMark);
    string("storage");
    global("torch", pickle_storage_class(t.scalar_type()));
    string(ref.key);
    string("cpu");  // the bytes are written from host memory; torch.load puts them on the CPU
    integer(ref.numel);
    byte(pickle_op::kTuple);
    byte(pickle_op::kBinPersId);
    integer(t.storage_offset());
    int_tuple(t.sizes());
    int_tuple(t.strides());
    byte(t.requires_grad() ? pickle_op::kNewTrue : pickle_op::kNewFalse);
    empty_ordered_dict();  // backward hooks: none
    byte(pickle_op::kTuple);
    byte(pickle_op::kReduce);
  }

  void value(const IValue& v, int depth) {
    EMBER_CHECK(depth <= kPickleMaxNesting, "{}: containers nest deeper than {} levels", op_,
                kPickleMaxNesting);
    if (v.isNone()) {
      byte(pickle_op::kNone);
    } else if (v.isBool()) {
      byte(v.toBool() ? pickle_op::kNewTrue : pickle_op::kNewFalse);
    } else if (v.isInt()) {
      integer(v.toInt());
    } else if (v.isDouble()) {
      floating(v.toDouble());
    } else if (v.isString()) {
      string(v.toStringRef());
    } else if (v.isTensor()) {
      tensor(v.toTensor());
    } else if (v.isTuple()) {
      // Memoized like the other containers: a tuple reached twice is written once (a shared
      // tuple nested n deep would otherwise be written 2^n times).
      const Tuple* tuple = v.toTuple().get();
      if (get_memo(tuple)) return;
      const auto& el = tuple->elements();
      if (el.empty()) {
        byte(pickle_op::kEmptyTuple);
      } else {
        if (el.size() > 3) byte(pickle_op::kMark);
        for (const IValue& e : el) value(e, depth + 1);
        byte(el.size() > 3 ? pickle_op::kTuple
                           : static_cast<uint8_t>(pickle_op::kTuple1 + el.size() - 1));
      }
      put_memo(tuple);
    } else if (v.isGenericDict()) {
      const GenericDict& d = v.toGenericDict();
      if (get_memo(&d)) return;
      if (ordered_) {
        empty_ordered_dict();
      } else {
        byte(pickle_op::kEmptyDict);
      }
      put_memo(&d);
      if (d.empty()) return;
      byte(pickle_op::kMark);
      for (const auto& e : d) {
        value(e.key(), depth + 1);
        value(e.value(), depth + 1);
      }
      byte(pickle_op::kSetItems);
    } else if (v.isList()) {
      const std::shared_ptr<GenericList> list = v.toList();
      if (v.isGenericList() && get_memo(list.get())) return;
      byte(pickle_op::kEmptyList);
      if (v.isGenericList()) put_memo(list.get());
      if (list->empty()) return;
      byte(pickle_op::kMark);
      for (const IValue& e : *list) value(e, depth + 1);
      byte(pickle_op::kAppends);
    } else {
      EMBER_FAIL("{}: cannot pickle a {}", op_, v.tagKind());
    }
  }

  bool ordered_;
  const PickleTensorSink& sink_;
  const char* op_;
  std::vector<char> out_;
  std::unordered_map<const void*, uint64_t> memo_;
  std::unordered_map<std::string, const void*> global_keys_;
};

}  // namespace

std::vector<char> pickle_value(const IValue& value, bool ordered_dicts,
                               const PickleTensorSink& tensor_sink, const char* op) {
  return TorchPickler(ordered_dicts, tensor_sink, op).run(value);
}

}  // namespace ember::serialize::detail
