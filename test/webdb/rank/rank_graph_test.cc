// The rank's graph (webdb/rank/rank_graph.h): the layout of ids, groups and blocks over the
// writers, the urls stream joined with linksByURL into edges keyed by md5, and those written with
// their groups, with a link to a missing page, edits that do not fit the layout and groups out of
// order refused.
#include "webdb/rank/rank_graph.h"

#include <catch2/catch.hpp>

#include "nutchfs/env.h"
#include "test/util/temp_dir.h"
#include "webdb/table/table_builder.h"
#include "webdb/util/coding.h"

namespace webdb {
namespace {

class Collect final : public EditSink {
 public:
  Status Add(const EditView& e) override {
    keys.emplace_back(e.key);
    orders.push_back(e.order);
    values.emplace_back(e.value);
    return Status::OK();
  }
  std::vector<std::string> keys;
  std::vector<uint64_t> orders;
  std::vector<std::string> values;
};

// Edits given in order, as a sorted stream.
class Edits final : public EditIterator {
 public:
  // A page edit of the urls stream: url -> writer's page n.
  void PushPage(std::string_view url, int writer, uint64_t n) {
    std::string v;
    PutVarint32(&v, static_cast<uint32_t>(writer));
    PutVarint64(&v, n);
    stored_.push_back({std::string(url), 0, 0, std::move(v)});
  }
  // An edit of the edges stream: an edge from md5 to the target with global id `id`.
  void PushEdge(uint32_t block, std::string_view md5, uint64_t id) {
    std::string key;
    SetEdgeStreamKey(block, md5, &key);
    stored_.push_back({std::move(key), id, 0, {}});
  }
  // A record of a file of runs, and one of an edges file.
  void PushRun(std::string_view value) { stored_.push_back({{}, 0, 0, std::string(value)}); }
  void PushRecord(std::string_view key, std::string_view value) {
    stored_.push_back({std::string(key), 0, 0, std::string(value)});
  }
  bool Valid() const override { return i_ < stored_.size(); }
  void Next() override { ++i_; }
  const EditView& edit() const override {
    const Stored& s = stored_[i_];
    view_ = EditView{s.key, s.order, s.kind, s.value};
    return view_;
  }
  Status status() const override { return Status::OK(); }

 private:
  struct Stored {
    std::string key;
    uint64_t order;
    uint8_t kind;
    std::string value;
  };
  std::vector<Stored> stored_;
  size_t i_ = 0;
  mutable EditView view_;
};

RankLayout Layout(std::vector<RankLayout::Share> shares) {
  std::vector<std::string> encoded;
  for (const auto& s : shares) encoded.push_back(RankLayout::Encode(s));
  auto layout = RankLayout::Decode(encoded);
  REQUIRE(layout.has_value());
  return *layout;
}

TEST_CASE("the layout numbers ids, groups and blocks writer after writer", "[rank]") {
  const RankLayout l = Layout({{10, 4, 4}, {0, 0, 8}, {7, 7, 2}});
  CHECK(l.total_pages() == 17);
  CHECK(l.page_base(2) == 10);
  CHECK(l.group_base(2) == 4);
  CHECK(l.blocks(0) == 3);
  CHECK(l.blocks(1) == 0);
  CHECK(l.blocks(2) == 4);
  CHECK(l.block_base(2) == 3);
  CHECK(l.EdgeSplits() == std::vector<std::string>{BlockKey(3), BlockKey(3)});
  CHECK_FALSE(RankLayout::Decode({RankLayout::Encode({3, 4, 1})}).has_value());  // groups > pages
  CHECK_FALSE(RankLayout::Decode({RankLayout::Encode({3, 1, 0})}).has_value());  // empty blocks
  CHECK_FALSE(RankLayout::Decode({"\xff"}).has_value());
}

// The 16 bytes of a made-up md5 named by one letter.
std::string Md5Of(char c) { return std::string(15, '\x01') + c; }

// A linksByURL table of the rows (url, md5 letter), in key order, in dir/name.
std::unique_ptr<LayeredTable> LinksByUrl(const testutil::TempDir& dir, const std::string& name,
                                         const std::vector<std::pair<std::string, char>>& rows) {
  static const std::unique_ptr<nutchfs::Env> local = nutchfs::NewLocalEnv();
  nutchfs::Env& env = *local;
  auto builder = TableBuilder::Create(env, dir.File(name), /*target_block_size=*/64);
  REQUIRE(builder.has_value());
  for (const auto& [url, md5] : rows) {
    REQUIRE((*builder)->Add(url + '\0' + Md5Of(md5), "value").ok());
  }
  REQUIRE((*builder)->Finish().ok());
  auto table = Table::Open(env, dir.File(name));
  REQUIRE(table.has_value());
  return std::make_unique<LayeredTable>(std::move(*table), std::vector<std::unique_ptr<Table>>{},
                                        rows.size());
}

std::string EdgeStreamKey(uint32_t block, char md5) {
  std::string key;
  SetEdgeStreamKey(block, Md5Of(md5), &key);
  return key;
}

TEST_CASE("the pages by url joined with linksByURL give each link its target's id", "[rank]") {
  const RankLayout l = Layout({{3, 2, 2}, {2, 1, 2}});
  testutil::TempDir dir;
  auto links =
      LinksByUrl(dir, "links", {{"http://a/", 'b'}, {"http://a/", 'c'}, {"http://c/", 'a'}});
  Edits urls;
  urls.PushPage("http://a/", 1, 1);  // writer 1's page 1: id 4, block 2 + 0
  urls.PushPage("http://b/", 0, 0);  // no links to it
  urls.PushPage("http://c/", 0, 2);  // id 2, block 1
  urls.PushPage("http://d/", 0, 1);
  Collect edges;
  REQUIRE(JoinLinks(urls, *links, l, edges).ok());
  CHECK(edges.keys == std::vector<std::string>{EdgeStreamKey(2, 'b'), EdgeStreamKey(2, 'c'),
                                               EdgeStreamKey(1, 'a')});
  CHECK(edges.orders == std::vector<uint64_t>{4, 4, 2});

  auto missing = LinksByUrl(dir, "missing", {{"http://a/", 'b'}, {"http://missing/", 'b'}});
  Edits some;
  some.PushPage("http://a/", 0, 0);
  some.PushPage("http://z/", 0, 1);
  Collect ignored;
  Status s = JoinLinks(some, *missing, l, ignored);
  CHECK(s.IsCorruption());
  CHECK_THAT(s.ToString(), Catch::Contains("http://missing/"));

  Edits beyond;
  beyond.PushPage("http://a/", 0, 3);  // writer 0 has 3 pages: ids 0..2
  CHECK(JoinLinks(beyond, *links, l, ignored).IsCorruption());
}

// Writer w's groups, as RunWriter writes them: one md5 letter a group.
Edits Groups(const std::string& md5s) {
  Collect sink;
  RunWriter out(sink);
  for (char c : md5s) REQUIRE(out.AddMd5(Md5Of(c)).ok());
  REQUIRE(out.Finish().ok());
  Edits edits;
  for (const std::string& v : sink.values) edits.PushRun(v);
  return edits;
}

std::vector<std::string> WrittenEdges(const Collect& file) {
  std::vector<std::string> runs;
  Edits in;
  for (size_t i = 0; i < file.keys.size(); ++i) in.PushRecord(file.keys[i], file.values[i]);
  EdgeReader reader(in, "edges");
  while (true) {
    auto run = reader.Peek();
    REQUIRE(run.has_value());
    if (*run == nullptr) break;
    std::string r = std::to_string((*run)->block) + ":" + std::to_string((*run)->group) + ":";
    for (uint32_t o : (*run)->offsets) r += std::to_string(o) + ",";
    runs.push_back(r);
    reader.Pop();
  }
  return runs;
}

TEST_CASE("the edges are written with the global group of their md5", "[rank]") {
  // Writer 0: pages 0..2 in blocks 0 and 1, groups a and c; writer 1: group e.
  const RankLayout l = Layout({{3, 2, 2}, {2, 1, 2}});
  const std::vector<std::string> groups = {"ac", "e"};
  const OpenGroupsFn open = [&](int w) -> Result<std::unique_ptr<EditIterator>> {
    return std::unique_ptr<EditIterator>(std::make_unique<Edits>(Groups(groups[w])));
  };
  Edits edges;
  edges.PushEdge(0, Md5Of('a'), 1);
  edges.PushEdge(0, Md5Of('b'), 0);  // no group: a link without its page
  edges.PushEdge(0, Md5Of('e'), 0);
  edges.PushEdge(0, Md5Of('e'), 1);
  edges.PushEdge(1, Md5Of('c'), 2);
  Collect file;
  EdgeWriter out(file);
  REQUIRE(WriteEdges(edges, l, 0, open, out).ok());
  REQUIRE(out.Finish().ok());
  CHECK(WrittenEdges(file) == std::vector<std::string>{"0:0:1,", "0:2:0,1,", "1:1:0,"});

  Edits elsewhere;
  elsewhere.PushEdge(2, Md5Of('a'), 3);  // writer 1's block
  Collect ignored;
  EdgeWriter ignored_out(ignored);
  CHECK(WriteEdges(elsewhere, l, 0, open, ignored_out).IsCorruption());

  const std::vector<std::string> unordered = {"ca", "e"};
  const OpenGroupsFn open_unordered = [&](int w) -> Result<std::unique_ptr<EditIterator>> {
    return std::unique_ptr<EditIterator>(std::make_unique<Edits>(Groups(unordered[w])));
  };
  Edits to_e;
  to_e.PushEdge(0, Md5Of('e'), 0);
  Status s = WriteEdges(to_e, l, 0, open_unordered, ignored_out);
  CHECK(s.IsCorruption());
  CHECK_THAT(s.ToString(), Catch::Contains("out of md5 order"));
}

}  // namespace
}  // namespace webdb
