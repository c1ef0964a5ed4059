#include "test/util/session.h"

#include <fmt/format.h>

namespace testutil {

using webdb::Link;
using webdb::Page;
using webdb::Status;

Call AddPageCall(Page page) {
  Call c;
  c.op = Call::Op::kAddPage;
  c.page = std::move(page);
  return c;
}

Call AddPageWithScoreCall(Page page) {
  Call c = AddPageCall(std::move(page));
  c.op = Call::Op::kAddPageWithScore;
  return c;
}

Call AddPageIfNotPresentCall(Page page, std::optional<Link> link) {
  Call c = AddPageCall(std::move(page));
  c.op = Call::Op::kAddPageIfNotPresent;
  c.link = std::move(link);
  return c;
}

Call DeletePageCall(std::string url) {
  Call c;
  c.op = Call::Op::kDeletePage;
  c.url = std::move(url);
  return c;
}

Call AddLinkCall(Link link) {
  Call c;
  c.op = Call::Op::kAddLink;
  c.link = std::move(link);
  return c;
}

int PageRank(Call::Op op) {
  switch (op) {
    case Call::Op::kAddPage:
      return 0;
    case Call::Op::kAddPageWithScore:
      return 1;
    case Call::Op::kAddPageIfNotPresent:
      return 2;
    case Call::Op::kDeletePage:
      return 3;
    case Call::Op::kAddLink:
      break;
  }
  return -1;
}

const std::string& PageUrl(const Call& call) {
  return call.op == Call::Op::kDeletePage ? call.url : call.page.url;
}

Status RunSession(nutchfs::Env& env, const std::string& dir, const Session& session,
                  const webdb::WriterOptions& options) {
  auto writer = webdb::Writer::Open(env, dir, options);
  if (!writer) return writer.error();
  for (size_t i = 0; i < session.size(); ++i) {
    Status s = webdb::ApplyCall(**writer, session[i]);
    if (!s.ok()) return s.WithContext(fmt::format("call {} ({})", i, FormatCall(session[i])));
  }
  return (*writer)->Close();
}

std::string Escape(std::string_view bytes, size_t max_len) {
  std::string out;
  size_t n = std::min(bytes.size(), max_len);
  for (size_t i = 0; i < n; ++i) {
    auto c = static_cast<uint8_t>(bytes[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"') {
      out.push_back(static_cast<char>(c));
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  if (n < bytes.size()) out += fmt::format("...({} bytes)", bytes.size());
  return out;
}

std::string FormatPage(const Page& p) {
  return fmt::format(
      "Page{{url=\"{}\" md5={} nextFetch={} retries={} fetchInterval={} numOutlinks={} "
      "score={} nextScore={}}}",
      Escape(p.url), webdb::Md5Hex(p.md5), p.next_fetch, p.retries, p.fetch_interval,
      p.num_outlinks, p.score, p.next_score);
}

std::string FormatLink(const Link& l) {
  return fmt::format("Link{{from={} url=\"{}\" domainID={} anchor=\"{}\" targetHasOutlink={}}}",
                     webdb::Md5Hex(l.from), Escape(l.url), l.domain_id, Escape(l.anchor, 40),
                     l.target_has_outlink);
}

std::string FormatCall(const Call& c) {
  switch (c.op) {
    case Call::Op::kDeletePage:
      return fmt::format("deletePage(\"{}\")", Escape(c.url));
    case Call::Op::kAddLink:
      return fmt::format("addLink({})", FormatLink(*c.link));
    default:
      break;
  }
  std::string s = fmt::format("{}({}", webdb::CallOpName(c.op), FormatPage(c.page));
  if (c.link) s += ", " + FormatLink(*c.link);
  return s + ")";
}

std::string FormatSession(const Session& session, size_t max_calls) {
  std::string s = fmt::format("session of {} calls:\n", session.size());
  for (size_t i = 0; i < session.size() && i < max_calls; ++i) {
    s += fmt::format("  [{}] {}\n", i, FormatCall(session[i]));
  }
  if (session.size() > max_calls) s += "  ...\n";
  return s;
}

}  // namespace testutil
