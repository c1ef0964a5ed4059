#include "nutchfs/file_copy.h"

#include <openssl/evp.h>

#include <memory>

namespace nutchfs {
namespace {

// Each Append stays under the 256 KiB an SFTP write should carry.
constexpr size_t kChunk = 256 << 10;

// A streaming SHA-256 (OpenSSL EVP).
class Sha256 {
 public:
  Sha256() : ctx_(EVP_MD_CTX_new()) { EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr); }
  void Update(std::string_view data) { EVP_DigestUpdate(ctx_.get(), data.data(), data.size()); }
  std::string HexDigest() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_DigestFinal_ex(ctx_.get(), digest, &len);
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < len; ++i) {
      out += kHex[digest[i] >> 4];
      out += kHex[digest[i] & 15];
    }
    return out;
  }

 private:
  struct Free {
    void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
  };
  std::unique_ptr<EVP_MD_CTX, Free> ctx_;
};

// Reads file to its end, handing every chunk to sink (a Status-returning callable).
template <typename Sink>
Result<FileInfo> Stream(SequentialFile& file, Sink&& sink) {
  std::unique_ptr<char[]> scratch(new char[kChunk]);
  Sha256 hash;
  FileInfo info;
  while (true) {
    NUTCHFS_ASSIGN_OR_RETURN(std::string_view chunk, file.Read(kChunk, scratch.get()));
    if (chunk.empty()) break;
    hash.Update(chunk);
    info.size += chunk.size();
    NUTCHFS_RETURN_IF_ERROR(sink(chunk));
  }
  info.sha256 = hash.HexDigest();
  return info;
}

}  // namespace

Result<FileInfo> CopyFile(Env& src, const std::string& src_path, Env& dst,
                          const std::string& dst_path) {
  NUTCHFS_ASSIGN_OR_RETURN(auto in, src.NewSequentialFile(src_path));
  NUTCHFS_ASSIGN_OR_RETURN(auto out, dst.NewWritableFile(dst_path));
  NUTCHFS_ASSIGN_OR_RETURN(FileInfo info,
                           Stream(*in, [&](std::string_view chunk) { return out->Append(chunk); }));
  NUTCHFS_RETURN_IF_ERROR(out->Sync());
  NUTCHFS_RETURN_IF_ERROR(out->Close());
  return info;
}

Result<FileInfo> DigestFile(Env& env, const std::string& path) {
  NUTCHFS_ASSIGN_OR_RETURN(auto in, env.NewSequentialFile(path));
  return Stream(*in, [](std::string_view) { return Status::OK(); });
}

}  // namespace nutchfs
