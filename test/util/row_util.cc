#include "test/util/row_util.h"

#include <algorithm>
#include <catch2/catch.hpp>

#include "webdb/table/table_builder.h"

namespace testutil {
namespace {

class VectorIterator final : public webdb::Iterator {
 public:
  explicit VectorIterator(Rows rows) : rows_(std::move(rows)), at_(rows_.size()) {}
  bool Valid() const override { return at_ < rows_.size(); }
  void SeekToFirst() override { at_ = 0; }
  void Seek(std::string_view target) override {
    at_ = static_cast<size_t>(
        std::lower_bound(rows_.begin(), rows_.end(), target,
                         [](const auto& row, std::string_view t) { return row.first < t; }) -
        rows_.begin());
  }
  void Next() override { ++at_; }
  std::string_view key() const override { return rows_[at_].first; }
  std::string_view value() const override { return rows_[at_].second; }
  webdb::Status status() const override { return webdb::Status::OK(); }

 private:
  Rows rows_;
  size_t at_;
};

}  // namespace

std::unique_ptr<webdb::Iterator> NewVectorIterator(Rows rows) {
  return std::make_unique<VectorIterator>(std::move(rows));
}

std::unique_ptr<webdb::Table> WriteSmallTable(nutchfs::Env& env, const std::string& path,
                                              const std::map<std::string, std::string>& rows) {
  auto builder = webdb::TableBuilder::Create(env, path, /*target_block_size=*/64);
  REQUIRE(builder.has_value());
  for (const auto& [k, v] : rows) REQUIRE((*builder)->Add(k, v).ok());
  REQUIRE((*builder)->Finish().ok());
  auto table = webdb::Table::Open(env, path);
  REQUIRE(table.has_value());
  return std::move(*table);
}

}  // namespace testutil
