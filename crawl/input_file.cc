#include "crawl/input_file.h"

#include <zlib.h>

namespace crawl {

namespace {
constexpr size_t kInputChunk = size_t{1} << 16;
}  // namespace

struct InputFile::Zlib {
  z_stream z{};
  bool initialized = false;
  ~Zlib() {
    if (initialized) inflateEnd(&z);
  }
};

InputFile::InputFile(std::unique_ptr<nutchfs::SequentialFile> file)
    : file_(std::move(file)), zlib_(std::make_unique<Zlib>()) {}

InputFile::~InputFile() = default;

Result<std::unique_ptr<InputFile>> InputFile::Open(nutchfs::Env& env, const std::string& path) {
  NUTCHFS_ASSIGN_OR_RETURN(auto file, env.NewSequentialFile(path));
  std::unique_ptr<InputFile> in(new InputFile(std::move(file)));
  NUTCHFS_RETURN_IF_ERROR(in->FillInput());
  in->gzip_ = in->in_.size() >= 2 && static_cast<unsigned char>(in->in_[0]) == 0x1f &&
              static_cast<unsigned char>(in->in_[1]) == 0x8b;
  if (in->gzip_) {
    if (inflateInit2(&in->zlib_->z, 16 + MAX_WBITS) != Z_OK) {
      return nutchfs::Err(Status::IOError(path + ": cannot initialize zlib"));
    }
    in->zlib_->initialized = true;
  }
  in->members_.emplace_back(0, 0);
  return in;
}

Status InputFile::FillInput() {
  if (in_pos_ > 0) {
    in_.erase(0, in_pos_);
    in_pos_ = 0;
  }
  size_t old = in_.size();
  in_.resize(old + kInputChunk);
  auto got = file_->Read(kInputChunk, in_.data() + old);
  if (!got) {
    in_.resize(old);
    return got.error();
  }
  if (got->data() != in_.data() + old) std::copy(got->begin(), got->end(), in_.begin() + old);
  in_.resize(old + got->size());
  file_offset_ += got->size();
  if (got->empty()) file_eof_ = true;
  return Status::OK();
}

Status InputFile::Corrupt(const std::string& what) const {
  return Status::Corruption(path() + ": gzip member at file offset " +
                            std::to_string(member_start_) + ": " + what);
}

uint64_t InputFile::MemberOffset(uint64_t pos) {
  while (members_.size() > 1 && members_[1].first <= pos) members_.pop_front();
  return members_.front().second;
}

Result<std::string_view> InputFile::Read(size_t max) {
  if (!gzip_) {
    if (in_pos_ == in_.size() && !file_eof_) NUTCHFS_RETURN_IF_ERROR(FillInput());
    size_t n = std::min(max, in_.size() - in_pos_);
    out_.assign(in_, in_pos_, n);
    in_pos_ += n;
    position_ += n;
    return std::string_view(out_);
  }
  return Inflate(max);
}

Result<std::string_view> InputFile::Inflate(size_t max) {
  // Grown, never shrunk: resizing it down and up again per call zero-filled it each time.
  if (out_.size() < max) out_.resize(max);
  z_stream& z = zlib_->z;
  size_t produced = 0;
  while (produced == 0) {
    if (in_pos_ == in_.size()) {
      if (!file_eof_) NUTCHFS_RETURN_IF_ERROR(FillInput());
      if (in_pos_ == in_.size()) {
        if (in_member_) return nutchfs::Err(Corrupt("truncated gzip stream"));
        break;
      }
    }
    if (!in_member_) {
      member_start_ = file_offset_ - (in_.size() - in_pos_);
      if (members_.back().second != member_start_) members_.emplace_back(position_, member_start_);
      in_member_ = true;
    }
    z.next_in = reinterpret_cast<Bytef*>(in_.data() + in_pos_);
    z.avail_in = static_cast<uInt>(in_.size() - in_pos_);
    z.next_out = reinterpret_cast<Bytef*>(out_.data());
    z.avail_out = static_cast<uInt>(max);
    int rc = inflate(&z, Z_NO_FLUSH);
    in_pos_ = in_.size() - z.avail_in;
    produced = max - z.avail_out;
    if (rc == Z_STREAM_END) {
      in_member_ = false;
      inflateReset(&z);
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      return nutchfs::Err(Corrupt(z.msg ? z.msg : "inflate failed"));
    }
  }
  position_ += produced;
  return std::string_view(out_.data(), produced);
}

}  // namespace crawl
