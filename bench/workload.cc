#include "bench/workload.h"

#include <algorithm>

namespace bench {

namespace {

constexpr uint64_t kPicks = 1000000;

uint64_t NewPerRound(uint64_t pages, double fraction) {
  return std::max<uint64_t>(1, static_cast<uint64_t>(static_cast<double>(pages) * fraction / 10));
}

}  // namespace

Workload::Workload(uint64_t seed, uint64_t pages, int rounds, double fraction)
    : pages_(pages),
      delete_below_(static_cast<uint64_t>(fraction / 4 * kPicks)),
      touch_below_(static_cast<uint64_t>(fraction * kPicks)),
      new_per_round_(NewPerRound(pages, fraction)),
      gen_(seed, pages + static_cast<uint64_t>(rounds) * NewPerRound(pages, fraction) + 1) {}

int Workload::CreatedIn(uint64_t id) const {
  if (id < pages_) return 0;
  return 1 + static_cast<int>((id - pages_) / new_per_round_);
}

Workload::Action Workload::ActionIn(int round, uint64_t id) const {
  const int created = CreatedIn(id);
  if (created >= round) return Action::kNone;
  for (int r = created + 1; r <= round; ++r) {
    const uint64_t pick = gen_.Hash(10, static_cast<uint64_t>(r), id) % kPicks;
    if (pick < delete_below_) return r == round ? Action::kDelete : Action::kNone;  // for good
    if (r == round) return pick < touch_below_ ? Action::kReadd : Action::kNone;
  }
  return Action::kNone;
}

Status Workload::AddFetched(uint64_t id, uint32_t version, int outdegree,
                            webdb::CallSink& sink, CallCounts* counts) const {
  webdb::Page page;
  page.url = gen_.Url(id);
  page.md5 = gen_.ContentMd5(id, version);
  page.next_fetch = 1100000000 + static_cast<int64_t>(gen_.Hash(11, id, version) % 2592000);
  const std::vector<uint64_t> targets = gen_.Outlinks(id, version, outdegree);
  page.num_outlinks = static_cast<int32_t>(targets.size());
  NUTCHFS_RETURN_IF_ERROR(sink.AddPage(page));
  ++counts->add_page;
  webdb::Link link;
  link.from = page.md5;
  for (uint64_t t : targets) {
    link.url = gen_.Url(t);
    link.anchor = gen_.Anchor(t);
    link.domain_id = gen_.HostOf(t);
    NUTCHFS_RETURN_IF_ERROR(sink.AddLink(link));
    ++counts->add_link;
  }
  return Status::OK();
}

uint64_t Workload::PhaseIds(int phase) const {
  return pages_ + static_cast<uint64_t>(phase) * new_per_round_;
}

// A round's ids: the pages before it (deleted, re-added or left alone), then its new ones.
Result<CallCounts> Workload::Phase(int phase, uint64_t first, uint64_t last,
                                   webdb::CallSink& sink) const {
  CallCounts counts;
  const uint64_t first_new = phase == 0 ? pages_ : PhaseIds(phase - 1);
  for (uint64_t id = first; id < last; ++id) {
    if (phase == 0) {
      NUTCHFS_RETURN_IF_ERROR(AddFetched(id, 0, gen_.Outdegree(id, 0), sink, &counts));
    } else if (id >= first_new) {
      NUTCHFS_RETURN_IF_ERROR(sink.AddPageIfNotPresent(webdb::Page::WithDefaults(gen_.Url(id))));
      ++counts.add_if_not_present;
    } else {
      switch (ActionIn(phase, id)) {
        case Action::kNone:
          break;
        case Action::kDelete:
          NUTCHFS_RETURN_IF_ERROR(sink.DeletePage(gen_.Url(id)));
          ++counts.delete_page;
          break;
        case Action::kReadd:
          NUTCHFS_RETURN_IF_ERROR(
              AddFetched(id, static_cast<uint32_t>(phase), 10, sink, &counts));
          break;
      }
    }
  }
  return counts;
}

}  // namespace bench
