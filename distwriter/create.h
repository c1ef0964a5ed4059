// Creating a distributed db: every writer's section with empty tables, on its machine,
// and round manifest version 1 (with url breakpoints from a sample, if given) installed
// on every writer's machine. Refuses to overwrite an existing db.
#ifndef DISTWRITER_CREATE_H_
#define DISTWRITER_CREATE_H_

#include <string>

#include "distwriter/dist_config.h"

namespace distwriter {

// sample_path: a file of urls, one per line (empty: choose breakpoints in round 1).
Status CreateDistDb(const DistConfig& config, const std::string& sample_path);

}  // namespace distwriter

#endif  // DISTWRITER_CREATE_H_
