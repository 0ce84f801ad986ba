#pragma once
// Process log categories of the MCP engine. They go to stderr through Qt's message handler;
// nothing here ever writes to stdout.
#include <QLoggingCategory>

namespace fb::mcp {
Q_DECLARE_LOGGING_CATEGORY(lcMcpServer)
Q_DECLARE_LOGGING_CATEGORY(lcMcpSession)
Q_DECLARE_LOGGING_CATEGORY(lcMcpTransport)
} // namespace fb::mcp
