#include "broker/ConfirmState.h"

#include "broker/ResultJson.h"

#include <cstddef>
#include <iterator>

namespace fb {

namespace {

// What a confirm has when it asks the person, both ways between ConfirmState and the
// PendingConfirm of the multi-round-trip.
template <typename From, typename To> void copyAsked(const From &from, To &to)
{
    to.tokenSha256 = from.tokenSha256;
    to.proposal = from.proposal;
    to.request = from.request;
    to.checks = from.checks;
    to.policy = from.policy;
    to.revalidation = from.revalidation;
    to.askedAtMs = from.askedAtMs;
}

} // namespace

QString confirmStageName(ConfirmStage stage)
{
    // In the order of ConfirmStage, which is the order a confirm goes through them.
    static constexpr const char *names[] = {"started",
                                            "consumed",
                                            "policy",
                                            "revalidated",
                                            "asked",
                                            "answered",
                                            "revalidated_before_send",
                                            "sending",
                                            "outcome"};
    static_assert(std::size(names) == static_cast<std::size_t>(ConfirmStage::Outcome) + 1);
    const auto i = static_cast<std::size_t>(stage);
    return i < std::size(names) ? QString::fromLatin1(names[i]) : QString();
}

bool ConfirmState::advance(ConfirmStage next)
{
    if (next <= stage)
        return false;
    stage = next;
    return true;
}

PendingConfirm ConfirmState::toPending(quint64 sessionId, const QJsonObject &client,
                                       qint64 deadlineMs) const
{
    PendingConfirm record;
    copyAsked(*this, record);
    record.sessionId = sessionId;
    record.client = client;
    record.deadlineMs = deadlineMs;
    return record;
}

ConfirmState ConfirmState::fromPending(const PendingConfirm &record)
{
    ConfirmState s;
    copyAsked(record, s);
    s.stage = ConfirmStage::Asked;
    s.reserved = true; // round 1 reserved the price when it asked
    return s;
}

QJsonObject ConfirmState::redemptionRecord(ConsumeOutcome outcome, const QJsonObject &client,
                                           const QString &requestState) const
{
    QJsonObject r{{QStringLiteral("token_sha256"), tokenSha256},
                  {QStringLiteral("outcome"), consumeOutcomeName(outcome)},
                  {QStringLiteral("confirm_checks"), checks.toJson()},
                  {QStringLiteral("request_sha256"), proposal.requestSha256.isEmpty()
                                                         ? QJsonValue()
                                                         : QJsonValue(proposal.requestSha256)},
                  {QStringLiteral("client"), client}};
    if (!requestState.isEmpty())
        r.insert(QStringLiteral("request_state"), requestState);
    return r;
}

QJsonObject ConfirmState::policyRecord(const QString &at) const
{
    return {{QStringLiteral("request_sha256"), proposal.requestSha256},
            {QStringLiteral("stage"), at},
            {QStringLiteral("policy"), policy}};
}

QJsonObject ConfirmState::approvalRequestedRecord(const QString &channel,
                                                  const QJsonObject &client) const
{
    return {{QStringLiteral("request_sha256"), proposal.requestSha256},
            {QStringLiteral("channel"), channel},
            {QStringLiteral("client"), client}};
}

QJsonObject ConfirmState::decisionRecord(const HumanDecision &d, qint64 nowMs,
                                         const QJsonObject &client) const
{
    return {{QStringLiteral("request_sha256"), proposal.requestSha256},
            {QStringLiteral("status"), humanStatusName(d.status)},
            {QStringLiteral("channel"), d.channel},
            {QStringLiteral("detail"), d.detail},
            {QStringLiteral("decision_latency_ms"),
             static_cast<double>(askedAtMs ? nowMs - askedAtMs : 0)},
            {QStringLiteral("client"), client}};
}

QJsonObject ConfirmState::recordRevalidation(const FabricResult &r)
{
    const bool second = revalidatingBeforeSend();
    const QJsonObject run{{QStringLiteral("ran"), true},
                          {QStringLiteral("ok"), r.ok()},
                          {QStringLiteral("fabric_errors"), result::fabricErrorsJson(r)},
                          {QStringLiteral("correlation_id"), r.correlationId}};
    if (second)
        revalidation.insert(QStringLiteral("before_send"), run);
    else
        revalidation = run;
    return {{QStringLiteral("request_sha256"), proposal.requestSha256},
            {QStringLiteral("stage"),
             second ? QStringLiteral("before_send") : QStringLiteral("before_asking")},
            {QStringLiteral("ok"), r.ok()},
            {QStringLiteral("dry_run"), r.toJson()}};
}

QJsonObject ConfirmState::sendingRecord() const
{
    return {{QStringLiteral("request_sha256"), proposal.requestSha256},
            {QStringLiteral("request"), request.toJson()},
            {QStringLiteral("price"), proposal.context.value(QStringLiteral("price"))},
            {QStringLiteral("human_confirmation"), human},
            {QStringLiteral("unconfirmed_execution"), unconfirmed}};
}

} // namespace fb
