#include "distwriter/partition.h"

#include <algorithm>
#include <optional>

#include "webdb/util/coding.h"

namespace distwriter {
namespace {

bool IsMd5Table(webdb::TableId t) {
  return t == webdb::TableId::kPagesByMd5 || t == webdb::TableId::kLinksByMd5;
}

// ceil(i * 2^64 / k) as 8 big-endian bytes.
std::string Md5Split(int i, int k) {
  unsigned __int128 v = (static_cast<unsigned __int128>(i) << 64) + static_cast<unsigned>(k) - 1;
  std::string s;
  webdb::PutBigEndian64(&s, static_cast<uint64_t>(v / static_cast<unsigned>(k)));
  return s;
}

// A valid url greater than url (itself valid): url + "~" when there is room, else the
// url with its last byte that can grow incremented (0x7f, a control byte, is skipped).
std::optional<std::string> UrlAfter(std::string url) {
  if (url.size() < webdb::kMaxUrlLength) return url + "~";
  while (!url.empty() && static_cast<uint8_t>(url.back()) == 0xff) url.pop_back();
  if (url.empty()) return std::nullopt;
  url.back() = static_cast<char>(url.back() == 0x7e ? 0x80 : url.back() + 1);
  return url;
}

}  // namespace

Partition::Partition(int k, std::vector<std::string> url_breakpoints)
    : k_(k), url_breakpoints_(std::move(url_breakpoints)) {
  md5_starts_.emplace_back();
  url_starts_.emplace_back();
  for (int i = 1; i < k_; ++i) {
    md5_splits_.push_back(Md5Split(i, k_));
    md5_starts_.push_back(md5_splits_.back());
  }
  for (const std::string& b : url_breakpoints_) {
    url_splits_.push_back(b);
    url_starts_.push_back(b);
  }
}

const std::vector<std::string>& Partition::Splits(webdb::TableId t) const {
  return IsMd5Table(t) ? md5_splits_ : url_splits_;
}

int Partition::SectionOf(webdb::TableId t, std::string_view key) const {
  const std::vector<std::string>& splits = Splits(t);
  auto it = std::upper_bound(splits.begin(), splits.end(), key,
                             [](std::string_view k, const std::string& s) { return k < s; });
  return static_cast<int>(it - splits.begin());
}

const std::string& Partition::SectionStart(webdb::TableId t, int section) const {
  return IsMd5Table(t) ? md5_starts_[section] : url_starts_[section];
}

Result<std::vector<std::string>> Partition::ChooseBreakpoints(std::vector<std::string> urls,
                                                              int k) {
  std::sort(urls.begin(), urls.end());
  urls.erase(std::unique(urls.begin(), urls.end()), urls.end());
  std::vector<std::string> breakpoints;
  for (int i = 1; i < k; ++i) {
    // No data at all: any increasing urls do; later rounds still balance poorly, which
    // is why create --sample exists.
    std::string b = "!";
    if (!urls.empty()) {
      size_t at = urls.size() * static_cast<size_t>(i) / static_cast<size_t>(k);
      b = urls[std::min(at, urls.size() - 1)];
    }
    if (!breakpoints.empty() && b <= breakpoints.back()) {
      std::optional<std::string> after = UrlAfter(breakpoints.back());
      if (!after) {
        return Err(Status::InvalidArgument(
            "no url sorts after the sample's largest one: cannot make " + std::to_string(k - 1) +
            " url breakpoints"));
      }
      b = std::move(*after);
    }
    breakpoints.push_back(std::move(b));
  }
  return breakpoints;
}

Status ValidateBreakpoints(const std::vector<std::string>& breakpoints, int k) {
  if (static_cast<int>(breakpoints.size()) != k - 1) {
    return Status::InvalidArgument("expected " + std::to_string(k - 1) + " url breakpoints, got " +
                                   std::to_string(breakpoints.size()));
  }
  for (size_t i = 0; i < breakpoints.size(); ++i) {
    NUTCHFS_RETURN_IF_ERROR(webdb::ValidateUrl(breakpoints[i]).WithContext(
        "breakpoint " + std::to_string(i)));
    if (i > 0 && breakpoints[i] <= breakpoints[i - 1]) {
      return Status::InvalidArgument("url breakpoints are not increasing at " + std::to_string(i));
    }
  }
  return Status::OK();
}

}  // namespace distwriter
