// DistConfig: the cluster config (nutchfs/cluster_config.h) plus what the distributed
// writer reads from the same file — the number of writers and each writer's machine:
//
//   writers = 3
//   [writer.0]
//   machine = a
//
// and, with `replicas = R`, how many machines hold each writer's section, and with
// `distwriter = PATH` the distwriter binary that launches start on every writer's machine
// (an absolute path, or a command name found through PATH there). It adds the
// share groups the writer uses (config/README.md): "w<i>", held by the machines of
// writers i, i+1, ..., i+R-1 (mod k), writer i's first, and "meta", held by every
// writer's machine. Errors name FILE:LINE.
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
  int replicas = 1;                          // machines holding each section, 1..k
  std::vector<std::string> writer_machines;  // by writer index
  std::string distwriter_binary;             // `distwriter = ...`; empty: not given

  static Result<DistConfig> Load(const std::string& path);
  static Result<DistConfig> Parse(std::string_view text, const std::string& path);

  const std::string& db() const { return cluster.db; }
  // A NutchFile of writer i's group, or of the meta group.
  nutchfs::NutchFile WriterFile(int writer, std::string name) const;
  nutchfs::NutchFile MetaFile(std::string name) const;
  // The machines of group w<writer>, its home (the writer's own machine) first.
  const std::vector<std::string>& GroupMachines(int writer) const;
  // "writer 2 (machine b)", for messages.
  std::string Describe(int writer) const;
};

std::string WriterGroup(int writer);  // "w<i>"

}  // namespace distwriter

#endif  // DISTWRITER_DIST_CONFIG_H_
