// TempDir: a fresh directory under $TMPDIR (or /tmp) for one test, removed with everything
// in it when the TempDir is destroyed. Fails the running Catch2 test when it cannot be made.
// Owns the directory; not copyable; one thread.
#ifndef TEST_UTIL_TEMP_DIR_H_
#define TEST_UTIL_TEMP_DIR_H_

#include <string>

namespace testutil {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // path() + "/" + name.
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace testutil

#endif  // TEST_UTIL_TEMP_DIR_H_
