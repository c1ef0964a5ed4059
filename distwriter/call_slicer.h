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
// It returns the stream's digest, the XXH3-128 of its bytes (the newlines it adds
// included) taken as they pass, 32 lowercase hex digits: what tells a launch's rerun of
// the same calls (docs/DISTRIBUTED.md, "Sessions").
// Plain function; uses only the files it is given and its own temporary files.
#ifndef DISTWRITER_CALL_SLICER_H_
#define DISTWRITER_CALL_SLICER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "nutchfs/env.h"

namespace distwriter {

using nutchfs::Status;

inline constexpr uint64_t kSpillFileBytes = uint64_t{64} << 20;

// tmp_prefix: local path prefix for the spill files ("<prefix>.spill<input>-<n>") and
// the copied pieces ("<prefix>-<slice>-<n>.jsonl"); their directory must exist.
// stdin_path names standard input ("-"); tests give another stream.
nutchfs::Result<std::string> SliceCalls(nutchfs::Env& env, const std::vector<std::string>& files,
                                        int k,
                  const std::string& tmp_prefix,
                  const std::function<Status(int slice, const std::string& path)>& publish,
                  const std::string& stdin_path = "/dev/stdin",
                  uint64_t spill_file_bytes = kSpillFileBytes);

}  // namespace distwriter

#endif  // DISTWRITER_CALL_SLICER_H_
