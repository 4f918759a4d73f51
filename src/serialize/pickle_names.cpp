#include <string>
#include <utility>

#include "src/core/check.h"
#include "src/serialize/pickle_opcodes.h"
#include "src/serialize/pickle_reader.h"

namespace ember::serialize::detail {

ScalarType pickle_storage_dtype(const std::string& class_name) {
#define EMBER_PICKLE_STORAGE_NAME(ctype, name, short_name) \
  if (class_name == #name "Storage") return ScalarType::name;
  EMBER_FORALL_SCALAR_TYPES(EMBER_PICKLE_STORAGE_NAME)
#undef EMBER_PICKLE_STORAGE_NAME
  return ScalarType::Undefined;
}

const char* pickle_storage_class(ScalarType dtype) {
  switch (dtype) {
#define EMBER_PICKLE_STORAGE_CLASS(ctype, name, short_name) \
  case ScalarType::name:                                    \
    return #name "Storage";
    EMBER_FORALL_SCALAR_TYPES(EMBER_PICKLE_STORAGE_CLASS)
#undef EMBER_PICKLE_STORAGE_CLASS
    default:
      break;
  }
  EMBER_FAIL("pickle: no PyTorch storage class for dtype {}", dtype);
}

// CPython's names, for error messages.
const char* pickle_opcode_name(uint8_t op) {
  // clang-format off
  static const std::pair<uint8_t, const char*> kNames[] = {
      {'(', "MARK"}, {'.', "STOP"}, {'0', "POP"}, {'1', "POP_MARK"}, {'2', "DUP"},
      {'F', "FLOAT"}, {'I', "INT"}, {'J', "BININT"}, {'K', "BININT1"}, {'L', "LONG"},
      {'M', "BININT2"}, {'N', "NONE"}, {'P', "PERSID"}, {'Q', "BINPERSID"}, {'R', "REDUCE"},
      {'S', "STRING"}, {'T', "BINSTRING"}, {'U', "SHORT_BINSTRING"}, {'V', "UNICODE"},
      {'X', "BINUNICODE"}, {'a', "APPEND"}, {'b', "BUILD"}, {'c', "GLOBAL"}, {'d', "DICT"},
      {'}', "EMPTY_DICT"}, {'e', "APPENDS"}, {'g', "GET"}, {'h', "BINGET"}, {'i', "INST"},
      {'j', "LONG_BINGET"}, {'l', "LIST"}, {']', "EMPTY_LIST"}, {'o', "OBJ"}, {'p', "PUT"},
      {'q', "BINPUT"}, {'r', "LONG_BINPUT"}, {'s', "SETITEM"}, {'t', "TUPLE"},
      {')', "EMPTY_TUPLE"}, {'u', "SETITEMS"}, {'G', "BINFLOAT"}, {0x80, "PROTO"},
      {0x81, "NEWOBJ"}, {0x82, "EXT1"}, {0x83, "EXT2"}, {0x84, "EXT4"}, {0x85, "TUPLE1"},
      {0x86, "TUPLE2"}, {0x87, "TUPLE3"}, {0x88, "NEWTRUE"}, {0x89, "NEWFALSE"},
      {0x8a, "LONG1"}, {0x8b, "LONG4"}, {'B', "BINBYTES"}, {'C', "SHORT_BINBYTES"},
      {0x8c, "SHORT_BINUNICODE"}, {0x8d, "BINUNICODE8"}, {0x8e, "BINBYTES8"},
      {0x8f, "EMPTY_SET"}, {0x90, "ADDITEMS"}, {0x91, "FROZENSET"}, {0x92, "NEWOBJ_EX"},
      {0x93, "STACK_GLOBAL"}, {0x94, "MEMOIZE"}, {0x95, "FRAME"}, {0x96, "BYTEARRAY8"},
      {0x97, "NEXT_BUFFER"}, {0x98, "READONLY_BUFFER"}};
  // clang-format on
  for (const auto& [code, name] : kNames)
    if (code == op) return name;
  return nullptr;
}

// Whether a string is printable enough to quote in an error (a hostile name could be anything).
std::string pickle_quote(const std::string& s) {
  std::string out;
  for (char c : s.substr(0, 80)) out += (c >= 32 && c < 127) ? c : '?';
  return s.size() > 80 ? out + "..." : out;
}

}  // namespace ember::serialize::detail
