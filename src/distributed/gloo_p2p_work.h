// The Gloo backend's point-to-point Work (a posted send or receive, completed in wait()) and the
// error its failures (and the collectives') become.
#pragma once

#include <gloo/context.h>
#include <gloo/transport/unbound_buffer.h>

#include <chrono>
#include <exception>
#include <memory>
#include <mutex>
#include <string>

#include <fmt/format.h>

#include "ember/distributed/work.h"
#include "src/distributed/staged.h"

namespace ember {
namespace distributed {

// What a failed collective says: the op, this rank, the likely causes.
inline std::exception_ptr backend_error(const std::string& context, const char* what,
                                        std::chrono::milliseconds timeout) {
  return std::make_exception_ptr(DistBackendError(fmt::format(
      "{} failed: {}. Hint: another rank may have exited, failed or stopped calling collectives "
      "(every rank must call the same collectives in the same order), or the group's timeout "
      "({} ms) passed",
      context, what, timeout.count())));
}

// A posted send or receive: wait() waits for the transfer (bounded by the group's timeout),
// writes a received non-contiguous tensor back, and completes the Work.
class P2PWork final : public Work {
 public:
  P2PWork(std::shared_ptr<gloo::Context> context,
          std::unique_ptr<gloo::transport::UnboundBuffer> ub, bool is_send, bool posted,
          Staged tensor, std::chrono::milliseconds timeout, std::string error_context)
      : context_(std::move(context)),
        tensor_(std::move(tensor)),
        ub_(std::move(ub)),
        is_send_(is_send),
        posted_(posted),
        timeout_(timeout),
        error_context_(std::move(error_context)) {}

  bool wait(std::chrono::milliseconds timeout) override {
    {
      std::lock_guard<std::mutex> lock(transfer_mutex_);
      if (!Work::is_completed()) {
        try {
          if (posted_) {
            if (is_send_)
              ub_->waitSend(timeout_);
            else
              ub_->waitRecv(timeout_);
          }
          if (!is_send_) tensor_.write_back();
          finish({tensor_.original});
        } catch (const Error&) {
          finish_with_error(std::current_exception());
        } catch (const std::exception& e) {
          finish_with_error(backend_error(error_context_, e.what(), timeout_));
        }
      }
    }
    return Work::wait(timeout);
  }

 private:
  std::shared_ptr<gloo::Context> context_;  // outlives the buffer, which belongs to it
  Staged tensor_;  // outlives the buffer too: a transfer may still run when the Work is dropped
  std::unique_ptr<gloo::transport::UnboundBuffer> ub_;
  bool is_send_;
  bool posted_;
  std::chrono::milliseconds timeout_;
  std::string error_context_;
  std::mutex transfer_mutex_;
};

}  // namespace distributed
}  // namespace ember
