// SliceCalls: cuts a call stream (the concatenation of call files, "-" for standard
// input) into k contiguous slices of about equal size, in one pass and constant memory,
// so that a stream of many gigabytes can be launched.
//
// Slice i holds the lines whose first byte lies in [i * S / k, (i + 1) * S / k) of the
// stream (S its size in bytes), so slice 0 then slice 1 ... is the stream itself, and
// writer i's calls come before writer i+1's as the spec's distributed order requires.
// A file whose last line lacks its newline gets one, so lines never join across files.
// Since S must be known before the first cut, an input that is not a regular file
// (standard input, a pipe) is first copied to a local spill file; the spill's bytes are
// given back to the file system (hole punching) as they are sliced, so a piped stream
// needs room for about one copy of itself, not two.
//
// Each slice is written to a local file, synced, and handed to `publish` as soon as it is
// complete; publish takes the file (moves it into place, NutchFs::Move). Slices are
// published in order 0..k-1, empty ones too. A slice that fails is removed.
// Plain function; uses only the files it is given and its own temporary files.
#ifndef DISTWRITER_CALL_SLICER_H_
#define DISTWRITER_CALL_SLICER_H_

#include <functional>
#include <string>
#include <vector>

#include "nutchfs/env.h"

namespace distwriter {

using nutchfs::Status;

// tmp_prefix: local path prefix for the spill ("<prefix>.spill") and the slices
// ("<prefix>-<i>.jsonl"); their directory must exist. stdin_path names standard input
// ("-"); tests give another stream.
Status SliceCalls(nutchfs::Env& env, const std::vector<std::string>& files, int k,
                  const std::string& tmp_prefix,
                  const std::function<Status(int slice, const std::string& path)>& publish,
                  const std::string& stdin_path = "/dev/stdin");

}  // namespace distwriter

#endif  // DISTWRITER_CALL_SLICER_H_
