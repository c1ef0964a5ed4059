// The files of the SFTP Env (internal to nutchfs/sftp_*.cc): remote reads and writes
// over an SftpConnection's pipelined data channel.
//
// Readers survive reconnects: a read that finds its session replaced reopens the file
// on the new one and reads again. A writer is bound to the session it was opened on:
// if that session is lost, every later Append/Flush/Sync/Close fails with IOError and
// the caller rewrites the file from the start (under a temporary name, so a partial
// file is never visible under its final one).
//
// Ownership: each file shares the connection (shared_ptr) and owns its remote handle,
// closed on destruction. Thread-safety as in nutchfs/env.h.
#ifndef NUTCHFS_SFTP_FILES_H_
#define NUTCHFS_SFTP_FILES_H_

#include <memory>
#include <string>
#include <string_view>

#include "nutchfs/env.h"
#include "nutchfs/sftp_connection.h"

namespace nutchfs {

Result<std::unique_ptr<SequentialFile>> NewSftpSequentialFile(
    std::shared_ptr<SftpConnection> connection, const std::string& path);
Result<std::unique_ptr<RandomAccessFile>> NewSftpRandomAccessFile(
    std::shared_ptr<SftpConnection> connection, const std::string& path);
// Creates or truncates path.
Result<std::unique_ptr<WritableFile>> NewSftpWritableFile(
    std::shared_ptr<SftpConnection> connection, const std::string& path);
// Creates path with O_EXCL semantics (Busy if it exists), writes contents, syncs and
// closes it. The create itself is never repeated: a connection lost after the request
// may have reached the server gives IOError, since a retry could not tell our own new
// file from another writer's. A create that succeeded but whose writing failed
// removes the file again.
Status SftpCreateExclusive(std::shared_ptr<SftpConnection> connection, const std::string& path,
                           std::string_view contents);

}  // namespace nutchfs

#endif  // NUTCHFS_SFTP_FILES_H_
