// CallStream: the CallSink through which a producer of calls (`webdb update --config`,
// `webdb inject --config`) hands them to a distributed round as it makes them. Each call
// is encoded as one call-file line (webdb::JsonCallWriter) straight into the spill files
// of a CallSpool (distwriter/call_slicer.h): the files that Launch then cuts into the
// writers' slices, handing those inside one slice over as they are. So the stream is
// written once, with no call file before it, and it is sliced, and its digest (the
// session's, docs/DISTRIBUTED.md "Sessions") taken, exactly as `distwriter launch` does
// for a call file of the same bytes. Destroyed before Launch took them, it removes its
// files. Not thread-safe.
#ifndef DISTWRITER_CALL_STREAM_H_
#define DISTWRITER_CALL_STREAM_H_

#include <cstdint>
#include <string>

#include "distwriter/call_slicer.h"
#include "nutchfs/env.h"
#include "webdb/calls/call_sink.h"
#include "webdb/calls/json_call_writer.h"

namespace distwriter {

class CallStream {
 public:
  // Spill files "<prefix>-<n>", local; their directory must exist.
  CallStream(nutchfs::Env& env, std::string prefix, uint64_t file_bytes = kSpillFileBytes);
  CallStream(const CallStream&) = delete;
  CallStream& operator=(const CallStream&) = delete;

  webdb::CallSink& sink() { return json_; }
  // After the last call: writes what is buffered. Then spool() is ready to be sliced.
  Status Finish();
  CallSpool& spool() { return spool_; }

 private:
  StreamDigest digest_;
  CallSpool spool_;
  webdb::JsonCallWriter json_;
};

}  // namespace distwriter

#endif  // DISTWRITER_CALL_STREAM_H_
