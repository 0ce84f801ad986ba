// HttpChannel: its event streams. The session's GET stream, the streams of POSTs answered as
// text/event-stream (kept a while after they end, for resumption with Last-Event-ID), and where
// each server-initiated message goes among them.
#include "transport/http/HttpChannel.h"
#include "transport/http/SseStream.h"

#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace fb::transport {

namespace {

QByteArray compact(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

} // namespace

void HttpChannel::setStreamLimits(const SseLimits &limits)
{
    m_limits = std::make_unique<SseLimits>(limits);
}

std::shared_ptr<SseStream> HttpChannel::newStream(bool get)
{
    return std::make_shared<SseStream>((get ? "g" : "p") + QByteArray::number(++m_nextStream),
                                       m_limits ? *m_limits : SseLimits());
}

std::shared_ptr<SseStream> HttpChannel::openGetStream(QString *why)
{
    if (m_getStream && m_getStream->isAttached() && !m_getStream->hasFailed() &&
        !m_getStream->isFinished()) {
        *why = u"Conflict: only one GET stream per session"_s;
        return nullptr;
    }
    if (m_getStream)
        m_getStream->finish();
    m_getStream = isOpen() ? newStream(true) : nullptr;
    if (!m_getStream)
        *why = u"the session ended"_s;
    return m_getStream;
}

std::shared_ptr<SseStream> HttpChannel::resume(const QByteArray &lastEventId, quint64 *epoch,
                                               QString *why)
{
    const auto id = SseStream::parseId(lastEventId.trimmed());
    std::shared_ptr<SseStream> found;
    if (id) {
        QList<std::shared_ptr<SseStream>> all = m_finished;
        all.append(m_getStream);
        for (const Ticket &t : std::as_const(m_tickets))
            all.append(t.stream);
        for (const auto &s : std::as_const(all)) {
            if (s && s->key() == id->first)
                found = s;
        }
    }
    if (!found) {
        *why = u"Last-Event-ID names no event stream of this session"_s;
        return nullptr;
    }
    *epoch = found->attach(id->second, why);
    return *epoch ? found : nullptr;
}

void HttpChannel::keepFinished(const std::shared_ptr<SseStream> &stream)
{
    m_finished.append(stream);
    while (m_finished.size() > 4)
        m_finished.removeFirst();
}

// Where a server-initiated message goes: its request's stream (progress), the stream of the
// latest streamed request still open (log messages, server requests), else the GET stream.
SseStream *HttpChannel::routeFor(const QJsonObject &message)
{
    const QString method = message.value("method"_L1).toString();
    const QJsonValue token = message.value("params"_L1).toObject().value("progressToken"_L1);
    SseStream *latest = nullptr;
    quint64 latestTicket = 0;
    for (auto it = m_tickets.cbegin(); it != m_tickets.cend(); ++it) {
        if (!it->stream || it->listen || it->stream->isFinished() || it->stream->hasFailed())
            continue;
        if (method == "notifications/progress"_L1) {
            if (!token.isUndefined() && it->progressToken == token)
                return it->stream.get();
            continue;
        }
        if (it.key() > latestTicket) {
            latestTicket = it.key();
            latest = it->stream.get();
        }
    }
    if (method == "notifications/progress"_L1)
        return nullptr; // a request answered with JSON: its progress has nowhere to go
    const bool requestBound = message.contains("id"_L1) || method == "notifications/message"_L1;
    if (requestBound && latest)
        return latest;
    if (m_getStream && !m_getStream->isFinished() && !m_getStream->hasFailed())
        return m_getStream.get();
    return nullptr;
}

// A notification of a 2026-07-28 subscriptions/listen: the stream of that request, with the
// client's own id in _meta (the Session knows only the channel's).
bool HttpChannel::routeSubscription(QJsonObject message)
{
    static const QString key = u"io.modelcontextprotocol/subscriptionId"_s;
    QJsonObject params = message.value("params"_L1).toObject();
    QJsonObject meta = params.value("_meta"_L1).toObject();
    const QString internal = meta.value(key).toString();
    const auto pending = internal.isEmpty() ? m_pending.constEnd() : m_pending.constFind(internal);
    if (pending == m_pending.constEnd())
        return false;
    const auto ticket = m_tickets.constFind(pending->ticket);
    if (ticket == m_tickets.constEnd() || !ticket->stream)
        return true; // its POST is gone: nowhere to deliver it
    meta.insert(key, pending->originalId);
    params.insert(u"_meta"_s, meta);
    message.insert(u"params"_s, params);
    ticket->stream->push(compact(message));
    return true;
}

} // namespace fb::transport
