// The text a character model trains on: read from a folder of plain files (the `fortunes`
// package's layout: entries separated by lines holding only '%') or from one file, turned into
// byte ids over the bytes that occur, and split into training and validation text (every 20th
// entry is validation, so both sample every source file).
#pragma once

#include <cstdint>
#include <string>

#include "ember/ember.h"

namespace char_lm {

struct Corpus {
  std::string vocab;    // the distinct bytes, ascending; id i is vocab[i]
  ember::Tensor train;  // int64 [N] ids
  ember::Tensor valid;  // int64 [M] ids
  std::string source;   // what was read, for the log line

  int64_t vocab_size() const { return static_cast<int64_t>(vocab.size()); }
  /// The ids of `text`; a byte outside the vocabulary throws, naming it.
  ember::Tensor encode(const std::string& text) const;
  char decode(int64_t id) const { return vocab[static_cast<size_t>(id)]; }
};

/// Reads `path` (a folder: every regular file in it whose name has no '.', in name order, so
/// fortune index files *.dat are skipped; or a file). Throws ember::Error when nothing is read
/// or the text is too short to train on.
Corpus load_corpus(const std::string& path, int64_t min_chars);

}  // namespace char_lm
