#include "corpus.h"

#include "cli.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <sstream>
#include <vector>

namespace char_lm {

using trainer::is_file;

namespace {

bool is_dir(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

/// The files of a folder a corpus takes: regular, no '.' in the name, sorted.
std::vector<std::string> text_files(const std::string& dir) {
  std::vector<std::string> files;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name.find('.') == std::string::npos && is_file(dir + "/" + name))
        files.push_back(dir + "/" + name);
    }
    ::closedir(d);
  }
  std::sort(files.begin(), files.end());
  return files;
}

/// Splits fortune-style text into entries at lines holding only '%' (text without such lines is
/// split at blank lines, so a plain file still gives many entries).
std::vector<std::string> entries_of(const std::string& text) {
  std::vector<std::string> out;
  const bool fortune = text.find("\n%\n") != std::string::npos;
  std::istringstream in(text);
  std::string line, entry;
  auto flush = [&] {
    if (!entry.empty()) out.push_back(entry + "\n");
    entry.clear();
  };
  while (std::getline(in, line)) {
    if (fortune ? line == "%" : line.empty()) {
      flush();
      continue;
    }
    entry += (entry.empty() ? "" : "\n") + line;
  }
  flush();
  return out;
}

ember::Tensor ids_of(const std::string& text, const std::array<int64_t, 256>& id) {
  ember::Tensor t = ember::empty({static_cast<int64_t>(text.size())}, ember::kInt64);
  int64_t* p = t.data_ptr<int64_t>();
  for (size_t i = 0; i < text.size(); ++i) p[i] = id[static_cast<unsigned char>(text[i])];
  return t;
}

}  // namespace

ember::Tensor Corpus::encode(const std::string& text) const {
  std::array<int64_t, 256> id{};
  id.fill(-1);
  for (size_t i = 0; i < vocab.size(); ++i) id[static_cast<unsigned char>(vocab[i])] = int64_t(i);
  for (char c : text)
    if (id[static_cast<unsigned char>(c)] < 0)
      throw ember::Error("the character '" + std::string(1, c) +
                         "' does not occur in the training text");
  return ids_of(text, id);
}

Corpus load_corpus(const std::string& path, int64_t min_chars) {
  std::vector<std::string> files;
  if (is_dir(path)) {
    files = text_files(path);
  } else if (is_file(path)) {
    files.push_back(path);
  }
  if (files.empty())
    throw ember::Error("--data " + path +
                       ": no text files there (install Debian's `fortunes` package, or pass a "
                       "folder or file of English text)");
  std::string train, valid;
  size_t entries = 0;
  for (const auto& f : files)
    for (const std::string& e : entries_of(read_file(f)))
      (++entries % 20 == 0 ? valid : train) += e;
  if (static_cast<int64_t>(valid.size()) < min_chars ||
      static_cast<int64_t>(train.size()) < min_chars)
    throw ember::Error("--data " + path + ": " + std::to_string(train.size() + valid.size()) +
                       " characters are too few to train on (sequences of " +
                       std::to_string(min_chars - 1) + " need more in both splits)");
  Corpus c;
  std::array<bool, 256> seen{};
  for (char ch : train + valid) seen[static_cast<unsigned char>(ch)] = true;
  std::array<int64_t, 256> id{};
  for (int b = 0; b < 256; ++b)
    if (seen[static_cast<size_t>(b)]) {
      id[static_cast<size_t>(b)] = static_cast<int64_t>(c.vocab.size());
      c.vocab += static_cast<char>(b);
    }
  c.train = ids_of(train, id);
  c.valid = ids_of(valid, id);
  c.source = std::to_string(files.size()) + " file(s) under " + path + ", " +
             std::to_string(entries) + " entries";
  return c;
}

}  // namespace char_lm
