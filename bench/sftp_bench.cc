// sftp_bench: bulk throughput of the SFTP Env against scp, in one run, to one test
// host (scripts/testhosts.sh) over its veth link.
//
//   sftp_bench [--mib=1024] [--runs=5] [--script=PATH]
//
// Puts (and then gets) a file of random bytes with the SFTP Env, with scp (OpenSSH's
// default cipher, and AES-128-GCM, the SFTP Env's first choice), and with libssh's own
// sftp_write/sftp_read (one 128 KiB request at a time, same cipher: what the SFTP Env's
// pipelined channel replaces), each --runs times, and reports the median and best MB/s
// (10^6 bytes per second) of each and the ratios of the medians. Connection set-up is
// included everywhere. Client CPU seconds (user + system of this process, or of the scp
// child) show the cost per byte, which decides the throughput when the CPU is shared.
// The SFTP Env's put and get are checked byte for byte.
#include <fcntl.h>
#include <libssh/libssh.h>
#include <libssh/sftp.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "nutchfs/sftp_env.h"

namespace {

struct Flags {
  uint64_t mib = 1024;
  int runs = 5;
  // The script in this source tree, unless told otherwise.
  std::string script = std::string(__FILE__).substr(0, std::string(__FILE__).rfind("bench/")) +
                       "scripts/testhosts.sh";
};

Flags ParseFlags(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--mib=", 0) == 0) {
      flags.mib = std::stoull(arg.substr(6));
    } else if (arg.rfind("--runs=", 0) == 0) {
      flags.runs = std::stoi(arg.substr(7));
    } else if (arg.rfind("--script=", 0) == 0) {
      flags.script = arg.substr(9);
    } else {
      std::fprintf(stderr, "usage: %s [--mib=N] [--runs=N] [--script=PATH]\n", argv[0]);
      std::exit(2);
    }
  }
  return flags;
}

// Set once the test host is up: tears it and the bench's files down again.
std::string g_cleanup;

[[noreturn]] void Die(const std::string& msg) {
  std::fprintf(stderr, "sftp_bench: %s\n", msg.c_str());
  if (!g_cleanup.empty()) (void)std::system(g_cleanup.c_str());
  std::exit(1);
}

void Shell(const std::string& cmd) {
  const int rc = std::system(cmd.c_str());
  if (rc != 0) Die("command failed (" + std::to_string(rc) + "): " + cmd);
}

std::map<std::string, std::string> ReadEnvFile(const std::string& path) {
  std::map<std::string, std::string> vars;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const size_t eq = line.find('=');
    if (eq != std::string::npos) vars[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return vars;
}

void WriteRandomFile(const std::string& path, uint64_t bytes) {
  std::ofstream out(path, std::ios::binary);
  std::vector<uint64_t> block(1 << 17);  // 1 MiB
  uint64_t x = 88172645463325252ull;
  for (uint64_t done = 0; done < bytes; done += 8 * block.size()) {
    for (uint64_t& w : block) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      w = x;
    }
    out.write(reinterpret_cast<const char*>(block.data()),
              static_cast<std::streamsize>(std::min<uint64_t>(8 * block.size(), bytes - done)));
  }
  if (!out.flush()) Die("cannot write " + path);
}

double CpuSeconds() {
  double total = 0;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    struct rusage ru;
    ::getrusage(who, &ru);
    total += static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
             static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  }
  return total;
}

struct Timing {
  double wall;
  double cpu;
};

Timing Measure(const std::function<void()>& fn) {
  const auto start = std::chrono::steady_clock::now();
  const double cpu = CpuSeconds();
  fn();
  return Timing{std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                CpuSeconds() - cpu};
}

void SftpPut(const nutchfs::SftpOptions& options, const std::string& src, const std::string& dst) {
  auto env = nutchfs::NewSftpEnv(options);
  if (!env) Die(env.error().ToString());
  auto file = (*env)->NewWritableFile(dst);
  if (!file) Die(file.error().ToString());
  std::ifstream in(src, std::ios::binary);
  std::string buf(1 << 20, '\0');
  while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
    nutchfs::Status s = (*file)->Append(std::string_view(buf.data(), in.gcount()));
    if (!s.ok()) Die(s.ToString());
  }
  nutchfs::Status s = (*file)->Close();
  if (!s.ok()) Die(s.ToString());
}

void SftpGet(const nutchfs::SftpOptions& options, const std::string& src, const std::string& dst) {
  auto env = nutchfs::NewSftpEnv(options);
  if (!env) Die(env.error().ToString());
  auto file = (*env)->NewSequentialFile(src);
  if (!file) Die(file.error().ToString());
  std::ofstream out(dst, std::ios::binary);
  std::string buf(1 << 20, '\0');
  for (;;) {
    auto chunk = (*file)->Read(buf.size(), buf.data());
    if (!chunk) Die(chunk.error().ToString());
    if (chunk->empty()) break;
    out.write(chunk->data(), static_cast<std::streamsize>(chunk->size()));
  }
}

// A plain libssh SFTP session with the SFTP Env's settings (no pipelining).
class PlainSftp {
 public:
  explicit PlainSftp(const nutchfs::SftpOptions& o) : ssh_(ssh_new()) {
    const int one = 1;
    ssh_options_set(ssh_, SSH_OPTIONS_HOST, o.host.c_str());
    ssh_options_set(ssh_, SSH_OPTIONS_USER, o.user.c_str());
    ssh_options_set(ssh_, SSH_OPTIONS_NODELAY, &one);
    ssh_options_set(ssh_, SSH_OPTIONS_KNOWNHOSTS, o.known_hosts_file.c_str());
    ssh_options_set(ssh_, SSH_OPTIONS_CIPHERS_C_S, "aes128-gcm@openssh.com");
    ssh_options_set(ssh_, SSH_OPTIONS_CIPHERS_S_C, "aes128-gcm@openssh.com");
    ssh_key key = nullptr;
    if (ssh_connect(ssh_) != SSH_OK || ssh_session_is_known_server(ssh_) != SSH_KNOWN_HOSTS_OK ||
        ssh_pki_import_privkey_file(o.identity_file.c_str(), nullptr, nullptr, nullptr, &key) !=
            SSH_OK ||
        ssh_userauth_publickey(ssh_, nullptr, key) != SSH_AUTH_SUCCESS) {
      Die(std::string("libssh login failed: ") + ssh_get_error(ssh_));
    }
    ssh_key_free(key);
    sftp_ = sftp_new(ssh_);
    if (sftp_ == nullptr || sftp_init(sftp_) != SSH_OK) Die("libssh sftp init failed");
  }
  ~PlainSftp() {
    sftp_free(sftp_);
    ssh_disconnect(ssh_);
    ssh_free(ssh_);
  }
  sftp_session sftp() { return sftp_; }

 private:
  ssh_session ssh_;
  sftp_session sftp_ = nullptr;
};

void PlainPut(const nutchfs::SftpOptions& options, const std::string& src, const std::string& dst) {
  PlainSftp session(options);
  sftp_file f = sftp_open(session.sftp(), dst.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (f == nullptr) Die("libssh open " + dst);
  std::ifstream in(src, std::ios::binary);
  std::string buf(128 << 10, '\0');
  while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
    const size_t n = static_cast<size_t>(in.gcount());
    if (sftp_write(f, buf.data(), n) != static_cast<ssize_t>(n)) Die("libssh write " + dst);
  }
  if (sftp_close(f) != SSH_OK) Die("libssh close " + dst);
}

void PlainGet(const nutchfs::SftpOptions& options, const std::string& src, const std::string& dst) {
  PlainSftp session(options);
  sftp_file f = sftp_open(session.sftp(), src.c_str(), O_RDONLY, 0);
  if (f == nullptr) Die("libssh open " + src);
  std::ofstream out(dst, std::ios::binary);
  std::string buf(128 << 10, '\0');
  ssize_t n;
  while ((n = sftp_read(f, buf.data(), buf.size())) > 0) out.write(buf.data(), n);
  if (n < 0) Die("libssh read " + src);
  (void)sftp_close(f);
}

struct Method {
  Method(std::string n, std::function<void()> r) : name(std::move(n)), run(std::move(r)) {}

  std::string name;
  std::function<void()> run;
  std::vector<Timing> runs;

  Timing Median() const {
    std::vector<Timing> sorted = runs;
    std::sort(sorted.begin(), sorted.end(),
              [](const Timing& a, const Timing& b) { return a.wall < b.wall; });
    return sorted[sorted.size() / 2];
  }
  double Best() const {
    double best = runs[0].wall;
    for (const Timing& t : runs) best = std::min(best, t.wall);
    return best;
  }
};

void Report(const std::vector<Method>& methods, uint64_t bytes, const char* what) {
  const double mb = static_cast<double>(bytes) / 1e6;
  for (const Method& m : methods) {
    const Timing med = m.Median();
    std::printf("%s %-24s median %6.2f s %6.1f MB/s (client CPU %5.2f s)  best %6.1f MB/s\n", what,
                m.name.c_str(), med.wall, mb / med.wall, med.cpu, mb / m.Best());
  }
  for (size_t i = 1; i < methods.size(); ++i) {
    std::printf("%s median MB/s ratio %s / %s = %.2f\n", what, methods[0].name.c_str(),
                methods[i].name.c_str(), methods[i].Median().wall / methods[0].Median().wall);
  }
}

void RunAll(std::vector<Method>& methods, int runs, const char* what) {
  for (int r = 0; r < runs; ++r) {
    for (Method& m : methods) {
      const Timing t = Measure(m.run);
      std::printf("%s run %d %-24s %7.2f s  client CPU %6.2f s\n", what, r, m.name.c_str(), t.wall,
                  t.cpu);
      std::fflush(stdout);
      m.runs.push_back(t);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Flags flags = ParseFlags(argc, argv);
  char tmpl[] = "/tmp/sftp_bench.XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) Die("mkdtemp failed");
  const std::string dir = tmpl;
  const std::string hosts = dir + "/hosts";
  g_cleanup = "'" + flags.script + "' down '" + hosts + "'; rm -rf '" + dir + "'";
  Shell("'" + flags.script + "' up '" + hosts + "' 1 >/dev/null");
  auto vars = ReadEnvFile(hosts + "/hosts.env");
  const std::string addr = vars["H0_ADDR"], root = vars["H0_ROOT"];
  nutchfs::SftpOptions options;
  options.user = "root";
  options.host = addr;
  options.identity_file = vars["CLIENT_KEY"];
  options.known_hosts_file = vars["KNOWN_HOSTS"];
  const std::string scp = "scp -q -i '" + options.identity_file + "' -o UserKnownHostsFile='" +
                          options.known_hosts_file + "' -o BatchMode=yes ";
  const std::string src = dir + "/src.bin";
  const uint64_t bytes = flags.mib << 20;
  WriteRandomFile(src, bytes);
  std::string load;
  std::getline(std::ifstream("/proc/loadavg"), load);
  std::printf("%llu MiB to %s; load average %s\n", static_cast<unsigned long long>(flags.mib),
              addr.c_str(), load.c_str());

  const std::string remote = "root@" + addr + ":";
  const std::string aes = "-c aes128-gcm@openssh.com ";
  std::vector<Method> puts = {
      {"sftp env (aes128-gcm)", [&] { SftpPut(options, src, root + "/sftp.bin"); }},
      {"scp (default cipher)", [&] { Shell(scp + src + " " + remote + root + "/scp.bin"); }},
      {"scp -c aes128-gcm", [&] { Shell(scp + aes + src + " " + remote + root + "/scp.bin"); }},
      {"libssh sftp_write", [&] { PlainPut(options, src, root + "/plain.bin"); }}};
  RunAll(puts, flags.runs, "put");
  Shell("cmp '" + src + "' '" + root + "/sftp.bin'");
  const std::string got = dir + "/got.bin";
  std::vector<Method> gets = {
      {"sftp env (aes128-gcm)", [&] { SftpGet(options, root + "/sftp.bin", dir + "/sftp.bin"); }},
      {"scp (default cipher)", [&] { Shell(scp + remote + root + "/scp.bin " + got); }},
      {"scp -c aes128-gcm", [&] { Shell(scp + aes + remote + root + "/scp.bin " + got); }},
      {"libssh sftp_read", [&] { PlainGet(options, root + "/plain.bin", got); }}};
  RunAll(gets, flags.runs, "get");
  Shell("cmp '" + src + "' '" + dir + "/sftp.bin'");
  Report(puts, bytes, "put");
  Report(gets, bytes, "get");
  const std::string cleanup = std::exchange(g_cleanup, "");
  Shell(cleanup);
  return 0;
}
