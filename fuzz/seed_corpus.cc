// Writes the seed corpora of the fuzz targets: OUTDIR/<target>/<name>, small inputs made
// with the project's own encoders (tables, edit files, manifests, call lines) and the
// example configs in config/. Run by scripts/fuzz.sh --seeds to regenerate fuzz/corpus/.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "distwriter/round_manifest.h"
#include "distwriter/stage_zero.h"
#include "fuzz/fuzz_util.h"
#include "nutchfs/lock_owner.h"
#include "nutchfs/mem_env.h"
#include "nutchfs/sftp_wire.h"
#include "webdb/calls/json_out.h"
#include "webdb/db/manifest.h"
#include "webdb/sort/edit_file.h"
#include "webdb/table/block_builder.h"
#include "webdb/table/table.h"
#include "webdb/table/table_builder.h"
#include "webdb/table/table_format.h"

namespace {

namespace fs = std::filesystem;
using webdb::Link;
using webdb::Page;

fs::path out_dir;

void Die(const std::string& what) {
  std::fprintf(stderr, "fuzz_seed_corpus: %s\n", what.c_str());
  std::exit(1);
}

void Seed(const std::string& target, const std::string& name, std::string_view bytes) {
  fs::create_directories(out_dir / target);
  std::ofstream out(out_dir / target / name, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) Die("cannot write " + (out_dir / target / name).string());
}

template <typename T>
T Ok(nutchfs::Result<T> r) {
  if (!r) Die(r.error().ToString());
  return std::move(*r);
}

void Ok(const nutchfs::Status& s) {
  if (!s.ok()) Die(s.ToString());
}

std::string ReadFile(nutchfs::Env& env, const std::string& path) {
  return Ok(nutchfs::ReadFileToString(env, path));
}

Page SomePage(std::string url, float score) {
  Page p = Page::WithDefaults(std::move(url));
  p.next_fetch = 1767225600000;
  p.retries = 2;
  p.num_outlinks = 3;
  p.score = score;
  p.next_score = score / 2;
  return p;
}

Link SomeLink(std::string from_url, std::string url, std::string anchor) {
  return Link{webdb::Md5Of(from_url), std::move(url), 7, std::move(anchor), false};
}

void CallLines() {
  std::vector<webdb::Call> calls(5);
  calls[0].op = webdb::Call::Op::kAddPage;
  calls[0].page = SomePage("http://a.example/x?y=1", 1.5f);
  calls[1].op = webdb::Call::Op::kAddPageWithScore;
  calls[1].page = SomePage("https://b.example/", 0.25f);
  calls[2].op = webdb::Call::Op::kAddPageIfNotPresent;
  calls[2].page = Page::WithDefaults("http://c.example/");
  calls[2].link = SomeLink("http://a.example/x?y=1", "http://c.example/", "see \"c\" \xc3\xa9");
  calls[3].op = webdb::Call::Op::kDeletePage;
  calls[3].url = "http://d.example/gone";
  calls[4].op = webdb::Call::Op::kAddLink;
  calls[4].link = SomeLink("http://b.example/", "http://a.example/x?y=1", "");
  std::string file;
  for (size_t i = 0; i < calls.size(); ++i) {
    std::string line;
    webdb::AppendCallJson(calls[i], &line);
    Seed("call_line", "call-" + std::to_string(i), line);
    file += line + (i == 2 ? "\n  \n" : "\n");
  }
  Seed("call_line", "file", file);
  Seed("call_line", "short", R"({"op":"addPage","page":{"url":"http://a/","score":1e-3}})");
}

void ClusterConfigs() {
  for (const char* name : {"local-3.conf", "nfs-3.conf", "ssh-3.conf"}) {
    std::ifstream in(fs::path(PROJECT_SOURCE_DIR) / "config" / name, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.empty()) Die(std::string("cannot read config/") + name);
    Seed("cluster_config", name, text);
  }
}

webdb::Manifest SomeManifest(uint64_t version) {
  webdb::Manifest m;
  m.version = version;
  for (int t = 0; t < webdb::kNumTables; ++t) {
    m.tables[t] = {webdb::TableFile{webdb::TableFileName(static_cast<webdb::TableId>(t), version),
                                    10u * t, 53 + 100u * t, 0x1234abcdu + t}};
  }
  return m;
}

void Manifests() {
  const webdb::Manifest m = SomeManifest(7);
  Seed("manifest", "current-and-manifest", webdb::ManifestFileName(7) + "\n" + '\0' + m.Encode());

  distwriter::RoundManifest r;
  r.version = 4;
  r.k = 3;
  r.token = "0123456789abcdef";
  r.digests = {std::string(32, 'a'), std::string(32, 'b'), std::string(32, 'c')};
  r.breakpoints = {"http://h.example/", "http://p.example/a b"};
  r.sections = {SomeManifest(4), SomeManifest(3), SomeManifest(4)};
  Seed("round_manifest", "round-k3", r.Encode());
  distwriter::RoundManifest created;
  created.version = 1;
  created.k = 2;
  created.digests.assign(2, "");
  created.sections = {SomeManifest(1), SomeManifest(1)};
  Seed("round_manifest", "created-k2", created.Encode());
  distwriter::RoundManifest rollback = created;
  rollback.version = 6;
  rollback.keep = 5;
  rollback.restores = 2;
  rollback.breakpoints = {"http://m.example/"};
  rollback.sections = {SomeManifest(2), SomeManifest(2)};
  Seed("round_manifest", "rollback-k2", rollback.Encode());
}

// Rows of each table for a few pages and links.
std::vector<std::pair<std::string, std::string>> Rows(webdb::TableId t) {
  std::vector<std::pair<std::string, std::string>> rows;
  for (const char* url :
       {"http://a.example/", "http://a.example/b", "https://z.example/\xc3\xa9"}) {
    const Page p = SomePage(url, 1.0f);
    const Link l = SomeLink("http://a.example/", url, "anchor");
    std::string v;
    switch (t) {
      case webdb::TableId::kPagesByUrl:
        webdb::EncodePageByUrlValue(p, &v);
        rows.emplace_back(webdb::PageUrlKey(p.url), v);
        break;
      case webdb::TableId::kPagesByMd5:
        webdb::EncodePageByMd5Value(p, &v);
        rows.emplace_back(webdb::PageMd5Key(p.md5, p.url), v);
        break;
      case webdb::TableId::kLinksByMd5:
        webdb::EncodeLinkValue(l, &v);
        rows.emplace_back(webdb::LinkMd5Key(l.from, l.url), v);
        break;
      case webdb::TableId::kLinksByUrl:
        webdb::EncodeLinkValue(l, &v);
        rows.emplace_back(webdb::LinkUrlKey(l.url, l.from), v);
        break;
    }
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

std::string BuildTable(nutchfs::Env& env, const std::string& path,
                       const std::vector<std::pair<std::string, std::string>>& rows) {
  auto builder = Ok(webdb::TableBuilder::Create(env, path));
  for (const auto& [k, v] : rows) Ok(builder->Add(k, v));
  Ok(builder->Finish());
  return ReadFile(env, path);
}

void Tables() {
  auto env = nutchfs::NewMemEnv();
  Ok(env->CreateDirs("/t"));
  Seed("table", "empty", BuildTable(*env, "/t/empty", {}));
  for (int t = 0; t < webdb::kNumTables; ++t) {
    const auto id = static_cast<webdb::TableId>(t);
    Seed("table", webdb::TableName(id), BuildTable(*env, "/t/one", Rows(id)));
    webdb::BlockBuilder block;
    for (const auto& [k, v] : Rows(id)) block.Add(k, v);
    std::string_view contents = block.Finish();
    contents.remove_suffix(webdb::kBlockTrailerSize);
    Seed("table_block", webdb::TableName(id), contents);
  }
  // Three blocks: each row's table contributes its block whole (TableBuilder::AddBlock
  // closes the block being built), so the index has several entries.
  const auto rows = Rows(webdb::TableId::kPagesByUrl);
  auto builder = Ok(webdb::TableBuilder::Create(*env, "/t/blocks"));
  for (size_t i = 0; i < rows.size(); ++i) {
    BuildTable(*env, "/t/part", {rows[i]});
    auto part = Ok(webdb::Table::Open(*env, "/t/part"));
    auto it = part->NewIterator();
    it->SeekToFirst();
    Ok(builder->AddBlock(*it->CurrentBlock()));
  }
  Ok(builder->Finish());
  Seed("table", "three-blocks", ReadFile(*env, "/t/blocks"));
}

void EditFiles() {
  auto env = nutchfs::NewMemEnv();
  Ok(env->CreateDirs("/e"));
  for (bool sorted : {false, true}) {
    auto w = Ok(webdb::EditFileWriter::Create(*env, "/e/f", sorted));
    const std::vector<webdb::EditView> edits = {
        {"http://a.example/", 1, 0, "value"},
        {"http://a.example/", 2, 3, std::string_view("\0\xff", 2)},
        {std::string_view("key\0z", 5), (uint64_t{1} << 40) | 5, 1, ""}};
    for (const auto& e : edits) Ok(w->Add(e));
    Ok(w->Finish(false));
    Seed("edit_file", sorted ? "sorted" : "unsorted", ReadFile(*env, "/e/f"));
  }
  auto empty = Ok(webdb::EditFileWriter::Create(*env, "/e/f", true));
  Ok(empty->Finish(false));
  Seed("edit_file", "empty", ReadFile(*env, "/e/f"));

  auto zero = Ok(webdb::EditFileWriter::Create(*env, "/e/s0", false));
  Ok(distwriter::WriteStageZero(
      *zero, {std::string(32, 'e'), {"http://a.example/", "http://m.example/x"}}));
  Seed("exchange", "stage0-sample", ReadFile(*env, "/e/s0"));
  zero = Ok(webdb::EditFileWriter::Create(*env, "/e/s0", false));
  Ok(distwriter::WriteStageZero(*zero, {"0123456789abcdef0123456789abcdef", {}}));
  Seed("exchange", "stage0-digest", ReadFile(*env, "/e/s0"));
}

void LockFiles() {
  nutchfs::LockOwner o;
  o.machine = "a";
  o.host = "host-a.example";
  o.boot_id = "8b0e7e1c-0e6f-4a4e-9d3e-2f1c0d9b7a61";
  o.pid = 4242;
  o.proc_start = 123456;
  o.acquired_ms = 1767225600000;
  o.token = "5f3a9c1d";
  Seed("lock_owner", "owner", nutchfs::EncodeLockOwner(o));
  o.machine.clear();
  o.acquired_ms = -1;
  Seed("lock_owner", "no-machine", nutchfs::EncodeLockOwner(o));
}

void SftpReplies() {
  std::string version;
  nutchfs::PutSftpU32(&version, 3);
  for (const char* e : {"posix-rename@openssh.com", "fsync@openssh.com"}) {
    nutchfs::PutSftpString(&version, e);
    nutchfs::PutSftpString(&version, "1");
  }
  Seed("sftp_reply", "version", version);
  std::string status;
  nutchfs::PutSftpU32(&status, nutchfs::kFxNoSuchFile);
  nutchfs::PutSftpString(&status, "No such file");
  nutchfs::PutSftpString(&status, "en");
  Seed("sftp_reply", "status", status);
  std::string handle;
  nutchfs::PutSftpString(&handle, std::string("\0\0\0\1", 4));
  Seed("sftp_reply", "handle", handle);
  std::string attrs;
  nutchfs::PutSftpU32(&attrs, 0xf);
  nutchfs::PutSftpU64(&attrs, 123456);
  nutchfs::PutSftpU64(&attrs, 0);
  nutchfs::PutSftpU32(&attrs, 0644);
  nutchfs::PutSftpU32(&attrs, 1700000000);
  nutchfs::PutSftpU32(&attrs, 1700000001);
  Seed("sftp_reply", "attrs", attrs);
  std::string packet;
  nutchfs::BeginSftpPacket(&packet, nutchfs::kFxpData, 9);
  nutchfs::PutSftpString(&packet, "file contents");
  Seed("sftp_reply", "data-packet", nutchfs::EndSftpPacket(&packet));
}

constexpr char kHtml[] =
    "<!DOCTYPE html><html><head><base href=\"/base/\"><title>T</title>"
    "<meta name=\"robots\" content=\"index, follow\"></head><body>"
    "<a href=\"page.html\">a <b>page</b></a> <a href=\"../up?q=1#f\" rel=\"nofollow\">up</a>"
    "<a href=\"HTTP://Other.Example:80/%7Efoo/./x\">other</a><a href=\"mailto:x@y\">mail</a>"
    "<map><area href=\"//cdn.example/img\" alt=\"img\"></map><iframe src=\"frame.html\">"
    "</iframe><a href=\" \thttp://b\xc3\xbc"
    "cher.example/\n\">idn</a></body></html>";

std::string Http(std::string_view status_line, std::string_view headers, std::string_view body) {
  return std::string(status_line) + "\r\n" + std::string(headers) + "\r\n" + std::string(body);
}

std::string Warc(std::string_view type, std::string_view uri, std::string_view block) {
  return "WARC/1.0\r\nWARC-Type: " + std::string(type) + "\r\nWARC-Target-URI: <" +
         std::string(uri) + ">\r\nWARC-Date: 2026-01-02T03:04:05.678Z\r\nContent-Length: " +
         std::to_string(block.size()) + "\r\n\r\n" + std::string(block) + "\r\n\r\n";
}

void Crawl() {
  const std::string ok =
      Http("HTTP/1.1 200 OK", "Content-Type: text/html; charset=utf-8\r\n", kHtml);
  const std::string chunked =
      Http("HTTP/1.1 200 OK", "Transfer-Encoding: chunked\r\nContent-Type: Text/HTML\r\n",
           "5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nTrailer: x\r\n\r\n");
  const std::string gzipped =
      Http("HTTP/1.0 200 OK", "Content-Encoding: gzip\r\nContent-Type: text/plain\r\n",
           fuzzutil::Compress("compressed body", 16 + 15));
  const std::string redirect =
      Http("HTTP/1.1 301 Moved", "Location: /new\r\n folded: value\r\nX-Empty:\r\n", "");
  Seed("http_response", "html", ok);
  Seed("http_response", "chunked", chunked);
  Seed("http_response", "gzip", gzipped);
  Seed("http_response", "redirect", redirect);
  Seed("http_response", "deflate-raw",
       Http("HTTP/1.1 404 Not Found", "Content-Encoding: deflate\n",
            fuzzutil::Compress("gone", -15)));

  const std::string warc = Warc("warcinfo", "", "software: seed\r\n") +
                           Warc("response", "http://www.example.com/dir/", ok) +
                           Warc("revisit", "https://www.example.com/r", redirect);
  Seed("warc", "three-records", warc);
  Seed("warc", "gzip-members",
       fuzzutil::Compress(Warc("response", "http://a/", chunked), 31) +
           fuzzutil::Compress(Warc("request", "http://a/", "GET /"), 31));
  Seed("warc", "warc-1.1",
       "WARC/1.1\r\nContent-Length: 0\r\nWARC-Type: resource\r\n"
       " continued\r\nWARC-Date: 2026Z\r\n\r\n\r\n\r\n");

  Seed("link_extractor", "page",
       std::string("http://www.example.com/dir/page.html") + '\0' + kHtml);
  Seed("link_extractor", "nofollow",
       "<meta name=ROBOTS content=NONE><a href=x>x</a><frame src=\"https://f/\">");
  Seed("link_extractor", "plain-html", kHtml);

  Seed("html_charset", "http-shift_jis",
       std::string("text/html; charset=Shift_JIS") + '\0' + "<a href=/\x93\xFA\x96\x7B>x</a>");
  Seed("html_charset", "meta-euc-jp",
       std::string("text/html") + '\0' + "<meta charset=euc-jp><a href=/\xC6\xFC>x</a>");
  Seed("html_charset", "meta-http-equiv",
       std::string("text/html") + '\0' +
           "<!-- x --><meta http-equiv=content-type content='text/html; charset=gbk'>\xD6\xD0");
  Seed("html_charset", "utf-16le-bom",
       std::string("text/html") + '\0' + std::string("\xFF\xFE<\0a\0>\0\xE9\0", 10));
  Seed("html_charset", "undeclared", std::string("text/html") + '\0' + "<p>caf\xE9</p>");

  const std::string nul(1, '\0');
  int n = 0;
  for (const std::string& u :
       {std::string("HTTP://WWW.Example.COM:80/a/./b/../c/%7e%41?q=%2f#frag"),
        std::string("https://user:pw@[2001:DB8::1]:443/"),
        std::string("http://b\xc3\xbc"
                    "cher.example/p\xc3\xa9 h?x y"),
        std::string("http://192.168.0.1:0080"),
        "http://example.com/dir/page.html" + nul + "../other/./x?y#z",
        "http://a/b/c/d;p?q" + nul + "g;x=1/../y", "https://h.example/a" + nul + "//other.example",
        "http://h/" + nul + "\t /a\nb "}) {
    Seed("url", "url-" + std::to_string(n++), u);
  }
  const std::string rules =
      "# skip file: ftp: and mailto: urls\n-^(file|ftp|mailto):\n"
      "-\\.(gif|GIF|jpg|JPG|png|PNG|ico|css|js)$\n-[?*!@=]\n"
      "-.*(/[^/]+)/[^/]+\\1/[^/]+\\1/\n+^https?://([a-z0-9]*\\.)*example\\.com/\n-.\n";
  Seed("url_filter", "nutch-like", rules + '\0' + "http://www.example.com/a/b.html");
  Seed("url_filter", "rejected", rules + '\0' + "http://www.example.com/x.png");
  Seed("url_filter", "bad-rule", std::string("+(unclosed\r\n") + '\0' + "http://a/");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) Die("usage: fuzz_seed_corpus OUTDIR");
  out_dir = argv[1];
  CallLines();
  ClusterConfigs();
  Manifests();
  Tables();
  EditFiles();
  SftpReplies();
  LockFiles();
  Crawl();
  return 0;
}
