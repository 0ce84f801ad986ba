#pragma once
// Logging category of the embedded Fabric sandbox. Never logs secrets, tokens or bodies.
#include <QLoggingCategory>

namespace fb {
Q_DECLARE_LOGGING_CATEGORY(lcSandbox)
} // namespace fb
