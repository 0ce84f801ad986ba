#include "notify/WebhookEvents.h"

#include "core/ProposalStore.h"

namespace fb::notify {

using namespace Qt::StringLiterals;

WebhookEvents::Key WebhookEvents::keyOf(const Proposal &proposal)
{
    return {proposal.requestSha256, proposal.sequence};
}

std::optional<WebhookMessage> WebhookEvents::approvalStarted(const Proposal &proposal,
                                                             const QString &channel, qint64 nowMs)
{
    WebhookMessage m = WebhookMessage::of(WebhookEvent::NeedsApproval, proposal, nowMs);
    m.channel = channel;
    return m;
}

std::optional<WebhookMessage> WebhookEvents::approvalFinished(const Proposal &proposal,
                                                              const QString &status, qint64 nowMs)
{
    const Key key = keyOf(proposal);
    if (status == u"accepted") {
        if (m_notApproved.remove(key))
            m_order.removeOne(key);
        return WebhookMessage::of(WebhookEvent::Approved, proposal, nowMs);
    }
    if (!m_notApproved.contains(key)) {
        if (m_order.size() >= MaxOpen)
            m_notApproved.remove(m_order.takeFirst());
        m_order.append(key);
    }
    m_notApproved.insert(key, status);
    return std::nullopt;
}

std::optional<WebhookMessage> WebhookEvents::executionFinished(const Proposal &proposal,
                                                               bool executed,
                                                               const QString &outcome, qint64 nowMs)
{
    const Key key = keyOf(proposal);
    const std::optional<QString> decision = m_notApproved.contains(key)
                                                ? std::optional<QString>(m_notApproved.take(key))
                                                : std::nullopt;
    if (decision)
        m_order.removeOne(key);
    if (executed && (outcome == u"created" || outcome == u"unknown")) {
        WebhookMessage m = WebhookMessage::of(
            outcome == u"created" ? WebhookEvent::Created : WebhookEvent::Unknown, proposal, nowMs);
        m.outcome = outcome;
        return m;
    }
    if (!executed && decision) {
        WebhookMessage m = WebhookMessage::of(WebhookEvent::Denied, proposal, nowMs);
        m.decision = *decision;
        return m;
    }
    return std::nullopt;
}

} // namespace fb::notify
