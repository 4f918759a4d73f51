// OutputArchive::save_to / InputArchive::load_from: the archive's sources and destinations (files,
// streams, memory, functions) over its on-disk format (archive_format.h).
#include <algorithm>
#include <istream>
#include <ostream>
#include <vector>

#include "ember/serialize/archive.h"
#include "src/core/check.h"
#include "src/serialize/archive_format.h"
#include "src/serialize/file_io.h"

namespace ember::serialize {
namespace {

// Bytes read from a stream or function, shared by the tensors that point into them.
using ArchiveBuffer = std::vector<uint8_t>;

std::shared_ptr<ArchiveNode> archive_from_buffer(const std::shared_ptr<ArchiveBuffer>& buf,
                                                 std::optional<Device> device,
                                                 const std::string& what) {
  return detail::read_archive(buf->data(), buf->size(), buf, device, what);
}

}  // namespace

void OutputArchive::save_to(const std::string& filename) {
  detail::AtomicFileWriter file(filename);
  const std::string op = "OutputArchive::save_to('" + filename + "')";
  detail::write_archive(
      *root_, [&](const void* p, size_t n) { file.write(p, n); }, op.c_str());
  file.commit();
}

void OutputArchive::save_to(std::ostream& stream) {
  detail::write_archive(
      *root_,
      [&](const void* p, size_t n) {
        stream.write(static_cast<const char*>(p), static_cast<std::streamsize>(n));
        EMBER_CHECK(stream.good(), "OutputArchive::save_to(stream): writing {} bytes failed", n);
      },
      "OutputArchive::save_to(stream)");
  stream.flush();
  EMBER_CHECK(stream.good(), "OutputArchive::save_to(stream): flushing the stream failed");
}

void OutputArchive::save_to(const std::function<size_t(const void*, size_t)>& func) {
  EMBER_CHECK(func != nullptr, "OutputArchive::save_to(func): empty function");
  detail::write_archive(
      *root_,
      [&](const void* p, size_t n) {
        const size_t took = func(p, n);
        EMBER_CHECK(took == n, "OutputArchive::save_to(func): the writer took {} of {} bytes", took,
                    n);
      },
      "OutputArchive::save_to(func)");
}

void InputArchive::load_from(const std::string& filename, std::optional<Device> device) {
  std::shared_ptr<detail::MappedFile> file = detail::MappedFile::open(filename);
  root_ = detail::read_archive(file->data(), file->size(), file, device,
                               "InputArchive::load_from('" + filename + "')", file);
}

void InputArchive::load_from(std::istream& stream, std::optional<Device> device) {
  auto buf = std::make_shared<ArchiveBuffer>();
  // Read in chunks, growing as data arrives: a stream's claimed size is never trusted.
  char chunk[1 << 16];
  while (stream) {
    stream.read(chunk, sizeof chunk);
    buf->insert(buf->end(), chunk, chunk + stream.gcount());
  }
  EMBER_CHECK(stream.eof(), "InputArchive::load_from(stream): reading failed after {} bytes",
              buf->size());
  root_ = archive_from_buffer(buf, device, "InputArchive::load_from(stream)");
}

void InputArchive::load_from(const char* data, size_t size, std::optional<Device> device) {
  EMBER_CHECK(data != nullptr || size == 0, "InputArchive::load_from(data): null data of {} bytes",
              size);
  // No keepalive: the caller owns `data`, so every tensor is a copy.
  root_ = detail::read_archive(reinterpret_cast<const uint8_t*>(data), size, nullptr, device,
                               "InputArchive::load_from(data)");
}

void InputArchive::load_from(const std::function<size_t(uint64_t, void*, size_t)>& read_func,
                             const std::function<size_t(void)>& size_func,
                             std::optional<Device> device) {
  EMBER_CHECK(read_func != nullptr && size_func != nullptr,
              "InputArchive::load_from(func): empty read or size function");
  const size_t size = size_func();
  auto buf = std::make_shared<ArchiveBuffer>();
  // Grow chunk by chunk rather than allocating `size` up front: a wrong size fails on the first
  // short read instead of one huge allocation.
  constexpr size_t kChunk = size_t{1} << 20;
  while (buf->size() < size) {
    const size_t n = std::min(kChunk, size - buf->size());
    const size_t at = buf->size();
    buf->resize(at + n);
    const size_t got = read_func(at, buf->data() + at, n);
    EMBER_CHECK(got == n,
                "InputArchive::load_from(func): read {} of {} bytes at offset {} (size_func said "
                "{})",
                got, n, at, size);
  }
  root_ = archive_from_buffer(buf, device, "InputArchive::load_from(func)");
}

}  // namespace ember::serialize
