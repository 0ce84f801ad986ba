#pragma once
// tst_httpchannel's and tst_ssestream's helpers: the event-stream parser, a raw keep-open
// connection (Conn) and the Fixture (an McpServer with its tools behind an HttpServer).
#include "mcp/McpServer.h"
#include "mcp/ToolCall.h"
#include "mcp/ToolRegistry.h"
#include "transport/http/HttpServer.h"
#include "transport/http/HttpToken.h"
#include "transport/http/SseStream.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPointer>
#include <QRegularExpression>
#include <QTcpSocket>
#include <QTest>
#include <memory>

using namespace fb::mcp;
using namespace fb::transport;

namespace {

struct Event {
    QByteArray id;
    QByteArray data;
    int retry = -1;
    QJsonObject json() const { return QJsonDocument::fromJson(data).object(); }
};

// Reads everything of one SSE stream (SseStream::read until End).
inline QList<Event> parse(const QByteArray &text)
{
    QList<Event> events;
    Event current;
    bool any = false;
    for (const QByteArray &line : text.split('\n')) {
        if (line.isEmpty()) {
            if (any)
                events.append(current);
            current = {};
            any = false;
            continue;
        }
        any = true;
        if (line.startsWith("id: "))
            current.id = line.mid(4);
        else if (line.startsWith("retry: "))
            current.retry = line.mid(7).toInt();
        else if (line.startsWith("data: "))
            current.data +=
                (current.data.isEmpty() ? QByteArray() : QByteArray("\n")) + line.mid(6);
    }
    return events;
}

inline QByteArray drain(SseStream &s, quint64 epoch, SseStream::Read *last = nullptr)
{
    QByteArray out;
    char buf[7]; // small on purpose: events cross reads
    for (;;) {
        qsizetype n = 0;
        const SseStream::Read r = s.read(epoch, buf, sizeof buf, &n);
        out.append(buf, n);
        if (r != SseStream::Read::Data) {
            if (last)
                *last = r;
            return out;
        }
    }
}

inline QJsonValue at(const QJsonObject &o, const QStringList &path)
{
    QJsonValue v = o;
    for (const QString &k : path)
        v = v.toObject().value(k);
    return v;
}

inline QByteArray rpc(const QJsonValue &id, const QString &method, const QJsonObject &params = {})
{
    QJsonObject m{{"jsonrpc", "2.0"}, {"method", method}, {"params", params}};
    if (!id.isUndefined())
        m.insert("id", id);
    return QJsonDocument(m).toJson(QJsonDocument::Compact);
}

// One HTTP/1.1 request on its own connection; the response (chunked or not) is read as it comes.
class Conn {
public:
    Conn(quint16 port, const QByteArray &method, const QByteArray &requestBody,
         const QList<QPair<QByteArray, QByteArray>> &requestHeaders)
    {
        m_socket.connectToHost(QHostAddress::LocalHost, port);
        if (!m_socket.waitForConnected(5000))
            return;
        QByteArray out = method + " /mcp HTTP/1.1\r\n";
        for (const auto &[k, v] : requestHeaders)
            out += k + ": " + v + "\r\n";
        if (method == "POST")
            out += "Content-Length: " + QByteArray::number(requestBody.size()) + "\r\n";
        m_socket.write(out + "\r\n" + requestBody);
    }
    void pump()
    {
        m_raw += m_socket.readAll();
        if (status == 0) {
            const qsizetype end = m_raw.indexOf("\r\n\r\n");
            if (end < 0)
                return;
            const QList<QByteArray> lines = m_raw.left(end).split('\n');
            status = lines.value(0).split(' ').value(1).toInt();
            for (qsizetype i = 1; i < lines.size(); ++i) {
                const qsizetype colon = lines[i].indexOf(':');
                headers.insert(lines[i].left(colon).trimmed().toLower(),
                               lines[i].mid(colon + 1).trimmed());
            }
            m_raw.remove(0, end + 4);
        }
        if (headers.value("transfer-encoding") != "chunked") {
            body += std::exchange(m_raw, {});
            const qint64 length = headers.value("content-length", "-1").toLongLong();
            ended = length >= 0 && body.size() >= length;
            return;
        }
        for (;;) {
            const qsizetype eol = m_raw.indexOf("\r\n");
            if (eol < 0)
                return;
            bool ok = false;
            const qint64 size = m_raw.left(eol).toLongLong(&ok, 16);
            if (!ok || m_raw.size() < eol + 2 + size + 2)
                return;
            if (size == 0) {
                ended = true;
                return;
            }
            body += m_raw.mid(eol + 2, size);
            m_raw.remove(0, eol + 2 + size + 2);
        }
    }
    QList<Event> events() const { return parse(body); }
    // Waits until at least n events arrived (or the stream ended).
    bool waitEvents(int n)
    {
        return QTest::qWaitFor(
                   [&] {
                       pump();
                       return events().size() >= n || ended;
                   },
                   10000) &&
               events().size() >= n;
    }
    bool waitEnd()
    {
        return QTest::qWaitFor(
            [&] {
                pump();
                return ended;
            },
            10000);
    }
    void abort() { m_socket.abort(); }
    bool closed() const { return m_socket.state() == QAbstractSocket::UnconnectedState; }

    int status = 0;
    QHash<QByteArray, QByteArray> headers;
    QByteArray body;
    bool ended = false;

private:
    QTcpSocket m_socket;
    QByteArray m_raw;
};

struct Fixture {
    ToolRegistry registry;
    std::unique_ptr<McpServer> server;
    std::unique_ptr<HttpServer> http;
    QByteArray token = HttpToken::generate();
    QPointer<ToolCall> call;
    QStringList cancelled;

    // The server goes first: closing its sessions cancels the waiting call, whose handler
    // appends to `cancelled`, a member that would otherwise be destroyed before the server.
    ~Fixture()
    {
        http.reset();
        server.reset();
    }
    Fixture(const Fixture &) = delete;
    Fixture &operator=(const Fixture &) = delete;

    explicit Fixture(HttpServerOptions options = {})
    {
        registry.registerTool({"wait",
                               "Wait",
                               "Waits for the test",
                               QJsonObject{{"type", "object"}},
                               {},
                               {},
                               "read",
                               [this](ToolCall *c) {
                                   call = c;
                                   QObject::connect(
                                       c, &ToolCall::cancelled, c, [this, c](const QString &r) {
                                           cancelled << r;
                                           c->finishStructured(QJsonObject(), QString());
                                       });
                               }});
        registry.registerTool({"other",
                               "Other",
                               "In another toolset",
                               QJsonObject{{"type", "object"}},
                               {},
                               {},
                               "write",
                               [](ToolCall *c) { c->finishError("no"); }});
        registry.setServedToolsets({"read"});
        server = std::make_unique<McpServer>(&registry, ServerOptions{});
        options.token = token;
        http = std::make_unique<HttpServer>(server.get(), options);
        QString error;
        if (!http->listen(&error))
            qFatal("listen: %s", qPrintable(error));
    }
    QList<QPair<QByteArray, QByteArray>>
    headers(const QByteArray &session = {},
            const QByteArray &accept = "application/json, text/event-stream") const
    {
        QList<QPair<QByteArray, QByteArray>> h{
            {"Host", "127.0.0.1:" + QByteArray::number(http->port())},
            {"Authorization", "Bearer " + token},
            {"Content-Type", "application/json"},
            {"Accept", accept},
            {"MCP-Protocol-Version", "2025-11-25"}};
        if (!session.isEmpty())
            h.append(qMakePair(QByteArray("Mcp-Session-Id"), session));
        return h;
    }
    std::unique_ptr<Conn> open(const QByteArray &method, const QByteArray &body,
                               const QList<QPair<QByteArray, QByteArray>> &h)
    {
        return std::make_unique<Conn>(http->port(), method, body, h);
    }
    QByteArray initialize()
    {
        auto c = open(
            "POST",
            rpc(1, "initialize",
                QJsonObject{{"protocolVersion", "2025-11-25"},
                            {"capabilities",
                             QJsonObject{{"elicitation", QJsonObject{{"form", QJsonObject()}}}}},
                            {"clientInfo", QJsonObject{{"name", "t"}, {"version", "1"}}}}),
            headers());
        if (!c->waitEnd() || c->status != 200)
            return {};
        const QByteArray sid = c->headers.value("mcp-session-id");
        auto n = open("POST", rpc(QJsonValue(QJsonValue::Undefined), "notifications/initialized"),
                      headers(sid));
        return n->waitEnd() && n->status == 202 ? sid : QByteArray();
    }
    QByteArray waitCall()
    {
        return rpc(7, "tools/call",
                   QJsonObject{{"name", "wait"},
                               {"arguments", QJsonObject()},
                               {"_meta", QJsonObject{{"progressToken", "tok"}}}});
    }
};

} // namespace
