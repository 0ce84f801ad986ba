#pragma once
// ConfirmState: the record of one fabric_confirm_change as it moves through its stages, and the
// one place its audit records are built. Stages only move forward:
//
//   consumed -> policy -> revalidated -> asked -> answered -> revalidated_before_send
//            -> sending -> outcome
//
// Any stage may jump to outcome (a refusal); revalidated_before_send is skipped when the person
// answered within revalidate_before_send_after_ms. No I/O, no clock: ConfirmOperation drives it.
#include "broker/Approver.h"
#include "broker/ConfirmStateStore.h"
#include "core/CompiledRequest.h"
#include "core/ProposalStore.h"
#include "fabric/FabricResult.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace fb {

enum class ConfirmStage {
    Started,               // the call arrived; no token consumed yet
    Consumed,              // the token was consumed (whatever the store answered)
    Policy,                // the binding held and the operator policy was evaluated
    Revalidated,           // Fabric's dry run ran again before anyone was asked
    Asked,                 // a person is being asked
    Answered,              // the person's answer (or its absence) is in
    RevalidatedBeforeSend, // the dry run ran again after a slow answer
    Sending,               // the "sending" record is durable and the create is on its way
    Outcome,               // the result is decided; nothing more happens
};
// "started", "consumed", "policy", "revalidated", "asked", "answered",
// "revalidated_before_send", "sending", "outcome".
QString confirmStageName(ConfirmStage stage);

struct ConfirmState {
    ConfirmStage stage = ConfirmStage::Started;
    QString tokenSha256;  // tokenDigest() of the consumed token
    ConfirmChecks checks; // the seed's five predicates
    Proposal proposal;
    CompiledRequest request;
    QJsonValue policy;        // PolicyVerdict::toJson() once evaluated, null before
    QJsonObject revalidation; // {ran, ok, fabric_errors, correlation_id, before_send {...}}
    qint64 askedAtMs = 0;
    QJsonObject human; // human_confirmation once answered
    bool unconfirmed = false;
    QString endReason;     // why the create was cut short (cancel, shutdown)
    bool reserved = false; // this confirm holds a reservation in the spend ledger

    // Moves to `next` when it is later than the current stage; false (and no change) otherwise.
    bool advance(ConfirmStage next);
    bool answered() const { return stage >= ConfirmStage::Answered; }
    // The dry run that is running now is the second one (after the answer).
    bool revalidatingBeforeSend() const { return stage >= ConfirmStage::Answered; }

    // The MRTR record of a confirm waiting for the person, and back.
    PendingConfirm toPending(quint64 sessionId, const QJsonObject &client, qint64 deadlineMs) const;
    static ConfirmState fromPending(const PendingConfirm &record);

    // The audit records, all built here.
    QJsonObject redemptionRecord(ConsumeOutcome outcome, const QJsonObject &client,
                                 const QString &requestState = {}) const;
    // stage: "confirm" (before the dry run), "before_asking" or "before_send" (the daily
    // limit checked again with reservations).
    QJsonObject policyRecord(const QString &at = QStringLiteral("confirm")) const;
    QJsonObject approvalRequestedRecord(const QString &channel, const QJsonObject &client) const;
    QJsonObject decisionRecord(const HumanDecision &d, qint64 nowMs,
                               const QJsonObject &client) const;
    // Also stores the run in revalidation (before_send when it is the second one).
    QJsonObject recordRevalidation(const FabricResult &r);
    QJsonObject sendingRecord() const;
};

} // namespace fb
