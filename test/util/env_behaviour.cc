#include "test/util/env_behaviour.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <random>
#include <catch2/catch.hpp>
#include <thread>
#include <vector>

namespace testutil {
namespace {

using nutchfs::Env;
using nutchfs::Status;

void Write(Env& env, const std::string& path, const std::string& data) {
  auto file = env.NewWritableFile(path);
  REQUIRE(file);
  REQUIRE((*file)->Append(data).ok());
  REQUIRE((*file)->Sync().ok());
  REQUIRE((*file)->Close().ok());
}

std::string Read(Env& env, const std::string& path) {
  auto data = nutchfs::ReadFileToString(env, path);
  INFO(path);
  REQUIRE(data);
  return *data;
}

std::vector<std::string> Sorted(Env& env, const std::string& dir) {
  auto names = env.GetChildren(dir);
  REQUIRE(names);
  std::sort(names->begin(), names->end());
  return *names;
}

void CheckWriteAndRead(Env& env, const std::string& base) {
  REQUIRE(env.CreateDirs(base + "/d/e").ok());
  REQUIRE(env.CreateDirs(base + "/d/e").ok());
  CHECK(env.FileExists(base + "/d/e"));
  CHECK(env.NewWritableFile(base + "/missing/f").error().IsNotFound());
  std::string binary("a\0b\xff", 4);
  Write(env, base + "/d/f", "hello " + binary);
  CHECK(Read(env, base + "/d/f") == "hello " + binary);
  CHECK(*env.GetFileSize(base + "/d/f") == 10);
  Write(env, base + "/d/f", "xy");  // truncates
  CHECK(Read(env, base + "/d/f") == "xy");
  CHECK(env.GetFileSize(base + "/nope").error().IsNotFound());
  CHECK(env.NewSequentialFile(base + "/nope").error().IsNotFound());
  CHECK(env.NewRandomAccessFile(base + "/nope").error().IsNotFound());
  CHECK_FALSE(env.FileExists(base + "/nope"));
}

void CheckLargeFileAndReaders(Env& env, const std::string& base) {
  std::string big(3 << 20, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>((i * 7919) >> 3);
  Write(env, base + "/big", big);
  CHECK(Read(env, base + "/big") == big);
  Write(env, base + "/copy", "old contents");
  REQUIRE(env.CopyWithin(base + "/big", base + "/copy").ok());
  CHECK(Read(env, base + "/copy") == big);
  CHECK(env.CopyWithin(base + "/nope", base + "/copy2").IsNotFound());
  auto seq = env.NewSequentialFile(base + "/big");
  REQUIRE(seq);
  std::string scratch(1000, '\0');
  REQUIRE((*seq)->Skip(5000).ok());
  auto chunk = (*seq)->Read(1000, scratch.data());
  REQUIRE(chunk);
  CHECK(*chunk == big.substr(5000, 1000));
  auto random = env.NewRandomAccessFile(base + "/big");
  REQUIRE(random);
  CHECK((*random)->size() == big.size());
  auto tail = (*random)->Read(big.size() - 10, 1000, scratch.data());
  REQUIRE(tail);
  CHECK(*tail == big.substr(big.size() - 10));
  auto mid = (*random)->Read(123457, 1000, scratch.data());
  REQUIRE(mid);
  CHECK(*mid == big.substr(123457, 1000));
}

void CheckCreateExclusive(Env& env, const std::string& base) {
  REQUIRE(env.CreateExclusive(base + "/lock", "owner 1").ok());
  Status again = env.CreateExclusive(base + "/lock", "owner 2");
  CHECK(again.IsBusy());
  CHECK(Read(env, base + "/lock") == "owner 1");
  CHECK(env.CreateExclusive(base + "/missing/lock", "x").IsNotFound());
  std::atomic<int> winners{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      if (env.CreateExclusive(base + "/race", std::to_string(t)).ok()) ++winners;
    });
  }
  for (auto& t : threads) t.join();
  CHECK(winners == 1);
}

void CheckListingAndRemoval(Env& env, const std::string& base) {
  REQUIRE(env.CreateDirs(base + "/l/sub").ok());
  Write(env, base + "/l/a", "1");
  Write(env, base + "/l/b", "2");
  CHECK(Sorted(env, base + "/l") == std::vector<std::string>{"a", "b", "sub"});
  CHECK(env.GetChildren(base + "/nodir").error().IsNotFound());
  CHECK_FALSE(env.GetChildren(base + "/l/a"));
  REQUIRE(env.RemoveFile(base + "/l/a").ok());
  CHECK_FALSE(env.FileExists(base + "/l/a"));
  CHECK(env.RemoveFile(base + "/l/a").IsNotFound());
  Write(env, base + "/l/sub/deep", "3");
  REQUIRE(env.RemoveDirRecursively(base + "/l").ok());
  CHECK_FALSE(env.FileExists(base + "/l"));
  CHECK_FALSE(env.FileExists(base + "/l/sub/deep"));
  CHECK(env.RemoveDirRecursively(base + "/l").ok());
  CHECK(env.SyncDir(base).ok());
}

void CheckRename(Env& env, const std::string& base) {
  REQUIRE(env.CreateDirs(base + "/r/x").ok());
  Write(env, base + "/r/from", "new");
  Write(env, base + "/r/to", "old");
  REQUIRE(env.RenameFile(base + "/r/from", base + "/r/to").ok());
  CHECK(Read(env, base + "/r/to") == "new");
  CHECK_FALSE(env.FileExists(base + "/r/from"));
  CHECK(env.RenameFile(base + "/r/from", base + "/r/to").IsNotFound());
  REQUIRE(env.RenameFile(base + "/r/to", base + "/r/x/moved").ok());
  CHECK(Read(env, base + "/r/x/moved") == "new");
  REQUIRE(env.RenameFile(base + "/r/x", base + "/r/y").ok());
  CHECK(Read(env, base + "/r/y/moved") == "new");
  CHECK_FALSE(env.FileExists(base + "/r/x"));
}

void CheckOpenFileOutlivesName(Env& env, const std::string& base) {
  Write(env, base + "/o", "kept");
  auto seq = env.NewSequentialFile(base + "/o");
  REQUIRE(seq);
  REQUIRE(env.RemoveFile(base + "/o").ok());
  std::string scratch(16, '\0');
  auto data = (*seq)->Read(16, scratch.data());
  REQUIRE(data);
  CHECK(*data == "kept");
}

// Appends copied and buffers handed over (AppendBuffer), of every size from empty to
// past the local file's 1 MiB batch, in one random order: the file holds them in order,
// and each buffer left to the caller can be filled again.
void CheckAppendBuffer(Env& env, const std::string& base) {
  std::mt19937_64 rng(5);
  auto file = env.NewWritableFile(base + "/appended");
  REQUIRE(file);
  std::string want;
  nutchfs::OwnedBytes buffer;
  for (int i = 0; i < 300; ++i) {
    const size_t n = rng() % 8 == 0 ? rng() % (3 << 20) : rng() % (80 << 10);
    std::string bytes(n, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    if (rng() % 2 == 0) {
      REQUIRE((*file)->Append(bytes).ok());
    } else {
      buffer.set_size(0);
      buffer.Reserve(n);
      if (n > 0) std::memcpy(buffer.data(), bytes.data(), n);
      buffer.set_size(n);
      REQUIRE((*file)->AppendBuffer(&buffer).ok());
    }
    want += bytes;
    if (rng() % 50 == 0) REQUIRE((*file)->Flush().ok());
  }
  REQUIRE((*file)->Sync().ok());
  REQUIRE((*file)->Close().ok());
  CHECK(*env.GetFileSize(base + "/appended") == want.size());
  CHECK(Read(env, base + "/appended") == want);
}

}  // namespace

void CheckEnvBehaviour(Env& env, const std::string& base) {
  CheckWriteAndRead(env, base);
  CheckAppendBuffer(env, base);
  CheckLargeFileAndReaders(env, base);
  CheckCreateExclusive(env, base);
  CheckListingAndRemoval(env, base);
  CheckRename(env, base);
  CheckOpenFileOutlivesName(env, base);
}

}  // namespace testutil
