// The five merge stages: the heart of the WebDB.
//
// Where a stage's merge reaches a stored block of the old table whose key range gets no
// edit (and, for stages 3 to 5, holds no row whose page changed: see
// webdb/stages/join_changes.h), the block goes to the new table as it is (RowSink::AddBlock);
// rows of such a range within a block are copied as they are stored.
// Each stage is a pure function of (old table rows, sorted edits[, a new table of an
// earlier stage]) -> (new table rows, emitted edits). It reads every input front to
// back exactly once, writes its table front to back, and knows nothing of files,
// machines or rounds: the single-machine writer and the distributed writer plug in
// different sinks and run this same code over a whole table or over one key range.
// Emitted edits go to EditSinks in whatever order the stage produces them; the driver
// sorts (or routes, then sorts) them for the stage that consumes them.
// Inputs must be sorted (rows by key, edits by (key, order)); iterators are rewound by
// the stage. With seek (docs/DESIGN.md, "Seeks"), a stage that writes a run or no table
// moves its old rows and the table it joins against by seeks to the rows its edits and
// notices name, and hands its table sink the rows between as kept unread
// (RowSink::KeepRows): it then reads what it changes, not the table, and its stats count
// the rows it handed (rows_out) rather than the new table's. Not thread-safe; one call
// at a time per set of arguments.
#ifndef WEBDB_STAGES_STAGES_H_
#define WEBDB_STAGES_STAGES_H_

#include <cstdint>
#include <string_view>

#include "webdb/stages/join_changes.h"
#include "webdb/table/iterator.h"
#include "webdb/table/record.h"

namespace webdb {

struct StageStats {
  uint64_t rows_out = 0;  // rows of the new table
  uint64_t edits_in = 0;
  uint64_t emitted = 0;   // edits handed to the sinks
  // Stage 1: urls that gained or lost their page or whose numOutlinks > 0 status
  // flipped ("target changed"). Stage 2: md5s left with no page ("md5 gone").
  // Zero tells the driver that the dependent link stage has nothing to recheck.
  uint64_t notices = 0;
};

// Hands a block the stage leaves unchanged to table (RowSink::AddBlock), counting its rows.
Status CopyBlock(const RawBlock& block, RowSink& table, StageStats& stats);

// Stage 1, pagesByURL. Resolves the calls for each url (lowest kind, then earliest
// order, wins), writes the new pages, and emits whole-page puts/removes for
// pagesByMD5 and the links of inserted addPageIfNotPresent calls for linksByMD5,
// numbered InsertedLinkOrder(url_section, i) in url order.
struct PagesByUrlOutputs {
  RowSink* table;
  EditSink* pages_by_md5;
  EditSink* links_by_md5;
  NoticeSink* target_changes = nullptr;
};
Result<StageStats> ApplyPagesByUrl(Iterator& old_rows, EditIterator& edits,
                                   uint64_t url_section, const PagesByUrlOutputs& out,
                                   bool seek = false);

// Stage 2, pagesByMD5: applies the puts and removes of stage 1.
Result<StageStats> ApplyPagesByMd5(Iterator& old_rows, EditIterator& edits, RowSink& table,
                                   NoticeSink* md5s_gone = nullptr, bool seek = false);

// Stage 3, linksByMD5. The last put per key wins over the old row; then the source
// rule keeps a link only if its `from` is the md5 of a row of new_pages_by_md5 (the
// table stage 2 wrote, over the same md5 range). Emits puts/removes for linksByURL and
// writes no table: stage 5 recomputes the same rows from the same inputs and writes
// them with stage 4's fixes, so linksByMD5 is written once a session, not twice.
// sources: stage 2's notices, the md5s gone this session; rows without edits whose md5
// none names all stay, and blocks of such rows are skipped whole. nullptr: every row is
// checked.
Result<StageStats> ApplyLinksByMd5(Iterator& old_rows, EditIterator& edits,
                                   Iterator& new_pages_by_md5, EditSink& links_by_url,
                                   JoinChanges* sources = nullptr, bool seek = false);

// Stage 4, linksByURL. Applies stage 3's puts/removes, then the target rule against
// new_pages_by_url (the table stage 1 wrote, over the same url range): a link whose url
// has no page is dropped, every other link gets targetHasOutlink from its page. Emits
// a remove or a flag change for linksByMD5 wherever that table now differs.
// targets_changed: stage 1's notices, the urls whose page came, went or flipped its
// numOutlinks > 0 status this session; rows without edits whose url none names stay as
// they are, and blocks of such rows are copied whole. nullptr: every row is checked.
Result<StageStats> ApplyLinksByUrl(Iterator& old_rows, EditIterator& edits,
                                   Iterator& new_pages_by_url, RowSink& table,
                                   EditSink& links_by_md5, JoinChanges* targets_changed = nullptr,
                                   bool seek = false);

// Stage 5, the new linksByMD5: stage 3's result, recomputed from stage 3's inputs
// (old_rows, new_pages_by_md5, sources, and its puts among `edits`), with stage 4's
// removes and flag changes (the other edits, at most one a key) applied. Blocks with
// neither and no changed source are copied whole; nullptr: no source changed.
Result<StageStats> ApplyLinkFixes(Iterator& old_rows, EditIterator& edits,
                                  Iterator& new_pages_by_md5, RowSink& table,
                                  JoinChanges* sources = nullptr, bool seek = false);

}  // namespace webdb

#endif  // WEBDB_STAGES_STAGES_H_
