// SliceCalls: cuts a call stream (the concatenation of call files, "-" for standard
// input) into k contiguous slices of about equal size, in one pass and constant memory,
// so that a stream of many gigabytes can be launched.
//
// Slice i holds the lines whose first byte lies in [i * S / k, (i + 1) * S / k) of the
// stream (S its size in bytes), so slice 0 then slice 1 ... is the stream itself, and
// writer i's calls come before writer i+1's as the spec's distributed order requires.
// A file whose last line lacks its newline gets one, so lines never join across files.
//
// A slice is handed over as one or more pieces, files of whole lines whose concatenation
// is the slice: `publish` gets each as soon as it is complete and closed, and takes it
// (moves it into place, NutchFs::Move). Pieces are not synced: they are read by writers
// that run on them at once, a launch that dies takes them with it (the next launch
// removes them and slices its stream anew), and a move to another file system or machine
// syncs the copy it makes. Pieces come in stream order, slices 0..k-1, and
// an empty slice is one empty piece. Lines of a regular file are copied into pieces.
// Since S must be known before the first cut, an input that is not a regular file
// (standard input, a pipe) is first spilled to local files of whole lines, each about
// `spill_file_bytes`; a spill file that lies inside one slice is then a piece as it is,
// and only the few that straddle a cut are copied (and removed). So a piped stream is
// written once, and needs room for about one copy of itself. A piece that fails is
// removed, and so are the spill files not handed over.
// It returns the stream's digest, the XXH3-128 of its bytes in stream order (the
// newlines it adds included; the regular files before a spilled stream are read once
// more for it), 32 lowercase hex digits: what tells a launch's rerun of the same calls
// (docs/DISTRIBUTED.md, "Sessions").
// Plain function; uses only the files it is given and its own temporary files.
#ifndef DISTWRITER_CALL_SLICER_H_
#define DISTWRITER_CALL_SLICER_H_

#include <xxhash.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "nutchfs/env.h"

namespace distwriter {

using nutchfs::Status;

inline constexpr uint64_t kSpillFileBytes = uint64_t{64} << 20;

using Publish = std::function<Status(int slice, const std::string& path)>;

// The XXH3-128 of a stream's bytes, taken as they pass.
class StreamDigest {
 public:
  StreamDigest();
  ~StreamDigest();
  StreamDigest(const StreamDigest&) = delete;
  StreamDigest& operator=(const StreamDigest&) = delete;
  void Add(std::string_view bytes);
  std::string Hex() const;  // 32 lowercase hex digits

 private:
  XXH3_state_t* state_;
};

// A stream spilled to local files "<prefix>-<n>" of whole lines, each ending at the first
// newline at or after its file_bytes-th byte, as its bytes are appended (and taken into
// digest). What slices a stream that is not a regular file: standard input, or the calls
// a CallStream (distwriter/call_stream.h) encodes as they are made. The files not
// handed over (SliceSpool) are removed on destruction, and so is an unfinished one.
class CallSpool {
 public:
  struct Part {
    std::string path;
    uint64_t size = 0;
  };
  CallSpool(nutchfs::Env& env, std::string prefix, StreamDigest& digest,
            uint64_t file_bytes = kSpillFileBytes);
  ~CallSpool();
  CallSpool(const CallSpool&) = delete;
  CallSpool& operator=(const CallSpool&) = delete;

  Status Append(std::string_view bytes);
  // The end of the stream: its last line gets its newline; the last file is closed.
  Status Finish();

  // The stream's bytes so far.
  uint64_t size() const { return size_; }
  // The complete files not yet handed over, in stream order.
  std::vector<Part>& parts() { return parts_; }
  StreamDigest& digest() { return digest_; }

 private:
  Status AppendToFile(std::string_view bytes);
  Status EndFile();

  nutchfs::Env& env_;
  const std::string prefix_;
  StreamDigest& digest_;
  const uint64_t file_bytes_;
  uint64_t size_ = 0;
  int files_ = 0;  // files begun
  char last_ = '\n';
  std::vector<Part> parts_;
  Part part_;                                   // the file being written
  std::unique_ptr<nutchfs::WritableFile> out_;  // part_, once it has bytes
};

// tmp_prefix: local path prefix for the spill files ("<prefix>.spill<input>-<n>") and
// the copied pieces ("<prefix>-<slice>-<n>.jsonl"); their directory must exist.
// stdin_path names standard input ("-"); tests give another stream.
nutchfs::Result<std::string> SliceCalls(nutchfs::Env& env, const std::vector<std::string>& files,
                                        int k, const std::string& tmp_prefix,
                                        const Publish& publish,
                                        const std::string& stdin_path = "/dev/stdin",
                                        uint64_t spill_file_bytes = kSpillFileBytes);

// Slices a stream spilled to spool (finished), as SliceCalls slices the same bytes read
// from a file: the same slices and the same digest. Its files that lie inside a slice
// are pieces as they are; the rest are copied and removed.
nutchfs::Result<std::string> SliceSpool(nutchfs::Env& env, CallSpool& spool, int k,
                                        const std::string& tmp_prefix, const Publish& publish);

}  // namespace distwriter

#endif  // DISTWRITER_CALL_SLICER_H_
