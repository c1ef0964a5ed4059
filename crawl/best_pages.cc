#include "crawl/best_pages.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "crawl/url.h"

namespace crawl {

namespace {

// A chunk holds whole records, so it must hold the largest one (a 65535-byte url).
constexpr size_t kChunkBytes = size_t{128} << 10;

// Records appended before the first compaction, and at least between two: enough to
// make a compaction's fixed costs small per record, few enough to set the thresholds
// early when top_n is small.
constexpr uint64_t kMinBatch = 1024;

// A group in the table, beside its name: the hash node with its allocator header, a
// bucket, its state (twice, while the vector grows or is renumbered) and the name's own
// allocation when it is too long for the string's inline buffer.
constexpr size_t kGroupBytes = 128;

// A record in the arena: this header, then the url, then the page's pagesByURL value.
struct Header {
  uint32_t rank;
  uint32_t group;  // kNone once dropped
  uint32_t url_size;
  uint32_t value_size;
};

Header ReadHeader(const char* record) {
  Header h;
  std::memcpy(&h, record, sizeof(h));
  return h;
}

size_t RecordBytes(const Header& h) { return sizeof(Header) + h.url_size + h.value_size; }

size_t GroupCost(size_t name_size) { return kGroupBytes + name_size; }

}  // namespace

// A record's place in the best-first order: rank, then position (url order).
struct BestPages::Entry {
  uint32_t rank;
  uint32_t group;  // kNone once dropped
  uint64_t pos;    // chunk * kChunkBytes + offset: ascends with the url
};

BestPages::BestPages(const GenerateOptions& options)
    : top_n_(options.top_n),
      max_per_group_(options.max_per_group),
      group_by_(options.group_by),
      memory_budget_(options.memory_budget) {}

bool BestPages::Offer(const webdb::Page& page) {
  uint32_t rank = DescendingScoreBits(page.score);
  if (TurnedAway(rank)) return true;
  size_t group_bytes = 0;
  if (capping()) {
    group_bytes = GroupName(page.url).size();
    uint32_t id = FindGroup();
    if (id != kNone && groups_[id].held >= max_per_group_ && rank >= groups_[id].worst_rank) {
      ++capped_;
      return true;
    }
  }
  value_.clear();
  webdb::EncodePageByUrlValue(page, &value_);
  size_t bytes = sizeof(Header) + page.url.size() + value_.size();
  if (bytes > kChunkBytes) return false;
  if (added_ >= std::max(kept_, kMinBatch) || MemoryWith(bytes, group_bytes) > memory_budget_) {
    Compact();
    if (MemoryWith(bytes, group_bytes) > memory_budget_ / 4 * 3) return false;
    if (TurnedAway(rank)) return true;
  }
  uint32_t group = 0;
  if (capping()) {
    group = FindGroup();
    if (group == kNone) group = AddGroup();
    if (group == kNone) return false;
    GroupState& g = groups_[group];
    ++g.held;
    g.worst_rank = std::max(g.worst_rank, rank);
  }
  Append(rank, group, page.url);
  peak_memory_ = std::max(peak_memory_, MemoryWith(0, 0));
  return true;
}

Status BestPages::Emit(const std::function<Status(const webdb::Page&)>& emit, uint64_t* selected) {
  std::vector<Entry> entries = SortedEntries();
  Select(entries);
  for (const Entry& e : entries) {
    if (e.group == kNone) continue;
    const char* record = At(e.pos);
    Header h = ReadHeader(record);
    std::string_view url(record + sizeof(Header), h.url_size);
    NUTCHFS_ASSIGN_OR_RETURN(webdb::Page page,
                             webdb::DecodePageByUrl(url, {url.data() + url.size(), h.value_size}));
    NUTCHFS_RETURN_IF_ERROR(emit(page));
    ++*selected;
  }
  return Status::OK();
}

size_t BestPages::MemoryWith(size_t record_bytes, size_t group_bytes) const {
  size_t chunks = chunks_.size();
  if (record_bytes > 0 && (chunks_.empty() || chunks_.back().used + record_bytes > kChunkBytes)) {
    ++chunks;
  }
  size_t entries = records_ + (record_bytes > 0 ? 1 : 0);
  size_t groups = group_bytes_ + (capping() && record_bytes > 0 ? GroupCost(group_bytes) : 0);
  return chunks * kChunkBytes + entries * sizeof(Entry) + groups;
}

std::string_view BestPages::GroupName(const std::string& url) {
  std::string_view host = HostOfUrl(url);
  if (!has_last_ || host != last_host_) {
    has_last_ = true;
    last_host_ = host;
    last_group_ = GroupOfUrl(url, group_by_);
    last_group_id_ = kNone;
  }
  return last_group_;
}

uint32_t BestPages::FindGroup() {
  if (last_group_id_ == kNone) {
    auto it = group_ids_.find(std::string_view(last_group_));
    if (it != group_ids_.end()) last_group_id_ = it->second;
  }
  return last_group_id_;
}

uint32_t BestPages::AddGroup() {
  if (groups_.size() >= kNone) return kNone;
  last_group_id_ = static_cast<uint32_t>(groups_.size());
  group_ids_.emplace(last_group_, last_group_id_);
  groups_.emplace_back();
  group_bytes_ += GroupCost(last_group_.size());
  return last_group_id_;
}

void BestPages::Append(uint32_t rank, uint32_t group, const std::string& url) {
  size_t bytes = sizeof(Header) + url.size() + value_.size();
  if (chunks_.empty() || chunks_.back().used + bytes > kChunkBytes) {
    chunks_.push_back({std::make_unique_for_overwrite<char[]>(kChunkBytes), 0});
  }
  Chunk& chunk = chunks_.back();
  char* record = chunk.bytes.get() + chunk.used;
  Header h{rank, group, static_cast<uint32_t>(url.size()), static_cast<uint32_t>(value_.size())};
  std::memcpy(record, &h, sizeof(h));
  std::memcpy(record + sizeof(h), url.data(), url.size());
  std::memcpy(record + sizeof(h) + url.size(), value_.data(), value_.size());
  chunk.used += bytes;
  ++records_;
  ++added_;
}

char* BestPages::At(uint64_t pos) const {
  return chunks_[pos / kChunkBytes].bytes.get() + pos % kChunkBytes;
}

void BestPages::Drop(uint64_t pos) {
  uint32_t none = kNone;
  std::memcpy(At(pos) + offsetof(Header, group), &none, sizeof(none));
}

std::vector<BestPages::Entry> BestPages::SortedEntries() const {
  std::vector<Entry> entries;
  entries.reserve(records_);
  for (size_t c = 0; c < chunks_.size(); ++c) {
    for (size_t offset = 0; offset < chunks_[c].used;) {
      Header h = ReadHeader(chunks_[c].bytes.get() + offset);
      entries.push_back({h.rank, h.group, c * kChunkBytes + offset});
      offset += RecordBytes(h);
    }
  }
  auto better = [](const Entry& a, const Entry& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.pos < b.pos;
  };
  // Equal scores, as when no page has been scored yet, leave the records in order.
  if (!std::is_sorted(entries.begin(), entries.end(), better)) {
    std::sort(entries.begin(), entries.end(), better);
  }
  return entries;
}

// The selection of the fetch list, as docs/CRAWL.md defines it, over these pages; a page
// it leaves out can never be selected once more pages are seen, since they only add
// better pages to compete with (docs/CRAWL.md, "Generate").
void BestPages::Select(std::vector<Entry>& entries) {
  for (GroupState& g : groups_) g = GroupState();
  uint64_t kept = 0;
  for (Entry& e : entries) {
    bool keep = kept < top_n_;
    if (keep && capping()) {
      GroupState& g = groups_[e.group];
      keep = g.held < max_per_group_;
      if (!keep) {
        ++capped_;
      } else {
        ++g.held;
        g.worst_rank = e.rank;  // entries come best first
      }
    }
    if (!keep) {
      e.group = kNone;
      Drop(e.pos);
    } else if (++kept == top_n_) {
      full_ = true;
      worst_rank_ = e.rank;
    }
  }
  kept_ = kept;
}

void BestPages::Compact() {
  ++compactions_;
  {
    std::vector<Entry> entries = SortedEntries();
    Select(entries);
  }
  std::vector<uint32_t> remap = capping() ? RenumberGroups() : std::vector<uint32_t>();
  Slide(remap);
  records_ = kept_;
  added_ = 0;
  last_group_id_ = kNone;
}

std::vector<uint32_t> BestPages::RenumberGroups() {
  std::vector<uint32_t> remap(groups_.size(), kNone);
  std::vector<GroupState> live;
  for (auto it = group_ids_.begin(); it != group_ids_.end();) {
    const GroupState& g = groups_[it->second];
    if (g.held == 0) {
      group_bytes_ -= GroupCost(it->first.size());
      it = group_ids_.erase(it);
      continue;
    }
    remap[it->second] = static_cast<uint32_t>(live.size());
    it->second = static_cast<uint32_t>(live.size());
    live.push_back(g);
    ++it;
  }
  group_ids_.rehash(0);  // gives back the buckets of the groups forgotten
  groups_ = std::move(live);
  return remap;
}

// The write position never passes the read position: the kept records are a subsequence
// packed by the same rule (a record goes to the next chunk when it does not fit), so a
// record is only ever moved down, within its chunk or into an earlier one.
void BestPages::Slide(const std::vector<uint32_t>& remap) {
  size_t to_chunk = 0;
  size_t to = 0;
  for (size_t c = 0; c < chunks_.size(); ++c) {
    const size_t end = chunks_[c].used;
    for (size_t offset = 0; offset < end;) {
      char* record = chunks_[c].bytes.get() + offset;
      Header h = ReadHeader(record);
      size_t bytes = RecordBytes(h);
      offset += bytes;
      if (h.group == kNone) continue;
      if (!remap.empty()) {
        uint32_t group = remap[h.group];
        std::memcpy(record + offsetof(Header, group), &group, sizeof(group));
      }
      if (to + bytes > kChunkBytes) {
        chunks_[to_chunk].used = to;
        ++to_chunk;
        to = 0;
      }
      char* dest = chunks_[to_chunk].bytes.get() + to;
      if (dest != record) std::memmove(dest, record, bytes);
      to += bytes;
    }
  }
  if (to == 0) {
    chunks_.clear();
  } else {
    chunks_[to_chunk].used = to;
    chunks_.resize(to_chunk + 1);
  }
}

}  // namespace crawl
