#include "sandbox/SandboxLog.h"

namespace fb {
Q_LOGGING_CATEGORY(lcSandbox, "fabricbroker.sandbox")
} // namespace fb
