// Session: the 2026-07-28 subscriptions/listen request. It stays open (no response) while the
// client listens: the first message is notifications/subscriptions/acknowledged with the filter
// the server honours, then each change it asked for, every one stamped with the subscription id
// (the listen request's id) in _meta. The client ends it with notifications/cancelled (or, over
// HTTP, by closing the stream: the transport cancels it). This server has tools only, so it
// honours toolsListChanged and nothing else.
#include "mcp/Logging.h"
#include "mcp/Protocol.h"
#include "mcp/Session.h"

#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace fb::mcp {

namespace {

constexpr auto SubscriptionIdKey = "io.modelcontextprotocol/subscriptionId"_L1;
constexpr int MaxListens = 64; // per session: each holds a stream open

} // namespace

void Session::handleListen(const QJsonValue &id, const QJsonObject &params, const BatchPtr &batch)
{
    const QJsonValue filter = params.value("notifications"_L1);
    if (!filter.isObject()) {
        respondError(id, protocol::InvalidParams,
                     u"Invalid params: subscriptions/listen needs a \"notifications\" object"_s,
                     batch);
        return;
    }
    if (batch) {
        respondError(id, protocol::InvalidRequest,
                     u"Invalid Request: subscriptions/listen cannot be batched"_s, batch);
        return;
    }
    const QString key = protocol::idKey(id);
    if (m_listens.contains(key)) {
        respondError(id, protocol::InvalidRequest,
                     u"Invalid Request: a subscription with this id is already open"_s, batch);
        return;
    }
    if (m_listens.size() >= MaxListens) {
        respondError(id, protocol::InternalError,
                     u"Too many open subscriptions on this session (at most %1)"_s.arg(MaxListens),
                     batch);
        return;
    }
    const QJsonValue tools = filter.toObject().value("toolsListChanged"_L1);
    QJsonObject honoured;
    if (tools == QJsonValue(true)) {
        honoured.insert(u"toolsListChanged"_s, true);
        m_listens.insert(key, id);
    }
    qCInfo(lcMcpSession) << "session" << this->id() << "subscriptions/listen" << id
                         << "tools list changes:" << honoured.contains("toolsListChanged"_L1);
    sendNotification(u"notifications/subscriptions/acknowledged"_s,
                     QJsonObject{{u"_meta"_s, QJsonObject{{SubscriptionIdKey, id}}},
                                 {u"notifications"_s, honoured}});
    if (honoured.isEmpty()) {
        // Nothing this server can deliver: the subscription ends at once, gracefully.
        respond(id,
                QJsonObject{{u"resultType"_s, u"complete"_s},
                            {u"_meta"_s, QJsonObject{{SubscriptionIdKey, id}}}},
                batch);
    }
}

bool Session::endListen(const QJsonValue &requestId)
{
    if (!m_listens.remove(protocol::idKey(requestId)))
        return false;
    if (!m_ops.empty())
        endOperation(requestId, QString());
    qCInfo(lcMcpSession) << "session" << id() << "subscription ended by the client" << requestId;
    return true;
}

void Session::notifyListeners(const QString &method)
{
    for (const QJsonValue &subscription : std::as_const(m_listens))
        sendNotification(method,
                         QJsonObject{{u"_meta"_s, QJsonObject{{SubscriptionIdKey, subscription}}}});
}

} // namespace fb::mcp
