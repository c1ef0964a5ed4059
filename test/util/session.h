// Sessions for tests: a session is the list of webdb::Call (webdb/calls/call_file.h) of one
// writer session, in call order, kept as data so it can be printed, replayed on the real
// writer and applied to the in-memory model (test/util/model.h). Builders, a runner and
// readable formatting. Plain values and free functions; no shared state.
#ifndef TEST_UTIL_SESSION_H_
#define TEST_UTIL_SESSION_H_

#include <optional>
#include <string>
#include <vector>

#include "nutchfs/env.h"
#include "webdb/calls/call_file.h"
#include "webdb/db/writer.h"
#include "webdb/table/record.h"

namespace testutil {

using webdb::Call;
using Session = std::vector<Call>;

// The url whose page a page call touches. REQUIRES: call.op != kAddLink.
const std::string& PageUrl(const Call& call);

Call AddPageCall(webdb::Page page);
Call AddPageWithScoreCall(webdb::Page page);
Call AddPageIfNotPresentCall(webdb::Page page, std::optional<webdb::Link> link = {});
Call DeletePageCall(std::string url);
Call AddLinkCall(webdb::Link link);

// Winner rank of a page call (addPage 0 < addPageWithScore 1 < addPageIfNotPresent 2 <
// deletePage 3). REQUIRES: op != kAddLink.
int PageRank(Call::Op op);

// One whole session on the db at dir: Writer::Open, every call, Close.
webdb::Status RunSession(nutchfs::Env& env, const std::string& dir, const Session& session,
                         const webdb::WriterOptions& options = {});

// Readable one-line forms, bytes outside printable ASCII escaped as \xNN and long
// strings shortened, for failure messages.
std::string Escape(std::string_view bytes, size_t max_len = 120);
std::string FormatPage(const webdb::Page& page);
std::string FormatLink(const webdb::Link& link);
std::string FormatCall(const Call& call);
std::string FormatSession(const Session& session, size_t max_calls = 200);

}  // namespace testutil

#endif  // TEST_UTIL_SESSION_H_
