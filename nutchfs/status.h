// Status and Result<T>: how every fallible call in the project reports failure.
//
// A Status is OK or carries a code and a message that names what failed and where
// (path, offset, host, writer, stage). Result<T> is tl::expected<T, Status>.
// Both are plain values: copyable, no shared state, safe to pass between threads.
#ifndef NUTCHFS_STATUS_H_
#define NUTCHFS_STATUS_H_

#include <string>
#include <string_view>
#include <utility>

#include <tl/expected.hpp>

namespace nutchfs {

class [[nodiscard]] Status {
 public:
  enum class Code {
    kOk = 0,
    kNotFound,         // a looked-up thing does not exist
    kCorruption,       // stored bytes fail to decode or verify
    kInvalidArgument,  // bad input from a user or a peer (call file, config, name)
    kIOError,          // the OS or the network failed
    kBusy,             // someone else holds the lock
    kTimeout,          // waited too long for a peer
    kRefused,          // a peer refused us or we refused it (ssh host key, login)
  };

  Status() = default;
  // Lets one early-return spelling, `return Err(s)`, serve functions returning
  // Status and functions returning Result<T>.
  Status(tl::unexpected<Status> u) : Status(std::move(u.value())) {}  // NOLINT
  static Status OK() { return Status(); }
  static Status NotFound(std::string msg) { return Status(Code::kNotFound, std::move(msg)); }
  static Status Corruption(std::string msg) { return Status(Code::kCorruption, std::move(msg)); }
  static Status InvalidArgument(std::string msg) {
    return Status(Code::kInvalidArgument, std::move(msg));
  }
  static Status IOError(std::string msg) { return Status(Code::kIOError, std::move(msg)); }
  // IOError from errno: "context: strerror(err) (ENAME)", e.g. "write /x: No space left
  // on device (ENOSPC)".
  static Status FromErrno(std::string_view context, int err);
  static Status Busy(std::string msg) { return Status(Code::kBusy, std::move(msg)); }
  static Status Timeout(std::string msg) { return Status(Code::kTimeout, std::move(msg)); }
  // A peer failure that retrying cannot mend.
  static Status Refused(std::string msg) { return Status(Code::kRefused, std::move(msg)); }

  bool ok() const { return code_ == Code::kOk; }
  bool IsNotFound() const { return code_ == Code::kNotFound; }
  bool IsCorruption() const { return code_ == Code::kCorruption; }
  bool IsInvalidArgument() const { return code_ == Code::kInvalidArgument; }
  bool IsIOError() const { return code_ == Code::kIOError; }
  bool IsBusy() const { return code_ == Code::kBusy; }
  bool IsTimeout() const { return code_ == Code::kTimeout; }
  bool IsRefused() const { return code_ == Code::kRefused; }
  Code code() const { return code_; }
  const std::string& message() const { return msg_; }

  // "Corruption: <message>" or "OK".
  std::string ToString() const;
  // The same code with "context: " put before the message.
  Status WithContext(std::string_view context) const;

 private:
  Status(Code code, std::string msg) : code_(code), msg_(std::move(msg)) {}

  Code code_ = Code::kOk;
  std::string msg_;
};

template <typename T>
using Result = tl::expected<T, Status>;

// Turns a failed Status into the error side of a Result.
inline tl::unexpected<Status> Err(Status s) { return tl::unexpected<Status>(std::move(s)); }

}  // namespace nutchfs

// Early return of a failed Status from a function returning Status or Result<T>.
#define NUTCHFS_RETURN_IF_ERROR(expr)                     \
  do {                                                    \
    ::nutchfs::Status _st = (expr);                       \
    if (!_st.ok()) return ::nutchfs::Err(std::move(_st)); \
  } while (0)

#define NUTCHFS_CONCAT_INNER_(a, b) a##b
#define NUTCHFS_CONCAT_(a, b) NUTCHFS_CONCAT_INNER_(a, b)
// `NUTCHFS_ASSIGN_OR_RETURN(auto x, F());` declares x from a Result or returns its error.
#define NUTCHFS_ASSIGN_OR_RETURN(lhs, expr) \
  NUTCHFS_ASSIGN_OR_RETURN_IMPL_(NUTCHFS_CONCAT_(_res_, __LINE__), lhs, expr)
#define NUTCHFS_ASSIGN_OR_RETURN_IMPL_(res, lhs, expr)              \
  auto res = (expr);                                                \
  if (!res) return ::nutchfs::Err(std::move(res).error());          \
  lhs = std::move(*res)

#endif  // NUTCHFS_STATUS_H_
