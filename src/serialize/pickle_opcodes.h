// The pickle opcodes Ember reads or writes (names as in CPython's pickle.py), and the globals of a
// PyTorch state_dict.
#pragma once

#include <cstdint>
#include <string>

namespace ember::serialize::detail::pickle_op {

constexpr uint8_t kMark = '(', kStop = '.', kPop = '0', kPopMark = '1', kDup = '2';
constexpr uint8_t kBinInt = 'J', kBinInt1 = 'K', kBinInt2 = 'M', kLong1 = 0x8a, kLong4 = 0x8b;
constexpr uint8_t kNone = 'N', kNewTrue = 0x88, kNewFalse = 0x89, kBinFloat = 'G';
constexpr uint8_t kBinUnicode = 'X', kShortBinUnicode = 0x8c, kBinUnicode8 = 0x8d;
constexpr uint8_t kEmptyTuple = ')', kTuple = 't', kTuple1 = 0x85, kTuple2 = 0x86, kTuple3 = 0x87;
constexpr uint8_t kEmptyList = ']', kAppend = 'a', kAppends = 'e', kList = 'l';
constexpr uint8_t kEmptyDict = '}', kSetItem = 's', kSetItems = 'u', kDict = 'd';
constexpr uint8_t kGlobal = 'c', kStackGlobal = 0x93, kReduce = 'R', kBuild = 'b';
constexpr uint8_t kBinPersId = 'Q';
constexpr uint8_t kBinPut = 'q', kLongBinPut = 'r', kMemoize = 0x94;
constexpr uint8_t kBinGet = 'h', kLongBinGet = 'j';
constexpr uint8_t kProto = 0x80, kFrame = 0x95;

}  // namespace ember::serialize::detail::pickle_op

namespace ember::serialize::detail {

/// CPython's name of a pickle opcode ("BINUNICODE"), or nullptr for a byte that is no opcode.
const char* pickle_opcode_name(uint8_t op);
/// `s` cut to 80 characters with unprintable bytes as '?': safe to quote a hostile name in an
/// error message.
std::string pickle_quote(const std::string& s);

}  // namespace ember::serialize::detail
