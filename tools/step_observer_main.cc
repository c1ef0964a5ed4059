// The shipped tools observe no step (tools/step_observer.h). Linked into each shipped
// executable, not into tools_lib (a *_main.cc).
#include "tools/step_observer.h"

namespace tools {

std::function<void(std::string_view)> StepObserver(int) { return {}; }

}  // namespace tools
