// cli_docs: prints a program's man page or bash completion script, made from its
// command-line spec (tools/cli_spec.h); the build runs it (tools/CMakeLists.txt).
//   cli_docs man PROGRAM          roff, for man(1)
//   cli_docs completion PROGRAM   a bash completion script
#include <cstdio>
#include <cstring>
#include <string>

#include "tools/bash_completion.h"
#include "tools/cli_spec.h"
#include "tools/man_page.h"

int main(int argc, char** argv) {
  const tools::ProgramSpec* program = nullptr;
  for (const tools::ProgramSpec* p : tools::AllProgramSpecs()) {
    if (argc == 3 && p->name == argv[2]) program = p;
  }
  const bool man = argc == 3 && std::strcmp(argv[1], "man") == 0;
  const bool completion = argc == 3 && std::strcmp(argv[1], "completion") == 0;
  if (program == nullptr || !(man || completion)) {
    std::fputs("usage: cli_docs man|completion webdb|distwriter|nutchfs\n", stderr);
    return 2;
  }
  const std::string text = man ? tools::ManPage(*program) : tools::BashCompletion(*program);
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0) {
    std::perror("cli_docs: standard output");
    return 4;
  }
  return 0;
}
