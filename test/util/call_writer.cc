#include "test/util/call_writer.h"

#include <catch2/catch.hpp>
#include <fstream>

#include "webdb/calls/json_out.h"

namespace testutil {

std::string CallFileText(const Session& session) {
  std::string text;
  for (const Call& call : session) {
    webdb::AppendCallJson(call, &text);
    text.push_back('\n');
  }
  return text;
}

void WriteCallFile(const std::string& path, const Session& session) {
  const std::string text = CallFileText(session);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  INFO("writing call file " << path);
  REQUIRE(out.good());
}

}  // namespace testutil
