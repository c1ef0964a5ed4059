// DistConfig: the cluster config (nutchfs/cluster_config.h) plus what the distributed
// writer reads from the same file — the number of writers and each writer's machine:
//
//   writers = 3
//   [writer.0]
//   machine = a
//
// It adds the share groups the writer uses (config/README.md): "w<i>", held by writer
// i's machine, and "meta", held by every writer's machine. Errors name FILE:LINE.
// A plain value; immutable after Load.
#ifndef DISTWRITER_DIST_CONFIG_H_
#define DISTWRITER_DIST_CONFIG_H_

#include <string>
#include <vector>

#include "nutchfs/cluster_config.h"
#include "nutchfs/nutchfile.h"

namespace distwriter {

using nutchfs::Err;
using nutchfs::Result;
using nutchfs::Status;

constexpr int kMaxWriters = 256;
constexpr char kMetaGroup[] = "meta";

struct DistConfig {
  nutchfs::ClusterConfig cluster;
  int k = 0;
  std::vector<std::string> writer_machines;  // by writer index

  static Result<DistConfig> Load(const std::string& path);
  static Result<DistConfig> Parse(std::string_view text, const std::string& path);

  const std::string& db() const { return cluster.db; }
  // A NutchFile of writer i's group, or of the meta group.
  nutchfs::NutchFile WriterFile(int writer, std::string name) const;
  nutchfs::NutchFile MetaFile(std::string name) const;
  // "writer 2 (machine b)", for messages.
  std::string Describe(int writer) const;
};

std::string WriterGroup(int writer);  // "w<i>"

}  // namespace distwriter

#endif  // DISTWRITER_DIST_CONFIG_H_
