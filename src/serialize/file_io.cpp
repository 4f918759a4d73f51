#include "src/serialize/file_io.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "src/core/check.h"

namespace ember::serialize::detail {

namespace {

std::string folder_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

AtomicFileWriter::AtomicFileWriter(std::string path) : path_(std::move(path)) {
  EMBER_CHECK(!path_.empty() && path_.back() != '/', "save: '{}' is not a file name", path_);
  std::string tmpl = folder_of(path_) + "/." + base_of(path_) + ".XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  fd_ = ::mkstemp(buf.data());
  EMBER_CHECK(fd_ >= 0, "save: cannot create a temporary file next to '{}': {}", path_,
              std::strerror(errno));
  temp_path_ = buf.data();
  // mkstemp makes the file 0600; a saved file gets the usual 0666 & ~umask.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd_, 0666 & ~mask);
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temp_path_.empty()) ::unlink(temp_path_.c_str());
}

void AtomicFileWriter::write(const void* data, size_t size) {
  EMBER_CHECK(fd_ >= 0 && !committed_, "save: '{}' was already committed", path_);
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd_, p, size);
    if (n < 0 && errno == EINTR) continue;
    EMBER_CHECK(n > 0, "save: writing '{}' failed after {} bytes: {}", path_, written_,
                n < 0 ? std::strerror(errno) : "no progress");
    p += n;
    size -= static_cast<size_t>(n);
    written_ += static_cast<uint64_t>(n);
  }
}

void AtomicFileWriter::commit() {
  EMBER_CHECK(fd_ >= 0 && !committed_, "save: '{}' was already committed", path_);
  EMBER_CHECK(::fsync(fd_) == 0, "save: fsync of '{}' failed: {}", temp_path_,
              std::strerror(errno));
  const int fd = fd_;
  fd_ = -1;
  EMBER_CHECK(::close(fd) == 0, "save: closing '{}' failed: {}", temp_path_, std::strerror(errno));
  EMBER_CHECK(::rename(temp_path_.c_str(), path_.c_str()) == 0, "save: renaming '{}' to '{}': {}",
              temp_path_, path_, std::strerror(errno));
  committed_ = true;
  // The rename itself is durable only once the folder is synced (best effort: some file
  // systems refuse fsync on a directory).
  const int dir = ::open(folder_of(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

std::shared_ptr<MappedFile> MappedFile::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  EMBER_CHECK(fd >= 0, "load: cannot open '{}': {}", path, std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const int err = errno;
    ::close(fd);
    EMBER_CHECK(false, "load: '{}' is not a regular file{}{}", path, err ? ": " : "",
                err ? std::strerror(err) : "");
  }
  std::shared_ptr<MappedFile> file(new MappedFile());
  file->path_ = path;
  file->size_ = static_cast<size_t>(st.st_size);
  if (file->size_ > 0) {
    void* p = ::mmap(nullptr, file->size_, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    const int err = errno;
    ::close(fd);
    EMBER_CHECK(p != MAP_FAILED, "load: cannot map '{}' ({} bytes): {}", path, file->size_,
                std::strerror(err));
    file->data_ = static_cast<uint8_t*>(p);
  } else {
    ::close(fd);
  }
  return file;
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(data_, size_);
}

}  // namespace ember::serialize::detail
