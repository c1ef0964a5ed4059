// Fuzzes call lines (webdb/calls/call_parser.h) and call files (webdb/calls/call_file.h).
// Properties: no crash; every parse error is InvalidArgument (a call file's names
// FILE:LINE); a line the plain-form scanner takes (webdb/calls/plain_call_scanner.h) parses
// to the same call with simdjson's parser alone; a parsed call written back as JSON
// (webdb/calls/json_out.h) parses to the same call; the call file reader yields exactly the
// calls of its non-blank lines.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_util.h"
#include "webdb/calls/call_file.h"
#include "webdb/calls/call_parser.h"
#include "webdb/calls/json_out.h"
#include "webdb/calls/plain_call_scanner.h"

namespace {

std::string Padded(std::string_view line) {
  std::string s(line);
  s.append(webdb::CallParser::kPadding, ' ');
  return s;
}

// The call parsed from line, checked to round-trip through AppendCallJson.
std::optional<webdb::Call> ParseChecked(webdb::CallParser& parser, std::string_view line) {
  const std::string padded = Padded(line);
  const std::string_view view = std::string_view(padded).substr(0, line.size());
  webdb::Call fast;
  if (webdb::ScanPlainCall(view, &fast)) {
    auto full = parser.ParseJson(view);
    FUZZ_CHECK_MSG(full.has_value(), full ? "" : full.error().ToString());
    FUZZ_CHECK(*full == fast);
  }
  webdb::Call call;
  const nutchfs::Status parsed = parser.Parse(view, &call);
  if (!parsed.ok()) {
    FUZZ_CHECK_MSG(parsed.IsInvalidArgument(), parsed.ToString());
    return std::nullopt;
  }
  std::string json;
  webdb::AppendCallJson(call, &json);
  const std::string again_padded = Padded(json);
  webdb::Call again;
  const nutchfs::Status reparsed =
      parser.Parse(std::string_view(again_padded).substr(0, json.size()), &again);
  FUZZ_CHECK_MSG(reparsed.ok(), json + " -> " + reparsed.ToString());
  FUZZ_CHECK_MSG(again == call, json);
  return call;
}

bool Blank(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input = fuzzutil::AsView(data, size);
  webdb::CallParser parser;
  ParseChecked(parser, input.substr(0, input.find('\n')));

  // The same bytes as a call file: the reader's calls are those of its lines.
  auto env = fuzzutil::EnvWithFile("/calls.jsonl", input);
  auto reader = webdb::CallFileReader::Open(*env, "/calls.jsonl", /*parse_thread=*/false);
  FUZZ_CHECK(reader.has_value());
  std::string_view rest = input;
  uint64_t line_no = 0;
  for (;;) {
    // The next non-blank line of the input, parsed on its own.
    std::optional<std::string_view> line;
    while (!rest.empty() && !line) {
      const size_t nl = rest.find('\n');
      ++line_no;
      if (!Blank(rest.substr(0, nl))) line = rest.substr(0, nl);
      rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
    }
    const std::optional<webdb::Call> expected = line ? ParseChecked(parser, *line) : std::nullopt;
    auto next = (*reader)->Next();
    if (!next) {
      FUZZ_CHECK_MSG(line && !expected, next.error().ToString());
      FUZZ_CHECK_MSG(
          next.error().message().starts_with("/calls.jsonl:" + std::to_string(line_no) + ": "),
          next.error().ToString());
      break;
    }
    if (*next == nullptr) {
      FUZZ_CHECK(!line);
      break;
    }
    FUZZ_CHECK(expected.has_value() && **next == *expected);
    FUZZ_CHECK((*reader)->line() == line_no);
  }
  return 0;
}
