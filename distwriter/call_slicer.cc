#include "distwriter/call_slicer.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <memory>

namespace distwriter {
namespace {

using nutchfs::Result;

constexpr size_t kChunk = size_t{1} << 20;

using Publish = std::function<Status(int slice, const std::string& path)>;

// The XXH3-128 of the stream's bytes, taken as they pass.
class StreamDigest {
 public:
  StreamDigest() : state_(XXH3_createState()) { XXH3_128bits_reset(state_); }
  ~StreamDigest() { XXH3_freeState(state_); }
  StreamDigest(const StreamDigest&) = delete;
  StreamDigest& operator=(const StreamDigest&) = delete;
  void Add(std::string_view bytes) { XXH3_128bits_update(state_, bytes.data(), bytes.size()); }
  std::string Hex() const {
    const XXH128_hash_t h = XXH3_128bits_digest(state_);
    return fmt::format("{:016x}{:016x}", h.high64, h.low64);
  }

 private:
  XXH3_state_t* state_;
};

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// A local file of the input.
struct Part {
  std::string path;
  uint64_t size = 0;
};

// Copies the stream at from into local files "<prefix>-<n>" of whole lines, each ending
// at the first newline at or after its file_bytes-th byte (the last at the stream's end,
// given a newline if it lacks one), and appends them to parts as they are complete.
// After a failure the unfinished file is removed.
Status Spill(nutchfs::Env& env, const std::string& from, const std::string& prefix,
             uint64_t file_bytes, std::vector<Part>& parts, StreamDigest& digest) {
  std::unique_ptr<nutchfs::WritableFile> out;
  Part part;
  Status s = [&]() -> Status {
    NUTCHFS_ASSIGN_OR_RETURN(auto in, env.NewSequentialFile(from));
    auto buf = std::make_unique<char[]>(kChunk);
    auto finish = [&]() -> Status {
      NUTCHFS_RETURN_IF_ERROR(out->Close());
      out.reset();
      parts.push_back(part);
      return Status::OK();
    };
    auto append = [&](std::string_view bytes) -> Status {
      if (out == nullptr) {
        part = Part{prefix + "-" + std::to_string(parts.size()), 0};
        NUTCHFS_ASSIGN_OR_RETURN(out, env.NewWritableFile(part.path));
      }
      part.size += bytes.size();
      digest.Add(bytes);
      return out->Append(bytes);
    };
    char last = '\n';
    for (;;) {
      NUTCHFS_ASSIGN_OR_RETURN(std::string_view got, in->Read(kChunk, buf.get()));
      if (got.empty()) break;
      last = got.back();
      while (!got.empty()) {
        const uint64_t held = out == nullptr ? 0 : part.size;
        // The file ends with the first newline at or after its file_bytes-th byte.
        const size_t from_here = file_bytes > held + 1 ? file_bytes - held - 1 : 0;
        const void* nl = from_here < got.size()
                             ? std::memchr(got.data() + from_here, '\n', got.size() - from_here)
                             : nullptr;
        if (nl == nullptr) {
          NUTCHFS_RETURN_IF_ERROR(append(got));
          break;
        }
        const size_t end = static_cast<size_t>(static_cast<const char*>(nl) - got.data()) + 1;
        NUTCHFS_RETURN_IF_ERROR(append(got.substr(0, end)));
        NUTCHFS_RETURN_IF_ERROR(finish());
        got.remove_prefix(end);
      }
    }
    if (out == nullptr) return Status::OK();
    if (last != '\n') NUTCHFS_RETURN_IF_ERROR(append("\n"));
    return finish();
  }();
  if (!s.ok() && out != nullptr) {
    out.reset();
    static_cast<void>(env.RemoveFile(part.path));  // best effort
  }
  return s;
}

// Routes the bytes of the stream, in order, to the slices: a line goes to the slice
// whose byte range holds its first byte. Copied bytes go to the slice's current piece
// file; a whole file of the input may become a piece itself (TakeWhole).
class Slicer {
 public:
  Slicer(nutchfs::Env& env, int k, uint64_t total, const std::string& prefix,
         const Publish& publish)
      : env_(env), k_(k), total_(total), prefix_(prefix), publish_(publish) {}
  // After a failure: the unfinished piece file goes.
  ~Slicer() {
    if (out_ == nullptr) return;
    out_.reset();
    static_cast<void>(env_.RemoveFile(PieceName()));  // best effort
  }
  Slicer(const Slicer&) = delete;
  Slicer& operator=(const Slicer&) = delete;

  // Slices that own no byte at all (more slices than bytes) are published at once.
  Status Start() { return AdvanceTo(0); }

  // The next bytes of the stream.
  Status Add(std::string_view data) {
    size_t i = 0;
    while (i < data.size()) {
      size_t end = data.size();
      bool cut = false;
      if (s_ + 1 < k_) {
        // The first line starting at or after the next slice's bound follows the first
        // newline at or after bound - 1 (AdvanceTo keeps the bound above pos_ + i).
        const uint64_t from = std::max<uint64_t>(pos_ + i, Bound(s_ + 1) - 1);
        if (from < pos_ + data.size()) {
          const void* nl =
              std::memchr(data.data() + (from - pos_), '\n', pos_ + data.size() - from);
          if (nl != nullptr) {
            end = static_cast<size_t>(static_cast<const char*>(nl) - data.data()) + 1;
            cut = true;
          }
        }
      }
      NUTCHFS_RETURN_IF_ERROR(Append(data.substr(i, end - i)));
      i = end;
      if (cut) NUTCHFS_RETURN_IF_ERROR(AdvanceTo(pos_ + end));
    }
    pos_ += data.size();
    if (!data.empty()) at_line_start_ = data.back() == '\n';
    return Status::OK();
  }

  // A file of whole lines whose bytes come next in the stream: when every line
  // of it belongs to the slice being cut, it is handed over as the slice's next piece
  // (true); otherwise the caller gives its bytes to Add (false).
  Result<bool> TakeWhole(const Part& part) {
    if (!at_line_start_ || (s_ + 1 < k_ && pos_ + part.size > Bound(s_ + 1))) return false;
    NUTCHFS_RETURN_IF_ERROR(FlushPiece());
    NUTCHFS_RETURN_IF_ERROR(publish_(s_, part.path));
    ++pieces_;
    pos_ += part.size;
    NUTCHFS_RETURN_IF_ERROR(AdvanceTo(pos_));
    return true;
  }

  // The end of one input file: its last line gets its newline (taken into digest, as
  // the file's bytes were); the next byte starts a line.
  Status EndOfFile(StreamDigest& digest) {
    if (!at_line_start_) {
      digest.Add("\n");
      NUTCHFS_RETURN_IF_ERROR(Append("\n"));
    }
    at_line_start_ = true;
    return AdvanceTo(pos_);
  }

  // Publishes the rest of the slice being cut and every later slice.
  Status Finish() {
    for (; s_ < k_; ++s_) NUTCHFS_RETURN_IF_ERROR(EndSlice());
    return Status::OK();
  }

 private:
  uint64_t Bound(int slice) const {
    return static_cast<uint64_t>(static_cast<unsigned __int128>(total_) *
                                 static_cast<unsigned>(slice) / static_cast<unsigned>(k_));
  }

  // A line starts at offset line_start: publishes every slice whose range ends there or
  // before.
  Status AdvanceTo(uint64_t line_start) {
    while (s_ + 1 < k_ && Bound(s_ + 1) <= line_start) {
      NUTCHFS_RETURN_IF_ERROR(EndSlice());
      ++s_;
    }
    return Status::OK();
  }

  std::string PieceName() const {
    return prefix_ + "-" + std::to_string(s_) + "-" + std::to_string(pieces_) + ".jsonl";
  }

  Status Append(std::string_view bytes) {
    if (bytes.empty()) return Status::OK();
    if (out_ == nullptr) {
      NUTCHFS_ASSIGN_OR_RETURN(out_, env_.NewWritableFile(PieceName()));
    }
    return out_->Append(bytes);
  }

  // Publishes the piece file being written, if any.
  Status FlushPiece() {
    if (out_ == nullptr) return Status::OK();
    NUTCHFS_RETURN_IF_ERROR(out_->Close());
    out_.reset();
    const std::string path = PieceName();
    ++pieces_;
    Status published = publish_(s_, path);
    if (!published.ok() && env_.FileExists(path)) {
      static_cast<void>(env_.RemoveFile(path));  // best effort
    }
    return published;
  }

  // Publishes the rest of slice s_: an empty piece if it has none.
  Status EndSlice() {
    if (pieces_ == 0 && out_ == nullptr) {
      NUTCHFS_ASSIGN_OR_RETURN(out_, env_.NewWritableFile(PieceName()));
    }
    NUTCHFS_RETURN_IF_ERROR(FlushPiece());
    pieces_ = 0;
    return Status::OK();
  }

  nutchfs::Env& env_;
  const int k_;
  const uint64_t total_;
  const std::string prefix_;
  const Publish& publish_;
  int s_ = 0;         // the slice being cut
  int pieces_ = 0;    // pieces of slice s_ published
  uint64_t pos_ = 0;  // stream offset of the next byte
  bool at_line_start_ = true;
  std::unique_ptr<nutchfs::WritableFile> out_;  // piece pieces_ of slice s_, once it has bytes
};

struct Input {
  std::string path;
  bool spilled = false;     // a stream, read through our copy
  std::vector<Part> spill;  // that copy's files not yet handed over
};

// Gives the bytes of one local file to the slicer, and to digest when not null.
Status Copy(nutchfs::Env& env, const std::string& path, Slicer& slicer, StreamDigest* digest) {
  NUTCHFS_ASSIGN_OR_RETURN(auto in, env.NewSequentialFile(path));
  auto buf = std::make_unique<char[]>(kChunk);
  for (;;) {
    NUTCHFS_ASSIGN_OR_RETURN(std::string_view got, in->Read(kChunk, buf.get()));
    if (got.empty()) return Status::OK();
    if (digest != nullptr) digest->Add(got);
    NUTCHFS_RETURN_IF_ERROR(slicer.Add(got));
  }
}

// One input; a spilled one file by file, each handed over whole or copied and removed
// (its bytes went into digest as they were spilled).
Status Feed(nutchfs::Env& env, Input& input, Slicer& slicer, StreamDigest& digest) {
  if (!input.spilled) NUTCHFS_RETURN_IF_ERROR(Copy(env, input.path, slicer, &digest));
  while (!input.spill.empty()) {
    const Part part = input.spill.front();
    NUTCHFS_ASSIGN_OR_RETURN(const bool taken, slicer.TakeWhole(part));
    if (!taken) NUTCHFS_RETURN_IF_ERROR(Copy(env, part.path, slicer, nullptr));
    input.spill.erase(input.spill.begin());
    if (!taken) static_cast<void>(env.RemoveFile(part.path));  // best effort
  }
  return slicer.EndOfFile(digest);
}

Status SliceInputs(nutchfs::Env& env, std::vector<Input>& inputs, int k,
                   const std::string& tmp_prefix, const Publish& publish,
                   const std::string& stdin_path, uint64_t spill_file_bytes,
                   StreamDigest& digest) {
  uint64_t total = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Input& in = inputs[i];
    if (in.path == "-") in.path = stdin_path;
    if (IsRegularFile(in.path)) {
      NUTCHFS_ASSIGN_OR_RETURN(const uint64_t size, env.GetFileSize(in.path));
      total += size;
      continue;
    }
    in.spilled = true;
    NUTCHFS_RETURN_IF_ERROR(
        Spill(env, in.path, tmp_prefix + ".spill" + std::to_string(i), spill_file_bytes, in.spill,
              digest));
    for (const Part& part : in.spill) total += part.size;
  }
  Slicer slicer(env, k, total, tmp_prefix, publish);
  NUTCHFS_RETURN_IF_ERROR(slicer.Start());
  for (Input& in : inputs) NUTCHFS_RETURN_IF_ERROR(Feed(env, in, slicer, digest));
  return slicer.Finish();
}

}  // namespace

Result<std::string> SliceCalls(nutchfs::Env& env, const std::vector<std::string>& files, int k,
                               const std::string& tmp_prefix, const Publish& publish,
                               const std::string& stdin_path, uint64_t spill_file_bytes) {
  std::vector<Input> inputs;
  for (const std::string& f : files) inputs.emplace_back().path = f;
  StreamDigest digest;
  Status s =
      SliceInputs(env, inputs, k, tmp_prefix, publish, stdin_path, spill_file_bytes, digest);
  for (const Input& in : inputs) {
    for (const Part& part : in.spill) static_cast<void>(env.RemoveFile(part.path));  // best effort
  }
  if (!s.ok()) return Err(s);
  return digest.Hex();
}

}  // namespace distwriter
