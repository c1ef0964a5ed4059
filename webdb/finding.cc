#include "webdb/finding.h"

#include <fmt/format.h>

namespace webdb {
namespace {

constexpr size_t kMaxShown = 200;

std::string Printable(std::string_view bytes) {
  std::string out;
  for (char c : bytes) {
    if (out.size() >= kMaxShown) return out + "...";
    auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f && u != '\\') {
      out.push_back(c);
    } else {
      out += fmt::format("\\x{:02x}", u);
    }
  }
  return out;
}

std::string Md5Part(std::string_view key) {
  if (key.size() < 16) return Printable(key);
  return Md5Hex(Md5FromBytes(key.substr(0, 16)));
}

}  // namespace

std::string Finding::ToString() const {
  if (where.empty()) return file + ": " + what;
  return file + ": " + where + ": " + what;
}

void FindingLog::Add(Finding f) {
  ++count_;
  if (fn_) fn_(f);
}

void FindingLog::AddStatus(const std::string& file, const Status& s) {
  std::string what = s.message();
  if (what.starts_with(file + ": ")) what.erase(0, file.size() + 2);
  Add({file, "", what});
}

std::string DescribeKey(TableId t, std::string_view key) {
  switch (t) {
    case TableId::kPagesByUrl:
      return "key " + Printable(key);
    case TableId::kPagesByMd5:
    case TableId::kLinksByMd5:
      return "key " + Md5Part(key) + " " + Printable(key.size() < 16 ? "" : key.substr(16));
    case TableId::kLinksByUrl: {
      if (key.size() < 17) return "key " + Printable(key);
      return "key " + Printable(key.substr(0, key.size() - 17)) + " from " +
             Md5Part(key.substr(key.size() - 16));
    }
  }
  return "key " + Printable(key);
}

}  // namespace webdb
