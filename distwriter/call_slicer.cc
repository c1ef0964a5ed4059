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

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

using Part = CallSpool::Part;

// Copies the stream at from into spool (left unfinished on failure).
Status Spill(nutchfs::Env& env, const std::string& from, CallSpool& spool) {
  NUTCHFS_ASSIGN_OR_RETURN(auto in, env.NewSequentialFile(from));
  auto buf = std::make_unique<char[]>(kChunk);
  for (;;) {
    NUTCHFS_ASSIGN_OR_RETURN(std::string_view got, in->Read(kChunk, buf.get()));
    if (got.empty()) return spool.Finish();
    NUTCHFS_RETURN_IF_ERROR(spool.Append(got));
  }
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
  // the file's bytes were, unless digest is null); the next byte starts a line.
  Status EndOfFile(StreamDigest* digest) {
    if (!at_line_start_) {
      if (digest != nullptr) digest->Add("\n");
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
  std::unique_ptr<CallSpool> spool;  // a stream's, read through this copy of it
  bool digested = false;             // its bytes (and added newline) are in the digest
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

// A spool's files, one by one, each handed over whole or copied and removed (their
// bytes went into the digest as they were spilled).
Status FeedSpool(nutchfs::Env& env, CallSpool& spool, Slicer& slicer) {
  std::vector<Part>& parts = spool.parts();
  while (!parts.empty()) {
    const Part part = parts.front();
    NUTCHFS_ASSIGN_OR_RETURN(const bool taken, slicer.TakeWhole(part));
    if (!taken) NUTCHFS_RETURN_IF_ERROR(Copy(env, part.path, slicer, nullptr));
    parts.erase(parts.begin());
    if (!taken) static_cast<void>(env.RemoveFile(part.path));  // best effort
  }
  return Status::OK();
}

// Puts a regular file's bytes, and the newline the slicer adds to a last line without
// one, into digest ahead of its slicing.
Status DigestFile(nutchfs::Env& env, Input& input, StreamDigest& digest) {
  NUTCHFS_ASSIGN_OR_RETURN(auto in, env.NewSequentialFile(input.path));
  auto buf = std::make_unique<char[]>(kChunk);
  char last = '\n';
  for (;;) {
    NUTCHFS_ASSIGN_OR_RETURN(std::string_view got, in->Read(kChunk, buf.get()));
    if (got.empty()) break;
    digest.Add(got);
    last = got.back();
  }
  if (last != '\n') digest.Add("\n");
  input.digested = true;
  return Status::OK();
}

// One input: a regular file's bytes, or its spool's files.
Status Feed(nutchfs::Env& env, Input& input, Slicer& slicer, StreamDigest& digest) {
  StreamDigest* const add = input.digested ? nullptr : &digest;
  if (input.spool == nullptr) {
    NUTCHFS_RETURN_IF_ERROR(Copy(env, input.path, slicer, add));
  } else {
    NUTCHFS_RETURN_IF_ERROR(FeedSpool(env, *input.spool, slicer));
  }
  return slicer.EndOfFile(add);
}

Status SliceInputs(nutchfs::Env& env, std::vector<Input>& inputs, int k,
                   const std::string& tmp_prefix, const Publish& publish,
                   const std::string& stdin_path, uint64_t spill_file_bytes,
                   StreamDigest& digest) {
  // The digest takes the bytes in stream order. A stream's go in as it is spilled, so the
  // regular files before it are read for the digest first (and their bytes left out of
  // it when they are sliced).
  uint64_t total = 0;
  size_t digested = 0;  // inputs[0, digested) are in the digest
  for (size_t i = 0; i < inputs.size(); ++i) {
    Input& in = inputs[i];
    if (in.path == "-") in.path = stdin_path;
    if (IsRegularFile(in.path)) {
      NUTCHFS_ASSIGN_OR_RETURN(const uint64_t size, env.GetFileSize(in.path));
      total += size;
      continue;
    }
    for (; digested < i; ++digested) {
      NUTCHFS_RETURN_IF_ERROR(DigestFile(env, inputs[digested], digest));
    }
    in.spool = std::make_unique<CallSpool>(env, tmp_prefix + ".spill" + std::to_string(i), digest,
                                           spill_file_bytes);
    in.digested = true;
    digested = i + 1;
    NUTCHFS_RETURN_IF_ERROR(Spill(env, in.path, *in.spool));
    total += in.spool->size();
  }
  Slicer slicer(env, k, total, tmp_prefix, publish);
  NUTCHFS_RETURN_IF_ERROR(slicer.Start());
  for (Input& in : inputs) NUTCHFS_RETURN_IF_ERROR(Feed(env, in, slicer, digest));
  return slicer.Finish();
}

}  // namespace

StreamDigest::StreamDigest() : state_(XXH3_createState()) { XXH3_128bits_reset(state_); }

StreamDigest::~StreamDigest() { XXH3_freeState(state_); }

void StreamDigest::Add(std::string_view bytes) {
  XXH3_128bits_update(state_, bytes.data(), bytes.size());
}

std::string StreamDigest::Hex() const {
  const XXH128_hash_t h = XXH3_128bits_digest(state_);
  return fmt::format("{:016x}{:016x}", h.high64, h.low64);
}

CallSpool::CallSpool(nutchfs::Env& env, std::string prefix, StreamDigest& digest,
                     uint64_t file_bytes)
    : env_(env), prefix_(std::move(prefix)), digest_(digest), file_bytes_(file_bytes) {}

CallSpool::~CallSpool() {
  if (out_ != nullptr) {
    out_.reset();
    static_cast<void>(env_.RemoveFile(part_.path));  // best effort
  }
  for (const Part& part : parts_) static_cast<void>(env_.RemoveFile(part.path));  // best effort
}

Status CallSpool::AppendToFile(std::string_view bytes) {
  if (out_ == nullptr) {
    part_ = Part{prefix_ + "-" + std::to_string(files_++), 0};
    NUTCHFS_ASSIGN_OR_RETURN(out_, env_.NewWritableFile(part_.path));
  }
  part_.size += bytes.size();
  size_ += bytes.size();
  digest_.Add(bytes);
  return out_->Append(bytes);
}

Status CallSpool::EndFile() {
  NUTCHFS_RETURN_IF_ERROR(out_->Close());
  out_.reset();
  parts_.push_back(part_);
  return Status::OK();
}

Status CallSpool::Append(std::string_view got) {
  if (got.empty()) return Status::OK();
  last_ = got.back();
  while (!got.empty()) {
    const uint64_t held = out_ == nullptr ? 0 : part_.size;
    // The file ends with the first newline at or after its file_bytes-th byte.
    const size_t from_here = file_bytes_ > held + 1 ? file_bytes_ - held - 1 : 0;
    const void* nl = from_here < got.size()
                         ? std::memchr(got.data() + from_here, '\n', got.size() - from_here)
                         : nullptr;
    if (nl == nullptr) return AppendToFile(got);
    const size_t end = static_cast<size_t>(static_cast<const char*>(nl) - got.data()) + 1;
    NUTCHFS_RETURN_IF_ERROR(AppendToFile(got.substr(0, end)));
    NUTCHFS_RETURN_IF_ERROR(EndFile());
    got.remove_prefix(end);
  }
  return Status::OK();
}

Status CallSpool::Finish() {
  if (out_ == nullptr) return Status::OK();
  if (last_ != '\n') NUTCHFS_RETURN_IF_ERROR(AppendToFile("\n"));
  return EndFile();
}

Result<std::string> SliceCalls(nutchfs::Env& env, const std::vector<std::string>& files, int k,
                               const std::string& tmp_prefix, const Publish& publish,
                               const std::string& stdin_path, uint64_t spill_file_bytes) {
  std::vector<Input> inputs;
  for (const std::string& f : files) inputs.emplace_back().path = f;
  StreamDigest digest;
  NUTCHFS_RETURN_IF_ERROR(
      SliceInputs(env, inputs, k, tmp_prefix, publish, stdin_path, spill_file_bytes, digest));
  return digest.Hex();
}

Result<std::string> SliceSpool(nutchfs::Env& env, CallSpool& spool, int k,
                               const std::string& tmp_prefix, const Publish& publish) {
  Slicer slicer(env, k, spool.size(), tmp_prefix, publish);
  NUTCHFS_RETURN_IF_ERROR(slicer.Start());
  NUTCHFS_RETURN_IF_ERROR(FeedSpool(env, spool, slicer));
  NUTCHFS_RETURN_IF_ERROR(slicer.EndOfFile(&spool.digest()));
  NUTCHFS_RETURN_IF_ERROR(slicer.Finish());
  return spool.digest().Hex();
}

}  // namespace distwriter
