// Session, the server-to-client requests: sending them (ping, elicitation/create), routing the
// client's replies, timeouts and cancellation. The table itself is ClientRequestTable; every
// request leaves it through ClientRequestTable::finish.
#include "mcp/ClientRequests.h"
#include "mcp/Logging.h"
#include "mcp/Session.h"

#include <QCoreApplication>
#include <QTimer>

using namespace Qt::StringLiterals;

namespace fb::mcp {

namespace {

void notSentLater(std::function<void(const ClientReply &)> callback, const QString &why)
{
    ClientReply reply;
    reply.status = ClientReply::Status::NotSent;
    reply.message = why;
    QTimer::singleShot(0, QCoreApplication::instance(), [cb = std::move(callback), reply] {
        if (cb)
            cb(reply);
    });
}

} // namespace

void Session::handleClientResponse(const QJsonObject &message)
{
    const QJsonValue idValue = message.value("id"_L1);
    const qint64 rid = idValue.isDouble() ? idValue.toInteger(-1) : -1;
    if (!m_clientRequests->contains(rid)) {
        qCInfo(lcMcpSession) << "session" << id() << "ignoring a reply to unknown request"
                             << idValue;
        return;
    }
    ClientReply reply;
    if (message.contains("error"_L1)) {
        reply.status = ClientReply::Status::Error;
        reply.error = message.value("error"_L1).toObject();
        reply.message = reply.error.value("message"_L1).toString();
    } else {
        reply.status = ClientReply::Status::Result;
        reply.result = message.value("result"_L1).toObject();
    }
    m_clientRequests->finish(rid, reply);
}

qint64 Session::sendClientRequest(const QString &method, const QJsonObject &params, int timeoutMs,
                                  std::function<void(const ClientReply &)> callback,
                                  ToolCall *owner)
{
    if (m_closed) {
        notSentLater(std::move(callback), u"The session has ended"_s);
        return 0;
    }
    if (m_modernSeen && !m_initializeAnswered) {
        notSentLater(std::move(callback),
                     u"In the 2026-07-28 era the server sends no requests to the client"_s);
        return 0;
    }
    if (method != "ping"_L1 && !m_client.initialized) {
        notSentLater(std::move(callback), u"The session is not initialized"_s);
        return 0;
    }
    if (method == "elicitation/create"_L1) {
        if (m_client.protocolVersion < u"2025-06-18"_s) {
            notSentLater(std::move(callback),
                         u"Elicitation needs protocol version 2025-06-18 or later (session uses "
                         "%1)"_s.arg(m_client.protocolVersion));
            return 0;
        }
        if (!m_client.supportsFormElicitation()) {
            notSentLater(std::move(callback),
                         u"The client did not declare the elicitation capability"_s);
            return 0;
        }
    }
    const qint64 rid = m_clientRequests->add(method, timeoutMs, std::move(callback), owner);
    QJsonObject message{{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, rid}, {u"method"_s, method}};
    if (!params.isEmpty() || method != "ping"_L1)
        message.insert(u"params"_s, params);
    writeMessage(message);
    return rid;
}

qint64 Session::ping(int timeoutMs, std::function<void(const ClientReply &)> callback)
{
    return sendClientRequest(u"ping"_s, QJsonObject(), timeoutMs, std::move(callback));
}

void Session::onClientRequestTimeout(qint64 rid, int timeoutMs)
{
    if (m_closed || !m_clientRequests->contains(rid))
        return;
    const QString reason = u"Request timed out after %1 ms"_s.arg(timeoutMs);
    qCInfo(lcMcpSession) << "session" << id() << m_clientRequests->method(rid) << rid
                         << "timed out";
    sendNotification(u"notifications/cancelled"_s,
                     QJsonObject{{u"requestId"_s, rid}, {u"reason"_s, reason}});
    ClientReply reply;
    reply.status = ClientReply::Status::Timeout;
    reply.message = reason;
    m_clientRequests->finish(rid, reply);
}

void Session::cancelClientRequest(qint64 rid, const QString &reason)
{
    // After close every request ends with SessionClosed (see close()).
    if (m_closed || !m_clientRequests->contains(rid))
        return;
    QJsonObject params{{u"requestId"_s, rid}};
    if (!reason.isEmpty())
        params.insert(u"reason"_s, reason);
    sendNotification(u"notifications/cancelled"_s, params);
    ClientReply reply;
    reply.status = ClientReply::Status::Cancelled;
    reply.message = reason.isEmpty() ? u"Cancelled by the server"_s : reason;
    m_clientRequests->finish(rid, reply);
}

void Session::cancelClientRequestOf(const ToolCall *owner, qint64 rid, const QString &reason)
{
    if (m_clientRequests->isOwnedBy(rid, owner))
        cancelClientRequest(rid, reason);
}

void Session::cancelClientRequestsOf(const ToolCall *owner, const QString &reason)
{
    for (qint64 rid : m_clientRequests->ids(owner))
        cancelClientRequest(rid, reason);
}

int Session::pendingClientRequests() const
{
    return m_clientRequests->size();
}

} // namespace fb::mcp
