// The call-file writer: every call it writes reads back as the same call, through each
// of its drains, and a poisoned output is refused by the reader.
#include "webdb/calls/json_call_writer.h"

#include <catch2/catch.hpp>
#include <algorithm>
#include <vector>

#include "nutchfs/mem_env.h"

namespace {

using namespace webdb;

std::vector<Call> SampleCalls() {
  Page page = Page::WithDefaults("http://a.example/caf\xc3\xa9");
  page.score = 2.5f;
  page.num_outlinks = 3;
  Link link;
  link.from = Md5Of("content");
  link.url = "http://b.example/";
  link.anchor = "say \"hi\"";
  link.domain_id = 7;
  std::vector<Call> calls(6);
  calls[0].op = Call::Op::kAddPage;
  calls[0].page = page;
  calls[1].op = Call::Op::kAddPageWithScore;
  calls[1].page = page;
  calls[2].op = Call::Op::kAddPageIfNotPresent;
  calls[2].page = page;
  calls[3].op = Call::Op::kAddPageIfNotPresent;
  calls[3].page = page;
  calls[3].link = link;
  calls[4].op = Call::Op::kDeletePage;
  calls[4].url = "http://c.example/";
  calls[5].op = Call::Op::kAddLink;
  calls[5].link = link;
  return calls;
}

// The calls a call file holds, read back as `webdb apply` reads them.
std::vector<Call> ReadBack(nutchfs::Env& env, const std::string& path) {
  auto reader = CallFileReader::Open(env, path, /*parse_thread=*/false);
  REQUIRE(reader);
  std::vector<Call> calls;
  while (true) {
    auto call = (*reader)->Next();
    REQUIRE(call);
    if (*call == nullptr) break;
    calls.push_back(**call);
  }
  return calls;
}

}  // namespace

TEST_CASE("JsonCallWriter: calls read back the same, to a string and to an Env file") {
  const std::vector<Call> calls = SampleCalls();
  std::string text;
  JsonCallWriter to_string(JsonCallWriter::ToString(&text));
  auto env = nutchfs::NewMemEnv();
  auto file = env->NewWritableFile("/calls.jsonl");
  REQUIRE(file);
  JsonCallWriter to_file(JsonCallWriter::ToFile(**file));
  for (JsonCallWriter* w : {&to_string, &to_file}) {
    for (const Call& c : calls) REQUIRE(ApplyCall(*w, c).ok());
    CHECK(w->calls() == calls.size());
    REQUIRE(w->Flush().ok());
  }
  CHECK(to_string.bytes_written() == text.size());
  CHECK(std::count(text.begin(), text.end(), '\n') == static_cast<long>(calls.size()));
  REQUIRE((*file)->Close().ok());
  CHECK(ReadBack(*env, "/calls.jsonl") == calls);
  auto copy = env->NewWritableFile("/copy.jsonl");
  REQUIRE(copy);
  REQUIRE((*copy)->Append(text).ok());
  REQUIRE((*copy)->Close().ok());
  CHECK(ReadBack(*env, "/copy.jsonl") == calls);
}

TEST_CASE("JsonCallWriter: nothing reaches the drain before Flush, a poisoned file is refused") {
  std::string text;
  JsonCallWriter w(JsonCallWriter::ToString(&text));
  REQUIRE(w.AddLink(SampleCalls()[5].link.value()).ok());
  CHECK(text.empty());
  REQUIRE(w.Poison("the WARC file ended early").ok());
  CHECK_THAT(text, Catch::EndsWith("{\"op\":\"error\",\"message\":\"the WARC file ended early\"}\n"));
  auto env = nutchfs::NewMemEnv();
  auto file = env->NewWritableFile("/poisoned.jsonl");
  REQUIRE(file);
  REQUIRE((*file)->Append(text).ok());
  REQUIRE((*file)->Close().ok());
  auto reader = CallFileReader::Open(*env, "/poisoned.jsonl", false);
  REQUIRE(reader);
  REQUIRE((*reader)->Next());  // the link
  auto bad = (*reader)->Next();
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().message(), Catch::Contains("/poisoned.jsonl:2"));
}

TEST_CASE("JsonCallWriter: a failing drain's error comes back from the call that drains") {
  JsonCallWriter w([](std::string_view) { return Status::IOError("disk full"); });
  REQUIRE(w.AddPage(Page::WithDefaults("http://a.example/")).ok());
  Status flushed = w.Flush();
  CHECK(flushed.IsIOError());
  CHECK(w.bytes_written() == 0);
}
