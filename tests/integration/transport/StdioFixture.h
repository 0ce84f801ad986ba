#pragma once
// What tst_stdiodevices and tst_stdiotransport share: an echo tool, MCP frames as a client writes
// them, and a reader of lines from a non-blocking fd.
#include "mcp/ToolCall.h"
#include "mcp/ToolRegistry.h"

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <unistd.h>

namespace {

using namespace fb::mcp;

inline void registerEcho(ToolRegistry &registry)
{
    ToolDefinition echo;
    echo.name = "echo";
    echo.description = "echo";
    echo.toolset = "read";
    echo.handler = [](ToolCall *c) { c->finishStructured(c->arguments(), QString()); };
    registry.registerTool(echo);
}

inline QByteArray frame(int id, const QString &method, const QJsonObject &params = {})
{
    QJsonObject m{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
    if (!params.isEmpty())
        m.insert("params", params);
    return QJsonDocument(m).toJson(QJsonDocument::Compact) + '\n';
}

inline QByteArray initFrames()
{
    return frame(0, "initialize", QJsonObject{{"protocolVersion", "2025-11-25"}}) +
           "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";
}

// Reads lines from a non-blocking fd while the event loop runs.
inline QList<QByteArray> readLines(int fd, int count, int timeoutMs = 3000)
{
    QByteArray buffer;
    QList<QByteArray> lines;
    QElapsedTimer t;
    t.start();
    while (lines.size() < count && t.elapsed() < timeoutMs) {
        char chunk[4096];
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n > 0) {
            buffer.append(chunk, n);
            qsizetype nl;
            while ((nl = buffer.indexOf('\n')) >= 0) {
                lines.append(buffer.left(nl));
                buffer.remove(0, nl + 1);
            }
        } else {
            QTest::qWait(5);
        }
    }
    return lines;
}

} // namespace
