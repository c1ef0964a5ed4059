#include "tools/writer_rank.h"

#include <charconv>
#include <string_view>

namespace tools {
namespace {

constexpr const char* kVariables[] = {"SLURM_ARRAY_TASK_ID", "SLURM_PROCID",
                                      "JOB_COMPLETION_INDEX"};

}  // namespace

nutchfs::Result<std::optional<WriterRank>> RankFromEnvironment(const EnvLookup& lookup) {
  for (const char* name : kVariables) {
    const char* value = lookup(name);
    if (value == nullptr) continue;
    const std::string_view text(value);
    int writer = -1;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), writer);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || writer < 0) {
      return nutchfs::Err(nutchfs::Status::InvalidArgument(
          std::string(name) + "='" + std::string(text.substr(0, 40)) +
          "' is not a writer index (an integer, 0 or more)"));
    }
    return std::optional<WriterRank>(WriterRank{writer, name});
  }
  return std::optional<WriterRank>();
}

}  // namespace tools
