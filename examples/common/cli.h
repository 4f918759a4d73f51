// What the example trainers share besides the progress line and the report: flag values parsed
// with errors that name the flag, and the small file helpers of a run folder.
#pragma once

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace trainer {

/// A command line a trainer cannot run with; what() says which flag and why.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// `text` as an integer in [min, max], else UsageError naming `flag`.
int64_t parse_int(const std::string& flag, const std::string& text, int64_t min, int64_t max);
/// `text` as a number in (0, 1e6], else UsageError naming `flag`.
double parse_positive(const std::string& flag, const std::string& text);
/// `text` if it is one of `choices`, else UsageError listing them.
std::string parse_choice(const std::string& flag, const std::string& text,
                         const std::vector<std::string>& choices);

double seconds_since(std::chrono::steady_clock::time_point start);
bool is_file(const std::string& path);
/// Creates the folder of --out (an existing one is fine); ember::Error otherwise.
void make_dir(const std::string& path);
/// Writes `text` to a temporary file beside `path`, then renames it over `path`, so a reader
/// never sees half a file; std::runtime_error on failure.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace trainer
