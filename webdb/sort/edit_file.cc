#include "webdb/sort/edit_file.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <utility>

#include "webdb/util/coding.h"
#include "webdb/util/crc32c.h"

namespace webdb {
namespace {

using nutchfs::Err;

constexpr char kMagic[] = "WDBEDITS";
constexpr size_t kMagicSize = 8;
constexpr uint32_t kVersion = 2;
constexpr uint32_t kFlagSorted = 1;
constexpr uint32_t kFlagLabelled = 2;
constexpr size_t kHeaderSize = kMagicSize + 4 + 4;
constexpr size_t kFrameHeaderSize = 8;
constexpr uint32_t kEndMarker = 0xFFFFFFFFu;
constexpr size_t kFooterSize = 8 + 8 + 4 + kMagicSize;
// End marker plus footer: what follows the last frame.
constexpr size_t kTrailerSize = 4 + kFooterSize;
// The fewest bytes a record takes: shared, unshared, order, kind and vallen, a byte each.
constexpr uint64_t kMinRecordSize = 5;

Status CorruptionAt(const std::string& path, std::string_view what, uint64_t offset) {
  return Status::Corruption(path + ": " + std::string(what) + " at offset " +
                            std::to_string(offset));
}

std::string EncodeHeader(bool sorted, std::string_view label) {
  std::string h(kMagic, kMagicSize);
  PutFixed32(&h, kVersion);
  PutFixed32(&h, (sorted ? kFlagSorted : 0) | (label.empty() ? 0 : kFlagLabelled));
  if (!label.empty()) {
    PutFixed32(&h, static_cast<uint32_t>(label.size()));
    h.append(label);
  }
  return h;
}

struct Header {
  bool sorted = false;
  bool labelled = false;
};

// The fixed part of the header. REQUIRES: header.size() == kHeaderSize.
Result<Header> ParseHeader(const std::string& path, std::string_view header) {
  if (header.substr(0, kMagicSize) != std::string_view(kMagic, kMagicSize)) {
    return Err(CorruptionAt(path, "bad edit file magic", 0));
  }
  if (DecodeFixed32(header.data() + kMagicSize) != kVersion) {
    return Err(CorruptionAt(path, "unknown edit file version", kMagicSize));
  }
  uint32_t flags = DecodeFixed32(header.data() + kMagicSize + 4);
  if ((flags & ~(kFlagSorted | kFlagLabelled)) != 0) {
    return Err(CorruptionAt(path, "unknown edit file flags", kMagicSize + 4));
  }
  return Header{(flags & kFlagSorted) != 0, (flags & kFlagLabelled) != 0};
}

// The length of a label, from the 4 bytes after the fixed header.
Result<uint32_t> ParseLabelSize(const std::string& path, std::string_view bytes) {
  const uint32_t size = DecodeFixed32(bytes.data());
  if (size == 0 || size > kMaxEditLabel) {
    return Err(CorruptionAt(path, "bad label length " + std::to_string(size), kHeaderSize));
  }
  return size;
}

Status CheckLabel(const std::string& path, const Header& header, std::string_view label,
                  std::optional<std::string_view> expected) {
  if (!expected) return Status::OK();
  if (!header.labelled) {
    return CorruptionAt(path, "edit file has no label, expected '" + std::string(*expected) + "'",
                        kMagicSize + 4);
  }
  if (label == *expected) return Status::OK();
  return CorruptionAt(path,
                      "edit file labelled '" + std::string(label) + "', expected '" +
                          std::string(*expected) + "'",
                      kHeaderSize + 4);
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Writer

Result<std::unique_ptr<EditFileWriter>> EditFileWriter::Create(nutchfs::Env& env,
                                                               const std::string& path,
                                                               bool sorted,
                                                               std::string_view label) {
  if (label.size() > kMaxEditLabel) {
    return Err(Status::InvalidArgument(path + ": edit file label of " +
                                       std::to_string(label.size()) + " bytes"));
  }
  NUTCHFS_ASSIGN_OR_RETURN(auto file, env.NewWritableFile(path));
  std::unique_ptr<EditFileWriter> writer(new EditFileWriter(std::move(file), sorted, label));
  NUTCHFS_RETURN_IF_ERROR(writer->file_->Append(writer->header_));
  writer->file_bytes_ = writer->header_.size();
  return writer;
}

EditFileWriter::EditFileWriter(std::unique_ptr<nutchfs::WritableFile> file, bool sorted,
                               std::string_view label)
    : file_(std::move(file)), sorted_(sorted), header_(EncodeHeader(sorted, label)) {
  file_crc_ = crc32c::Value(header_);
  frame_.reserve(kFrameHeaderSize + kEditFrameSize);
  frame_.resize(kFrameHeaderSize);
}

EditFileWriter::~EditFileWriter() = default;

const std::string& EditFileWriter::path() const { return file_->path(); }

Status EditFileWriter::CheckOrder(const EditView& edit) const {
  if (count_ == 0) return Status::OK();
  int c = edit.key.compare(last_key_);
  if (c < 0 || (c == 0 && edit.order < last_order_)) {
    return Status::InvalidArgument(path() + ": edit out of (key, order) order at record " +
                                   std::to_string(count_));
  }
  return Status::OK();
}

Status EditFileWriter::Add(const EditView& edit) {
  if (finished_) return Status::InvalidArgument(path() + ": Add after Finish");
  // At most: with no shared prefix (a frame's first record).
  uint64_t record_size = 1 + VarintLength(edit.key.size()) + edit.key.size() +
                         VarintLength(edit.order) + 1 + VarintLength(edit.value.size()) +
                         edit.value.size();
  if (record_size >= kEndMarker) {
    return Status::InvalidArgument(path() + ": edit too large (" + std::to_string(record_size) +
                                   " bytes)");
  }
  if (sorted_) NUTCHFS_RETURN_IF_ERROR(CheckOrder(edit));
  size_t payload = frame_.size() - kFrameHeaderSize;
  if (payload > 0 && payload + record_size > kEditFrameSize) {
    NUTCHFS_RETURN_IF_ERROR(FlushFrame());
    payload = 0;
  }
  const size_t shared = payload == 0 ? 0 : SharedPrefixLength(last_key_, edit.key);
  PutVarint32(&frame_, static_cast<uint32_t>(shared));
  PutVarint32(&frame_, static_cast<uint32_t>(edit.key.size() - shared));
  frame_.append(edit.key.substr(shared));
  PutVarint64(&frame_, edit.order);
  frame_.push_back(static_cast<char>(edit.kind));
  PutVarint32(&frame_, static_cast<uint32_t>(edit.value.size()));
  frame_.append(edit.value);
  last_key_.replace(shared, std::string::npos, edit.key.substr(shared));
  last_order_ = edit.order;
  ++count_;
  if (frame_.size() - kFrameHeaderSize >= kEditFrameSize) return FlushFrame();
  return Status::OK();
}

Status EditFileWriter::FlushFrame() {
  size_t payload = frame_.size() - kFrameHeaderSize;
  if (payload == 0) return Status::OK();
  std::string frame_header;
  PutFixed32(&frame_header, static_cast<uint32_t>(payload));
  PutFixed32(&frame_header, crc32c::Mask(crc32c::Value(frame_.data() + kFrameHeaderSize, payload)));
  std::memcpy(frame_.data(), frame_header.data(), kFrameHeaderSize);
  file_crc_ = crc32c::Extend(file_crc_, frame_header.data() + 4, 4);
  NUTCHFS_RETURN_IF_ERROR(file_->Append(frame_));
  payload_bytes_ += payload;
  file_bytes_ += frame_.size();
  frame_.resize(kFrameHeaderSize);
  return Status::OK();
}

Status EditFileWriter::Finish(bool sync) {
  if (finished_) return Status::InvalidArgument(path() + ": Finish called twice");
  finished_ = true;
  NUTCHFS_RETURN_IF_ERROR(FlushFrame());
  checksum_ = crc32c::Mask(file_crc_);
  std::string trailer;
  PutFixed32(&trailer, kEndMarker);
  PutFixed64(&trailer, count_);
  PutFixed64(&trailer, payload_bytes_);
  PutFixed32(&trailer, checksum_);
  trailer.append(kMagic, kMagicSize);
  NUTCHFS_RETURN_IF_ERROR(file_->Append(trailer));
  file_bytes_ += trailer.size();
  if (sync) NUTCHFS_RETURN_IF_ERROR(file_->Sync());
  return file_->Close();
}

// ---------------------------------------------------------------------------------------
// Reader

namespace {

class EditFileIterator final : public EditIterator {
 public:
  // Reads through `buffer` (the caller's) if it holds a header and a trailer, else
  // through a buffer of its own of buffer_size bytes.
  EditFileIterator(std::unique_ptr<nutchfs::SequentialFile> file, uint64_t file_size,
                   std::span<char> buffer, size_t buffer_size,
                   std::optional<std::string_view> expected_label)
      : file_(std::move(file)), file_size_(file_size), expected_label_(expected_label) {
    if (buffer.size() >= kHeaderSize + kTrailerSize) {
      buffer_ = buffer.data();
      capacity_ = buffer.size();
    } else {
      capacity_ = std::max<size_t>(buffer_size, kHeaderSize + kTrailerSize);
      own_buffer_.reset(new char[capacity_]);
      buffer_ = own_buffer_.get();
    }
  }
  EditFileIterator(const EditFileIterator&) = delete;
  EditFileIterator& operator=(const EditFileIterator&) = delete;

  // Reads the header and positions at the first record.
  Status Open();

  bool Valid() const override { return valid_; }
  void Next() override { Advance(); }
  const EditView& edit() const override { return edit_; }
  Status status() const override { return status_; }

 private:
  const std::string& path() const { return file_->path(); }
  void Fail(Status s) {
    status_ = std::move(s);
    valid_ = false;
  }
  void Fail(std::string_view what, uint64_t offset) { Fail(CorruptionAt(path(), what, offset)); }
  // Makes n bytes from the current position available contiguously in the buffer.
  Status Fill(size_t n, std::string_view what);
  void Grow(size_t n);
  void Consume(size_t n) {
    pos_ += n;
    offset_ += n;
  }
  std::string_view Available() const { return {buffer_ + pos_, end_ - pos_}; }
  void Advance();
  bool ReadFrame();
  void ReadFooter();
  void DecodeRecord(bool frame_start);

  const std::unique_ptr<nutchfs::SequentialFile> file_;
  const uint64_t file_size_;
  const std::optional<std::string_view> expected_label_;
  std::unique_ptr<char[]> own_buffer_;  // unless reading through the caller's
  char* buffer_;
  size_t capacity_;
  size_t pos_ = 0;       // first unconsumed byte in buffer_
  size_t end_ = 0;       // end of valid bytes in buffer_
  uint64_t offset_ = 0;  // file offset of buffer_[pos_]

  bool sorted_ = false;
  std::string_view payload_;  // undecoded rest of the current frame
  uint64_t records_ = 0;
  uint64_t payload_bytes_ = 0;
  uint32_t file_crc_ = 0;
  std::string key_;  // of the current record: the next one's shares a prefix with it

  bool valid_ = false;
  EditView edit_;
  Status status_;
};

void EditFileIterator::Grow(size_t n) {
  size_t avail = end_ - pos_;
  if (capacity_ < n) {
    std::unique_ptr<char[]> bigger(new char[n]);
    std::memcpy(bigger.get(), buffer_ + pos_, avail);
    own_buffer_ = std::move(bigger);
    buffer_ = own_buffer_.get();
    capacity_ = n;
  } else {
    std::memmove(buffer_, buffer_ + pos_, avail);
  }
  pos_ = 0;
  end_ = avail;
}

Status EditFileIterator::Fill(size_t n, std::string_view what) {
  if (end_ - pos_ >= n) return Status::OK();
  if (capacity_ - pos_ < n) Grow(n);
  while (end_ - pos_ < n) {
    char* dst = buffer_ + end_;
    auto got = file_->Read(capacity_ - end_, dst);
    if (!got) return got.error();
    if (got->empty()) {
      return CorruptionAt(path(), std::string("truncated ") + std::string(what), offset_);
    }
    if (got->data() != dst) std::memmove(dst, got->data(), got->size());
    end_ += got->size();
  }
  return Status::OK();
}

Status EditFileIterator::Open() {
  NUTCHFS_RETURN_IF_ERROR(Fill(kHeaderSize, "edit file header"));
  NUTCHFS_ASSIGN_OR_RETURN(Header header, ParseHeader(path(), Available().substr(0, kHeaderSize)));
  sorted_ = header.sorted;
  size_t header_size = kHeaderSize;
  if (header.labelled) {
    NUTCHFS_RETURN_IF_ERROR(Fill(kHeaderSize + 4, "edit file label"));
    NUTCHFS_ASSIGN_OR_RETURN(uint32_t label_size,
                             ParseLabelSize(path(), Available().substr(kHeaderSize, 4)));
    header_size += 4 + label_size;
    NUTCHFS_RETURN_IF_ERROR(Fill(header_size, "edit file label"));
  }
  const std::string_view label = header.labelled ? Available().substr(kHeaderSize + 4,
                                                                      header_size - kHeaderSize - 4)
                                                 : std::string_view();
  NUTCHFS_RETURN_IF_ERROR(CheckLabel(path(), header, label, expected_label_));
  file_crc_ = crc32c::Value(buffer_ + pos_, header_size);
  Consume(header_size);
  valid_ = true;
  Advance();
  return Status::OK();
}

void EditFileIterator::Advance() {
  if (!valid_) return;
  const bool frame_start = payload_.empty();
  if (frame_start && !ReadFrame()) return;
  DecodeRecord(frame_start);
}

bool EditFileIterator::ReadFrame() {
  Status s = Fill(4, "edit file (no end marker)");
  if (!s.ok()) {
    Fail(std::move(s));
    return false;
  }
  uint32_t length = DecodeFixed32(buffer_ + pos_);
  if (length == kEndMarker) {
    ReadFooter();
    return false;
  }
  if (length == 0 || offset_ + kFrameHeaderSize + length + kTrailerSize > file_size_) {
    Fail("bad frame length " + std::to_string(length), offset_);
    return false;
  }
  s = Fill(kFrameHeaderSize + length, "frame");
  if (!s.ok()) {
    Fail(std::move(s));
    return false;
  }
  const char* frame = buffer_ + pos_;
  uint32_t stored_crc = DecodeFixed32(frame + 4);
  if (crc32c::Unmask(stored_crc) != crc32c::Value(frame + kFrameHeaderSize, length)) {
    Fail("frame checksum mismatch", offset_);
    return false;
  }
  file_crc_ = crc32c::Extend(file_crc_, frame + 4, 4);
  payload_bytes_ += length;
  payload_ = std::string_view(frame + kFrameHeaderSize, length);
  Consume(kFrameHeaderSize + length);
  return true;
}

void EditFileIterator::ReadFooter() {
  valid_ = false;
  uint64_t marker_offset = offset_;
  Status s = Fill(kTrailerSize, "edit file footer");
  if (!s.ok()) return Fail(std::move(s));
  const char* footer = buffer_ + pos_ + 4;
  Consume(kTrailerSize);
  if (std::string_view(footer + 20, kMagicSize) != std::string_view(kMagic, kMagicSize)) {
    return Fail("bad footer magic", marker_offset + 4 + 20);
  }
  if (DecodeFixed64(footer) != records_) {
    return Fail("footer record count " + std::to_string(DecodeFixed64(footer)) + " differs from " +
                    std::to_string(records_) + " records read",
                marker_offset + 4);
  }
  if (DecodeFixed64(footer + 8) != payload_bytes_) {
    return Fail("footer payload bytes differ from frames read", marker_offset + 12);
  }
  if (DecodeFixed32(footer + 16) != crc32c::Mask(file_crc_)) {
    return Fail("footer file checksum mismatch", marker_offset + 20);
  }
  if (offset_ != file_size_ || end_ != pos_) return Fail("trailing bytes after footer", offset_);
}

void EditFileIterator::DecodeRecord(bool frame_start) {
  // The current frame ends at offset_: nothing is consumed until the next frame.
  uint64_t record_offset = offset_ - payload_.size();
  std::string_view in = payload_;
  uint32_t shared = 0, unshared = 0, value_size = 0;
  std::string_view delta, kind, value;
  uint64_t order = 0;
  if (!GetVarint32(&in, &shared) || !GetVarint32(&in, &unshared) ||
      !GetBytes(&in, unshared, &delta) || !GetVarint64(&in, &order) || !GetBytes(&in, 1, &kind) ||
      !GetVarint32(&in, &value_size) || !GetBytes(&in, value_size, &value)) {
    return Fail("undecodable edit record", record_offset);
  }
  if (frame_start ? shared != 0 : shared > key_.size()) {
    return Fail("bad shared key prefix length", record_offset);
  }
  // The keys agree on their first `shared` bytes: the rest decides their order.
  if (sorted_ && records_ > 0) {
    int c = delta.compare(std::string_view(key_).substr(shared));
    if (c < 0 || (c == 0 && order < edit_.order)) {
      return Fail("edit out of (key, order) order in sorted file", record_offset);
    }
  }
  key_.resize(shared);
  key_.append(delta);
  payload_ = in;
  edit_ = EditView{key_, order, static_cast<uint8_t>(kind[0]), value};
  ++records_;
}

}  // namespace

namespace {

Result<std::unique_ptr<EditIterator>> OpenWith(nutchfs::Env& env, const std::string& path,
                                               std::span<char> buffer, size_t buffer_size,
                                               std::optional<std::string_view> expected_label) {
  NUTCHFS_ASSIGN_OR_RETURN(uint64_t size, env.GetFileSize(path));
  NUTCHFS_ASSIGN_OR_RETURN(auto file, env.NewSequentialFile(path));
  auto it = std::make_unique<EditFileIterator>(std::move(file), size, buffer, buffer_size,
                                               expected_label);
  NUTCHFS_RETURN_IF_ERROR(it->Open());
  return std::unique_ptr<EditIterator>(std::move(it));
}

}  // namespace

Result<std::unique_ptr<EditIterator>> OpenEditFile(nutchfs::Env& env, const std::string& path,
                                                   size_t buffer_size,
                                                   std::optional<std::string_view> expected_label) {
  return OpenWith(env, path, {}, buffer_size, expected_label);
}

Result<std::unique_ptr<EditIterator>> OpenEditFile(nutchfs::Env& env, const std::string& path,
                                                   std::span<char> buffer) {
  return OpenWith(env, path, buffer, 0, std::nullopt);
}

Result<EditFileInfo> ReadEditFileInfo(nutchfs::Env& env, const std::string& path) {
  NUTCHFS_ASSIGN_OR_RETURN(auto file, env.NewRandomAccessFile(path));
  uint64_t size = file->size();
  if (size < kHeaderSize + kTrailerSize) {
    return Err(CorruptionAt(path, "edit file too short for header and footer", size));
  }
  char header_buf[kHeaderSize];
  NUTCHFS_ASSIGN_OR_RETURN(std::string_view header, file->Read(0, kHeaderSize, header_buf));
  char trailer_buf[kTrailerSize];
  uint64_t marker_offset = size - kTrailerSize;
  NUTCHFS_ASSIGN_OR_RETURN(std::string_view trailer,
                           file->Read(marker_offset, kTrailerSize, trailer_buf));
  if (header.size() != kHeaderSize || trailer.size() != kTrailerSize) {
    return Err(CorruptionAt(path, "short read of header or footer", 0));
  }
  EditFileInfo info;
  NUTCHFS_ASSIGN_OR_RETURN(Header parsed, ParseHeader(path, header));
  info.sorted = parsed.sorted;
  if (parsed.labelled) {
    char size_buf[4];
    NUTCHFS_ASSIGN_OR_RETURN(std::string_view size_bytes, file->Read(kHeaderSize, 4, size_buf));
    if (size_bytes.size() != 4) return Err(CorruptionAt(path, "truncated edit file label", kHeaderSize));
    NUTCHFS_ASSIGN_OR_RETURN(uint32_t label_size, ParseLabelSize(path, size_bytes));
    if (kHeaderSize + 4 + label_size + kTrailerSize > size) {
      return Err(CorruptionAt(path, "edit file too short for its label", kHeaderSize));
    }
    info.label.resize(label_size);
    NUTCHFS_ASSIGN_OR_RETURN(std::string_view label,
                             file->Read(kHeaderSize + 4, label_size, info.label.data()));
    if (label.size() != label_size) return Err(CorruptionAt(path, "truncated edit file label", kHeaderSize + 4));
    if (label.data() != info.label.data()) info.label.assign(label);
  }
  const char* footer = trailer.data() + 4;
  if (DecodeFixed32(trailer.data()) != kEndMarker ||
      std::string_view(footer + 20, kMagicSize) != std::string_view(kMagic, kMagicSize)) {
    return Err(CorruptionAt(path, "missing edit file footer", marker_offset));
  }
  info.count = DecodeFixed64(footer);
  info.payload_bytes = DecodeFixed64(footer + 8);
  info.checksum = DecodeFixed32(footer + 16);
  info.file_size = size;
  if (info.payload_bytes > size - kHeaderSize - kTrailerSize -
                               (parsed.labelled ? 4 + info.label.size() : 0)) {
    return Err(CorruptionAt(path, "footer payload bytes exceed file size", marker_offset + 12));
  }
  // A count its payload cannot hold is refused before anyone plans by it.
  if (info.count > info.payload_bytes / kMinRecordSize) {
    return Err(CorruptionAt(path,
                            "footer record count " + std::to_string(info.count) +
                                " exceeds what its payload bytes can hold",
                            marker_offset + 4));
  }
  return info;
}

}  // namespace webdb
