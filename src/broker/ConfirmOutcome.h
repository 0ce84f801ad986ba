#pragma once
// ConfirmOutcome: the pure part of fabric_confirm_change. It turns the checks (the seed's five
// confirm_checks plus the broker's own: policy, re-validation, unconfirmed execution), the
// person's answer and the create's result into the result an agent gets, following the seed's
// table "fabric_confirm_change by client capability and answer". No I/O, no clock, no state.
#include "broker/Approver.h"
#include "core/ProposalStore.h"
#include "fabric/FabricResult.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace fb {

// human_confirmation {status, channel (null when none), detail (when any)}.
QJsonObject humanConfirmationJson(const QString &status, const QString &channel,
                                  const QString &detail = {});

// What follows a person's answer.
enum class AfterAnswer {
    Send,                  // accepted within the TTL
    SendUnconfirmed,       // nobody could be asked and the operator opted in to send anyway
    ExpiredDuringApproval, // accepted, but after the proposal's TTL: nothing is sent
    NotApproved,           // any other answer: nothing is sent
};

struct AnswerStep {
    AfterAnswer next = AfterAnswer::NotApproved;
    QJsonObject human;    // human_confirmation
    bool expired = false; // the TTL had passed when the answer came (not_expired = false)
    QString reason;       // execution.reason when nothing is sent
    QString message;      // the result message when nothing is sent
};
// The seed's table: the answer, the time it came (nowMs against the proposal's expiresAtMs) and
// EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS decide whether the create is sent.
AnswerStep afterAnswer(const HumanDecision &decision, qint64 nowMs, qint64 expiresAtMs,
                       bool allowUnconfirmed, int elicitTimeoutMs);

// The kind and message of a token the store refused (unknown, evicted, expired, replayed).
struct TokenError {
    QString kind;
    QString message;
};
TokenError tokenError(ConsumeOutcome outcome, const Proposal &proposal, int maxPending);

// What the real create's result says: execution {outcome, ...}, the message and the
// "executed" audit record. endReason: why the create was cut short (cancel, shutdown), if it was.
struct ExecutionReport {
    bool executed = false; // the request bytes left this process
    QString outcome;       // created, not_sent, unknown, rejected
    QString message;
    QJsonObject execution;
    QJsonObject record;
};
ExecutionReport executionReport(const FabricResult &r, const Proposal &proposal,
                                const QString &endReason, bool unconfirmed);

// Everything one confirm result carries.
struct ConfirmOutcome {
    ConfirmChecks checks; // the seed's five predicates
    QJsonObject human;    // human_confirmation
    bool executed = false;
    QJsonObject execution;
    QString message;
    bool isError = true;
    // The broker's own additions.
    Proposal proposal;        // change_type, target, request_sha256 when the token named one
    bool unconfirmed = false; // unconfirmed_execution
    QJsonValue policy;        // PolicyVerdict::toJson(), null when the policy was not evaluated
    QJsonObject revalidation; // {ran, ok, fabric_errors, before_send}, empty when none ran
    // Team mode: {proposal_id, required, approvals[], not_counted[], denied_by,
    // proposer_acknowledged}; empty (absent from the result) in single-user mode.
    QJsonObject team;

    // execution for a confirm that sent nothing: {outcome: "not_sent", reason}.
    static QJsonObject notSentExecution(const QString &reason);
    // The structuredContent of the result.
    QJsonObject toJson() const;
};

} // namespace fb
