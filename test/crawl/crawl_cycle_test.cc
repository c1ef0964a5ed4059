// The whole crawl cycle against real tools: a generated site with a known link graph is
// served on loopback by a test-only server (site_server.py), crawled by wget to WARC
// files, and fed to a single-machine db and a 3-writer distributed db through the
// `webdb` commands, until generate has nothing left. Then the db must be the graph.
// One link points to a closed port: wget writes no record for it, update's --fetchlist
// makes it a network failure, retried twice and then deleted.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <limits>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "crawl/domain.h"
#include "crawl/link_extractor.h"
#include "crawl/url.h"
#include "test/util/db_dump.h"
#include "test/util/dist_cluster.h"
#include "test/util/gumbo_links.h"
#include "test/util/subprocess.h"
#include "test/util/temp_dir.h"
#include "test/util/warc_util.h"
#include "webdb/db/reader.h"
#include "webdb/inspect/verify.h"

namespace crawl {
namespace {

const std::string kWebdb = PROJECT_BINARY_DIR "/tools/webdb";
const std::string kDistwriter = PROJECT_BINARY_DIR "/tools/distwriter";
const std::string kServer = PROJECT_SOURCE_DIR "/test/crawl/site_server.py";
constexpr int kPages = 30;

struct Edge {
  std::string target;  // path
  std::string anchor;
};

// The generated site: files, redirects, and what a crawler must find in each page.
struct Site {
  std::map<std::string, std::string> files;      // path -> content
  std::map<std::string, std::string> redirects;  // path -> target path
  std::map<std::string, std::vector<Edge>> followed;  // path -> links that count

  void Page(const std::string& path, const std::string& head, const std::vector<Edge>& links,
            const std::vector<std::string>& hrefs, const std::vector<Edge>& nofollow = {}) {
    std::string html = "<html><head>" + head + "</head><body>\n";
    for (size_t i = 0; i < links.size(); ++i) {
      html += "<a href='" + hrefs[i] + "'>  " + links[i].anchor + "\n</a>\n";
    }
    for (const Edge& e : nofollow) {
      html += "<a rel='nofollow' href='" + e.target + "'>" + e.anchor + "</a>\n";
    }
    files[path] = html + "</body></html>\n";
    followed[path] = links;
  }
};

std::string PagePath(int i) { return "/d" + std::to_string(i % 3) + "/p" + std::to_string(i) + ".html"; }

Site MakeSite() {
  Site site;
  site.Page("/", "", {{PagePath(0), "zero"}, {"/redir", "moved"}, {"/missing.html", "gone"},
                      {"/dup/a.html", "dup a"}, {"/dup/b.html", "dup b"}},
            {"d0/p0.html#top", "redir", "/missing.html", "dup/a.html", "./dup/x/../b.html"});
  site.redirects["/redir"] = "/d1/p1.html";
  for (const char* dup : {"/dup/a.html", "/dup/b.html"}) {
    site.Page(dup, "", {{PagePath(2), "two"}}, {"../d2/p2.html"});
  }
  for (int i = 0; i < kPages; ++i) {
    std::vector<Edge> links;
    std::vector<std::string> hrefs;
    std::string head;
    for (int j : {(i + 1) % kPages, (i * 7 + 3) % kPages}) {
      links.push_back({PagePath(j), "to p" + std::to_string(j)});
      hrefs.push_back("../d" + std::to_string(j % 3) + "/p" + std::to_string(j) + ".html");
    }
    if (i % 5 == 0) {  // relative to a <base> one level deeper than the page
      head = "<base href='/d" + std::to_string((i + 1) % 3) + "/sub/'>";
      for (auto& h : hrefs) h = "../" + h;
    }
    std::vector<Edge> nofollow;
    if (i % 4 == 0) nofollow.push_back({"/secret" + std::to_string(i) + ".html", "secret"});
    site.Page(PagePath(i), head, links, hrefs, nofollow);
    if (i % 4 == 0) site.files["/secret" + std::to_string(i) + ".html"] = "secret";
  }
  // A page whose links all are nofollow by its meta robots.
  site.files[PagePath(29)] =
      "<meta name=robots content=nofollow><a href='/secret0.html'>s</a>";
  site.followed[PagePath(29)] = {};
  return site;
}

void WriteSite(const Site& site, const std::string& root) {
  for (const auto& [path, content] : site.files) {
    std::string file = root + (path == "/" ? "/index.html" : path);
    std::filesystem::create_directories(std::filesystem::path(file).parent_path());
    testutil::WriteFile(file, content);
  }
  std::string redirects;
  for (const auto& [from, to] : site.redirects) redirects += from + " " + to + "\n";
  testutil::WriteFile(root + "/redirects.txt", redirects);
}

testutil::ProcessResult Run(const std::vector<std::string>& argv, const std::string& prefix) {
  auto r = testutil::RunProcess(argv, {}, prefix);
  INFO(argv[0] << " " << (argv.size() > 1 ? argv[1] : "") << ": " << r.Describe());
  REQUIRE(r.exit_code == 0);
  return r;
}

// The expected db: every page reachable from "/" by followed links and redirects.
struct Expected {
  std::map<std::string, webdb::Md5> pages;  // url -> md5
  std::set<std::tuple<webdb::Md5, std::string, std::string>> links;  // (from, url, anchor)
};

Expected Crawl(const Site& site, const std::string& origin) {
  Expected e;
  std::vector<std::string> todo = {"/"};
  while (!todo.empty()) {
    std::string path = todo.back();
    todo.pop_back();
    std::string url = origin + path;
    if (e.pages.count(url)) continue;
    std::vector<Edge> out;
    webdb::Md5 md5 = webdb::Md5Of(url);  // 404
    if (site.redirects.count(path)) {
      out.push_back({site.redirects.at(path), ""});
      md5 = webdb::Md5Of("Location: " + origin + site.redirects.at(path));
    } else if (site.files.count(path)) {
      md5 = webdb::Md5Of(site.files.at(path));
      out = site.followed.at(path);
    }
    e.pages[url] = md5;
    for (const Edge& edge : out) {
      e.links.insert({md5, origin + edge.target, edge.anchor});
      todo.push_back(edge.target);
    }
  }
  return e;
}

int StartServer(const std::string& root, const std::string& prefix,
                std::unique_ptr<testutil::Subprocess>* server) {
  *server = testutil::Subprocess::Start({"/usr/bin/python3", kServer, root}, {}, prefix);
  for (int i = 0; i < 200; ++i) {
    std::string out = testutil::ReadFileOrEmpty(prefix + ".out");
    if (!out.empty() && out.back() == '\n') return std::stoi(out);
    REQUIRE_FALSE((*server)->Finished());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  FAIL("site server did not start: " << testutil::ReadFileOrEmpty(prefix + ".err"));
  return 0;
}

// A TCP port on 127.0.0.1 that refuses connections for as long as this object lives: a
// socket bound to it that never listens, so no other process can take it.
class ClosedPort {
 public:
  ClosedPort() : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    REQUIRE(fd_ >= 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
    socklen_t len = sizeof(addr);
    REQUIRE(::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
    port_ = ntohs(addr.sin_port);
  }
  ~ClosedPort() { ::close(fd_); }
  ClosedPort(const ClosedPort&) = delete;
  ClosedPort& operator=(const ClosedPort&) = delete;
  int port() const { return port_; }

 private:
  int fd_;
  int port_ = 0;
};

std::string NowMs() {
  return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count());
}

void CheckVerified(const std::string& db) {
  auto env = nutchfs::NewLocalEnv();
  webdb::VerifyOptions options;
  options.tmp_env = env.get();
  options.tmp_dir = db + ".verify-tmp";
  auto summary = webdb::VerifyDb(*env, db, options);
  REQUIRE(summary);
  CHECK(summary->clean());
}

TEST_CASE("crawling a generated site to exhaustion yields its link graph", "[crawl]") {
  testutil::TempDir dir;
  Site site = MakeSite();
  WriteSite(site, dir.File("site"));
  std::unique_ptr<testutil::Subprocess> server;
  int port = StartServer(dir.File("site"), dir.File("server"), &server);
  std::string origin = "http://127.0.0.1:" + std::to_string(port);
  ClosedPort closed;
  std::string dead = "http://127.0.0.1:" + std::to_string(closed.port()) + "/dead.html";
  // Not in site.followed: once the page is deleted, the target rule drops the link too.
  site.files["/"] += "<a href='" + dead + "'>dead</a>\n";
  WriteSite(site, dir.File("site"));
  for (const auto& [path, content] : site.files) {  // the tokenizer finds what gumbo finds
    LinkExtractorOptions o;
    INFO(path);
    CHECK(ExtractLinks(content, origin + path, o, nullptr) ==
          testutil::ExtractLinksWithGumbo(content, origin + path, o, nullptr));
  }
  testutil::DistCluster cluster(kDistwriter, 3);
  cluster.Create();
  std::string db = dir.File("db");
  Run({kWebdb, "create", db}, dir.File("create"));
  testutil::WriteFile(dir.File("seeds"), "# the site\n" + origin + "\n");
  Run({kWebdb, "inject", "-q", db, dir.File("seeds")}, dir.File("inject"));
  Run({kWebdb, "inject", "-q", "--config", cluster.config(), dir.File("seeds")},
      dir.File("inject-dist"));
  int cycles = 0;
  int dead_failures = 0;  // cycles after which the dead page had a retry
  for (; cycles < 20; ++cycles) {
    std::string c = std::to_string(cycles);
    std::string now = NowMs();  // later than every WARC-Date so far
    std::string list = dir.File("list" + c);
    Run({kWebdb, "generate", "-q", db, "--top", "7", "--max-per-host", "5", "--now", now,
         "--out", list}, dir.File("gen" + c));
    auto dist_list = Run({kWebdb, "generate", "-q", "--config", cluster.config(), "--top", "7",
                          "--max-per-host", "5", "--now", now}, dir.File("gen-dist" + c));
    std::string urls = testutil::ReadFileOrEmpty(list);
    CHECK(dist_list.out == urls);  // the same fetch list from both dbs
    if (urls.empty()) break;
    std::string warc = dir.File("crawl" + c);
    // wget exits 4 when a connection failed (the closed port) and 8 when a server
    // answered an error (the 404): expected.
    auto wget = testutil::RunProcess({"/usr/bin/wget", "-q", "--tries=1", "--max-redirect=0",
                                      "-i", list, "-O", "/dev/null", "--warc-file=" + warc},
                                     {}, dir.File("wget" + c));
    REQUIRE((wget.exit_code == 0 || wget.exit_code == 4 || wget.exit_code == 8));
    // A failed page is due again at once, and deleted at its third failure (a page of
    // the site that a loaded machine fails to serve now and then still gets fetched).
    std::vector<std::string> retry = {"--fetchlist", list, "--max-retries", "2",
                                      "--retry-delay-days", "0"};
    std::vector<std::string> update = {kWebdb, "update", "-q", db, warc + ".warc.gz"};
    update.insert(update.end(), retry.begin(), retry.end());
    Run(update, dir.File("update" + c));
    update[3] = "--config";
    update.insert(update.begin() + 4, cluster.config());
    Run(update, dir.File("update-dist" + c));
    CheckVerified(db);
    auto page = testutil::RunProcess({kWebdb, "page", db, dead}, {}, dir.File("page" + c));
    REQUIRE((page.exit_code == 0 || page.exit_code == 1));  // 1: not (or no longer) there
    if (page.out.find("\"retries\":0") == std::string::npos && page.exit_code == 0) {
      ++dead_failures;
    }
  }
  CHECK(dead_failures == 2);  // failed in two cycles (retries 1, 2), deleted in the third
  CHECK(cycles > 3);  // --top 7 needs several cycles
  REQUIRE(cycles < 20);

  auto env = nutchfs::NewLocalEnv();
  auto reader = webdb::Reader::Open(*env, db);
  REQUIRE(reader);
  auto dump = testutil::DumpDb(**reader);
  REQUIRE(dump);
  CHECK(testutil::CheckInvariants(*dump).empty());
  CHECK(testutil::CompareDumps(*dump, cluster.Dump()).empty());

  Expected want = Crawl(site, origin);
  std::map<std::string, webdb::Md5> pages;
  for (const auto& p : dump->pages_by_url) pages[p.url] = p.md5;
  CHECK(pages == want.pages);
  std::set<std::tuple<webdb::Md5, std::string, std::string>> links;
  for (const auto& l : dump->links_by_md5) {
    links.insert({l.from, l.url, l.anchor});
    CHECK(l.domain_id == DomainIdOfUrl(origin + "/"));
  }
  CHECK(links == want.links);
  auto gone = (*reader)->GetPage(origin + "/missing.html");
  REQUIRE(gone);
  REQUIRE(gone->has_value());
  CHECK((*gone)->next_fetch == std::numeric_limits<int64_t>::max());
  auto dups = (*reader)->GetPages(webdb::Md5Of(site.files.at("/dup/a.html")));
  REQUIRE(dups);
  CHECK(dups->size() == 2);
}

}  // namespace
}  // namespace crawl
