#pragma once
// WebhookEvents: which webhook event each step of a confirm is (docs/notify.md). Fed the
// broker's signals for one process (BrokerEvents: approvalStarted, approvalFinished,
// executionFinished), it answers the message to send, if any:
//
//   approvalStarted                              needs_approval (with the channel)
//   approvalFinished "accepted"                  approved
//   approvalFinished anything else, then
//     executionFinished with nothing sent        denied (with that status as the decision)
//   executionFinished sent, "created"            created
//   executionFinished sent, "unknown"            unknown
//
// A decision other than "accepted" waits for the execution: with unconfirmed execution allowed
// for the session, "unsupported_by_client" is followed by a create, and a "denied" before it
// would be false. Every other step (a rejected create, a token error, a policy refusal) sends
// nothing. Pure; at most MaxOpen decisions wait at once (the oldest is forgotten).
#include "notify/WebhookBody.h"

#include <QHash>
#include <QList>
#include <QPair>
#include <QString>
#include <optional>

namespace fb {
struct Proposal;
}

namespace fb::notify {

class WebhookEvents {
public:
    static constexpr int MaxOpen = 256;

    std::optional<WebhookMessage> approvalStarted(const Proposal &proposal, const QString &channel,
                                                  qint64 nowMs);
    std::optional<WebhookMessage> approvalFinished(const Proposal &proposal, const QString &status,
                                                   qint64 nowMs);
    std::optional<WebhookMessage> executionFinished(const Proposal &proposal, bool executed,
                                                    const QString &outcome, qint64 nowMs);
    int open() const { return int(m_order.size()); }

private:
    using Key = QPair<QString, quint64>; // request SHA-256, the store's sequence
    static Key keyOf(const Proposal &proposal);
    QHash<Key, QString> m_notApproved; // the decision, until the execution ends
    QList<Key> m_order;
};

} // namespace fb::notify
