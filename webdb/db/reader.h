// Reading a WebDB: the full reader API of the semantics spec, section 6.
//
// A Reader reads one version of a db, fixed when it is opened (the current one, or with
// a version number a kept older one): updates published later are not seen until a new
// Reader is opened. Lookups and enumerations are all
// built on one primitive, a TableSource that yields an ordered iterator per table; a
// single-machine db and a distributed db differ only in their TableSource. A Reader
// may be used by one thread at a time; separate Readers are independent.
#ifndef WEBDB_DB_READER_H_
#define WEBDB_DB_READER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nutchfs/env.h"
#include "webdb/db/manifest.h"
#include "webdb/table/iterator.h"
#include "webdb/table/record.h"

namespace webdb {

// A table's rows and the bytes of its file(s), as its version's manifest(s) say, and its
// layers (docs/DESIGN.md, "Layered tables"): its runs (in a distributed db, the most runs
// a section's table has) and the rows its files store, base and runs (a scan decodes
// them all: tombstones and the rows runs replace included).
struct TableSize {
  uint64_t records = 0;
  uint64_t bytes = 0;
  uint64_t runs = 0;
  uint64_t stored_records = 0;
  // What reading costs more than it would with the table in one file: the layers a
  // lookup reads (a block each), and the rows a scan decodes for each row it returns.
  uint64_t lookup_layers() const { return 1 + runs; }
  double scan_amplification() const {
    return records == 0 ? 1.0 : static_cast<double>(stored_records) / records;
  }
};
// Table t's size as manifest m (a version, or a section of a round) says.
TableSize SizeOf(const Manifest& m, TableId t);
// a and b's, as one table: a distributed db's sections (the runs: the most of either).
TableSize Sum(const TableSize& a, const TableSize& b);

// One fixed version of the four tables.
class TableSource {
 public:
  virtual ~TableSource() = default;
  // All rows of table t in key order; Seek positions by key.
  virtual std::unique_ptr<Iterator> NewIterator(TableId t) const = 0;
  virtual uint64_t NumPages() const = 0;
  virtual uint64_t NumLinks() const = 0;
  virtual TableSize Size(TableId t) const = 0;
};

// Decodes the rows of a page table (pagesByURL or pagesByMD5) one at a time.
class PageCursor {
 public:
  PageCursor(std::unique_ptr<Iterator> it, TableId table);
  // The next page, nullopt at the end; an error on a failed or corrupt read.
  Result<std::optional<Page>> Next();

 private:
  std::unique_ptr<Iterator> it_;
  TableId table_;
  bool started_ = false;
};

// Decodes the rows of a link table (linksByURL or linksByMD5) one at a time.
class LinkCursor {
 public:
  LinkCursor(std::unique_ptr<Iterator> it, TableId table);
  Result<std::optional<Link>> Next();

 private:
  std::unique_ptr<Iterator> it_;
  TableId table_;
  bool started_ = false;
};

using OpenSourceFn = std::function<Result<std::unique_ptr<TableSource>>()>;

class Reader {
 public:
  explicit Reader(std::unique_ptr<TableSource> source);

  // Opens the current version of the single-machine db at dir, or a kept older one
  // (webdb/db/versions.h; NotFound when it is not kept). The Reader pins its version
  // (webdb/db/version_pin.h): its files are not deleted while the Reader lives.
  static Result<std::unique_ptr<Reader>> Open(nutchfs::Env& env, const std::string& dir,
                                              std::optional<uint64_t> version = {});

  // A Reader over what open returns. A writer may remove the files of the version open
  // chose (read from CURRENT) between reading its manifest and opening them, so open is
  // called again, a few times, while it fails with NotFound. Every reader of a db,
  // single-machine or distributed, opens through this.
  static Result<std::unique_ptr<Reader>> OpenRetrying(const OpenSourceFn& open);

  Result<std::optional<Page>> GetPage(std::string_view url) const;
  // All pages with this content, in url order.
  Result<std::vector<Page>> GetPages(const Md5& md5) const;
  Result<bool> PageExists(const Md5& md5) const;
  // Inlinks of url, in `from` order.
  Result<std::vector<Link>> GetLinks(std::string_view url) const;
  // Outlinks of the content md5, in url order.
  Result<std::vector<Link>> GetLinks(const Md5& md5) const;

  PageCursor Pages() const;        // url order
  PageCursor PagesByMd5() const;   // (md5, url) order
  LinkCursor Links() const;        // (url, from) order
  LinkCursor LinksByMd5() const;   // (from, url) order
  // Raw rows of any table, for dumps and tests.
  std::unique_ptr<Iterator> NewTableIterator(TableId t) const;

  uint64_t NumPages() const;
  uint64_t NumLinks() const;
  TableSize Size(TableId t) const { return source_->Size(t); }

 private:
  std::unique_ptr<TableSource> source_;
};

}  // namespace webdb

#endif  // WEBDB_DB_READER_H_
