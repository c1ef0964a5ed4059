// Publication of one file at one location: the file becomes visible under its final name
// only when complete. It is written under a temporary name in the destination directory
// (never staged in another directory: that may be another mount, and rename across
// mounts fails, as on NFS), synced, closed, its size (and optionally its digest) checked,
// renamed into place, and the rename made durable.
//
// Between two Envs (local to SFTP) the bytes stream through this process and are
// digested on the way. Within one Env the backend copies (Env::CopyWithin: the local
// Env uses copy_file_range, so the bytes never pass through user space) and the copy is
// then read back to digest it.
//
// A working file that its writer has synced and no longer needs can instead be renamed
// into place (PublishByRename), where source and destination share a file system: no
// byte is copied or read back.
//
// Temporary names: "<dir>/.tmp.<base>.<host>.<pid>.<random>". Names beginning with '.'
// are never NutchFiles (nutchfile.h), so List and WaitFor never see a temporary file.
// Stateless functions; thread-safe (each call makes its own temporary name).
#ifndef NUTCHFS_PUBLISH_H_
#define NUTCHFS_PUBLISH_H_

#include <string>
#include <string_view>

#include "nutchfs/env.h"
#include "nutchfs/file_copy.h"

namespace nutchfs {

// True for names NutchFS keeps for itself (temporary and lock files): a leading '.'.
bool IsHiddenName(std::string_view component);

// A fresh temporary path in the directory of dest_path.
std::string TempPathFor(const std::string& dest_path);

// The directory part of a '/'-separated path ("/" for "/x", "." for "x").
std::string DirOf(const std::string& path);

// Copies src_path (through src) to dest_path (through dst) by the protocol above,
// creating missing directories. On failure the temporary file is removed (best effort)
// and dest_path is untouched; a mismatch found by the read-back is an IOError, so the
// caller may retry the whole call.
Result<FileInfo> PublishFile(Env& src, const std::string& src_path, Env& dst,
                             const std::string& dest_path, bool verify_checksum);

// Renames src_path (synced by its writer) to dest_path within env, creating missing
// directories, and makes the rename durable. Fails, leaving src_path in place, where the
// rename does (another file system: the caller then copies).
Status PublishByRename(Env& env, const std::string& src_path, const std::string& dest_path);

}  // namespace nutchfs

#endif  // NUTCHFS_PUBLISH_H_
