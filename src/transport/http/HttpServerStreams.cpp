// HttpServer's event streams (text/event-stream): the POST answered as a stream, the GET stream
// and its resumption with Last-Event-ID. See HttpServer.h and SseStream.h.
#include "mcp/Logging.h"
#include "mcp/Protocol.h"
#include "transport/http/HttpChannel.h"
#include "transport/http/HttpMessages.h"
#include "transport/http/HttpServer.h"
#include "transport/http/SseStream.h"

#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace fb::transport {

using mcp::lcMcpTransport;
namespace protocol = mcp::protocol;

namespace {

// The priming event (an id and retry, empty data) is for clients of 2025-11-25 and later;
// older clients may not expect an event without data.
bool primes(const QByteArray &versionHeader)
{
    return versionHeader.trimmed() >= QByteArrayView("2025-11-25");
}

void refuse(HttpExchange *exchange, int status, const QString &message, const QByteArray &session)
{
    HttpResponse r;
    r.status = status;
    r.body = http::rpcError(QJsonValue::Null, protocol::InvalidRequest, message);
    if (!session.isEmpty())
        r.headers.append(qMakePair(QByteArray("Mcp-Session-Id"), session));
    exchange->respond(std::move(r));
}

HttpResponse streamResponse(std::shared_ptr<SseStream> stream, quint64 epoch,
                            const QByteArray &session)
{
    HttpResponse r;
    r.status = 200;
    r.stream = std::move(stream);
    r.epoch = epoch;
    r.headers.append(qMakePair(QByteArray("X-Accel-Buffering"), QByteArray("no")));
    if (!session.isEmpty())
        r.headers.append(qMakePair(QByteArray("Mcp-Session-Id"), session));
    return r;
}

} // namespace

bool HttpServer::dispatchStreamed(HttpChannel *channel, const QJsonValue &message,
                                  const HttpRequest &http, HttpExchange *exchange,
                                  const QByteArray &sessionHeader)
{
    // Only what can lead to progress, log messages or a server request while it runs (2025),
    // and the 2026-07-28 subscriptions/listen, which is a stream.
    const QString method = message.toObject().value("method"_L1).toString();
    const bool listen = channel->isStateless() && method == "subscriptions/listen"_L1;
    if (!message.isObject() || !message.toObject().contains("id"_L1) ||
        (method != "tools/call"_L1 && !listen) ||
        (method == "tools/call"_L1 && channel->isStateless()))
        return false;
    if (!http.value("accept").toLower().contains("text/event-stream")) {
        if (!listen)
            return false;
        refuse(exchange, 406, u"Not Acceptable: subscriptions/listen answers text/event-stream"_s,
               {});
        return true;
    }
    std::shared_ptr<SseStream> stream = channel->newStream(false);
    QString why;
    const quint64 epoch = stream->attach(std::nullopt, &why);
    if (!listen && primes(http.value("mcp-protocol-version")))
        stream->prime();
    if (channel->postStreamed(message, stream) == 0)
        return false;
    exchange->respond(streamResponse(std::move(stream), epoch, sessionHeader));
    return true;
}

void HttpServer::handleGet(const HttpRequest &http, HttpExchange *exchange)
{
    const QByteArray sessionId = http.value("mcp-session-id").trimmed();
    if (sessionId.isEmpty()) {
        refuse(exchange, 400,
               u"Bad Request: Mcp-Session-Id header is required for the GET stream"_s, {});
        return;
    }
    HttpChannel *channel = m_sessions.value(QString::fromLatin1(sessionId));
    if (!channel || !channel->isOpen()) {
        refuse(exchange, 404,
               u"Session not found: it ended or never existed; initialize a new one"_s, {});
        return;
    }
    QString why;
    const QByteArray lastEventId = http.value("last-event-id");
    if (!lastEventId.isEmpty()) {
        quint64 epoch = 0;
        std::shared_ptr<SseStream> stream = channel->resume(lastEventId.left(128), &epoch, &why);
        if (!stream) {
            qCInfo(lcMcpTransport).noquote() << "HTTP: refused a stream resumption:" << why;
            refuse(exchange, 409, u"Conflict: cannot resume the event stream: "_s + why, sessionId);
            return;
        }
        exchange->respond(streamResponse(std::move(stream), epoch, sessionId));
        return;
    }
    std::shared_ptr<SseStream> stream = channel->openGetStream(&why);
    if (!stream) {
        refuse(exchange, 409, why, sessionId);
        return;
    }
    const quint64 epoch = stream->attach(std::nullopt, &why);
    if (primes(http.value("mcp-protocol-version")))
        stream->prime();
    exchange->respond(streamResponse(std::move(stream), epoch, sessionId));
}

} // namespace fb::transport
