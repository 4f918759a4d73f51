// Temporary files and folders (include/ember/core/tempfile.h), on POSIX mkstemp/mkdtemp.
#include "ember/core/tempfile.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "ember/core/error.h"
#include "ember/core/string_util.h"

namespace ember {
namespace {

std::string temp_folder() {
  for (const char* variable : {"TMPDIR", "TMP", "TEMP", "TEMPDIR"}) {
    const char* value = std::getenv(variable);
    if (value != nullptr && *value != '\0') return value;
  }
  return "/tmp";
}

// "<folder>/<prefix>XXXXXX": mkstemp and mkdtemp replace the Xs in place.
std::string name_pattern(const std::string& prefix) {
  return temp_folder() + "/" + prefix + "XXXXXX";
}

[[noreturn]] void creation_failed(const char* op, const std::string& pattern, int error) {
  throw Error(str(op, ": cannot create ", pattern, ": ", std::strerror(error),
                  ". Hint: set TMPDIR to a writable folder"));
}

}  // namespace

TempFile::TempFile(TempFile&& other) noexcept : fd(other.fd), name(std::move(other.name)) {
  other.fd = -1;
  other.name.clear();
}

TempFile& TempFile::operator=(TempFile&& other) noexcept {
  if (this != &other) {
    TempFile old(std::move(*this));  // removes this object's file on leaving the scope
    fd = other.fd;
    name = std::move(other.name);
    other.fd = -1;
    other.name.clear();
  }
  return *this;
}

TempFile::~TempFile() {
  if (!name.empty()) ::unlink(name.c_str());
  if (fd >= 0) ::close(fd);
}

TempDir::TempDir(TempDir&& other) noexcept : name(std::move(other.name)) { other.name.clear(); }

TempDir& TempDir::operator=(TempDir&& other) noexcept {
  if (this != &other) {
    TempDir old(std::move(*this));
    name = std::move(other.name);
    other.name.clear();
  }
  return *this;
}

TempDir::~TempDir() {
  if (!name.empty()) ::rmdir(name.c_str());
}

std::optional<TempFile> try_make_tempfile(std::string name_prefix) {
  std::string path = name_pattern(name_prefix);
  const int fd = ::mkstemp(path.data());
  if (fd < 0) return std::nullopt;
  return TempFile(std::move(path), fd);
}

// The throwing forms: the try_ form, then errno (still mkstemp's or mkdtemp's) in the message.
TempFile make_tempfile(std::string name_prefix) {
  std::optional<TempFile> file = try_make_tempfile(name_prefix);
  if (!file) {
    const int error = errno;  // before anything else can change it
    creation_failed("make_tempfile", name_pattern(name_prefix), error);
  }
  return std::move(*file);
}

std::optional<TempDir> try_make_tempdir(std::string name_prefix) {
  std::string path = name_pattern(name_prefix);
  if (::mkdtemp(path.data()) == nullptr) return std::nullopt;
  return TempDir(std::move(path));
}

TempDir make_tempdir(std::string name_prefix) {
  std::optional<TempDir> dir = try_make_tempdir(name_prefix);
  if (!dir) {
    const int error = errno;
    creation_failed("make_tempdir", name_pattern(name_prefix), error);
  }
  return std::move(*dir);
}

}  // namespace ember
