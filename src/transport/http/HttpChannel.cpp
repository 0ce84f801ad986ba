#include "transport/http/HttpChannel.h"
#include "mcp/Logging.h"
#include "mcp/McpServer.h"
#include "mcp/Protocol.h"
#include "mcp/Session.h"
#include "transport/http/SseStream.h"

#include <QDateTime>
#include <QIODevice>
#include <QJsonDocument>
#include <QRandomGenerator>

using namespace Qt::StringLiterals;

namespace fb::transport {

using mcp::lcMcpTransport;
using mcp::McpServer;
using mcp::Session;
namespace protocol = mcp::protocol;

// What the channel writes becomes the Session's input; readyRead is emitted at once, so the
// Session handles a posted message before post() returns (answers may come later).
class HttpChannel::InputDevice : public QIODevice {
public:
    InputDevice() { open(QIODevice::ReadOnly | QIODevice::Unbuffered); }
    bool isSequential() const override { return true; }
    qint64 bytesAvailable() const override { return m_buf.size() + QIODevice::bytesAvailable(); }
    void push(const QByteArray &bytes)
    {
        m_buf.append(bytes);
        emit readyRead();
    }

protected:
    qint64 readData(char *data, qint64 maxSize) override
    {
        const qint64 n = qMin<qint64>(maxSize, m_buf.size());
        std::copy_n(m_buf.constData(), n, data);
        m_buf.remove(0, n);
        return n;
    }
    qint64 writeData(const char *, qint64) override { return -1; }

private:
    QByteArray m_buf;
};

// The Session's output: every write goes to the channel, which splits it into frames.
class HttpChannel::OutputDevice : public QIODevice {
public:
    explicit OutputDevice(std::function<void(const QByteArray &)> sink)
        : m_sink(std::move(sink))
    {
        open(QIODevice::WriteOnly | QIODevice::Unbuffered);
    }
    bool isSequential() const override { return true; }

protected:
    qint64 readData(char *, qint64) override { return -1; }
    qint64 writeData(const char *data, qint64 len) override
    {
        m_sink(QByteArray(data, len));
        return len;
    }

private:
    std::function<void(const QByteArray &)> m_sink;
};

namespace {

QByteArray compact(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

QJsonObject errorResponse(const QJsonValue &id, int code, const QString &message)
{
    return QJsonObject{{u"jsonrpc"_s, u"2.0"_s},
                       {u"id"_s, id},
                       {u"error"_s, QJsonObject{{u"code"_s, code}, {u"message"_s, message}}}};
}

bool isRequest(const QJsonObject &message)
{
    return message.contains("method"_L1) && message.contains("id"_L1);
}

} // namespace

HttpChannel::HttpChannel(McpServer *server, bool stateless, QObject *parent)
    : QObject(parent)
    , m_server(server)
    , m_stateless(stateless)
    , m_input(std::make_unique<InputDevice>())
    , m_output(std::make_unique<OutputDevice>([this](const QByteArray &b) { onOutput(b); }))
{
    const quint64 a = QRandomGenerator::system()->generate64();
    const quint64 b = QRandomGenerator::system()->generate64();
    m_id = u"%1%2"_s.arg(a, 16, 16, QChar(u'0')).arg(b, 16, 16, QChar(u'0'));
    m_lastActivityMs = QDateTime::currentMSecsSinceEpoch();
    m_session = server->serve({u"http"_s, m_input.get(), m_output.get()});
    if (m_session)
        connect(m_session, &Session::closed, this, &HttpChannel::onSessionClosed);
    else
        m_closed = true;
}

HttpChannel::~HttpChannel()
{
    close(u"HTTP transport closed"_s);
}

bool HttpChannel::isOpen() const
{
    return !m_closed && m_session;
}

Session *HttpChannel::session() const
{
    return m_session;
}

quint64 HttpChannel::post(const QJsonValue &message, Reply reply)
{
    return postTicket(message, Ticket{std::move(reply), {}, message.isArray(), {}, {}});
}

quint64 HttpChannel::postStreamed(const QJsonValue &message, std::shared_ptr<SseStream> stream)
{
    const QJsonObject object = message.toObject();
    if (!message.isObject() || !isRequest(object) || !stream)
        return 0;
    const QJsonValue token =
        object.value("params"_L1).toObject().value("_meta"_L1).toObject().value("progressToken"_L1);
    const bool listen = object.value("method"_L1) == "subscriptions/listen"_L1;
    SseStream *raw = stream.get();
    const quint64 ticket =
        postTicket(message, Ticket{{}, {}, false, std::move(stream), token, listen});
    if (listen && ticket && m_tickets.contains(ticket)) {
        // A listen stream is not resumed: its connection gone, the subscription ends.
        QPointer<HttpChannel> self(this);
        raw->setOnDetach([self, ticket] {
            if (self)
                self->abandon(ticket);
        });
    }
    return ticket;
}

quint64 HttpChannel::postTicket(const QJsonValue &message, Ticket ticketData)
{
    m_lastActivityMs = QDateTime::currentMSecsSinceEpoch();
    if (!isOpen())
        return 0;
    const quint64 ticket = ++m_nextTicket;
    QByteArray bytes;
    bool hasRequests = false;
    if (message.isArray()) {
        QJsonArray out;
        for (const QJsonValue &item : message.toArray()) {
            const QJsonObject object = item.toObject();
            if (isRequest(object)) {
                hasRequests = true;
                out.append(rewriteRequest(object, ticket));
            } else {
                out.append(rewriteNotification(object));
            }
        }
        bytes = QJsonDocument(out).toJson(QJsonDocument::Compact);
    } else {
        const QJsonObject object = message.toObject();
        hasRequests = isRequest(object);
        bytes = compact(hasRequests ? rewriteRequest(object, ticket) : rewriteNotification(object));
    }
    if (hasRequests)
        m_tickets.insert(ticket, std::move(ticketData));
    // rewriteRequest recorded the keys under the ticket number before it existed: collect them.
    if (hasRequests) {
        Ticket &t = m_tickets[ticket];
        for (auto it = m_pending.cbegin(); it != m_pending.cend(); ++it) {
            if (it.value().ticket == ticket)
                t.keys.append(it.key());
        }
    }
    feed(bytes + '\n');
    return hasRequests ? ticket : 0;
}

QJsonObject HttpChannel::rewriteRequest(QJsonObject message, quint64 ticket)
{
    const QString internal = u"fbh-%1"_s.arg(++m_nextId);
    m_pending.insert(internal, Pending{message.value("id"_L1), ticket});
    message.insert(u"id"_s, internal);
    if (!m_stateless && !m_clientStreams && message.value("method"_L1) == "initialize"_L1) {
        // No stream: the Session could never send these requests to the client.
        QJsonObject params = message.value("params"_L1).toObject();
        QJsonObject caps = params.value("capabilities"_L1).toObject();
        caps.remove("elicitation"_L1);
        caps.remove("sampling"_L1);
        caps.remove("roots"_L1);
        params.insert(u"capabilities"_s, caps);
        message.insert(u"params"_s, params);
    }
    return message;
}

QJsonObject HttpChannel::rewriteNotification(QJsonObject message) const
{
    if (message.value("method"_L1) != "notifications/cancelled"_L1)
        return message;
    // The client names its own id: find the one request of this channel it means.
    QJsonObject params = message.value("params"_L1).toObject();
    const QJsonValue requestId = params.value("requestId"_L1);
    QString match;
    int matches = 0;
    for (auto it = m_pending.cbegin(); it != m_pending.cend(); ++it) {
        if (it.value().originalId == requestId) {
            match = it.key();
            ++matches;
        }
    }
    // Clients sharing the stateless channel may use the same ids: an ambiguous or unknown id
    // cancels nothing (a stateless client cancels by closing its connection).
    params.insert(u"requestId"_s,
                  matches == 1 && !m_stateless ? QJsonValue(match) : QJsonValue(u"fbh-none"_s));
    message.insert(u"params"_s, params);
    return message;
}

void HttpChannel::abandon(quint64 ticket)
{
    const auto it = m_tickets.find(ticket);
    if (it == m_tickets.end())
        return;
    const QStringList keys = it->keys;
    m_tickets.erase(it);
    for (const QString &key : keys) {
        m_pending.remove(key);
        feed(compact(QJsonObject{
                 {u"jsonrpc"_s, u"2.0"_s},
                 {u"method"_s, u"notifications/cancelled"_s},
                 {u"params"_s, QJsonObject{{u"requestId"_s, key},
                                           {u"reason"_s, u"the HTTP connection closed"_s}}}}) +
             '\n');
    }
}

void HttpChannel::feed(const QByteArray &bytes)
{
    if (m_session && !m_closed)
        m_input->push(bytes);
}

void HttpChannel::onOutput(const QByteArray &bytes)
{
    if (m_outBuffer.isEmpty() && bytes.indexOf('\n') == bytes.size() - 1) {
        onFrame(bytes.first(bytes.size() - 1)); // one whole frame: no copy into the buffer
        return;
    }
    m_outBuffer.append(bytes);
    qsizetype start = 0;
    for (;;) {
        const qsizetype nl = m_outBuffer.indexOf('\n', start);
        if (nl < 0)
            break;
        const QByteArray frame = m_outBuffer.mid(start, nl - start);
        start = nl + 1;
        if (!frame.trimmed().isEmpty())
            onFrame(frame);
    }
    m_outBuffer.remove(0, start);
}

bool HttpChannel::restore(QJsonObject &response, quint64 *ticket)
{
    const QString key = response.value("id"_L1).toString();
    const auto it = m_pending.constFind(key);
    if (key.isEmpty() || it == m_pending.constEnd())
        return false;
    response.insert(u"id"_s, it->originalId);
    *ticket = it->ticket;
    auto t = m_tickets.find(it->ticket);
    if (t != m_tickets.end())
        t->keys.removeAll(key);
    m_pending.erase(it);
    return true;
}

void HttpChannel::onFrame(const QByteArray &frame)
{
    // Fast path: a result the Session wrote id-first ({"id":"fbh-N",...}, e.g. tools/list's
    // pre-serialized frame): only the id is spliced, the rest is not parsed again.
    static const QByteArray idFirst = QByteArrayLiteral("{\"id\":\"fbh-");
    if (frame.startsWith(idFirst)) {
        const qsizetype end = frame.indexOf('"', idFirst.size());
        const QString key = QString::fromLatin1(frame.mid(7, end - 7));
        const auto it = end > 0 ? m_pending.constFind(key) : m_pending.constEnd();
        if (it != m_pending.constEnd()) {
            const quint64 ticket = it->ticket;
            QByteArray body = "{\"id\":" + protocol::valueToJson(it->originalId);
            body.append(frame.constData() + end + 1, frame.size() - end - 1);
            auto t = m_tickets.find(ticket);
            if (t != m_tickets.end())
                t->keys.removeAll(key);
            m_pending.erase(it);
            finishTicket(ticket, body);
            return;
        }
    }
    const QJsonDocument doc = QJsonDocument::fromJson(frame);
    if (doc.isArray()) {
        QJsonArray out;
        quint64 ticket = 0;
        for (const QJsonValue &item : doc.array()) {
            QJsonObject response = item.toObject();
            quint64 t = 0;
            if (restore(response, &t))
                ticket = t;
            out.append(response);
        }
        if (ticket)
            finishTicket(ticket, QJsonDocument(out).toJson(QJsonDocument::Compact));
        return;
    }
    QJsonObject message = doc.object();
    if (message.contains("method"_L1)) {
        if (routeSubscription(message))
            return;
        if (SseStream *stream = routeFor(message)) {
            stream->push(frame);
            return;
        }
        if (message.contains("id"_L1)) {
            // A server-to-client request cannot reach the client without a stream.
            qCDebug(lcMcpTransport) << "HTTP: answering a server request the client cannot see"
                                    << message.value("method"_L1).toString();
            feed(compact(errorResponse(message.value("id"_L1), protocol::MethodNotFound,
                                       u"the HTTP client has no stream for server requests"_s)) +
                 '\n');
        }
        return; // notifications: dropped (no stream)
    }
    quint64 ticket = 0;
    if (!restore(message, &ticket)) {
        qCDebug(lcMcpTransport) << "HTTP: dropping a response no POST waits for";
        return;
    }
    finishTicket(ticket, compact(message));
}

void HttpChannel::finishTicket(quint64 ticket, const QByteArray &body)
{
    const auto it = m_tickets.find(ticket);
    if (it == m_tickets.end())
        return;
    if (it->batch) {
        for (const QString &key : std::as_const(it->keys))
            m_pending.remove(key);
    } else if (!it->keys.isEmpty()) {
        return; // not possible for a single request; kept for safety
    }
    Reply reply = std::move(it->reply);
    const std::shared_ptr<SseStream> stream = std::move(it->stream);
    m_tickets.erase(it);
    if (stream) {
        stream->push(body);
        stream->finish();
        keepFinished(stream);
    } else if (reply) {
        reply(200, body);
    }
}

void HttpChannel::close(const QString &reason)
{
    if (m_session && !m_closed)
        m_session->close(reason);
    onSessionClosed();
}

void HttpChannel::onSessionClosed()
{
    const bool wasClosed = std::exchange(m_closed, true);
    // Every POST still waiting is answered once.
    const QHash<quint64, Ticket> tickets = std::exchange(m_tickets, {});
    const QHash<QString, Pending> pending = std::exchange(m_pending, {});
    for (auto it = tickets.cbegin(); it != tickets.cend(); ++it) {
        QJsonArray errors;
        for (const QString &key : it->keys)
            errors.append(errorResponse(pending.value(key).originalId, protocol::InternalError,
                                        u"the session ended before the answer"_s));
        if (it->stream) {
            it->stream->push(compact(errors.isEmpty() ? QJsonObject() : errors.first().toObject()));
            it->stream->finish();
            continue;
        }
        if (!it->reply)
            continue;
        if (it->batch)
            it->reply(200, QJsonDocument(errors).toJson(QJsonDocument::Compact));
        else
            it->reply(200, compact(errors.isEmpty() ? QJsonObject() : errors.first().toObject()));
    }
    if (m_getStream)
        m_getStream->finish();
    if (!wasClosed)
        emit closed();
}

} // namespace fb::transport
