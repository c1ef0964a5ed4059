#include "webdb/stages/stage_table.h"

namespace webdb {
namespace {

Result<StageStats> RunPagesByUrl(const StageIo& io) {
  return ApplyPagesByUrl(*io.old_rows, *io.edits, io.url_section,
                         {io.table, io.emit[0], io.emit[1], io.notices}, io.seek);
}

Result<StageStats> RunPagesByMd5(const StageIo& io) {
  return ApplyPagesByMd5(*io.old_rows, *io.edits, *io.table, io.notices, io.seek);
}

Result<StageStats> RunLinksByMd5(const StageIo& io) {
  return ApplyLinksByMd5(*io.old_rows, *io.edits, *io.joined, *io.emit[0], io.changes, io.seek);
}

Result<StageStats> RunLinksByUrl(const StageIo& io) {
  return ApplyLinksByUrl(*io.old_rows, *io.edits, *io.joined, *io.table, *io.emit[0], io.changes,
                         io.seek);
}

Result<StageStats> RunLinkFixes(const StageIo& io) {
  return ApplyLinkFixes(*io.old_rows, *io.edits, *io.joined, *io.table, io.changes, io.seek);
}

constexpr StageSpec kStages[kNumStages] = {
    {"stage 1 pagesByURL", TableId::kPagesByUrl, true, std::nullopt, Notices::kTargetsChanged,
     Notices::kNone, 0, false, {2, 3}, RunPagesByUrl},
    {"stage 2 pagesByMD5", TableId::kPagesByMd5, true, std::nullopt, Notices::kMd5sGone,
     Notices::kNone, 0, false, {0, 0}, RunPagesByMd5},
    {"stage 3 linksByMD5", TableId::kLinksByMd5, false, TableId::kPagesByMd5, Notices::kNone,
     Notices::kMd5sGone, 0, false, {4, 0}, RunLinksByMd5},
    {"stage 4 linksByURL", TableId::kLinksByUrl, true, TableId::kPagesByUrl, Notices::kNone,
     Notices::kTargetsChanged, 0, true, {5, 0}, RunLinksByUrl},
    {"stage 5 linksByMD5 fixes", TableId::kLinksByMd5, true, TableId::kPagesByMd5,
     Notices::kNone, Notices::kMd5sGone, 3, false, {0, 0}, RunLinkFixes},
};

}  // namespace

const StageSpec& Stage(int stage) { return kStages[stage - 1]; }

bool ReadAgain(int stage) {
  for (const StageSpec& later : kStages) {
    if (later.completes == stage) return true;
  }
  return false;
}

const char* StageName(int stage) {
  return stage >= 1 && stage <= kNumStages ? kStages[stage - 1].name : "stage ?";
}

JoinKeyFn JoinKeyOf(Notices n) {
  return n == Notices::kTargetsChanged ? UrlOfLinkUrlKey : Md5OfKey;
}

}  // namespace webdb
