// Archive tree <-> safetensors file (the format is described in archive_format.h).
#include "src/serialize/archive_format.h"

#include <cstring>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "src/core/check.h"
#include "src/serialize/json.h"
#include "src/serialize/torch_format_internal.h"

namespace ember::serialize::detail {
namespace {

std::string archive_join(const std::vector<std::string>& path, size_t n, char sep) {
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    if (i) out += sep;
    out += path[i];
  }
  return out;
}

std::string archive_bits_hex(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return fmt::format("{:016x}", bits);
}

std::string archive_hex(const std::string& s) {
  std::string out;
  for (unsigned char c : s) out += fmt::format("{:02x}", c);
  return out;
}

// Walks the tree pre-order, writing one JSON entry per node entry and collecting the tensors.
class ArchiveWriter {
 public:
  // "__metadata__" is the safetensors header's own key: a tensor there is renamed like a clash.
  explicit ArchiveWriter(const char* op) : op_(op), names_{"__metadata__"} {}

  void node(const ArchiveNode& n, std::vector<std::string>& path) {
    for (const ArchiveNode::Entry& e : n.entries) {
      path.push_back(e.key);
      EMBER_CHECK(is_valid_utf8(e.key), "{}: archive key '{}' (at '{}') is not valid UTF-8", op_,
                  e.key, archive_join(path, path.size(), '.'));
      begin_entry(path);
      if (e.nested) {
        json_ += "\"archive\"}";
        node(*e.nested, path);
      } else {
        value(e, path);
      }
      path.pop_back();
    }
  }

  std::string json() const {
    return "{\"format\":\"ember.archive\",\"version\":1,\"entries\":[" + json_ + "]}";
  }
  const std::vector<std::pair<std::string, Tensor>>& tensors() const { return tensors_; }

 private:
  void begin_entry(const std::vector<std::string>& path) {
    if (!json_.empty()) json_ += ',';
    json_ += "{\"path\":[";
    for (size_t i = 0; i < path.size(); ++i) {
      if (i) json_ += ',';
      append_json_string(json_, path[i]);
    }
    json_ += "],\"kind\":";
  }

  // A tensor's safetensors name: its dotted path, made unique when keys with dots collide.
  std::string add_tensor(const std::string& base, const Tensor& t) {
    std::string name = base;
    for (int k = 1; names_.count(name); ++k) name = base + "~" + std::to_string(k);
    names_.insert(name);
    tensors_.emplace_back(name, t);
    return name;
  }

  // The entry-level value: the fields after "kind": of its JSON object.
  void value(const ArchiveNode::Entry& e, const std::vector<std::string>& path) {
    value(e.value, archive_join(path, path.size(), '.'), e.is_buffer, 0);
  }

  // Generic containers nest values ({"kind":...} objects): bounded so that reading them back stays
  // within the JSON reader's depth (two or three JSON levels per container level).
  static constexpr int kMaxContainerDepth = 16;

  void nested_value(const IValue& v, const std::string& dotted, int depth) {
    json_ += "{\"kind\":";
    value(v, dotted, false, depth);
  }

  void value(const IValue& v, const std::string& dotted, bool is_buffer, int depth) {
    if (v.isTensor() && v.toTensor().defined()) {
      json_ += "\"tensor\",\"name\":";
      append_json_string(json_, add_tensor(dotted, v.toTensor()));
      json_ += is_buffer ? ",\"buffer\":true}" : ",\"buffer\":false}";
    } else if (v.isTensor()) {
      json_ += is_buffer ? "\"undefined_tensor\",\"buffer\":true}" : "\"undefined_tensor\"}";
    } else if (v.isNone()) {
      json_ += "\"none\"}";
    } else if (v.isInt()) {
      json_ += fmt::format("\"int\",\"value\":{}}}", v.toInt());
    } else if (v.isDouble()) {
      json_ += fmt::format("\"double\",\"bits\":\"{}\"}}", archive_bits_hex(v.toDouble()));
    } else if (v.isBool()) {
      json_ += v.toBool() ? "\"bool\",\"value\":true}" : "\"bool\",\"value\":false}";
    } else if (v.isString()) {
      const std::string& s = v.toStringRef();
      if (is_valid_utf8(s)) {
        json_ += "\"string\",\"value\":";
        append_json_string(json_, s);
        json_ += '}';
      } else {  // JSON holds UTF-8 only: other bytes go as hex
        json_ += "\"string\",\"hex\":\"" + archive_hex(s) + "\"}";
      }
    } else if (v.isIntList()) {
      json_ += fmt::format("\"int_list\",\"value\":[{}]}}", fmt::join(v.toIntVector(), ","));
    } else if (v.isDoubleList()) {
      json_ += "\"double_list\",\"bits\":[";
      const std::vector<double> d = v.toDoubleVector();
      for (size_t i = 0; i < d.size(); ++i)
        json_ += (i ? ",\"" : "\"") + archive_bits_hex(d[i]) + "\"";
      json_ += "]}";
    } else if (v.isTensorList()) {
      json_ += "\"tensor_list\",\"names\":[";
      const std::vector<Tensor>& ts = v.toTensorList();
      for (size_t i = 0; i < ts.size(); ++i) {
        if (i) json_ += ',';
        if (ts[i].defined())
          append_json_string(json_, add_tensor(dotted + "." + std::to_string(i), ts[i]));
        else
          json_ += "null";
      }
      json_ += "]}";
    } else if (v.isGenericList() || v.isTuple() || v.isGenericDict()) {
      EMBER_CHECK(depth < kMaxContainerDepth,
                  "{}: archive entry '{}' nests lists, tuples or dicts deeper than {} levels", op_,
                  dotted, kMaxContainerDepth);
      if (v.isGenericDict()) {
        json_ += "\"dict\",\"items\":[";
        size_t i = 0;
        for (const auto& item : v.toGenericDict()) {
          json_ += i ? ",[" : "[";
          nested_value(item.key(), dotted + ".key" + std::to_string(i), depth + 1);
          json_ += ',';
          nested_value(item.value(), dotted + "." + std::to_string(i), depth + 1);
          json_ += ']';
          ++i;
        }
      } else {
        const std::vector<IValue>& items =
            v.isTuple() ? v.toTuple()->elements() : v.toList()->vec();
        json_ += v.isTuple() ? "\"tuple\",\"items\":[" : "\"list\",\"items\":[";
        for (size_t i = 0; i < items.size(); ++i) {
          if (i) json_ += ',';
          nested_value(items[i], dotted + "." + std::to_string(i), depth + 1);
        }
      }
      json_ += "]}";
    } else {
      EMBER_FAIL("{}: archive entry '{}' holds a {}, which the archive format cannot store", op_,
                 dotted, v.tagKind());
    }
  }

  const char* op_;
  std::string json_;
  std::vector<std::pair<std::string, Tensor>> tensors_;
  std::unordered_set<std::string> names_;
};

// ---- reading ----

// A file without the ember tree: its tensors as nested archives, names split on '.'.
std::shared_ptr<ArchiveNode> archive_from_flat(std::vector<std::pair<std::string, Tensor>>& tensors,
                                               const std::string& what) {
  auto root = std::make_shared<ArchiveNode>();
  // Keyed "/" + dotted prefix; the root's key "" cannot clash with a tensor named "".
  std::unordered_map<std::string, ArchiveNode*> archives{{"", root.get()}};
  std::unordered_set<std::string> leaves;
  for (auto& [name, t] : tensors) {
    ArchiveNode* node = root.get();
    std::string prefix;
    size_t start = 0;
    for (size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', start)) {
      const std::string part = name.substr(start, dot - start);
      prefix += (start ? "." : "") + part;
      EMBER_CHECK(leaves.count(prefix) == 0,
                  "{}: tensor '{}' needs '{}' to be a nested archive, but '{}' is a tensor", what,
                  name, prefix, prefix);
      auto it = archives.find("/" + prefix);
      if (it == archives.end()) {
        node->entries.emplace_back();
        node->entries.back().key = part;
        node->entries.back().nested = std::make_shared<ArchiveNode>();
        it = archives.emplace("/" + prefix, node->entries.back().nested.get()).first;
      }
      node = it->second;
      start = dot + 1;
    }
    EMBER_CHECK(archives.count("/" + name) == 0,
                "{}: tensor '{}' is also the prefix of other tensors' names ('{}.')", what, name,
                name);
    leaves.insert(name);
    node->entries.emplace_back();
    ArchiveNode::Entry& e = node->entries.back();
    e.key = name.substr(start);
    e.value = IValue(std::move(t));
    e.is_buffer_known = false;  // Python's state_dict files do not say which are buffers
  }
  return root;
}

class ArchiveTreeReader {
 public:
  ArchiveTreeReader(std::vector<std::pair<std::string, Tensor>>& tensors, std::string what)
      : tensors_(tensors), what_(std::move(what)) {
    for (size_t i = 0; i < tensors_.size(); ++i) index_.emplace(tensors_[i].first, i);
    used_.assign(tensors_.size(), false);
  }

  std::shared_ptr<ArchiveNode> read(const std::string& text) {
    const JsonValue doc = parse_json(text, what_);
    EMBER_CHECK(doc.kind == JsonValue::Kind::Object, "{}: expected a JSON object", what_);
    const JsonValue* format = doc.find("format");
    const JsonValue* version = doc.find("version");
    const JsonValue* entries = doc.find("entries");
    EMBER_CHECK(
        format && format->kind == JsonValue::Kind::String && format->text == "ember.archive",
        "{}: \"format\" is not \"ember.archive\"", what_);
    EMBER_CHECK(version && version->kind == JsonValue::Kind::Number && version->text == "1",
                "{}: version {} is not 1 (written by a newer Ember?)", what_,
                version ? version->text : "missing");
    EMBER_CHECK(entries && entries->kind == JsonValue::Kind::Array,
                "{}: \"entries\" must be an array", what_);
    auto root = std::make_shared<ArchiveNode>();
    archives_.emplace("", root.get());
    for (size_t i = 0; i < entries->items.size(); ++i) entry(entries->items[i], i);
    for (size_t i = 0; i < tensors_.size(); ++i)
      EMBER_CHECK(used_[i], "{}: tensor '{}' of the file is not in the archive tree", what_,
                  tensors_[i].first);
    return root;
  }

 private:
  // Path parts joined unambiguously (length-prefixed: keys may hold any character).
  static std::string path_id(const std::vector<std::string>& path, size_t n) {
    std::string id;
    for (size_t i = 0; i < n; ++i) id += std::to_string(path[i].size()) + ":" + path[i];
    return id;
  }

  const JsonValue& field(const JsonValue& e, const char* name, JsonValue::Kind kind,
                         const std::string& at) {
    const JsonValue* v = e.find(name);
    EMBER_CHECK(v && v->kind == kind, "{}: entry '{}': missing or mistyped \"{}\"", what_, at,
                name);
    return *v;
  }

  Tensor take_tensor(const JsonValue& name, const std::string& at) {
    EMBER_CHECK(name.kind == JsonValue::Kind::String,
                "{}: entry '{}': a tensor name must be a "
                "string",
                what_, at);
    auto it = index_.find(name.text);
    EMBER_CHECK(it != index_.end(), "{}: entry '{}' names tensor '{}', which the file lacks", what_,
                at, name.text);
    EMBER_CHECK(!used_[it->second],
                "{}: entry '{}' names tensor '{}', already used by another "
                "entry",
                what_, at, name.text);
    used_[it->second] = true;
    return tensors_[it->second].second;
  }

  double bits_to_double(const JsonValue& v, const std::string& at) {
    uint64_t bits = 0;
    bool ok = v.kind == JsonValue::Kind::String && v.text.size() == 16;
    for (size_t i = 0; ok && i < 16; ++i) {
      const char c = v.text[i];
      const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      ok = d >= 0;
      bits = (bits << 4) | static_cast<uint64_t>(ok ? d : 0);
    }
    EMBER_CHECK(ok, "{}: entry '{}': a double must be 16 lowercase hex digits of its bits", what_,
                at);
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }

  int64_t to_int(const JsonValue& v, const std::string& at) {
    int64_t out = 0;
    EMBER_CHECK(json_to_int64(v, out), "{}: entry '{}': {} is not a 64-bit integer", what_, at,
                v.kind == JsonValue::Kind::Number ? v.text : v.kind_name());
    return out;
  }

  void entry(const JsonValue& e, size_t index) {
    EMBER_CHECK(e.kind == JsonValue::Kind::Object, "{}: entry {} is not an object", what_, index);
    const JsonValue* path_v = e.find("path");
    EMBER_CHECK(path_v && path_v->kind == JsonValue::Kind::Array && !path_v->items.empty(),
                "{}: entry {}: \"path\" must be a non-empty array of strings", what_, index);
    std::vector<std::string> path;
    for (const JsonValue& p : path_v->items) {
      EMBER_CHECK(p.kind == JsonValue::Kind::String,
                  "{}: entry {}: \"path\" must be a non-empty array of strings", what_, index);
      path.push_back(p.text);
    }
    const std::string at = archive_join(path, path.size(), '.');
    auto parent = archives_.find(path_id(path, path.size() - 1));
    EMBER_CHECK(parent != archives_.end(),
                "{}: entry '{}' comes before (or without) the archive that holds it", what_, at);
    ArchiveNode& node = *parent->second;
    EMBER_CHECK(node.find(path.back()) == nullptr, "{}: entry '{}' appears twice", what_, at);
    const std::string kind = field(e, "kind", JsonValue::Kind::String, at).text;

    ArchiveNode::Entry out;
    out.key = path.back();
    if (kind == "archive") {
      out.nested = std::make_shared<ArchiveNode>();
      archives_.emplace(path_id(path, path.size()), out.nested.get());
    } else {
      out.value = value(e, at, 0);
      if (const JsonValue* b = e.find("buffer")) {
        EMBER_CHECK(b->kind == JsonValue::Kind::Bool && out.value.isTensor(),
                    "{}: entry '{}': \"buffer\" must be a bool, on a tensor", what_, at);
        out.is_buffer = b->boolean;
      }
    }
    node.entries.push_back(std::move(out));
  }

  // One value object ({"kind": ..., ...}): an entry's, or an element of a list, tuple or dict.
  // Recursion is bounded by the JSON reader's depth limit.
  IValue value(const JsonValue& e, const std::string& at, int depth) {
    EMBER_CHECK(e.kind == JsonValue::Kind::Object, "{}: entry '{}': a value must be an object",
                what_, at);
    const std::string& kind = field(e, "kind", JsonValue::Kind::String, at).text;
    if (kind == "tensor")
      return IValue(take_tensor(field(e, "name", JsonValue::Kind::String, at), at));
    if (kind == "undefined_tensor") return IValue(Tensor());
    if (kind == "none") return IValue();
    if (kind == "int") return IValue(to_int(field(e, "value", JsonValue::Kind::Number, at), at));
    if (kind == "double")
      return IValue(bits_to_double(field(e, "bits", JsonValue::Kind::String, at), at));
    if (kind == "bool") return IValue(field(e, "value", JsonValue::Kind::Bool, at).boolean);
    if (kind == "string") return IValue(string_value(e, at));
    if (kind == "int_list") {
      std::vector<int64_t> v;
      for (const JsonValue& x : field(e, "value", JsonValue::Kind::Array, at).items)
        v.push_back(to_int(x, at));
      return IValue(std::move(v));
    }
    if (kind == "double_list") {
      std::vector<double> v;
      for (const JsonValue& x : field(e, "bits", JsonValue::Kind::Array, at).items)
        v.push_back(bits_to_double(x, at));
      return IValue(std::move(v));
    }
    if (kind == "tensor_list") {
      std::vector<Tensor> v;
      for (const JsonValue& x : field(e, "names", JsonValue::Kind::Array, at).items)
        v.push_back(x.kind == JsonValue::Kind::Null ? Tensor() : take_tensor(x, at));
      return IValue(std::move(v));
    }
    if (kind == "list" || kind == "tuple") {
      std::vector<IValue> items;
      for (const JsonValue& x : field(e, "items", JsonValue::Kind::Array, at).items)
        items.push_back(value(x, at, depth + 1));
      if (kind == "tuple") return IValue(Tuple::create(std::move(items)));
      return IValue(GenericList(std::move(items)));
    }
    if (kind == "dict") {
      GenericDict dict;
      for (const JsonValue& x : field(e, "items", JsonValue::Kind::Array, at).items) {
        EMBER_CHECK(x.kind == JsonValue::Kind::Array && x.items.size() == 2,
                    "{}: entry '{}': a dict item must be [key, value]", what_, at);
        IValue key = value(x.items[0], at, depth + 1);
        EMBER_CHECK(key.isString() || key.isInt() || key.isDouble() || key.isBool() || key.isNone(),
                    "{}: entry '{}': a dict key must be a string, number, bool or none, not {}",
                    what_, at, key.tagKind());
        EMBER_CHECK(!dict.contains(key), "{}: entry '{}': a dict key appears twice", what_, at);
        dict.insert_or_assign(key, value(x.items[1], at, depth + 1));
      }
      return IValue(std::move(dict));
    }
    EMBER_FAIL("{}: entry '{}' has unknown kind '{}'", what_, at, kind);
  }

  std::string string_value(const JsonValue& e, const std::string& at) {
    if (const JsonValue* v = e.find("value")) {
      EMBER_CHECK(v->kind == JsonValue::Kind::String, "{}: entry '{}': \"value\" must be a string",
                  what_, at);
      return v->text;
    }
    const std::string& hex = field(e, "hex", JsonValue::Kind::String, at).text;
    EMBER_CHECK(hex.size() % 2 == 0, "{}: entry '{}': odd-length \"hex\"", what_, at);
    std::string out;
    for (size_t i = 0; i < hex.size(); i += 2) {
      int byte = 0;
      for (size_t k = i; k < i + 2; ++k) {
        const char c = hex[k];
        const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        EMBER_CHECK(d >= 0, "{}: entry '{}': bad digit in \"hex\"", what_, at);
        byte = byte * 16 + d;
      }
      out += static_cast<char>(byte);
    }
    return out;
  }

  std::vector<std::pair<std::string, Tensor>>& tensors_;
  std::string what_;
  std::unordered_map<std::string, size_t> index_;
  std::vector<bool> used_;
  std::unordered_map<std::string, ArchiveNode*> archives_;
};

}  // namespace

void write_archive(const ArchiveNode& root, const ByteSink& sink, const char* op) {
  ArchiveWriter writer(op);
  std::vector<std::string> path;
  writer.node(root, path);
  // "format": "pt" as Python's safetensors.torch.save_file writes it (transformers checks it).
  const std::map<std::string, std::string> metadata{{kArchiveMetadataKey, writer.json()},
                                                    {"format", "pt"}};
  write_safetensors(writer.tensors(), metadata, sink, op);
}

std::shared_ptr<ArchiveNode> read_archive(const uint8_t* data, size_t size,
                                          const std::shared_ptr<void>& keepalive,
                                          std::optional<Device> device, const std::string& what,
                                          const std::shared_ptr<MappedFile>& mapped) {
  // A zip is what torch.save writes: a state_dict Python saved loads as nested archives of its
  // tensors, as a plain safetensors file does.
  if (size >= 4 && std::memcmp(data, "PK\x03\x04", 4) == 0) {
    OrderedDict<std::string, Tensor> state_dict =
        torch_state_dict_from_zip(data, size, what, mapped, device);
    std::vector<std::pair<std::string, Tensor>> tensors;
    tensors.reserve(state_dict.size());
    for (const auto& item : state_dict) tensors.emplace_back(item.key(), item.value());
    return archive_from_flat(tensors, what);
  }
  const SafetensorsHeader header = parse_safetensors(data, size, what);
  std::vector<std::pair<std::string, Tensor>> tensors =
      safetensors_tensors(header, data, keepalive, device, what);
  auto tree = header.metadata.find(kArchiveMetadataKey);
  if (tree == header.metadata.end()) return archive_from_flat(tensors, what);
  return ArchiveTreeReader(tensors, what + ": metadata '" + kArchiveMetadataKey + "'")
      .read(tree->second);
}

}  // namespace ember::serialize::detail
