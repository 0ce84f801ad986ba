#pragma once
// BrokerEvents: the signals the GUI follows, declared once. BrokerContext emits them; the
// MutationBroker facade, which owns the context, forwards them as its own.
#include "broker/ConfirmState.h"
#include "core/AuditEvent.h"
#include "core/ProposalStore.h"

#include <QJsonObject>
#include <QObject>
#include <QString>

namespace fb {

class BrokerEvents : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

signals:
    // Every step worth an audit record, emitted synchronously *before* the step's effect
    // proceeds, so a durable audit writer connected directly holds up the create until its
    // "approved"/"sending" record is on disk. type: proposed, propose_failed, redemption,
    // approval_requested, decision, sending, executed.
    void auditEvent(fb::AuditEventType type, const QJsonObject &record);
    // For the GUI: the confirm flow's progress for one proposal (by request hash).
    void approvalStarted(const fb::Proposal &proposal, const QString &channel);
    void approvalFinished(const fb::Proposal &proposal, const QString &status);
    void executionFinished(const fb::Proposal &proposal, bool executed, const QString &outcome);
    // createsInFlight() changed; emitted after the "executed" record was written.
    void createsInFlightChanged(int count);
    // A confirm entered a stage (ConfirmState), by request hash (empty when the confirm named no
    // known proposal).
    void confirmStage(const QString &requestSha256, fb::ConfirmStage stage);
};

// Forwards every signal of `from` as the same signal of `to`.
void forwardBrokerEvents(const BrokerEvents *from, BrokerEvents *to);

} // namespace fb
