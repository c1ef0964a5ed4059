// The rank work files (webdb/rank/rank_files.h): runs of pages, scores and sums, and the
// edges, read back as written; damaged or mismatched contents are Corruption naming the
// file.
#include "webdb/rank/rank_files.h"

#include <catch2/catch.hpp>

#include "nutchfs/mem_env.h"
#include "webdb/sort/edit_file.h"

namespace webdb {
namespace {

// Collects edits in memory and reads them back.
class EditVector final : public EditSink {
 public:
  Status Add(const EditView& e) override {
    edits.push_back({std::string(e.key), e.order, e.kind, std::string(e.value)});
    return Status::OK();
  }
  struct Stored {
    std::string key;
    uint64_t order;
    uint8_t kind;
    std::string value;
  };
  std::vector<Stored> edits;
};

class VectorIterator final : public EditIterator {
 public:
  explicit VectorIterator(const EditVector& v) : v_(v) { Set(); }
  bool Valid() const override { return i_ < v_.edits.size(); }
  void Next() override {
    ++i_;
    Set();
  }
  const EditView& edit() const override { return view_; }
  Status status() const override { return Status::OK(); }

 private:
  void Set() {
    if (!Valid()) return;
    const auto& e = v_.edits[i_];
    view_ = EditView{e.key, e.order, e.kind, e.value};
  }
  const EditVector& v_;
  size_t i_ = 0;
  EditView view_;
};

TEST_CASE("runs of pages, scores and sums read back in spans", "[rank]") {
  EditVector pages, scores, sums;
  RunWriter pw(pages), sw(scores), uw(sums);
  const size_t n = kRunEntries * 2 + 5;
  for (size_t i = 0; i < n; ++i) {
    REQUIRE(pw.AddPage({static_cast<uint32_t>(i * 1000), static_cast<uint8_t>(i % 8)}).ok());
    REQUIRE(sw.AddScore(i * 0.5).ok());
    REQUIRE(uw.AddSum(-(Fixed{1} << 100) + static_cast<Fixed>(i)).ok());
  }
  REQUIRE(pw.Finish().ok());
  REQUIRE(sw.Finish().ok());
  REQUIRE(uw.Finish().ok());
  CHECK(pages.edits.size() == 3);  // two full runs and five
  VectorIterator pi(pages), si(scores), ui(sums);
  RunReader pr(pi, "pages"), sr(si, "scores"), ur(ui, "sums");
  size_t at = 0;
  while (true) {
    auto p = pr.Pages(1000);
    REQUIRE(p.has_value());
    if (p->empty()) break;
    CHECK(p->size() <= 1000);
    auto s = sr.Scores(p->size());
    auto u = ur.Sums(p->size());
    REQUIRE((s.has_value() && u.has_value()));
    REQUIRE(s->size() == p->size());
    REQUIRE(u->size() == p->size());
    for (size_t j = 0; j < p->size(); ++j, ++at) {
      CHECK((*p)[j] == PageInfo{static_cast<uint32_t>(at * 1000), static_cast<uint8_t>(at % 8)});
      CHECK((*s)[j] == at * 0.5);
      CHECK((*u)[j] == -(Fixed{1} << 100) + static_cast<Fixed>(at));
    }
  }
  CHECK(at == n);
  CHECK(sr.ExpectEnd().ok());
  CHECK(pr.position() == n);
}

TEST_CASE("malformed runs are Corruption naming the file and entry", "[rank]") {
  EditVector v;
  REQUIRE(v.Add(EditView{{}, 0, 0, std::string(12, 'x')}).ok());  // 1.5 doubles
  VectorIterator it(v);
  RunReader r(it, "rank-scores-3");
  auto s = r.Scores(10);
  REQUIRE_FALSE(s.has_value());
  CHECK(s.error().IsCorruption());
  CHECK_THAT(s.error().ToString(), Catch::Contains("rank-scores-3"));

  EditVector flags;
  REQUIRE(flags.Add(EditView{{}, 0, 0, std::string("\x01\x09", 2)}).ok());  // unknown flag
  VectorIterator fi(flags);
  RunReader fr(fi, "rank-pages");
  CHECK_FALSE(fr.Pages(1).has_value());

  EditVector more;
  RunWriter w(more);
  REQUIRE(w.AddScore(1).ok());
  REQUIRE(w.Finish().ok());
  VectorIterator mi(more);
  RunReader mr(mi, "scores");
  CHECK(mr.ExpectEnd().IsCorruption());
}

TEST_CASE("edges: one record a (block, group), offsets increasing", "[rank]") {
  EditVector v;
  EdgeWriter w(v);
  REQUIRE(w.Add(0, 5, 3).ok());
  REQUIRE(w.Add(0, 5, 90000).ok());
  REQUIRE(w.Add(0, 9, 0).ok());
  REQUIRE(w.Add(2, 1, 7).ok());
  CHECK(w.Add(2, 1, 7).IsCorruption());  // twice
  CHECK(w.Add(1, 4, 0).IsCorruption());  // an earlier block
  REQUIRE(w.Finish().ok());
  CHECK(w.count() == 4);
  REQUIRE(v.edits.size() == 3);
  CHECK(v.edits[0].key == EdgeKey(0, 5));
  CHECK(EdgeKey(1, 0) < EdgeKey(1, 1));
  CHECK(EdgeKey(1, ~uint64_t{0}) < EdgeKey(2, 0));

  VectorIterator it(v);
  EdgeReader r(it, "edges");
  std::vector<std::tuple<uint32_t, uint64_t, std::vector<uint32_t>>> got;
  while (true) {
    auto run = r.Peek();
    REQUIRE(run.has_value());
    if (*run == nullptr) break;
    got.emplace_back((*run)->block, (*run)->group, (*run)->offsets);
    r.Pop();
  }
  using Runs = decltype(got);
  CHECK(got == Runs{{0, 5, {3, 90000}}, {0, 9, {0}}, {2, 1, {7}}});
}

TEST_CASE("a work file of another kind is refused by its label", "[rank]") {
  auto env = nutchfs::NewMemEnv();
  REQUIRE(env->CreateDirs("/w").ok());
  auto file = EditFileWriter::Create(*env, "/w/f", false, kRankScoresLabel);
  REQUIRE(file.has_value());
  REQUIRE((*file)->Finish().ok());
  CHECK(OpenEditFile(*env, "/w/f", kRankReadBuffer, kRankScoresLabel).has_value());
  auto other = OpenEditFile(*env, "/w/f", kRankReadBuffer, kRankPagesLabel);
  REQUIRE_FALSE(other.has_value());
  CHECK(other.error().IsCorruption());
}

}  // namespace
}  // namespace webdb
