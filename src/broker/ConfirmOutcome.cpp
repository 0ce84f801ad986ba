#include "broker/ConfirmOutcome.h"

#include "broker/ProposalView.h"
#include "broker/ResultJson.h"
#include "core/NameTable.h"

#include <QJsonDocument>

namespace fb {

namespace {

QString nameFromSpec(const Proposal &proposal)
{
    return proposal.spec.value(QStringLiteral("name")).toString();
}

QString searchToolName(ChangeType type)
{
    static constexpr EnumName<ChangeType> kSearchTools[] = {
        {ChangeType::ConnectionCreate, u"fabric_search_connections"},
        {ChangeType::NetworkCreate, u"fabric_search_networks"},
        {ChangeType::ServiceTokenCreate, u"fabric_search_service_tokens"},
    };
    return nameOf(kSearchTools, type);
}

// The catalog call that finds the resource by name: {"name": ...} for the search tool.
QJsonObject lookupArguments(const Proposal &proposal)
{
    const QString name = nameFromSpec(proposal);
    if (name.isEmpty())
        return QJsonObject{{QStringLiteral("limit"), 20}};
    return QJsonObject{{QStringLiteral("name"), name}};
}

QString notApprovedMessage(const HumanDecision &d, int elicitTimeoutMs, qint64 expiresAtMs)
{
    // A team's wait ends at the proposal's expiry, not at the elicitation timeout.
    if (d.status == HumanStatus::TimedOut && d.channel == u"team")
        return QStringLiteral("The team did not approve before the proposal expired at %1 (%2). "
                              "Nothing was created. Propose again when the approvers are "
                              "available.")
            .arg(ProposalView::isoTime(expiresAtMs), d.detail.left(300));
    switch (d.status) {
    case HumanStatus::Declined:
        return QStringLiteral("The person declined. Nothing was created. Do not retry "
                              "unless the user asks; a new attempt needs a new proposal.");
    case HumanStatus::Cancelled:
        return QStringLiteral("The person dismissed the approval prompt. Nothing was "
                              "created. Propose again if the user still wants it.");
    case HumanStatus::TimedOut:
        return QStringLiteral("No answer from a person within %1 ms. Nothing was "
                              "created. Propose again when the user is available.")
            .arg(elicitTimeoutMs);
    case HumanStatus::Failed:
        return QStringLiteral("The approval round trip failed (%1). Nothing was created.")
            .arg(d.detail);
    case HumanStatus::CallCancelled:
        return QStringLiteral("The tool call was cancelled before anything was sent. "
                              "Nothing was created.");
    case HumanStatus::UnsupportedByClient:
        return QStringLiteral(
            "This MCP client did not declare form elicitation, so no person could be asked "
            "and nothing was created. Use a client that supports elicitation, or the Fabric "
            "Broker desktop app.");
    case HumanStatus::Accepted:
        break;
    }
    return {};
}

} // namespace

QJsonObject humanConfirmationJson(const QString &status, const QString &channel,
                                  const QString &detail)
{
    QJsonObject o{{QStringLiteral("status"), status},
                  {QStringLiteral("channel"), channel.isEmpty() ? QJsonValue() : channel}};
    if (!detail.isEmpty())
        o.insert(QStringLiteral("detail"), detail);
    return o;
}

AnswerStep afterAnswer(const HumanDecision &decision, qint64 nowMs, qint64 expiresAtMs,
                       bool allowUnconfirmed, int elicitTimeoutMs)
{
    AnswerStep step;
    step.human =
        humanConfirmationJson(humanStatusName(decision.status), decision.channel, decision.detail);
    if (decision.status == HumanStatus::Accepted) {
        // The TTL is re-checked when the answer arrives.
        if (nowMs >= expiresAtMs) {
            step.next = AfterAnswer::ExpiredDuringApproval;
            step.expired = true;
            step.reason = QStringLiteral("expired_during_approval");
            step.message =
                QStringLiteral("The person approved, but only after the proposal expired at "
                               "%1. Nothing was sent. Propose the change again.")
                    .arg(ProposalView::isoTime(expiresAtMs));
            return step;
        }
        step.next = AfterAnswer::Send;
        return step;
    }
    if (decision.status == HumanStatus::UnsupportedByClient && allowUnconfirmed) {
        step.next = AfterAnswer::SendUnconfirmed;
        return step;
    }
    step.next = AfterAnswer::NotApproved;
    step.reason = QStringLiteral("not_approved");
    step.message = notApprovedMessage(decision, elicitTimeoutMs, expiresAtMs);
    return step;
}

TokenError tokenError(ConsumeOutcome outcome, const Proposal &proposal, int maxPending)
{
    switch (outcome) {
    case ConsumeOutcome::Unknown:
        return {QStringLiteral("unknown_token"),
                QStringLiteral("Unknown confirm token: this process holds no such proposal "
                               "(tokens live in memory and do not survive a restart). "
                               "Propose the change again to get a new token.")};
    case ConsumeOutcome::Evicted:
        return {QStringLiteral("evicted_token"),
                QStringLiteral("This proposal was evicted because %1. Propose the change "
                               "again.")
                    .arg(proposal.evictedBecause.isEmpty()
                             ? QStringLiteral("more than %1 proposals were pending").arg(maxPending)
                             : proposal.evictedBecause)};
    case ConsumeOutcome::Expired:
        return {QStringLiteral("expired_token"),
                QStringLiteral("This proposal expired at %1. Propose the change again; "
                               "Fabric's dry run will re-validate it.")
                    .arg(ProposalView::isoTime(proposal.expiresAtMs))};
    case ConsumeOutcome::PreviouslyUsed:
        return {QStringLiteral("replayed_token"),
                QStringLiteral("This confirm token was already used: tokens are single-use, "
                               "consumed on the first attempt whatever its outcome. Propose "
                               "the change again if it is still wanted.")};
    case ConsumeOutcome::Consumed:
        break;
    }
    return {};
}

ExecutionReport executionReport(const FabricResult &r, const Proposal &proposal,
                                const QString &endReason, bool unconfirmed)
{
    ExecutionReport out;
    QJsonObject &execution = out.execution;
    execution = QJsonObject{{QStringLiteral("correlation_id"), r.correlationId},
                            {QStringLiteral("http_status"), r.httpStatus}};
    const CreateOutcome verdict = createOutcome(r);
    if (verdict == CreateOutcome::Created) {
        out.outcome = QStringLiteral("created");
        const QJsonObject entity = r.body.toObject();
        execution.insert(QStringLiteral("entity"), entity);
        execution.insert(QStringLiteral("uuid"), entity.value(QStringLiteral("uuid")));
        out.message = QStringLiteral("Created %1 %2: %3")
                          .arg(changeTypeNoun(proposal.changeType),
                               entity.value(QStringLiteral("uuid")).toString(), proposal.target);
    } else if (verdict == CreateOutcome::NotSent) {
        out.outcome = QStringLiteral("not_sent");
        if (!endReason.isEmpty())
            out.message = QStringLiteral("The create was stopped before any of it was sent to "
                                         "Fabric (%1). Nothing was created; the token is used "
                                         "up, so propose again if it is still wanted.")
                              .arg(endReason);
        else
            out.message = QStringLiteral("The create could not be sent (%1). Nothing was "
                                         "created; the token is used up, so propose again.")
                              .arg(r.message);
    } else if (verdict == CreateOutcome::Unknown) {
        out.outcome = QStringLiteral("unknown");
        const QJsonObject lookupArgs = lookupArguments(proposal);
        const QString tool = searchToolName(proposal.changeType);
        const QString lookupCall =
            tool + u' ' +
            QString::fromUtf8(QJsonDocument(lookupArgs).toJson(QJsonDocument::Compact));
        out.message =
            QStringLiteral("The create was sent but its outcome is unknown (%1%2). It "
                           "was NOT retried and Fabric may have created it. Before "
                           "proposing again, call %3 and check whether it exists "
                           "(correlation id %4).")
                .arg(r.message,
                     endReason.isEmpty() ? QString() : QString(QStringLiteral("; ") + endReason),
                     lookupCall, r.correlationId);
        execution.insert(QStringLiteral("lookup"),
                         QJsonObject{{QStringLiteral("name"), nameFromSpec(proposal)},
                                     {QStringLiteral("search_tool"), tool},
                                     {QStringLiteral("arguments"), lookupArgs},
                                     {QStringLiteral("correlation_id"), r.correlationId}});
    } else {
        out.outcome = QStringLiteral("rejected");
        out.message =
            QStringLiteral("Fabric rejected the create: %1. It was not retried.").arg(r.message);
        execution.insert(QStringLiteral("fabric_errors"), result::fabricErrorsJson(r));
    }
    execution.insert(QStringLiteral("outcome"), out.outcome);
    execution.insert(QStringLiteral("message"), r.message);
    if (unconfirmed)
        out.message =
            QStringLiteral("WARNING: executed WITHOUT human confirmation because the "
                           "operator set EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS=true. ") +
            out.message;
    if (!endReason.isEmpty())
        execution.insert(QStringLiteral("reason"), endReason);

    out.executed = r.requestSent;
    out.record = QJsonObject{{QStringLiteral("request_sha256"), proposal.requestSha256},
                             {QStringLiteral("sent"), out.executed},
                             {QStringLiteral("outcome"), out.outcome},
                             {QStringLiteral("uuid"), execution.value(QStringLiteral("uuid"))},
                             {QStringLiteral("correlation_id"), r.correlationId},
                             {QStringLiteral("fabric"), r.toJson()}};
    if (!endReason.isEmpty())
        out.record.insert(QStringLiteral("reason"), endReason);
    return out;
}

QJsonObject ConfirmOutcome::notSentExecution(const QString &reason)
{
    QJsonObject execution{{QStringLiteral("outcome"), QStringLiteral("not_sent")}};
    if (!reason.isEmpty())
        execution.insert(QStringLiteral("reason"), reason);
    return execution;
}

QJsonObject ConfirmOutcome::toJson() const
{
    QJsonObject structured{{QStringLiteral("confirm_checks"), checks.toJson()},
                           {QStringLiteral("human_confirmation"), human},
                           {QStringLiteral("executed"), executed},
                           {QStringLiteral("execution"), execution},
                           {QStringLiteral("message"), message}};
    const QString failed = checks.firstFailure();
    structured.insert(QStringLiteral("failed_check"), failed.isEmpty() ? QJsonValue() : failed);
    if (!proposal.token.isEmpty()) {
        structured.insert(QStringLiteral("change_type"), changeTypeName(proposal.changeType));
        structured.insert(QStringLiteral("target"), proposal.target);
        structured.insert(QStringLiteral("request_sha256"), proposal.requestSha256);
    }
    if (unconfirmed)
        structured.insert(QStringLiteral("unconfirmed_execution"), true);
    structured.insert(QStringLiteral("policy"), policy.isObject() ? policy : QJsonValue());
    structured.insert(
        QStringLiteral("revalidation"),
        !revalidation.isEmpty()
            ? revalidation
            : QJsonObject{{QStringLiteral("ran"), false},
                          {QStringLiteral("reason"),
                           QStringLiteral("not needed: the confirm stopped before it")}});
    if (!team.isEmpty())
        structured.insert(QStringLiteral("team"), team);
    return structured;
}

} // namespace fb
