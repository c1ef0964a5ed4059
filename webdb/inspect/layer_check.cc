#include "webdb/inspect/layer_check.h"

#include <fmt/format.h>

#include <memory>
#include <optional>
#include <vector>

namespace webdb {

bool CheckLayers(const LayeredTable& table, TableId t, const std::string& counted,
                 FindingLog& log) {
  const uint64_t before = log.count();
  std::vector<std::unique_ptr<Iterator>> layers;  // the base, then the runs oldest first
  layers.push_back(table.base().NewIterator());
  for (size_t i = 0; i < table.num_runs(); ++i) layers.push_back(table.run(i).NewIterator());
  auto name = [&](size_t layer) {
    return layer == 0 ? table.base().path(0) : table.run(layer - 1).path(0);
  };
  for (auto& it : layers) it->SeekToFirst();
  uint64_t rows = 0;
  std::string key;
  for (;;) {
    std::optional<size_t> first;
    for (size_t i = 0; i < layers.size(); ++i) {
      if (layers[i]->Valid() && (!first || layers[i]->key() < layers[*first]->key())) first = i;
    }
    if (!first) break;
    key.assign(layers[*first]->key());
    bool held = false;
    for (size_t i = 0; i < layers.size(); ++i) {
      Iterator& it = *layers[i];
      if (!it.Valid() || it.key() != key) continue;
      if (i == 0) {
        held = true;
      } else if (const std::optional<RunRow> row = DecodeRunValue(it.value()); row) {
        if (HeldBelow(row->tag) != held) {
          log.Add({name(i), DescribeKey(t, key),
                   held ? "an insert where a layer below holds the key"
                        : "a replace or remove where no layer below holds the key"});
        }
        held = HeldAfter(row->tag);
      }
      it.Next();
    }
    if (held) ++rows;
  }
  for (size_t i = 0; i < layers.size(); ++i) {
    if (!layers[i]->status().ok()) log.AddStatus(name(i), layers[i]->status());
  }
  if (log.count() == before && rows != table.num_records()) {
    log.Add({name(0), "",
             fmt::format("{} layers make {} rows, {} counts {}", TableName(t), rows, counted,
                         table.num_records())});
  }
  return log.count() == before;
}

}  // namespace webdb
