#pragma once
// tst_httpserver's client: one raw HTTP exchange with a server under test, JSON-RPC
// builders, and the Fixture (an McpServer with an echo and a slow tool behind an HttpServer).
#include "mcp/McpServer.h"
#include "mcp/ToolCall.h"
#include "mcp/ToolRegistry.h"
#include "transport/http/HttpAddress.h"
#include "transport/http/HttpServer.h"
#include "transport/http/HttpToken.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPointer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <memory>

#include <sys/stat.h>

using namespace fb::mcp;
using namespace fb::transport;

namespace {

struct Reply {
    int status = 0;
    QHash<QByteArray, QByteArray> headers; // lower-case names
    QByteArray body;
    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
    int errorCode() const { return json().value("error").toObject().value("code").toInt(); }
};

inline QJsonValue at(QJsonObject o, const QStringList &path)
{
    QJsonValue v = o;
    for (const QString &k : path)
        v = v.toObject().value(k);
    return v;
}

// One raw HTTP/1.1 exchange on its own connection (so the test controls every header).
inline Reply exchange(quint16 port, const QByteArray &method, const QByteArray &body,
                      const QList<QPair<QByteArray, QByteArray>> &headers,
                      bool *connectionClosed = nullptr)
{
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, port);
    if (!socket.waitForConnected(5000))
        return {};
    QByteArray out = method + " /mcp HTTP/1.1\r\n";
    for (const auto &[k, v] : headers)
        out += k + ": " + v + "\r\n";
    if (!body.isEmpty() || method == "POST")
        out += "Content-Length: " + QByteArray::number(body.size()) + "\r\n";
    out += "\r\n" + body;
    socket.write(out);
    QByteArray in;
    Reply reply;
    const bool complete = QTest::qWaitFor(
        [&] {
            in += socket.readAll();
            const qsizetype end = in.indexOf("\r\n\r\n");
            if (end < 0)
                return socket.state() != QAbstractSocket::ConnectedState;
            const QList<QByteArray> lines = in.left(end).split('\n');
            reply.status = lines.value(0).split(' ').value(1).toInt();
            reply.headers.clear();
            for (qsizetype i = 1; i < lines.size(); ++i) {
                const qsizetype colon = lines[i].indexOf(':');
                reply.headers.insert(lines[i].left(colon).trimmed().toLower(),
                                     lines[i].mid(colon + 1).trimmed());
            }
            const qint64 length = reply.headers.value("content-length").toLongLong();
            if (in.size() - end - 4 < length)
                return false;
            reply.body = in.mid(end + 4, length);
            return true;
        },
        10000);
    if (!complete)
        reply.status = 0;
    if (connectionClosed) {
        socket.waitForDisconnected(200);
        *connectionClosed = socket.state() != QAbstractSocket::ConnectedState;
    }
    return reply;
}

inline QByteArray rpc(const QJsonValue &id, const QString &method, const QJsonObject &params = {})
{
    QJsonObject m{{"jsonrpc", "2.0"}, {"method", method}, {"params", params}};
    if (!id.isUndefined())
        m.insert("id", id);
    return QJsonDocument(m).toJson(QJsonDocument::Compact);
}

inline QJsonObject modernMeta()
{
    return QJsonObject{
        {"_meta", QJsonObject{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                              {"io.modelcontextprotocol/clientCapabilities", QJsonObject()}}}};
}

struct Fixture {
    ToolRegistry registry;
    std::unique_ptr<McpServer> server;
    std::unique_ptr<HttpServer> http;
    QByteArray token = HttpToken::generate();
    QPointer<ToolCall> slow;
    QStringList cancelled;

    explicit Fixture(HttpServerOptions options = {})
    {
        registry.registerTool(
            {"echo",
             "Echo",
             "Echoes",
             QJsonObject{{"type", "object"}},
             QJsonObject{{"type", "object"}},
             {},
             "read",
             [](ToolCall *c) {
                 c->finishStructured(QJsonObject{{"args", c->arguments()}}, QString());
             }});
        registry.registerTool({"slow",
                               "Slow",
                               "Waits",
                               QJsonObject{{"type", "object"}},
                               {},
                               {},
                               "read",
                               [this](ToolCall *c) {
                                   slow = c;
                                   // A handler finishes every call it takes, cancelled too.
                                   QObject::connect(
                                       c, &ToolCall::cancelled, c, [this, c](const QString &r) {
                                           cancelled << r;
                                           c->finishStructured(QJsonObject(), QString());
                                       });
                               }});
        registry.setServedToolsets({"read"});
        server = std::make_unique<McpServer>(&registry, ServerOptions{});
        options.token = token;
        http = std::make_unique<HttpServer>(server.get(), options);
        QString error;
        if (!http->listen(&error))
            qFatal("listen: %s", qPrintable(error));
    }
    QByteArray host() const { return "127.0.0.1:" + QByteArray::number(http->port()); }
    QList<QPair<QByteArray, QByteArray>> headers(const QByteArray &session = {}) const
    {
        QList<QPair<QByteArray, QByteArray>> h{{"Host", host()},
                                               {"Authorization", "Bearer " + token},
                                               {"Content-Type", "application/json"},
                                               {"Accept", "application/json, text/event-stream"}};
        if (!session.isEmpty())
            h.append(qMakePair(QByteArray("Mcp-Session-Id"), session));
        return h;
    }
    Reply post(const QByteArray &body, const QByteArray &session = {})
    {
        return exchange(http->port(), "POST", body, headers(session));
    }
    QByteArray initialize()
    {
        const Reply r =
            post(rpc(1, "initialize",
                     QJsonObject{{"protocolVersion", "2025-11-25"},
                                 {"capabilities", QJsonObject()},
                                 {"clientInfo", QJsonObject{{"name", "t"}, {"version", "1"}}}}));
        if (r.status != 200)
            return {};
        return r.headers.value("mcp-session-id");
    }
};

} // namespace
