#include "crawl/warc_reader.h"

#include <charconv>
#include <ctime>

#include "nutchfs/strings.h"

namespace crawl {

namespace {

constexpr size_t kReadChunk = size_t{1} << 16;
constexpr size_t kMaxHeaderBytes = size_t{1} << 20;
constexpr std::string_view kCrlf2 = "\r\n\r\n";

using nutchfs::EqualsNoCase;
using nutchfs::Trim;

// Decimal digits only: from_chars alone would take a sign.
bool ParseDigits(std::string_view s, int* out) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string_view::npos) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

std::string_view WarcRecord::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (EqualsNoCase(key, name)) return value;
  }
  return {};
}

std::string_view WarcRecord::target_uri() const {
  std::string_view uri = Header("WARC-Target-URI");
  if (uri.size() >= 2 && uri.front() == '<' && uri.back() == '>') {
    uri = uri.substr(1, uri.size() - 2);
  }
  return uri;
}

std::optional<int64_t> ParseWarcDate(std::string_view date) {
  // YYYY-MM-DDThh:mm:ss[.fff]Z; shorter prefixes (YYYY, YYYY-MM, ...) end in Z too.
  if (!date.empty() && date.back() == 'Z') date.remove_suffix(1);
  size_t dot = date.find('.');
  std::string_view fraction;
  if (dot != std::string_view::npos) {
    fraction = date.substr(dot + 1);
    date = date.substr(0, dot);
  }
  int parts[6] = {0, 1, 1, 0, 0, 0};
  static constexpr size_t kStart[6] = {0, 5, 8, 11, 14, 17};
  static constexpr size_t kLen[6] = {4, 2, 2, 2, 2, 2};
  static constexpr char kSep[6] = {'-', '-', 'T', ':', ':', '\0'};
  size_t n = 0;
  for (; n < 6 && kStart[n] < date.size(); ++n) {
    if (!ParseDigits(date.substr(kStart[n], kLen[n]), &parts[n])) return std::nullopt;
    size_t end = kStart[n] + kLen[n];
    if (end < date.size() && (n == 5 || date[end] != kSep[n])) return std::nullopt;
  }
  if (n == 0 || date.size() != kStart[n - 1] + kLen[n - 1]) return std::nullopt;
  int ms = 0;
  for (size_t i = 0; i < fraction.size(); ++i) {
    if (fraction[i] < '0' || fraction[i] > '9') return std::nullopt;
    if (i < 3) ms = ms * 10 + (fraction[i] - '0');
  }
  for (size_t i = fraction.size(); i < 3; ++i) ms *= 10;
  // timegm would carry an out-of-range field into the next one (month 13 is next
  // January), making a date of what W3C-DTF says is none.
  const int year = parts[0];
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  static constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (parts[1] < 1 || parts[1] > 12 || parts[2] < 1 ||
      parts[2] > kDays[parts[1] - 1] + (parts[1] == 2 && leap ? 1 : 0) || parts[3] > 23 ||
      parts[4] > 59 || parts[5] > 59) {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = parts[0] - 1900;
  tm.tm_mon = parts[1] - 1;
  tm.tm_mday = parts[2];
  tm.tm_hour = parts[3];
  tm.tm_min = parts[4];
  tm.tm_sec = parts[5];
  return static_cast<int64_t>(timegm(&tm)) * 1000 + ms;
}

WarcReader::WarcReader(std::unique_ptr<InputFile> in, WarcReaderOptions options)
    : in_(std::move(in)), options_(options) {}

Result<std::unique_ptr<WarcReader>> WarcReader::Open(nutchfs::Env& env, const std::string& path,
                                                     WarcReaderOptions options) {
  NUTCHFS_ASSIGN_OR_RETURN(auto in, InputFile::Open(env, path));
  return std::unique_ptr<WarcReader>(new WarcReader(std::move(in), options));
}

Status WarcReader::Error(uint64_t record_offset, const std::string& what) {
  std::string msg = in_->path() + ": record at offset " + std::to_string(record_offset);
  if (in_->gzip()) {
    msg += " (gzip member at file offset " + std::to_string(in_->MemberOffset(record_offset)) + ")";
  }
  return Status::Corruption(msg + ": " + what);
}

// Makes at least need unconsumed bytes available, or fails with a truncation error.
Status WarcReader::Fill(size_t need, uint64_t record_offset, const char* what) {
  while (buf_.size() - pos_ < need) {
    if (eof_) return Error(record_offset, std::string("truncated ") + what);
    if (pos_ > 0 && pos_ >= buf_.size() / 2) {
      buf_.erase(0, pos_);
      buf_offset_ += pos_;
      pos_ = 0;
    }
    auto got = in_->Read(std::max(kReadChunk, need - (buf_.size() - pos_)));
    if (!got && got.error().IsCorruption()) {
      // A damaged gzip stream: named like every other framing error, by the record it
      // breaks; InputFile's reason ("<path>: gzip member at ...") names the member.
      const std::string& why = got.error().message();
      return Error(record_offset, why.starts_with(in_->path() + ": ")
                                      ? why.substr(in_->path().size() + 2)
                                      : why);
    }
    if (!got) return got.error();
    if (got->empty()) eof_ = true;
    buf_.append(*got);
  }
  return Status::OK();
}

Status WarcReader::ParseHeaders(std::string_view text, WarcRecord* record, uint64_t* length) {
  size_t eol = text.find("\r\n");
  record->version = std::string(text.substr(0, eol));
  if (record->version != "WARC/1.0" && record->version != "WARC/1.1") {
    return Status::InvalidArgument("not a WARC/1.0 or WARC/1.1 record: '" +
                                   record->version.substr(0, 40) + "'");
  }
  text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 2);
  while (!text.empty()) {
    eol = text.find("\r\n");
    std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 2);
    if ((line.front() == ' ' || line.front() == '\t') && !record->headers.empty()) {
      record->headers.back().second += " ";
      record->headers.back().second += Trim(line);
      continue;
    }
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) {
      return Status::InvalidArgument("malformed header line '" + std::string(line.substr(0, 80)) +
                                     "'");
    }
    record->headers.emplace_back(std::string(line.substr(0, colon)),
                                 std::string(Trim(line.substr(colon + 1))));
  }
  std::string_view len = record->Header("Content-Length");
  auto [p, ec] = std::from_chars(len.data(), len.data() + len.size(), *length);
  if (len.empty() || ec != std::errc() || p != len.data() + len.size()) {
    return Status::InvalidArgument("missing or bad Content-Length '" + std::string(len) + "'");
  }
  if (*length > options_.max_record_bytes) {
    return Status::InvalidArgument("record of " + std::to_string(*length) +
                                   " bytes is over the limit of " +
                                   std::to_string(options_.max_record_bytes));
  }
  return Status::OK();
}

Result<std::optional<WarcRecord>> WarcReader::Next() {
  if (!failed_.ok()) return nutchfs::Err(failed_);
  uint64_t offset = buf_offset_ + pos_;
  auto fail = [&](Status s) {
    failed_ = s;
    return nutchfs::Err(std::move(s));
  };
  Status st = Fill(1, offset, "record");
  if (!st.ok() && buf_.size() == pos_ && eof_) return std::optional<WarcRecord>();
  if (!st.ok()) return fail(st);
  size_t header_end;
  size_t searched = pos_;
  while ((header_end = buf_.find(kCrlf2, searched)) == std::string::npos) {
    if (buf_.size() - pos_ > kMaxHeaderBytes) return fail(Error(offset, "header over 1 MiB"));
    searched = std::max(pos_, buf_.size() - std::min(buf_.size(), size_t{3}));
    size_t have = buf_.size() - pos_;
    size_t old_pos = pos_;
    if (Status s = Fill(have + 1, offset, "record header"); !s.ok()) return fail(s);
    searched = searched - old_pos + pos_;
  }
  WarcRecord record;
  record.offset = offset;
  uint64_t length = 0;
  std::string_view header_text(buf_.data() + pos_, header_end - pos_);
  if (Status s = ParseHeaders(header_text, &record, &length); !s.ok()) {
    return fail(Error(offset, s.message()));
  }
  size_t header_bytes = header_end + kCrlf2.size() - pos_;
  if (Status s = Fill(header_bytes + length + kCrlf2.size(), offset, "record block"); !s.ok()) {
    return fail(s);
  }
  size_t block_start = pos_ + header_bytes;
  if (std::string_view(buf_).substr(block_start + length, kCrlf2.size()) != kCrlf2) {
    return fail(Error(offset, "block of Content-Length " + std::to_string(length) +
                                  " is not followed by CRLF CRLF"));
  }
  record.block.assign(buf_, block_start, length);
  pos_ = block_start + length + kCrlf2.size();
  return std::optional<WarcRecord>(std::move(record));
}

}  // namespace crawl
