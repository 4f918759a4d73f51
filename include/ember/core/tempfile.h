// Temporary files and folders that delete themselves (LibTorch's c10::TempFile and c10::TempDir):
//   ember::TempFile f = ember::make_tempfile("weights-");  // /tmp/weights-a81Kq2, created empty
//   save(model, f.name);                                  // removed when f goes out of scope
// The folder is $TMPDIR, else $TMP, $TEMP or $TEMPDIR, else /tmp; the name is the prefix and six
// random characters, created atomically (mkstemp/mkdtemp), so two callers never share one.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "ember/core/macros.h"

namespace ember {

/// A file created for this object; the destructor closes `fd` and removes `name`. Move-only.
struct EMBER_API TempFile {
  TempFile() = default;
  TempFile(std::string name, int fd) : fd(fd), name(std::move(name)) {}
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  TempFile(TempFile&& other) noexcept;
  /// Removes this object's file first, then takes over the other's.
  TempFile& operator=(TempFile&& other) noexcept;
  ~TempFile();

  /// Open for reading and writing; -1 when there is no file.
  int fd = -1;
  /// The full path.
  std::string name;
};

/// A folder created for this object; the destructor removes it if it is empty again. Move-only.
struct EMBER_API TempDir {
  TempDir() = default;
  explicit TempDir(std::string name) : name(std::move(name)) {}
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  TempDir(TempDir&& other) noexcept;
  TempDir& operator=(TempDir&& other) noexcept;
  ~TempDir();

  /// The full path.
  std::string name;
};

/// A new empty temporary file, or nullopt when it cannot be created.
EMBER_API std::optional<TempFile> try_make_tempfile(std::string name_prefix = "ember-file-");
/// A new empty temporary file; throws ember::Error naming the folder and the reason on failure.
EMBER_API TempFile make_tempfile(std::string name_prefix = "ember-file-");
/// A new empty temporary folder, or nullopt when it cannot be created.
EMBER_API std::optional<TempDir> try_make_tempdir(std::string name_prefix = "ember-dir-");
/// A new empty temporary folder; throws ember::Error naming the folder and the reason on failure.
EMBER_API TempDir make_tempdir(std::string name_prefix = "ember-dir-");

}  // namespace ember
