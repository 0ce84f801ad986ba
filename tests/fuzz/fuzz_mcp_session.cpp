// Fuzzes the MCP frame reader and JSON-RPC dispatch: the input bytes are fed, in chunks, into an
// McpServer session over an in-memory pipe (tests/unit/mcp/TestPipe.h), with a registry of
// small tools (synchronous echo, a deferred finish, a server-to-client elicitation and ping that
// the input may answer). The event loop runs a bounded number of turns per input. Properties: no
// crash/UB/leak; every line the server writes is compact JSON (an object or a batch array).
//
// Input layout: byte 0 selects the write chunk size (0 = all at once, else 1..127 bytes) and,
// with its high bit set, prepends an initialize + notifications/initialized handshake so the
// fuzzer reaches tools/call quickly. The rest is what the client "sends".
#include "../unit/mcp/TestPipe.h"
#include "FuzzCommon.h"
#include "mcp/McpServer.h"
#include "mcp/Session.h"
#include "mcp/ToolCall.h"
#include "mcp/ToolRegistry.h"

#include <QEventLoop>
#include <QJsonDocument>
#include <QTimer>

using namespace fb::mcp;

namespace {

ToolRegistry *registry()
{
    static ToolRegistry *r = [] {
        auto *reg = new ToolRegistry;
        const QJsonObject objectSchema{{"type", "object"}};
        reg->registerTool({"echo",
                           "Echo",
                           "Echoes its arguments",
                           objectSchema,
                           objectSchema,
                           {},
                           "read",
                           [](ToolCall *c) {
                               c->progress(1, 2, "half");
                               c->finishStructured(QJsonObject{{"args", c->arguments()}}, "echo");
                           }});
        reg->registerTool({"later",
                           "Later",
                           "Finishes on the next event-loop turn",
                           objectSchema,
                           {},
                           {},
                           "read",
                           [](ToolCall *c) {
                               QPointer<ToolCall> p(c);
                               QTimer::singleShot(0, c, [p] {
                                   if (p)
                                       p->finishError("done later");
                               });
                           }});
        // Asks the client (elicitation, or ping) and finishes with whatever came back; a
        // cancelled call finishes too, so nothing outlives the input.
        auto asking = [](const QString &method) {
            return [method](ToolCall *c) {
                QPointer<ToolCall> p(c);
                QObject::connect(c, &ToolCall::cancelled, c, [p](const QString &) {
                    if (p && !p->isFinished())
                        p->finishError("cancelled");
                });
                c->sendClientRequest(
                    method,
                    method == "ping" ? QJsonObject()
                                     : QJsonObject{{"message", "Approve?"},
                                                   {"requestedSchema",
                                                    QJsonObject{{"type", "object"},
                                                                {"properties", QJsonObject()}}}},
                    0, [p](const ClientReply &reply) {
                        if (p && !p->isFinished())
                            p->finishStructured(QJsonObject{{"status", int(reply.status)},
                                                            {"result", reply.result}},
                                                reply.message);
                    });
            };
        };
        reg->registerTool(
            {"ask", "Ask", "Elicits", objectSchema, {}, {}, "read", asking("elicitation/create")});
        reg->registerTool({"ping_client",
                           "Ping",
                           "Pings the client",
                           objectSchema,
                           {},
                           {},
                           "read",
                           asking("ping")});
        reg->registerTool(
            {"gated", "Gated", "Not served", objectSchema, {}, {}, "mutate", [](ToolCall *c) {
                 fbfuzz::fail("a tool outside the served toolsets ran");
                 (void)c;
             }});
        return reg;
    }();
    return r;
}

const QByteArray kHandshake =
    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
    "\"2025-06-18\",\"capabilities\":{\"elicitation\":{\"form\":{}}},\"clientInfo\":{\"name\":"
    "\"fuzz\",\"version\":\"1\"}}}\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
    "initialized\"}\n";

void pump(int turns)
{
    for (int i = 0; i < turns; ++i) {
        QCoreApplication::sendPostedEvents();
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
        QCoreApplication::processEvents(QEventLoop::AllEvents);
    }
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    fbfuzz::initApp();
    (void)registry();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const int control = data[0];
    const qsizetype chunk = control & 0x7f;
    QByteArray input(reinterpret_cast<const char *>(data + 1), qsizetype(size - 1));
    if (control & 0x80)
        input.prepend(kHandshake);

    ServerOptions options;
    options.version = "fuzz";
    options.maxFrameBytes = 4096; // small, so the oversized path is reachable
    options.maxPendingWriteBytes = 1 << 20;
    QByteArray output;
    {
        fbtest::PipeEnd clientEnd, serverEnd;
        clientEnd.setPeer(&serverEnd);
        serverEnd.setPeer(&clientEnd);
        QObject::connect(&clientEnd, &QIODevice::readyRead, [&] { output += clientEnd.readAll(); });
        McpServer server(registry(), options);
        server.serve({QStringLiteral("stdio"), &serverEnd, &serverEnd, false});
        pump(1);
        if (chunk == 0) {
            clientEnd.write(input);
            pump(3);
        } else {
            for (qsizetype pos = 0; pos < input.size(); pos += chunk) {
                clientEnd.write(input.mid(pos, chunk));
                pump(1);
            }
            pump(2);
        }
        clientEnd.closeWriteChannel();
        pump(4);
        output += clientEnd.readAll();
    }
    pump(1);
    for (const QByteArray &line : output.split('\n')) {
        if (line.isEmpty())
            continue;
        QJsonParseError err;
        const QJsonDocument doc = QJsonDocument::fromJson(line, &err);
        // An echo of input nested just under Qt's reader limit (1024) comes back a few levels
        // deeper: valid JSON that Qt's own reader refuses to parse. Not a server defect.
        if (err.error == QJsonParseError::DeepNesting)
            continue;
        if (err.error != QJsonParseError::NoError || doc.isNull())
            fbfuzz::fail("the server wrote a line that is not JSON");
        // Compact: same length as Qt's compact form (key order may differ: tools/list is
        // pre-serialized in registration order).
        if (doc.toJson(QJsonDocument::Compact).size() != line.size())
            fbfuzz::fail("the server wrote a line that is not compact JSON");
    }
    return 0;
}
