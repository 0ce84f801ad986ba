#pragma once
// TeamConfirmFlow: the team-mode part of one fabric_confirm_change (docs/team.md, "The flow"),
// owned by its ConfirmOperation, which keeps the seed's flow and hands these steps over:
//
//   consume()    the token consumed in the team's database too (one atomic UPDATE ... WHERE
//                state = 'pending' RETURNING) and the confirm_checks evaluated against the row
//   ask()        the person is the team: the quorum of distinct approvers other than the
//                proposer, through their native dialogs (team::TeamConfirm); the MCP client's
//                elicitation, when the client has it, is only the proposer's acknowledgement:
//                shown, never counted
//   beginSend()  `sending` committed in the database (with the team's day) before a byte leaves
//   finish()     the create's outcome written back to the row, once
//   end()        at the result: the team's part of it; a consumed row that will not be sent is
//                cancelled
//
// Each step that waits completes exactly once, through its callback, and only while this object
// lives (it is the operation's child: the callbacks never outlive the operation).
#include "broker/BrokerContext.h"
#include "broker/ConfirmOutcome.h"
#include "team/TeamConfirm.h"

#include <QJsonObject>
#include <QObject>
#include <QPointer>

#include <functional>
#include <optional>

namespace fb {

namespace mcp {
class ToolCall;
}

class TeamConfirmFlow : public QObject {
    Q_OBJECT
public:
    TeamConfirmFlow(BrokerContext *context, mcp::ToolCall *call, QObject *parent = nullptr);

    // How a step ends the confirm with nothing sent: a refusal (kind and message of the
    // not-executed result), or (error) the broker is gone and the call ends with message.
    struct Stop {
        bool error = false;
        QString kind;
        QString message;
    };

    // The token's row consumed in the team's database (after the first connect settled, within
    // TeamProposeStep::SettleWaitMs) and checked against this broker's proposal. done gets
    // the confirm_checks as the row leaves them and, unless the row holds, why it stops.
    using Consumed = std::function<void(const ConfirmChecks &checks, const std::optional<Stop> &)>;
    void consume(const QString &tokenSha256, const Proposal &proposal, const ConfirmChecks &checks,
                 Consumed done);
    // consume()'s second half, on the database's reply: the row must exist, have been consumed
    // by this attempt, be the row this broker published for this token (with the expiry it asked
    // for), and agree with proposal and this broker's role while approver keys are set. Clears
    // the check that fails in checks; nullopt: the row holds (then hasRow()).
    std::optional<Stop> checkReply(const team::TeamConsumeReply &reply, const QString &tokenSha256,
                                   const Proposal &proposal, ConfirmChecks &checks);
    // A row was consumed for this confirm (consume() got that far): the team decides.
    bool hasRow() const { return m_row.has_value(); }

    // The quorum awaited: decided gets the team's verdict as a person's answer, once. ask()
    // wires it (askedAtMs: when the approval was requested); startWaiting() then reads the
    // decisions and asks the MCP client for the proposer's acknowledgement.
    void ask(const Proposal &proposal, const CompiledRequest &request, qint64 askedAtMs,
             std::function<void(const HumanDecision &)> decided);
    void startWaiting();
    // What the keep-alive says while the quorum is awaited (waitingTextChanged: the policy
    // changed the quorum).
    QString waitingText() const;
    // While the quorum is awaited (not decided yet): approvals that count and approvals
    // required, for fabric_broker.team.quorum.* (docs/observability.md).
    struct QuorumProgress {
        QString requestSha256;
        int counted = 0;
        int required = 0;
    };
    std::optional<QuorumProgress> quorumProgress() const;

    // Asked, and `sending` not committed yet: execute() goes through beginSend() first.
    bool needsSendCommit() const { return m_confirm && !m_sendCommitted; }
    // Commits consumed -> sending with the policy as it is now (a key revoked or a quorum raised
    // since the wait began counts) and the team's day. done: nullopt, the create may go.
    void beginSend(const Proposal &proposal, std::function<void(const std::optional<Stop> &)> done);
    // The create's outcome (created | failed | unknown) into the team's row, once; then (when
    // given) runs then. False when there was nothing to write (then is not run).
    bool finish(const QString &outcome, std::function<void()> then = {});
    // The client cancelled the call: a quorum still awaited is withdrawn.
    void cancel(const QString &reason);
    // At the result: the team's part of it, and a consumed row that will not be sent cancelled.
    // createInFlight: the create was sent and its outcome will be written by finish().
    void end(ConfirmOutcome &outcome, bool createInFlight);

    // The progress message of the wait: "1 of 2 team approvals", and when no approver is
    // connected to the team database, that nobody may see the proposal now.
    static QString teamProgressText(const team::QuorumCount &count);

signals:
    void waitingTextChanged(const QString &text);

private:
    // done with the checks as checkReply() leaves them.
    void answer(const team::TeamConsumeReply &reply, const QString &tokenSha256,
                const Proposal &proposal, ConfirmChecks checks, const Consumed &done);
    QString teamWaitingText(int required) const;
    void quorumDecided(team::TeamConfirm::Verdict verdict, const QString &reason);
    void askProposer();

    QPointer<BrokerContext> m_context;
    QPointer<mcp::ToolCall> m_call;
    std::optional<team::TeamProposal> m_row; // the consumed row
    QPointer<team::TeamConfirm> m_confirm;
    Proposal m_proposal; // as asked
    CompiledRequest m_request;
    qint64 m_askedAtMs = 0;
    int m_required = 0;
    std::function<void(const HumanDecision &)> m_decided;
    QJsonObject m_team; // the result's "team"
    bool m_sendCommitted = false;
    bool m_finished = false;
};

} // namespace fb
