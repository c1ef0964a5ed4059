#include "webdb/calls/call_file.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "nutchfs/fault_env.h"
#include "test/util/temp_dir.h"

namespace webdb {
namespace {

void WriteFile(const std::string& path, const std::string& contents) {
  std::ofstream f(path, std::ios::binary);
  f << contents;
  REQUIRE(f.good());
}

struct ReadAll {
  std::vector<Call> calls;
  Status error;
};

ReadAll ReadFile(const std::string& path) {
  auto env = nutchfs::NewLocalEnv();
  auto reader = CallFileReader::Open(*env, path);
  REQUIRE(reader.has_value());
  ReadAll out;
  for (;;) {
    auto call = (*reader)->Next();
    if (!call) {
      out.error = call.error();
      // The error is sticky.
      auto again = (*reader)->Next();
      REQUIRE_FALSE(again.has_value());
      CHECK(again.error().message() == out.error.message());
      return out;
    }
    if (!*call) return out;
    out.calls.push_back(**call);
  }
}

std::string DeleteLine(const std::string& url) {
  return R"({"op":"deletePage","url":")" + url + "\"}";
}

TEST_CASE("blank lines are skipped and the last line needs no newline") {
  testutil::TempDir dir;
  std::string path = dir.File("calls.jsonl");
  WriteFile(path, "\n" + DeleteLine("http://a/") + "\r\n  \t\n\n" + DeleteLine("http://b/"));
  ReadAll r = ReadFile(path);
  REQUIRE(r.error.ok());
  REQUIRE(r.calls.size() == 2);
  CHECK(r.calls[0].url == "http://a/");
  CHECK(r.calls[1].url == "http://b/");
}

TEST_CASE("an empty file has no calls") {
  testutil::TempDir dir;
  WriteFile(dir.File("empty"), "");
  ReadAll r = ReadFile(dir.File("empty"));
  CHECK(r.error.ok());
  CHECK(r.calls.empty());
}

TEST_CASE("an error applying a call is placed as bad input only when it is") {
  testutil::TempDir dir;
  const std::string path = dir.File("calls.jsonl");
  WriteFile(path, DeleteLine("http://a/") + "\n" + DeleteLine("http://b/") + "\n");
  auto env = nutchfs::NewLocalEnv();
  auto reader = CallFileReader::Open(*env, path);
  REQUIRE(reader.has_value());
  REQUIRE((*reader)->Next());
  REQUIRE((*reader)->Next());
  Status bad = (*reader)->Placed(Status::InvalidArgument("url too long"));
  CHECK(bad.IsInvalidArgument());
  CHECK(bad.message() == path + ":2: url too long");
  Status full = (*reader)->Placed(Status::IOError("write run: No space left on device"));
  CHECK(full.IsIOError());
  CHECK(full.message() == "logging the calls of " + path +
                              " (at line 2): write run: No space left on device");
}

TEST_CASE("errors name FILE:LINE of the bad line") {
  testutil::TempDir dir;
  std::string path = dir.File("bad.jsonl");
  struct Case {
    std::string line;
    std::string reason;
  };
  std::vector<Case> cases = {
      {"{not json", "invalid JSON"},
      {R"({"op":"frobnicate","url":"http://a/"})", "unknown op"},
      {R"({"op":"addPage"})", "missing field \"page\""},
      {R"({"op":"deletePage","url":5})", "url: expected a string"},
      {R"({"op":"addPage","page":{"url":"http://a/","md5":"XYZ"}})", "page.md5: expected 32"},
      {R"({"op":"addPage","page":{"url":"http://a/","retries":256}})", "out of range 0..255"},
      {R"({"op":"deletePage","url":"a\u0001"})", "control byte 0x01"},
      {"{\"op\":\"deletePage\",\"url\":\"\xff\"}", "invalid JSON"},
  };
  for (const Case& c : cases) {
    // Good lines, a blank line, then the bad one on line 4, then more good lines.
    WriteFile(path, DeleteLine("http://1/") + "\n\n" + DeleteLine("http://3/") + "\n" + c.line +
                        "\n" + DeleteLine("http://5/") + "\n");
    ReadAll r = ReadFile(path);
    INFO(c.line);
    CHECK(r.calls.size() == 2);
    CHECK(r.error.IsInvalidArgument());
    CHECK_THAT(r.error.message(), Catch::StartsWith(path + ":4: "));
    CHECK_THAT(r.error.message(), Catch::Contains(c.reason));
  }
}

TEST_CASE("line numbers stay right across buffer refills") {
  testutil::TempDir dir;
  std::string path = dir.File("many.jsonl");
  std::string contents;
  const int kLines = 60000;  // about 6 MB: crosses the 4 MiB read buffer
  for (int i = 1; i <= kLines; ++i) {
    contents += DeleteLine("http://example.com/" + std::string(60, 'p') + std::to_string(i));
    contents += "\n";
  }
  contents += "{\"op\":\"deletePage\"}\n";
  WriteFile(path, contents);
  ReadAll r = ReadFile(path);
  CHECK(r.calls.size() == kLines);
  CHECK(r.calls.back().url.ends_with(std::to_string(kLines)));
  CHECK_THAT(r.error.message(), Catch::StartsWith(path + ":" + std::to_string(kLines + 1) + ": "));
}

TEST_CASE("a line longer than the read buffer is read whole") {
  testutil::TempDir dir;
  std::string path = dir.File("long.jsonl");
  std::string spaces(5 << 20, ' ');  // JSON allows white space between tokens
  WriteFile(path, DeleteLine("http://a/") + "\n{\"op\":" + spaces +
                      "\"deletePage\",\"url\":\"http://b/\"}\n" + DeleteLine("http://c/") + "\n");
  ReadAll r = ReadFile(path);
  REQUIRE(r.error.ok());
  REQUIRE(r.calls.size() == 3);
  CHECK(r.calls[1].url == "http://b/");
  CHECK(r.calls[2].url == "http://c/");
}

// What a reader hands out: each call with the line and position it reports after it,
// then how the stream ends.
struct Trace {
  std::vector<std::string> calls;  // "url line consumed"
  std::string end;                 // "OK" or the error, with the line and position then
};

Trace TraceReader(nutchfs::Env& env, const std::string& path, bool parse_thread) {
  auto reader = CallFileReader::Open(env, path, parse_thread);
  REQUIRE(reader.has_value());
  Trace t;
  for (;;) {
    auto call = (*reader)->Next();
    const std::string at =
        std::to_string((*reader)->line()) + " " + std::to_string((*reader)->bytes_consumed());
    if (!call) {
      t.end = call.error().ToString() + " at " + at;
      return t;
    }
    if (!*call) {
      t.end = "OK at " + at;
      return t;
    }
    const Call& c = **call;
    t.calls.push_back((c.op == Call::Op::kDeletePage ? c.url : c.link->url) + " " + at);
  }
}

// Lines of every length around the parse threads' 256 KiB chunks: blank ones, lines
// longer than a chunk, a file that ends with or without a newline, and perhaps a bad line.
std::string RandomCallFile(std::mt19937_64& rng, bool with_error) {
  std::string text;
  const size_t lines = 2000 + rng() % 20000;
  const size_t bad = with_error ? rng() % lines : lines;
  for (size_t i = 0; i < lines; ++i) {
    const unsigned pick = rng() % 100;
    if (i == bad) {
      text += R"({"op":"deletePage","url":"http://bad/\u0001"})";
    } else if (pick < 5) {
      text += pick < 3 ? "" : " \t\r";
    } else if (pick < 6 && rng() % 20 == 0) {  // a line longer than a chunk
      text += "{\"op\":" + std::string(300000 + rng() % 300000, ' ') +
              "\"deletePage\",\"url\":\"http://long/" + std::to_string(i) + "\"}";
    } else if (pick < 50) {
      text += DeleteLine("http://d.example/" + std::string(rng() % 200, 'p') + std::to_string(i));
    } else {
      text += R"({"op":"addLink","link":{"from":"0123456789abcdef0123456789abcdef","url":"http://l/)" +
              std::to_string(i) + R"(","anchor":")" + std::string(rng() % 40, 'a') + "\"}}";
    }
    if (i + 1 < lines || rng() % 2 == 0) text += "\n";
  }
  return text;
}

// Writes a RandomCallFile of the seed to path; what the single-threaded reader reads.
Trace WriteRandomCallFile(nutchfs::Env& env, const std::string& path, uint64_t seed,
                          bool with_error) {
  std::mt19937_64 rng(seed);
  WriteFile(path, RandomCallFile(rng, with_error));
  return TraceReader(env, path, false);
}

TEST_CASE("the parse threads hand out what the single-threaded reader reads", "[random]") {
  const uint64_t seed = GENERATE(1, 2, 3, 4, 5, 6, 7, 8);
  const bool with_error = seed % 2 == 0;
  INFO("seed " << seed);
  testutil::TempDir dir;
  const std::string path = dir.File("calls.jsonl");
  auto env = nutchfs::NewLocalEnv();
  const Trace single = WriteRandomCallFile(*env, path, seed, with_error);
  const Trace threads = TraceReader(*env, path, true);
  CHECK(threads.calls == single.calls);
  CHECK(threads.end == single.end);
  CHECK(single.calls.size() > 1000);
  CHECK((single.end.rfind("OK", 0) == 0) == !with_error);
}

TEST_CASE("the parse threads end with a read error after the lines read before it",
          "[fault]") {
  std::mt19937_64 rng(9);
  testutil::TempDir dir;
  const std::string path = dir.File("calls.jsonl");
  WriteFile(path, RandomCallFile(rng, false));
  auto local = nutchfs::NewLocalEnv();
  const Trace whole = TraceReader(*local, path, false);
  for (int nth : {1, 2, 5, 9}) {
    INFO("read " << nth << " fails");
    auto env = nutchfs::NewFaultEnv(local.get());
    REQUIRE(env->Inject({nutchfs::FaultOp::kRead, nth}).ok());
    const Trace t = TraceReader(*env, path, true);
    CHECK_THAT(t.end, Catch::Contains("injected fault"));
    REQUIRE(t.calls.size() < whole.calls.size());
    CHECK(std::equal(t.calls.begin(), t.calls.end(), whole.calls.begin()));
  }
}

TEST_CASE("a missing call file fails to open") {
  testutil::TempDir dir;
  auto env = nutchfs::NewLocalEnv();
  auto reader = CallFileReader::Open(*env, dir.File("absent.jsonl"));
  REQUIRE_FALSE(reader.has_value());
  CHECK_THAT(reader.error().message(), Catch::Contains("absent.jsonl"));
}

// Lanes that record each call they log with its number, as "url" by number, and fail
// the calls whose url is in fail with the status given there.
class RecordingLanes final : public CallLanes {
 public:
  RecordingLanes(size_t lanes, uint64_t first, std::map<std::string, Status> fail = {})
      : fail_(std::move(fail)) {
    for (size_t i = 0; i < lanes; ++i) lanes_.push_back(std::make_unique<Recorder>(*this, first));
  }

  size_t count() const override { return lanes_.size(); }
  CallSink& Lane(size_t i, uint64_t n) override {
    lanes_[i]->next = n;
    return *lanes_[i];
  }
  uint64_t next_call() const override {
    uint64_t next = 0;
    for (const auto& lane : lanes_) next = std::max(next, lane->next);
    return next;
  }

  // Every lane's calls by number; a number logged twice fails the test.
  std::map<uint64_t, std::string> Logged() const {
    std::map<uint64_t, std::string> all;
    for (const auto& lane : lanes_) {
      for (const auto& [n, url] : lane->got) CHECK(all.emplace(n, url).second);
    }
    return all;
  }

 private:
  struct Recorder final : CallSink {
    Recorder(RecordingLanes& lanes, uint64_t first) : owner(lanes), next(first) {}
    Status AddPage(const Page& p) override { return Log(p.url); }
    Status AddPageWithScore(const Page& p) override { return Log(p.url); }
    Status AddPageIfNotPresent(const Page& p) override { return Log(p.url); }
    Status AddPageIfNotPresent(const Page& p, const Link&) override { return Log(p.url); }
    Status DeletePage(std::string_view url) override { return Log(std::string(url)); }
    Status AddLink(const Link& l) override { return Log(l.url); }
    Status Log(const std::string& url) {
      auto failing = owner.fail_.find(url);
      if (failing != owner.fail_.end()) return failing->second;
      got.emplace_back(next++, url);
      return Status::OK();
    }
    RecordingLanes& owner;
    uint64_t next;
    std::vector<std::pair<uint64_t, std::string>> got;
  };

  const std::map<std::string, Status> fail_;
  std::vector<std::unique_ptr<Recorder>> lanes_;
};

std::string Field(const std::string& traced, int i) {
  std::istringstream in(traced);
  std::string field;
  for (int k = 0; k <= i; ++k) in >> field;
  return field;
}

TEST_CASE("LogCalls numbers every call as one thread reading the file would", "[random]") {
  const uint64_t seed = GENERATE(11, 12, 13, 14, 15, 16);
  const bool with_error = seed % 2 == 0;
  const size_t lanes = GENERATE(1, 2);
  const bool parse_thread = GENERATE(true, false);
  INFO("seed " << seed << ", " << lanes << " lanes, parse threads " << parse_thread);
  testutil::TempDir dir;
  const std::string path = dir.File("calls.jsonl");
  auto env = nutchfs::NewLocalEnv();
  const Trace single = WriteRandomCallFile(*env, path, seed, with_error);
  REQUIRE(single.calls.size() > 1000);

  const uint64_t first = 7;  // calls of the session logged before this file
  RecordingLanes recording(lanes, first);
  auto reader = CallFileReader::Open(*env, path, parse_thread);
  REQUIRE(reader);
  auto logged = (*reader)->LogCalls(recording, {});
  const std::map<uint64_t, std::string> calls = recording.Logged();
  for (size_t i = 0; i < single.calls.size(); ++i) {
    auto call = calls.find(first + i);
    REQUIRE(call != calls.end());
    REQUIRE(call->second == Field(single.calls[i], 0));
  }
  if (with_error) {
    REQUIRE_FALSE(logged);
    CHECK(single.end.rfind(logged.error().ToString() + " at ", 0) == 0);
    return;
  }
  REQUIRE(logged);
  CHECK(*logged == single.calls.size());
  CHECK(calls.size() == single.calls.size());
  CHECK(recording.next_call() == first + single.calls.size());
  CHECK("OK at " + std::to_string((*reader)->line()) + " " +
            std::to_string((*reader)->bytes_consumed()) ==
        single.end);
}

TEST_CASE("LogCalls reports the first call in the file that fails, at its line") {
  testutil::TempDir dir;
  const std::string path = dir.File("calls.jsonl");
  auto env = nutchfs::NewLocalEnv();
  const Trace single = WriteRandomCallFile(*env, path, 17, false);
  const size_t n = single.calls.size();
  REQUIRE(n > 1000);
  const std::string early = single.calls[n / 3], late = single.calls[n - n / 10];
  struct Case {
    std::map<std::string, Status> fail;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{{Field(early, 0), Status::InvalidArgument("bad url")},
        {Field(late, 0), Status::IOError("disk full")}},
       "Invalid argument: " + path + ":" + Field(early, 1) + ": bad url"},
      {{{Field(late, 0), Status::IOError("disk full")}},
       "IO error: logging the calls of " + path + " (at line " + Field(late, 1) +
           "): disk full"},
  };
  for (const Case& c : cases) {
    for (bool parse_thread : {true, false}) {
      INFO(c.error << ", parse threads " << parse_thread);
      RecordingLanes recording(2, 0, c.fail);
      auto reader = CallFileReader::Open(*env, path, parse_thread);
      REQUIRE(reader);
      auto logged = (*reader)->LogCalls(recording, {});
      REQUIRE_FALSE(logged);
      CHECK(logged.error().ToString() == c.error);
    }
  }
}

// Records the calls it receives as call-file lines.
class RecordingWriter final : public CallSink {
 public:
  Status AddPage(const Page& p) override { return Log("addPage " + p.url); }
  Status AddPageWithScore(const Page& p) override { return Log("addPageWithScore " + p.url); }
  Status AddPageIfNotPresent(const Page& p) override {
    return Log("addPageIfNotPresent " + p.url);
  }
  Status AddPageIfNotPresent(const Page& p, const Link& l) override {
    return Log("addPageIfNotPresent " + p.url + " " + l.url);
  }
  Status DeletePage(std::string_view url) override {
    return Log("deletePage " + std::string(url));
  }
  Status AddLink(const Link& l) override { return Log("addLink " + l.url); }

  std::vector<std::string> log;

 private:
  Status Log(std::string entry) {
    log.push_back(std::move(entry));
    return Status::OK();
  }
};

TEST_CASE("ApplyCall makes the matching writer call") {
  Page page = Page::WithDefaults("http://p/");
  Link link;
  link.url = "http://l/";
  RecordingWriter w;
  REQUIRE(ApplyCall(w, {Call::Op::kAddPage, page, std::nullopt, ""}).ok());
  REQUIRE(ApplyCall(w, {Call::Op::kAddPageWithScore, page, std::nullopt, ""}).ok());
  REQUIRE(ApplyCall(w, {Call::Op::kAddPageIfNotPresent, page, std::nullopt, ""}).ok());
  REQUIRE(ApplyCall(w, {Call::Op::kAddPageIfNotPresent, page, link, ""}).ok());
  REQUIRE(ApplyCall(w, {Call::Op::kDeletePage, Page(), std::nullopt, "http://d/"}).ok());
  REQUIRE(ApplyCall(w, {Call::Op::kAddLink, Page(), link, ""}).ok());
  CHECK(w.log == std::vector<std::string>{
                     "addPage http://p/", "addPageWithScore http://p/",
                     "addPageIfNotPresent http://p/", "addPageIfNotPresent http://p/ http://l/",
                     "deletePage http://d/", "addLink http://l/"});
}

TEST_CASE("CallOpName spells ops as call files do") {
  CHECK(std::string(CallOpName(Call::Op::kAddPage)) == "addPage");
  CHECK(std::string(CallOpName(Call::Op::kAddPageWithScore)) == "addPageWithScore");
  CHECK(std::string(CallOpName(Call::Op::kAddPageIfNotPresent)) == "addPageIfNotPresent");
  CHECK(std::string(CallOpName(Call::Op::kDeletePage)) == "deletePage");
  CHECK(std::string(CallOpName(Call::Op::kAddLink)) == "addLink");
}

}  // namespace
}  // namespace webdb
