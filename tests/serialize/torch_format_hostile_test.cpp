// Corrupt, truncated and hostile torch.save files and pickles: each is an Error that names the
// file, the record or opcode and what is wrong; none runs code, reads out of bounds or allocates
// what a length field asks before checking it.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "src/serialize/pickle_reader.h"
#include "src/serialize/zip_writer.h"
#include "tests/serialize/torch_format_test_util.h"
#include "tests/support/expect_error.h"

namespace {

using ember::serialize::load_torch_state_dict;
using ember_test::expect_error;
using torch_format_test::data_path;

void expect_torch_file_error(const std::string& name, std::initializer_list<std::string> parts) {
  SCOPED_TRACE(name);
  expect_error([&] { load_torch_state_dict(data_path(name)); }, parts);
  expect_error([&] { load_torch_state_dict(data_path(name)); }, {name});
  // The same bytes from memory fail the same way.
  const std::vector<char> bytes = torch_format_test::read_bytes(data_path(name));
  expect_error([&] { ember::pickle_load(bytes); }, parts);
}

TEST(TorchFormatHostile, OsSystemThroughGlobalIsRefused) {
  expect_torch_file_error("evil_os_system.pt", {"global 'os.system' is not allowed",
                                                "opcode GLOBAL at byte 2", "data.pkl"});
}

TEST(TorchFormatHostile, NonStateDictGlobalIsRefused) {
  expect_torch_file_error("evil_global.pt", {"global 'datetime.date' is not allowed"});
}

TEST(TorchFormatHostile, InstOpcodeIsRefused) {
  expect_torch_file_error("evil_inst.pt", {"opcode INST at byte 9", "not allowed"});
}

TEST(TorchFormatHostile, TruncatedZip) {
  expect_torch_file_error("truncated.pt", {"no end of central directory record"});
}

TEST(TorchFormatHostile, RecordOffsetPastTheEnd) {
  expect_torch_file_error("bad_offset.pt", {"local header at offset", "past the end"});
}

TEST(TorchFormatHostile, StorageShorterThanItsNumel) {
  expect_torch_file_error("short_storage.pt", {"storage record 'archive/data/0' holds 12 bytes",
                                               "6 elements of float32", "need 24"});
}

TEST(TorchFormatHostile, TensorReachingPastItsStorage) {
  expect_torch_file_error("tensor_past_storage.pt",
                          {"sizes [4, 3]", "needs 12 elements, but its storage has 6"});
}

TEST(TorchFormatHostile, DeeplyNestedListIsAnErrorNotAStackOverflow) {
  expect_torch_file_error("deep_nesting.pt", {"nest deeper than 256 levels"});
}

TEST(TorchFormatHostile, EmptyAndGarbageInput) {
  expect_error([] { ember::pickle_load({}); }, {"too short for a zip archive"});
  expect_error([] { ember::pickle_load(std::vector<char>(100, 'x')); },
               {"no end of central directory"});
  expect_error([] { load_torch_state_dict(data_path("no_such_file.pt")); },
               {"cannot open", "no_such_file.pt"});
}

TEST(TorchFormatHostile, NotAStateDict) {
  // A dict with a non-tensor value loads with pickle_load but is no state_dict.
  expect_error([] { load_torch_state_dict(data_path("generic.pt")); },
               {"entry 'ints' is a GenericList, not a tensor", "generic.pt"});
}

// ---- bare pickles through the unpickler ----

ember::IValue unpickle_string(const std::string& bytes) {
  ember::serialize::detail::PickleStorageLoader none = [](const auto& req) {
    return ember::make_storage(static_cast<size_t>(req.numel * ember::element_size(req.dtype)),
                               ember::Device(ember::kCPU));
  };
  return ember::serialize::detail::unpickle(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            bytes.size(), "test.pkl", none);
}

// A literal's bytes, embedded NULs included.
template <size_t N>
ember::IValue unpickle_bytes(const char (&literal)[N]) {
  return unpickle_string(std::string(literal, N - 1));
}

TEST(PickleHostile, StringLongerThanTheInput) {
  // BINUNICODE claiming 4 GB: refused before anything is allocated for it.
  expect_error(
      [] {
        unpickle_bytes(
            "\x80\x02X\xff\xff\xff\xff"
            "ab");
      },
      {"needs 4294967295 bytes but only 2 are left", "BINUNICODE", "byte 2"});
  expect_error([] { unpickle_bytes("\x80\x02\x8d\xff\xff\xff\xff\xff\xff\xff\x7f"); },
               {"bytes but only 0 are left"});
}

TEST(PickleHostile, MissingStopAndEmptyStack) {
  expect_error([] { unpickle_bytes("\x80\x02K\x01"); }, {"without a STOP opcode"});
  expect_error([] { unpickle_bytes("\x80\x02."); }, {"empty stack"});
  expect_error(
      [] {
        unpickle_bytes(
            "\x80\x02"
            "a.");
      },
      {"pops an empty stack", "APPEND"});
  expect_error([] { unpickle_bytes("\x80\x02K\x01u."); }, {"no MARK", "SETITEMS"});
}

TEST(PickleHostile, MemoMissAndUnsupportedProtocol) {
  expect_error([] { unpickle_bytes("\x80\x02h\x07."); }, {"memo entry 7 was never stored"});
  expect_error([] { unpickle_bytes("\x80\x09N."); }, {"protocol 9 is not supported"});
}

TEST(PickleHostile, ReduceOfAStorageClassAndUnknownOpcodes) {
  expect_error(
      [] {
        unpickle_bytes(
            "\x80\x02"
            "ctorch\nFloatStorage\n)R.");
      },
      {"REDUCE calls torch.FloatStorage"});
  for (const char* op : {"\x81", "\x82\x01", "\x92", "i", "o", "P", "S"}) {
    expect_error([&] { unpickle_string(std::string("\x80\x02") + op + "."); },
                 {"not allowed", "byte 2"});
  }
}

TEST(PickleHostile, RecursiveListIsRefused) {
  // EMPTY_LIST, BINPUT 0, BINGET 0, APPEND: a list containing itself.
  expect_error(
      [] {
        unpickle_bytes(
            "\x80\x02]q\x00h\x00"
            "a.");
      },
      {"inside itself"});
  // A list placed in another, then modified through the memo.
  expect_error(
      [] {
        unpickle_bytes(
            "\x80\x02]q\x00]h\x00"
            "ah\x00K\x01"
            "a.");
      },
      {"already placed inside another"});
}

TEST(PickleHostile, BadPersistentIds) {
  expect_error([] { unpickle_bytes("\x80\x02K\x01Q."); }, {"persistent id is not"});
  // ('storage', torch.FloatStorage, '0', 'cpu', -1)
  expect_error(
      [] {
        unpickle_bytes(
            "\x80\x02(X\x07\x00\x00\x00storagectorch\nFloatStorage\nX\x01\x00\x00\x00"
            "0X\x03\x00\x00\x00"
            "cpuJ\xff\xff\xff\xfftQ.");
      },
      {"has -1 elements"});
  // numel * itemsize overflowing int64
  expect_error(
      [] {
        unpickle_bytes(
            "\x80\x02(X\x07\x00\x00\x00storagectorch\nDoubleStorage\nX\x01\x00\x00\x00"
            "0X\x03\x00\x00\x00"
            "cpu\x8a\x08\xff\xff\xff\xff\xff\xff\xff\x3ftQ.");
      },
      {"overflows int64"});
}

TEST(PickleHostile, IntegersAndFloats) {
  EXPECT_EQ(unpickle_bytes("\x80\x02J\xfe\xff\xff\xff.").toInt(), -2);
  EXPECT_EQ(unpickle_bytes("\x80\x02\x8a\x01\xff.").toInt(), -1);
  EXPECT_EQ(unpickle_bytes("\x80\x02\x8a\x00.").toInt(), 0);
  EXPECT_EQ(unpickle_bytes("\x80\x02M\x01\x01.").toInt(), 257);
  expect_error([] { unpickle_bytes("\x80\x02\x8a\x09\x01\x01\x01\x01\x01\x01\x01\x01\x01."); },
               {"integer of 9 bytes does not fit int64"});
  EXPECT_EQ(unpickle_bytes("\x80\x02G\x3f\xf8\x00\x00\x00\x00\x00\x00.").toDouble(), 1.5);
}

// ---- zip container corruption, with a zip built by Ember's writer ----

std::vector<char> hostile_small_zip() {
  std::vector<char> out;
  ember::serialize::detail::ZipWriter zip(
      [&](const void* p, size_t n) { out.insert(out.end(), (const char*)p, (const char*)p + n); });
  const std::string pkl = "\x80\x02K\x05.";
  zip.add("archive/data.pkl", pkl.data(), pkl.size());
  zip.add("archive/version", "3\n", 2);
  zip.finish();
  return out;
}

TEST(ZipHostile, CrcMismatchIsReported) {
  std::vector<char> bytes = hostile_small_zip();
  EXPECT_EQ(ember::pickle_load(bytes).toInt(), 5);
  // The pickle's data starts on a 64-byte boundary: flip its integer.
  ASSERT_EQ(bytes[64 + 3], 5);
  bytes[64 + 3] = 6;
  expect_error([&] { ember::pickle_load(bytes); },
               {"record 'archive/data.pkl' fails its CRC32 check"});
}

TEST(ZipHostile, CentralDirectoryOutOfBoundsAndCompressedRecords) {
  const std::vector<char> good = hostile_small_zip();
  const size_t end = good.size() - 22;
  {
    std::vector<char> bad = good;
    bad[end + 16] = static_cast<char>(0xF0);  // central directory offset far away
    expect_error([&] { ember::pickle_load(bad); }, {"central directory", "lies outside"});
  }
  {
    std::vector<char> bad = good;
    bad[end + 10] = static_cast<char>(0xFF);  // 255 records in a 2-record directory
    bad[end + 8] = static_cast<char>(0xFF);
    expect_error([&] { ember::pickle_load(bad); }, {"cannot fit in a central directory"});
  }
  {
    std::vector<char> bad = good;
    const uint32_t cd =
        static_cast<uint8_t>(good[end + 16]) | (static_cast<uint8_t>(good[end + 17]) << 8);
    bad[cd + 10] = 8;  // deflate
    expect_error([&] { ember::pickle_load(bad); }, {"is compressed (method 8)"});
  }
}

}  // namespace
