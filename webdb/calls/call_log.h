// CallLog turns writer calls into the edits the stages consume: page calls become
// stage 1 (pagesByURL) edits keyed by url, addLink calls become stage 3 (linksByMD5)
// edits keyed by (from, url). Each call is validated first and numbered
// CallOrder(writer, index), which fixes every tie (see webdb/stages/stage_edits.h); index counts
// the log's calls, unless set_next_call says otherwise (a session logged by several
// threads, each through a CallLog of its own: writer.h, CallLanes).
// Both the single-machine writer and each distributed writer log through this class;
// they differ only in the sinks. Not thread-safe.
#ifndef WEBDB_CALLS_CALL_LOG_H_
#define WEBDB_CALLS_CALL_LOG_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "webdb/calls/call_sink.h"
#include "webdb/stages/stage_edits.h"
#include "webdb/table/iterator.h"
#include "webdb/table/record.h"

namespace webdb {

class CallLog final : public CallSink {
 public:
  CallLog(EditSink& page_edits, EditSink& link_edits, uint64_t writer)
      : page_edits_(page_edits), link_edits_(link_edits), writer_(writer) {}
  CallLog(const CallLog&) = delete;
  CallLog& operator=(const CallLog&) = delete;

  Status AddPage(const Page& p) override { return LogPage(kAddPage, p, nullptr); }
  Status AddPageWithScore(const Page& p) override { return LogPage(kAddPageWithScore, p, nullptr); }
  Status AddPageIfNotPresent(const Page& p) override {
    return LogPage(kAddPageIfNotPresent, p, nullptr);
  }
  Status AddPageIfNotPresent(const Page& p, const Link& l) override {
    return LogPage(kAddPageIfNotPresent, p, &l);
  }
  Status DeletePage(std::string_view url) override;
  Status AddLink(const Link& link) override;

  // The index of the next call: the calls logged so far, or as set below.
  uint64_t num_calls() const { return calls_; }
  // Numbers the next call n (the calls after it n + 1, ...).
  void set_next_call(uint64_t n) { calls_ = n; }

 private:
  Status LogPage(PageOp op, const Page& page, const Link* link);
  Result<uint64_t> NextOrder();

  EditSink& page_edits_;
  EditSink& link_edits_;
  const uint64_t writer_;
  uint64_t calls_ = 0;
  std::string key_;    // the key and value of the edit being logged, reused
  std::string value_;
};

// A session's lanes (CallLanes, webdb/db/writer.h): lane i is a CallLog of its own into the
// page and link sinks of producer i, which only that lane's thread uses.
class CallLogLanes final : public CallLanes {
 public:
  struct Sinks {
    EditSink* pages;
    EditSink* links;
  };
  CallLogLanes(const std::vector<Sinks>& lanes, uint64_t writer);

  size_t count() const override { return logs_.size(); }
  CallSink& Lane(size_t i, uint64_t n) override;
  uint64_t next_call() const override;

 private:
  std::vector<std::unique_ptr<CallLog>> logs_;
};

}  // namespace webdb

#endif  // WEBDB_CALLS_CALL_LOG_H_
