#include "test/util/layer_tables.h"

#include <map>
#include <memory>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "webdb/db/manifest_table.h"
#include "webdb/db/versions.h"
#include "webdb/table/layered_table.h"
#include "webdb/table/record.h"
#include "webdb/table/table_builder.h"

namespace testutil {
namespace {

using nutchfs::Err;
using nutchfs::Result;
using nutchfs::Status;
using webdb::RunTag;
using webdb::TableId;
using Rows = std::map<std::string, std::string>;

// Another row of table t: at the same key with another value (a stale one), or, for a
// ghost, at a key near it that the table need not hold; nullopt when it would not be a
// valid row.
std::optional<std::pair<std::string, std::string>> Variant(TableId t, std::string_view key,
                                                           std::string_view value, bool ghost) {
  std::string k, v;
  if (t == TableId::kPagesByUrl || t == TableId::kPagesByMd5) {
    auto page = webdb::DecodePage(t, key, value);
    if (!page) return std::nullopt;
    if (ghost) page->url += "#layered";
    page->score += 1.0f;
    if (!webdb::ValidatePage(*page).ok()) return std::nullopt;
    webdb::EncodePage(t, *page, &k, &v);
  } else {
    auto link = webdb::DecodeLink(t, key, value);
    if (!link) return std::nullopt;
    if (ghost) link->url += "#layered";
    link->anchor += " (stale)";
    if (!webdb::ValidateLink(*link).ok()) return std::nullopt;
    webdb::EncodeLink(t, *link, &k, &v);
  }
  return std::make_pair(std::move(k), std::move(v));
}

struct Layers {
  Rows base;
  std::vector<Rows> runs;  // stored run values (tag and value), oldest first
};

// Spreads one key over the layers: the base holds it or not, with `other` or the final
// value, earlier runs put or remove it at random, and the last run settles it so that the
// table holds `final` (nothing when nullopt) there.
void PlanKey(std::mt19937_64& rng, const std::string& key, const std::optional<std::string>& final,
             const std::string& other, Layers* out) {
  bool held = rng() % 4 != 0;
  std::string value = rng() % 2 ? other : final.value_or(other);
  if (held) out->base[key] = value;
  const size_t last = out->runs.size() - 1;
  auto put = [&](size_t run, RunTag tag, const std::string& v) {
    std::string stored;
    webdb::EncodeRunValue(tag, v, &stored);
    out->runs[run][key] = std::move(stored);
  };
  for (size_t r = 0; r < last; ++r) {
    if (rng() % 3 != 0) continue;
    if (held && rng() % 3 == 0) {
      put(r, RunTag::kRemove, "");
      held = false;
      continue;
    }
    value = rng() % 2 ? other : final.value_or(other);
    put(r, held ? RunTag::kReplace : RunTag::kInsert, value);
    held = true;
  }
  if (final && (!held || value != *final || rng() % 4 == 0)) {
    put(last, held ? RunTag::kReplace : RunTag::kInsert, *final);
  } else if (!final && held) {
    put(last, RunTag::kRemove, "");
  }
}

Result<webdb::TableFile> WriteFile(nutchfs::Env& env, const std::string& dir,
                                   const std::string& name, const Rows& rows) {
  // Small blocks: tables of a few hundred rows still have many, so that the merge's moves
  // over whole blocks and stored rows meet runs inside and between them.
  NUTCHFS_ASSIGN_OR_RETURN(auto builder, webdb::TableBuilder::Create(env, dir + "/" + name, 512));
  for (const auto& [k, v] : rows) NUTCHFS_RETURN_IF_ERROR(builder->Add(k, v));
  NUTCHFS_RETURN_IF_ERROR(builder->Finish());
  return webdb::TableFile{name, builder->num_records(), builder->file_size(), builder->file_crc(),
                          builder->file_id()};
}

}  // namespace

webdb::Result<webdb::Manifest> LayeredCopy(nutchfs::Env& env, const std::string& dir,
                                           const webdb::Manifest& m, uint64_t version,
                                           uint64_t seed, int runs) {
  std::mt19937_64 rng(seed);
  webdb::Manifest out = m;
  out.version = version;
  for (int i = 0; i < webdb::kNumTables; ++i) {
    const auto t = static_cast<TableId>(i);
    NUTCHFS_ASSIGN_OR_RETURN(auto table, webdb::OpenLayeredTableOf(env, dir, m, t, "layering"));
    Rows rows;
    auto it = table->NewIterator();
    for (it->SeekToFirst(); it->Valid(); it->Next()) rows.emplace(it->key(), it->value());
    NUTCHFS_RETURN_IF_ERROR(it->status());
    Layers layers;
    layers.runs.resize(1 + rng() % runs);
    for (const auto& [k, v] : rows) {
      const auto stale = Variant(t, k, v, false);
      PlanKey(rng, k, v, stale ? stale->second : v, &layers);
      if (rng() % 8 != 0) continue;
      const auto ghost = Variant(t, k, v, true);
      if (ghost && !rows.count(ghost->first)) {
        PlanKey(rng, ghost->first, std::nullopt, ghost->second, &layers);
      }
    }
    NUTCHFS_ASSIGN_OR_RETURN(webdb::TableFile base,
                             WriteFile(env, dir, webdb::TableFileName(t, version, "-base"),
                                       layers.base));
    webdb::TableRuns table_runs;
    for (size_t r = 0; r < layers.runs.size(); ++r) {
      if (layers.runs[r].empty()) continue;
      webdb::RunFile run;
      NUTCHFS_ASSIGN_OR_RETURN(
          run.file, WriteFile(env, dir,
                              webdb::TableFileName(t, version, "-run" + std::to_string(r)),
                              layers.runs[r]));
      for (const auto& [k, stored] : layers.runs[r]) {
        const RunTag tag = webdb::DecodeRunValue(stored)->tag;
        run.inserts += tag == RunTag::kInsert;
        run.removes += tag == RunTag::kRemove;
      }
      table_runs.push_back(std::move(run));
    }
    out.SetLayers(t, {base}, std::move(table_runs));
    if (out.records(t) != rows.size()) {
      return Err(Status::Corruption("layering miscounted " + std::string(webdb::TableName(t))));
    }
  }
  NUTCHFS_RETURN_IF_ERROR(env.SyncDir(dir));
  return out;
}

webdb::Status LayerCurrentVersion(nutchfs::Env& env, const std::string& dir, uint64_t seed,
                                  int runs) {
  NUTCHFS_ASSIGN_OR_RETURN(webdb::Manifest current, webdb::ReadCurrentManifest(env, dir));
  NUTCHFS_ASSIGN_OR_RETURN(webdb::Manifest next,
                           LayeredCopy(env, dir, current, current.version + 1, seed, runs));
  next.restores = 0;
  return webdb::PublishVersion(env, dir, current, next, {});
}

}  // namespace testutil
