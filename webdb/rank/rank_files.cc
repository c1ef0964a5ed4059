#include "webdb/rank/rank_files.h"

#include <fmt/format.h>

#include <bit>
#include <cstring>

#include "webdb/util/coding.h"

namespace webdb {

// Scores and sums are stored as the machine holds them: little-endian (docs/FORMAT.md).
static_assert(std::endian::native == std::endian::little);

Status RunWriter::AddPage(PageInfo page) {
  PutVarint32(&run_, page.outdeg);
  run_.push_back(static_cast<char>(page.flags));
  return Added();
}

Status RunWriter::AddScore(double score) {
  run_.append(reinterpret_cast<const char*>(&score), sizeof score);
  return Added();
}

Status RunWriter::AddSum(Fixed sum) {
  run_.append(reinterpret_cast<const char*>(&sum), sizeof sum);
  return Added();
}

Status RunWriter::AddMd5(std::string_view md5) {
  run_.append(md5.data(), sizeof(Md5));
  return Added();
}

Status RunWriter::Added() {
  ++count_;
  if (++in_run_ < kRunEntries) return Status::OK();
  Status s = out_.Add(EditView{{}, 0, 0, run_});
  run_.clear();
  in_run_ = 0;
  return s;
}

Status RunWriter::Finish() {
  if (in_run_ == 0) return Status::OK();
  Status s = out_.Add(EditView{{}, 0, 0, run_});
  run_.clear();
  in_run_ = 0;
  return s;
}

Status RunReader::Bad(std::string_view what) const {
  return Status::Corruption(fmt::format("{}: {} at entry {}", name_, what, position_));
}

Result<bool> RunReader::Fill() {
  if (!rest_.empty()) return true;
  if (started_ && in_.Valid()) in_.Next();
  started_ = true;
  if (!in_.Valid()) {
    NUTCHFS_RETURN_IF_ERROR(in_.status());
    return false;
  }
  rest_ = in_.edit().value;
  if (rest_.empty()) return Err(Bad("an empty run"));
  return true;
}

Result<std::span<const PageInfo>> RunReader::Pages(size_t n) {
  pages_.clear();
  NUTCHFS_ASSIGN_OR_RETURN(bool more, Fill());
  while (more && pages_.size() < n && !rest_.empty()) {
    PageInfo p;
    if (!GetVarint32(&rest_, &p.outdeg) || rest_.empty()) return Err(Bad("a malformed page"));
    p.flags = static_cast<uint8_t>(rest_[0]);
    rest_.remove_prefix(1);
    if (p.flags > 7) return Err(Bad("unknown page flags"));
    pages_.push_back(p);
    ++position_;
  }
  return std::span<const PageInfo>(pages_);
}

template <typename T>
Result<std::span<const T>> RunReader::ReadFixedWidth(size_t n, std::vector<T>& out) {
  NUTCHFS_ASSIGN_OR_RETURN(bool more, Fill());
  if (!more) return std::span<const T>();
  if (rest_.size() % sizeof(T) != 0) return Err(Bad("a run cut short"));
  const size_t take = std::min(n, rest_.size() / sizeof(T));
  out.resize(take);
  std::memcpy(out.data(), rest_.data(), take * sizeof(T));
  rest_.remove_prefix(take * sizeof(T));
  position_ += take;
  return std::span<const T>(out);
}

Result<std::span<const double>> RunReader::Scores(size_t n) { return ReadFixedWidth(n, scores_); }
Result<std::span<const Fixed>> RunReader::Sums(size_t n) { return ReadFixedWidth(n, sums_); }
Result<std::span<const Md5>> RunReader::Md5s(size_t n) { return ReadFixedWidth(n, md5s_); }

Status RunReader::ExpectEnd() {
  NUTCHFS_ASSIGN_OR_RETURN(bool more, Fill());
  return more ? Bad("more entries than expected") : Status::OK();
}

namespace {
void PutBlock(std::string* key, uint32_t block) {
  for (int i = 0; i < 4; ++i) key->push_back(static_cast<char>(block >> (24 - 8 * i)));
}
}  // namespace

std::string BlockKey(uint32_t block) {
  std::string key;
  PutBlock(&key, block);
  return key;
}

std::string EdgeKey(uint32_t block, uint64_t group) {
  std::string key = BlockKey(block);
  PutBigEndian64(&key, group);
  return key;
}

void SetEdgeStreamKey(uint32_t block, std::string_view md5, std::string* key) {
  key->clear();
  PutBlock(key, block);
  key->append(md5);
}

Status EdgeWriter::Add(uint32_t block, uint64_t group, uint32_t offset) {
  if (open_ && (block != block_ || group != group_)) {
    if (block < block_ || (block == block_ && group < group_)) {
      return Status::Corruption(fmt::format("rank edges: block {} group {} after block {} group {}",
                                            block, group, block_, group_));
    }
    NUTCHFS_RETURN_IF_ERROR(Flush());
  } else if (open_ && offset <= last_) {
    return Status::Corruption(fmt::format(
        "rank edges: block {} group {}: target {} twice or out of order", block, group, offset));
  }
  if (!open_) {
    open_ = true;
    block_ = block;
    group_ = group;
    PutVarint32(&deltas_, offset);
  } else {
    PutVarint32(&deltas_, offset - last_);
  }
  last_ = offset;
  ++in_run_;
  ++count_;
  return Status::OK();
}

Status EdgeWriter::Flush() {
  value_.clear();
  PutVarint32(&value_, in_run_);
  value_ += deltas_;
  Status s = out_.Add(EditView{EdgeKey(block_, group_), 0, 0, value_});
  deltas_.clear();
  in_run_ = 0;
  open_ = false;
  return s;
}

Status EdgeWriter::Finish() { return open_ ? Flush() : Status::OK(); }

Status EdgeReader::Bad(std::string_view what) const {
  return Status::Corruption(fmt::format("{}: {} in record {}", name_, what, records_));
}

Result<const EdgeRun*> EdgeReader::Peek() {
  if (have_) return &run_;
  if (records_ > 0 && in_.Valid()) in_.Next();
  if (!in_.Valid()) {
    NUTCHFS_RETURN_IF_ERROR(in_.status());
    return nullptr;
  }
  ++records_;
  const EditView& e = in_.edit();
  if (e.key.size() != 12) return Err(Bad("a malformed key"));
  const uint64_t block = DecodeBigEndian64(e.key.data()) >> 32;
  run_.block = static_cast<uint32_t>(block);
  run_.group = DecodeBigEndian64(e.key.data() + 4);
  std::string_view v = e.value;
  uint32_t count = 0;
  if (!GetVarint32(&v, &count) || count == 0) return Err(Bad("a malformed count"));
  run_.offsets.resize(count);
  uint32_t at = 0;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t delta = 0;
    if (!GetVarint32(&v, &delta) || (i > 0 && delta == 0)) return Err(Bad("a malformed target"));
    at += delta;
    run_.offsets[i] = at;
  }
  if (!v.empty()) return Err(Bad("bytes after the targets"));
  have_ = true;
  return &run_;
}

}  // namespace webdb
