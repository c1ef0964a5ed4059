// The rank's graph (webdb/rank/rank_graph.h): the layout of ids, groups and blocks over
// the writers, and the urls stream turned into edges, with a link to a missing page and
// edits that do not fit the layout refused.
#include "webdb/rank/rank_graph.h"

#include <catch2/catch.hpp>

#include "webdb/util/coding.h"

namespace webdb {
namespace {

class Collect final : public EditSink {
 public:
  Status Add(const EditView& e) override {
    keys.emplace_back(e.key);
    orders.push_back(e.order);
    return Status::OK();
  }
  std::vector<std::string> keys;
  std::vector<uint64_t> orders;
};

// Edits given in order, as a sorted stream.
class Edits final : public EditIterator {
 public:
  // An edit of the urls stream for url.
  void Push(std::string_view url, uint64_t order, uint8_t kind, int writer, uint64_t n) {
    std::string key;
    SetUrlJoinKey(url, &key);
    std::string v;
    PutVarint32(&v, static_cast<uint32_t>(writer));
    PutVarint64(&v, n);
    stored_.push_back({std::move(key), order, kind, std::move(v)});
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
  CHECK(l.EdgeSplits() == std::vector<std::string>{EdgeKey(3, 0), EdgeKey(3, 0)});
  CHECK_FALSE(RankLayout::Decode({RankLayout::Encode({3, 4, 1})}).has_value());  // groups > pages
  CHECK_FALSE(RankLayout::Decode({RankLayout::Encode({3, 1, 0})}).has_value());  // empty blocks
  CHECK_FALSE(RankLayout::Decode({"\xff"}).has_value());
}

TEST_CASE("the urls stream gives each link its target's id and block", "[rank]") {
  const RankLayout l = Layout({{3, 2, 2}, {2, 1, 2}});
  Edits urls;
  urls.Push("http://a/", 0, 0, 1, 1);  // writer 1's page 1: id 4, block 2 + 0
  urls.Push("http://a/", 1, 1, 0, 1);  // from writer 0's group 1
  urls.Push("http://a/", 1, 1, 1, 0);  // from writer 1's group 0: group 2
  urls.Push("http://b/", 0, 0, 0, 2);  // id 2, block 1
  urls.Push("http://b/", 1, 1, 0, 0);
  Collect edges;
  REQUIRE(RouteEdges(urls, l, edges).ok());
  CHECK(edges.keys == std::vector<std::string>{EdgeKey(2, 1), EdgeKey(2, 2), EdgeKey(1, 0)});
  std::string key;
  SetUrlJoinKey("http://a/", &key);
  CHECK(key.size() == 8 + 9);
  CHECK(UrlOfJoinKey(key) == "http://a/");
  CHECK(edges.orders == std::vector<uint64_t>{4, 4, 2});

  Edits dangling;
  dangling.Push("http://a/", 0, 0, 0, 0);
  dangling.Push("http://missing/", 1, 1, 0, 0);
  Collect ignored;
  Status s = RouteEdges(dangling, l, ignored);
  CHECK(s.IsCorruption());
  CHECK_THAT(s.ToString(), Catch::Contains("http://missing/"));

  Edits beyond;
  beyond.Push("http://a/", 0, 0, 0, 3);  // writer 0 has 3 pages: ids 0..2
  CHECK(RouteEdges(beyond, l, ignored).IsCorruption());
}

}  // namespace
}  // namespace webdb
