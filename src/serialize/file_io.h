// File plumbing shared by the serialization formats: an atomic writer (temporary file in the
// target's folder, fsync, rename, fsync of the folder: a reader sees the old file or the whole
// new one, never a torn one) and a read-only memory map (tensors loaded from it can share its
// pages: the map lives as long as the last holder of the shared_ptr).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace ember::serialize::detail {

class AtomicFileWriter {
 public:
  /// Creates `<dir of path>/.<name>.XXXXXX` to write into. Error naming the path on failure.
  explicit AtomicFileWriter(std::string path);
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  /// Removes the temporary file unless commit() ran.
  ~AtomicFileWriter();

  /// Appends bytes (Error naming the path on a short write, e.g. a full disk).
  void write(const void* data, size_t size);
  /// Bytes written so far.
  uint64_t size() const { return written_; }
  /// fsync, close, rename over the target, fsync the folder.
  void commit();

 private:
  std::string path_, temp_path_;
  int fd_ = -1;
  uint64_t written_ = 0;
  bool committed_ = false;
};

/// A whole file mapped copy-on-write (MAP_PRIVATE): tensors can share its pages, and a write into
/// such a tensor changes this process's copy only, never the file. An empty file maps no pages:
/// data() is null, size() 0.
class MappedFile {
 public:
  /// Error naming the path when it cannot be opened or mapped.
  static std::shared_ptr<MappedFile> open(const std::string& path);
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  MappedFile() = default;
  std::string path_;
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace ember::serialize::detail
