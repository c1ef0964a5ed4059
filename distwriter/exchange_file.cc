#include "distwriter/exchange_file.h"

#include <fmt/format.h>

#include <charconv>
#include <cstring>
#include <sstream>

namespace distwriter {
namespace {

constexpr std::string_view kLabelPrefix = "webdb-exchange";

template <typename T>
bool ParseNumber(std::string_view text, T* out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

// Why `found` is not `expected`, in words, the first difference that matters most.
std::string Difference(const ExchangeId& found, const ExchangeId& expected) {
  if (found.db != expected.db) return fmt::format("it is of db '{}'", found.db);
  if (found.round < expected.round) {
    return fmt::format("it is a replayed file of round {} (this is round {})", found.round,
                       expected.round);
  }
  if (found.round != expected.round) return fmt::format("it is of round {}", found.round);
  if (found.token != expected.token) {
    return fmt::format("it is of another attempt at round {} (token {}, this one's is {})",
                       found.round, found.token.empty() ? "-" : found.token,
                       expected.token.empty() ? "-" : expected.token);
  }
  if (found.to != expected.to) {
    return fmt::format("it is meant for writer {}, not for writer {}", found.to, expected.to);
  }
  if (found.from != expected.from) return fmt::format("it was sent by writer {}", found.from);
  return fmt::format("it is a stage {} file", found.stage);
}

// Reports Corruption when the file, read to its end, is no longer the size it had when
// opened: a file that keeps growing after its arrival.
class SizeCheckedIterator final : public webdb::EditIterator {
 public:
  SizeCheckedIterator(std::unique_ptr<webdb::EditIterator> in, nutchfs::Env& env, std::string path,
                      uint64_t size, std::string context)
      : in_(std::move(in)),
        env_(env),
        path_(std::move(path)),
        size_(size),
        context_(std::move(context)) {
    Check();
  }
  bool Valid() const override { return in_->Valid(); }
  void Next() override {
    in_->Next();
    Check();
  }
  const webdb::EditView& edit() const override { return in_->edit(); }
  Status status() const override { return status_; }

 private:
  void Check() {
    if (in_->Valid() || checked_) return;
    checked_ = true;
    Status s = in_->status();
    if (s.ok()) {
      auto now = env_.GetFileSize(path_);
      if (!now) s = now.error();
      if (now && *now != size_) {
        s = Status::Corruption(fmt::format(
            "{}: changed from {} to {} bytes while it was read (a file that keeps growing)", path_,
            size_, *now));
      }
    }
    status_ = s.ok() ? s : DiscardIfUnusable(env_, path_, s.WithContext(context_));
  }

  std::unique_ptr<webdb::EditIterator> in_;
  nutchfs::Env& env_;
  const std::string path_;
  const uint64_t size_;
  const std::string context_;
  bool checked_ = false;
  Status status_;
};

}  // namespace

std::string ExchangeId::Label() const {
  return fmt::format("{} db={} round={} token={} stage={} from={} to={} epoch={}", kLabelPrefix,
                     db, round, token.empty() ? "-" : token, stage, from, to, epoch);
}

std::optional<ExchangeId> ExchangeId::Parse(std::string_view label) {
  std::istringstream in{std::string(label)};
  std::string word;
  if (!(in >> word) || word != kLabelPrefix) return std::nullopt;
  ExchangeId id;
  const char* const keys[] = {"db", "round", "token", "stage", "from", "to", "epoch"};
  for (const char* key : keys) {
    if (!(in >> word) || !word.starts_with(std::string(key) + "=")) return std::nullopt;
    const std::string_view value = std::string_view(word).substr(std::strlen(key) + 1);
    const std::string_view k = key;
    bool ok = !value.empty();
    if (k == "db") id.db = value;
    if (k == "token") id.token = value == "-" ? "" : std::string(value);
    if (k == "round") ok = ok && ParseNumber(value, &id.round);
    if (k == "stage") ok = ok && ParseNumber(value, &id.stage);
    if (k == "from") ok = ok && ParseNumber(value, &id.from);
    if (k == "to") ok = ok && ParseNumber(value, &id.to);
    if (k == "epoch") ok = ok && ParseNumber(value, &id.epoch);
    if (!ok) return std::nullopt;
  }
  if (in >> word || id.Label() != label) return std::nullopt;
  return id;
}

Result<std::unique_ptr<webdb::EditFileWriter>> CreateExchangeFile(nutchfs::Env& env,
                                                                  const std::string& path,
                                                                  const ExchangeId& id,
                                                                  bool sorted) {
  return webdb::EditFileWriter::Create(env, path, sorted, id.Label());
}

Result<std::unique_ptr<webdb::EditIterator>> OpenExchangeFile(nutchfs::Env& env,
                                                              const std::string& path,
                                                              const ExchangeId& expected,
                                                              const std::string& sender,
                                                              size_t buffer_size,
                                                              uint64_t* count) {
  const std::string context = fmt::format("writer {}: round {} stage {}: file from {}", expected.to,
                                          expected.round, expected.stage, sender);
  auto refuse = [&](Status s) { return Err(DiscardIfUnusable(env, path, s.WithContext(context))); };
  // A second look when the file changed between its check and its opening: a later run
  // of the sender republished it (the same file but for its epoch).
  for (int look = 0;; ++look) {
    auto info = webdb::ReadEditFileInfo(env, path);
    if (!info) return refuse(info.error());
    std::optional<ExchangeId> found = ExchangeId::Parse(info->label);
    ExchangeId want = expected;
    if (found) want.epoch = found->epoch;
    if (!found || *found != want) {
      const std::string why =
          found ? Difference(*found, want) : std::string("it carries no exchange label");
      return refuse(Status::Corruption(fmt::format("{}: refused: {} (found '{}', expected '{}')",
                                                   path, why, info->label, want.Label())));
    }
    // Checked again as it is opened, in case the file was swapped meanwhile.
    auto opened = webdb::OpenEditFile(env, path, buffer_size, want.Label());
    if (!opened && look == 0 && opened.error().IsCorruption()) {
      auto now = webdb::ReadEditFileInfo(env, path);
      if (now && now->label != info->label) continue;
    }
    if (!opened) return refuse(opened.error());
    if (count != nullptr) *count = info->count;
    return std::unique_ptr<webdb::EditIterator>(std::make_unique<SizeCheckedIterator>(
        std::move(*opened), env, path, info->file_size, context));
  }
}

Status DiscardIfUnusable(nutchfs::Env& local, const std::string& path, Status status) {
  if (status.IsCorruption() || status.IsRefused()) {
    Status ignored = local.RemoveFile(path);
    (void)ignored;  // the corruption is the error to report
  }
  return status;
}

}  // namespace distwriter
