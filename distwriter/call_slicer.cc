#include "distwriter/call_slicer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>

namespace distwriter {
namespace {

using nutchfs::Err;
using nutchfs::Result;

constexpr size_t kChunk = size_t{1} << 20;
// A spill gives its sliced bytes back in steps of this size.
constexpr uint64_t kPunchStep = uint64_t{64} << 20;

using Publish = std::function<Status(int slice, const std::string& path)>;

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Copies the stream at from into the local file to.
Status Spill(nutchfs::Env& env, const std::string& from, const std::string& to) {
  NUTCHFS_ASSIGN_OR_RETURN(auto in, env.NewSequentialFile(from));
  NUTCHFS_ASSIGN_OR_RETURN(auto out, env.NewWritableFile(to));
  auto buf = std::make_unique<char[]>(kChunk);
  for (;;) {
    NUTCHFS_ASSIGN_OR_RETURN(std::string_view got, in->Read(kChunk, buf.get()));
    if (got.empty()) break;
    NUTCHFS_RETURN_IF_ERROR(out->Append(got));
  }
  return out->Close();
}

// Frees [0, end) of a spill already sliced; best effort (the file system may not
// support holes, and the spill is removed at the end anyway).
class HolePuncher {
 public:
  explicit HolePuncher(const std::string& path) : fd_(::open(path.c_str(), O_WRONLY | O_CLOEXEC)) {}
  ~HolePuncher() {
    if (fd_ >= 0) ::close(fd_);
  }
  HolePuncher(const HolePuncher&) = delete;
  HolePuncher& operator=(const HolePuncher&) = delete;

  void Upto(uint64_t end) {
    if (fd_ < 0 || end < done_ + kPunchStep) return;
    if (::fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(done_),
                    static_cast<off_t>(end - done_)) == 0) {
      done_ = end;
    }
  }

 private:
  const int fd_;
  uint64_t done_ = 0;
};

// Routes the bytes of the stream, in order, to the slice files: a line goes to the
// slice whose byte range holds its first byte.
class Slicer {
 public:
  Slicer(nutchfs::Env& env, int k, uint64_t total, const std::string& prefix,
         const Publish& publish)
      : env_(env), k_(k), total_(total), prefix_(prefix), publish_(publish) {}
  // After a failure: the unfinished slice file goes.
  ~Slicer() {
    if (out_ == nullptr) return;
    out_.reset();
    static_cast<void>(env_.RemoveFile(PathOf(s_)));  // best effort
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
          const void* nl = std::memchr(data.data() + (from - pos_), '\n', pos_ + data.size() - from);
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

  // The end of one input file: its last line gets its newline; the next byte starts a
  // line.
  Status EndOfFile() {
    if (!at_line_start_) NUTCHFS_RETURN_IF_ERROR(Append("\n"));
    at_line_start_ = true;
    return AdvanceTo(pos_);
  }

  // Publishes the slice being written and every later one.
  Status Finish() {
    for (; s_ < k_; ++s_) NUTCHFS_RETURN_IF_ERROR(PublishCurrent());
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
      NUTCHFS_RETURN_IF_ERROR(PublishCurrent());
      ++s_;
    }
    return Status::OK();
  }

  std::string PathOf(int slice) const { return prefix_ + "-" + std::to_string(slice) + ".jsonl"; }

  Status Append(std::string_view bytes) {
    if (bytes.empty()) return Status::OK();
    if (out_ == nullptr) {
      NUTCHFS_ASSIGN_OR_RETURN(out_, env_.NewWritableFile(PathOf(s_)));
    }
    return out_->Append(bytes);
  }

  Status PublishCurrent() {
    if (out_ == nullptr) {
      NUTCHFS_ASSIGN_OR_RETURN(out_, env_.NewWritableFile(PathOf(s_)));
    }
    NUTCHFS_RETURN_IF_ERROR(out_->Sync());
    NUTCHFS_RETURN_IF_ERROR(out_->Close());
    out_.reset();
    Status published = publish_(s_, PathOf(s_));
    if (!published.ok() && env_.FileExists(PathOf(s_))) {
      static_cast<void>(env_.RemoveFile(PathOf(s_)));  // best effort
    }
    return published;
  }

  nutchfs::Env& env_;
  const int k_;
  const uint64_t total_;
  const std::string prefix_;
  const Publish& publish_;
  int s_ = 0;         // the slice being written
  uint64_t pos_ = 0;  // stream offset of the next byte given to Add
  bool at_line_start_ = true;
  std::unique_ptr<nutchfs::WritableFile> out_;  // slice s_, once it has bytes
};

struct Input {
  std::string path;
  uint64_t size = 0;
  bool spilled = false;  // our copy of a stream: punched as it is read, then removed
};

Status Feed(nutchfs::Env& env, const Input& input, Slicer& slicer) {
  NUTCHFS_ASSIGN_OR_RETURN(auto in, env.NewSequentialFile(input.path));
  std::optional<HolePuncher> punch;
  if (input.spilled) punch.emplace(input.path);
  auto buf = std::make_unique<char[]>(kChunk);
  uint64_t read = 0;
  for (;;) {
    NUTCHFS_ASSIGN_OR_RETURN(std::string_view got, in->Read(kChunk, buf.get()));
    if (got.empty()) break;
    NUTCHFS_RETURN_IF_ERROR(slicer.Add(got));
    read += got.size();
    if (punch) punch->Upto(read);
  }
  return slicer.EndOfFile();
}

Status SliceInputs(nutchfs::Env& env, std::vector<Input>& inputs, int k,
                   const std::string& tmp_prefix, const Publish& publish,
                   const std::string& stdin_path) {
  uint64_t total = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Input& in = inputs[i];
    if (in.path == "-") in.path = stdin_path;
    if (!IsRegularFile(in.path)) {
      const std::string stream = in.path;
      in.path = tmp_prefix + ".spill" + std::to_string(i);
      in.spilled = true;
      NUTCHFS_RETURN_IF_ERROR(Spill(env, stream, in.path));
    }
    NUTCHFS_ASSIGN_OR_RETURN(in.size, env.GetFileSize(in.path));
    total += in.size;
  }
  Slicer slicer(env, k, total, tmp_prefix, publish);
  NUTCHFS_RETURN_IF_ERROR(slicer.Start());
  for (Input& in : inputs) {
    NUTCHFS_RETURN_IF_ERROR(Feed(env, in, slicer));
    if (in.spilled) {
      static_cast<void>(env.RemoveFile(in.path));  // removed again below on any error
      in.spilled = false;
    }
  }
  return slicer.Finish();
}

}  // namespace

Status SliceCalls(nutchfs::Env& env, const std::vector<std::string>& files, int k,
                  const std::string& tmp_prefix, const Publish& publish,
                  const std::string& stdin_path) {
  std::vector<Input> inputs;
  for (const std::string& f : files) inputs.push_back(Input{f});
  Status s = SliceInputs(env, inputs, k, tmp_prefix, publish, stdin_path);
  for (const Input& in : inputs) {
    if (in.spilled) static_cast<void>(env.RemoveFile(in.path));  // best effort
  }
  return s;
}

}  // namespace distwriter
