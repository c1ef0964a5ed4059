#include "nutchfs/ssh_session.h"

#include <pwd.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <utility>

namespace nutchfs {
namespace {

// AES-GCM first: with AES-NI it costs a fraction of libssh's chacha20-poly1305, the
// cipher libssh and OpenSSH would otherwise agree on.
constexpr const char* kCiphers =
    "aes128-gcm@openssh.com,aes256-gcm@openssh.com,chacha20-poly1305@openssh.com,"
    "aes128-ctr,aes256-ctr";

std::string CurrentUser() {
  const struct passwd* pw = ::getpwuid(::geteuid());
  return pw != nullptr ? pw->pw_name : "uid" + std::to_string(::geteuid());
}

std::string KnownHostsName(const SftpOptions& options) {
  return options.known_hosts_file.empty() ? "~/.ssh/known_hosts" : options.known_hosts_file;
}

// Sets a libssh option whose value libssh reads through a pointer.
template <typename T>
bool SetOption(ssh_session ssh, ssh_options_e option, const T& value) {
  return ssh_options_set(ssh, option, &value) == SSH_OK;
}

bool SetTimeout(ssh_session ssh, int ms) {
  const long sec = ms / 1000;
  const long usec = (ms % 1000) * 1000L;
  return SetOption(ssh, SSH_OPTIONS_TIMEOUT, sec) && SetOption(ssh, SSH_OPTIONS_TIMEOUT_USEC, usec);
}

}  // namespace

std::string SshSession::NameOf(const SftpOptions& options) {
  const std::string user = options.user.empty() ? CurrentUser() : options.user;
  return user + "@" + options.host + ":" + std::to_string(options.port);
}

SshSession::SshSession(std::string name, uint64_t serial, ssh_session ssh)
    : name_(std::move(name)), serial_(serial), ssh_(ssh) {}

SshSession::~SshSession() {
  // A broken connection may be a dead link on which every goodbye would wait out the
  // I/O timeout: shut the socket down first, so that those sends fail at once.
  // (ssh_silent_disconnect would free the channels under their owners.)
  if (broken() && ssh_get_fd(ssh_) != SSH_INVALID_SOCKET) {
    ::shutdown(ssh_get_fd(ssh_), SHUT_RDWR);
  }
  data_.reset();
  if (sftp_ != nullptr) sftp_free(sftp_);
  ssh_disconnect(ssh_);
  ssh_free(ssh_);
}

Result<std::unique_ptr<SshSession>> SshSession::Connect(const SftpOptions& options,
                                                        uint64_t serial) {
  ssh_session ssh = ssh_new();
  if (ssh == nullptr) return Err(Status::IOError(NameOf(options) + ": ssh_new failed"));
  std::unique_ptr<SshSession> session(new SshSession(NameOf(options), serial, ssh));
  NUTCHFS_RETURN_IF_ERROR(session->SetOptions(options));
  if (ssh_connect(ssh) != SSH_OK) return Err(session->Fail("connect", true));
  NUTCHFS_RETURN_IF_ERROR(session->VerifyHostKey(options));
  NUTCHFS_RETURN_IF_ERROR(session->Authenticate(options));
  NUTCHFS_RETURN_IF_ERROR(session->OpenChannels(options));
  return session;
}

Status SshSession::Fail(std::string_view what, bool transient) {
  std::string msg = name_ + ": " + std::string(what) + ": " + ssh_get_error(ssh_);
  broken_ = true;
  return transient ? Status::IOError(std::move(msg)) : Status::InvalidArgument(std::move(msg));
}

Status SshSession::SetOptions(const SftpOptions& options) {
  const std::string user = options.user.empty() ? CurrentUser() : options.user;
  const unsigned int port = static_cast<unsigned int>(options.port);
  bool ok = SetOption(ssh_, SSH_OPTIONS_PROCESS_CONFIG, false) &&
            ssh_options_set(ssh_, SSH_OPTIONS_HOST, options.host.c_str()) == SSH_OK &&
            SetOption(ssh_, SSH_OPTIONS_PORT, port) &&
            ssh_options_set(ssh_, SSH_OPTIONS_USER, user.c_str()) == SSH_OK &&
            SetOption(ssh_, SSH_OPTIONS_NODELAY, 1) &&
            SetTimeout(ssh_, options.connect_timeout_ms) &&
            ssh_options_set(ssh_, SSH_OPTIONS_CIPHERS_C_S, kCiphers) == SSH_OK &&
            ssh_options_set(ssh_, SSH_OPTIONS_CIPHERS_S_C, kCiphers) == SSH_OK;
  if (ok && !options.known_hosts_file.empty()) {
    // Only the given file may vouch for a host: the machine-wide one is replaced too.
    const char* file = options.known_hosts_file.c_str();
    ok = ssh_options_set(ssh_, SSH_OPTIONS_KNOWNHOSTS, file) == SSH_OK &&
         ssh_options_set(ssh_, SSH_OPTIONS_GLOBAL_KNOWNHOSTS, file) == SSH_OK;
  }
  return ok ? Status::OK() : Fail("invalid SSH option", false);
}

Status SshSession::VerifyHostKey(const SftpOptions& options) {
  const std::string known_hosts = KnownHostsName(options);
  switch (ssh_session_is_known_server(ssh_)) {
    case SSH_KNOWN_HOSTS_OK:
      return Status::OK();
    case SSH_KNOWN_HOSTS_CHANGED:
    case SSH_KNOWN_HOSTS_OTHER:
      broken_ = true;
      return Status::Refused(
          name_ + ": host key CHANGED: the server's key does not match the one listed in " +
          known_hosts +
          "; refusing to connect (possible impostor; if the host was reinstalled, "
          "replace its entry in " +
          known_hosts + ")");
    case SSH_KNOWN_HOSTS_UNKNOWN:
    case SSH_KNOWN_HOSTS_NOT_FOUND:
      if (options.accept_unknown_host_key) {
        spdlog::warn("{}: host key not in {}; accepted as configured", name_, known_hosts);
        return Status::OK();
      }
      broken_ = true;
      return Status::Refused(name_ + ": host key unknown: " + known_hosts +
                             " does not list the server; refusing to connect (add its key "
                             "there, or set ssh_accept_unknown_host_keys = true in the config)");
    case SSH_KNOWN_HOSTS_ERROR:
      break;
  }
  broken_ = true;
  return Status::Refused(name_ + ": cannot check the host key against " + known_hosts + ": " +
                         ssh_get_error(ssh_));
}

Status SshSession::Authenticate(const SftpOptions& options) {
  int rc;
  std::string key_name = "the default keys in ~/.ssh";
  if (!options.identity_file.empty()) {
    key_name = options.identity_file;
    ssh_key key = nullptr;
    if (ssh_pki_import_privkey_file(key_name.c_str(), nullptr, nullptr, nullptr, &key) != SSH_OK) {
      broken_ = true;
      return Status::InvalidArgument(name_ + ": cannot read private key " + key_name);
    }
    rc = ssh_userauth_publickey(ssh_, nullptr, key);
    ssh_key_free(key);
  } else {
    rc = ssh_userauth_publickey_auto(ssh_, nullptr, nullptr);
  }
  if (rc == SSH_AUTH_SUCCESS) return Status::OK();
  if (rc == SSH_AUTH_ERROR) return Fail("authentication", true);
  broken_ = true;
  return Status::Refused(name_ + ": public key authentication refused (" + key_name + ")");
}

Status SshSession::OpenChannels(const SftpOptions& options) {
  sftp_ = sftp_new(ssh_);
  if (sftp_ == nullptr) return Fail("cannot start the sftp subsystem", true);
  if (sftp_init(sftp_) != SSH_OK) return Fail("sftp init", true);
  auto data = SftpChannel::Open(ssh_, name_, options.io_timeout_ms);
  if (!data) {
    broken_ = true;
    return data.error();
  }
  data_ = std::move(*data);
  // From here on the timeout bounds every blocking libssh call, not just the connect.
  if (!SetTimeout(ssh_, options.io_timeout_ms)) return Fail("cannot set the I/O timeout", false);
  return Status::OK();
}

void SshSession::BeginCall() {
  // libssh keeps the last SFTP status until the next status reply, so a call that
  // fails for want of a reply would show a stale one. The struct is public in libssh.
  sftp_->errnum = SSH_FX_OK;
}

Status SshSession::MetaError(std::string_view op, const std::string& path) {
  const int code = sftp_get_error(sftp_);
  const bool transport = ssh_is_connected(ssh_) == 0 || ssh_get_error_code(ssh_) == SSH_FATAL ||
                         code == SSH_FX_OK || code == SSH_FX_NO_CONNECTION ||
                         code == SSH_FX_CONNECTION_LOST || code == SSH_FX_BAD_MESSAGE;
  std::string msg = name_ + ": " + std::string(op) + " " + path + ": " + ssh_get_error(ssh_);
  if (transport) {
    broken_ = true;
    return Status::IOError(msg + " (connection lost)");
  }
  msg += " (SFTP status " + std::to_string(code) + ")";
  if (code == SSH_FX_NO_SUCH_FILE || code == SSH_FX_NO_SUCH_PATH) {
    return Status::NotFound(std::move(msg));
  }
  return Status::IOError(std::move(msg));
}

}  // namespace nutchfs
