// Exchanged files: the identity every file the writers exchange carries inside, as the
// label of an edit file (docs/FORMAT.md, "Exchanged files"), and the checked reading of
// one. A file is taken only for what it says it is — db, round, token, stage, sender and
// receiver all as expected, whatever the sender's lease epoch (the receiver judges that,
// exchange.h) — and only if it does not change size while it is read: a
// replayed file from an older round, a file of another attempt at the round, a file meant
// for another writer, one that keeps growing, are refused as Corruption naming the file,
// what was expected and what was found, and removed (so that a rerun waits for a fresh
// copy), as is a symbolic link in its place. Free functions and a plain value; thread-safe on
// distinct files.
#ifndef DISTWRITER_EXCHANGE_FILE_H_
#define DISTWRITER_EXCHANGE_FILE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "distwriter/dist_config.h"
#include "nutchfs/env.h"
#include "webdb/sort/edit_file.h"

namespace distwriter {

struct ExchangeId {
  std::string db;
  uint64_t round = 0;
  std::string token;  // empty in stage 0 ("-" in the label)
  int stage = 0;
  int from = 0;
  int to = 0;
  uint64_t epoch = 0;  // the sender's lease epoch

  // "webdb-exchange db=<db> round=<N> token=<token|-> stage=<s> from=<j> to=<i> epoch=<E>".
  std::string Label() const;
  // nullopt unless label is exactly such a line.
  static std::optional<ExchangeId> Parse(std::string_view label);
  bool operator==(const ExchangeId&) const = default;
};

// Creates the local edit file `path` labelled with id, to be sent when finished.
Result<std::unique_ptr<webdb::EditFileWriter>> CreateExchangeFile(nutchfs::Env& env,
                                                                  const std::string& path,
                                                                  const ExchangeId& id,
                                                                  bool sorted);

// Opens the received file at path, which must be `expected` but for its epoch. Its size now is its size on
// arrival (it was published whole, by rename); the iterator turns Corruption if it is
// another size when read to its end. `sender` names the sender in messages
// ("writer 1 (machine m1)"). Any Corruption, at open or later, removes the file. If count
// is given, it receives the number of edits the file's footer claims, known before they
// are read; the iterator turns Corruption if the file holds another number.
Result<std::unique_ptr<webdb::EditIterator>> OpenExchangeFile(nutchfs::Env& env,
                                                              const std::string& path,
                                                              const ExchangeId& expected,
                                                              const std::string& sender,
                                                              size_t buffer_size,
                                                              uint64_t* count = nullptr);

// Returns status; when it is Corruption (a damaged or foreign file) or Refused (a
// symbolic link, nutchfs/env.h), first removes the received file at path (a link
// itself, never what it points to), so that a rerun of the round waits for the sender's
// fresh copy instead of reading the bad one again.
Status DiscardIfUnusable(nutchfs::Env& local, const std::string& path, Status status);

}  // namespace distwriter

#endif  // DISTWRITER_EXCHANGE_FILE_H_
