#pragma once
// TeamConfirm: one confirm of a consumed team proposal on the proposing broker (docs/team.md,
// "The queue"): waits for the quorum, then commits `sending` before the caller sends a byte, then
// records the outcome. The five confirm_checks are the caller's, evaluated against the consumed
// row before start(); nothing here changes them.
//
//   start()      reads the decisions; again on every wake-up (NOTIFY) and reconnect
//   decided()    exactly once: met (the caller may send), or denied / expired / unreachable
//   beginSend()  commits consumed -> sending; its callback says whether the caller may send
//   finish()     sending -> created | failed
//
// The database unreachable while waiting does not end it: the wait goes on (the proposal is held,
// so no recovery cancels it) and the decisions are read again on reconnect, until the TTL. A read
// that fails on a live connection ends it ("unreachable", nothing sent). Never a retry: a send
// that began and has no outcome stays `sending` until a recovery makes it `unknown`.
#include "core/TeamPolicy.h"
#include "team/TeamQueue.h"

#include <QObject>
#include <QPointer>
#include <QTimer>

namespace fb::team {

class TeamConfirm : public QObject {
    Q_OBJECT
public:
    enum class Verdict { Met, Denied, Expired, Unreachable };
    Q_ENUM(Verdict)

    TeamConfirm(TeamQueue *queue, const TeamProposal &consumed, int required,
                QObject *parent = nullptr);
    ~TeamConfirm() override;

    // Signed approvals (docs/team-signing.md): with keys set (the effective policy's
    // team.approver_keys, even an empty list), an approval counts only when its signed statement
    // verifies against a key listed for its role and names exactly this proposal; each one that
    // does not is reported once (approvalRejected, and the team audit chain). Before start().
    // Without keys (nullopt) no approval counts: an unsigned approval never does (issue #34).
    // Set again right before sending, with the policy as it is then (a revoked key or a raised
    // quorum reaches confirms already waiting).
    void setApproverKeys(const std::optional<QList<ApproverKey>> &keys) { m_keys = keys; }
    void setRequired(int required);
    // The policy changed while waiting: these keys and this quorum from now on, and the
    // approvals are counted again at once (a revoked key's approval stops counting, a raised
    // quorum waits for more).
    void adoptPolicy(const std::optional<QList<ApproverKey>> &keys, int required);

    // Past the expiry, the row is read again every ExpiryRecheckMs until the database says it
    // expired, and never longer than MaxClockSkewMs: then it ends Expired whatever the row says.
    static constexpr int ExpiryRecheckMs = 250;
    static constexpr qint64 MaxClockSkewMs = 5000;
    // While waiting, the decisions and who could act are read again this often even without a
    // wake-up (an approver's app that connects sends none).
    static constexpr int PresenceRecheckMs = 10000;

    void start();
    // The MCP client's elicitation said "accept": the proposer's acknowledgement, shown in the
    // result, never counted toward the quorum.
    void proposerAcknowledged();
    // The proposer withdrew (its client declined, the call was cancelled): consumed -> cancelled,
    // decided Denied with reason.
    void withdraw(const QString &reason);
    // With signed approvals, the approvals are read and verified once more first: a statement
    // changed or a row replaced since the quorum was met stops the send.
    void beginSend(std::function<void(bool mayProceed, const QString &reason)> done);
    // The same, with the team's day: refused when this create would take the team's creates of
    // the last 24 hours above dayLimit (fabric_team.begin_send, one transaction).
    void beginSend(const std::optional<Money> &dayLimit,
                   std::function<void(bool mayProceed, const QString &reason)> done);
    void finish(bool created, std::function<void(bool recorded)> done = {});
    // outcome: created | failed | unknown.
    void finish(const QString &outcome, std::function<void(bool recorded)> done = {});

    const TeamProposal &proposal() const { return m_proposal; }
    const QuorumCount &count() const { return m_count; }
    bool isDecided() const { return m_decided; }

signals:
    void decided(fb::team::TeamConfirm::Verdict verdict, const QString &reason);
    void progress(const fb::team::QuorumCount &count); // after every read
    // An approval that does not count because of its signature (once per approval).
    void approvalRejected(const fb::team::TeamApproval &approval, const QString &reason);
    // The database went away while waiting (reason) or came back (empty reason).
    void connectionChanged(const QString &reason);

private:
    void reread();
    void armExpiry();
    void decide(Verdict verdict, const QString &reason);
    QuorumCount count(const TeamQueue::Snapshot &s);
    void commitSend(const std::optional<Money> &dayLimit,
                    std::function<void(bool, const QString &)> done);
    QPointer<TeamQueue> m_queue;
    std::optional<QList<ApproverKey>> m_keys;
    QSet<QByteArray> m_reported;
    TeamProposal m_proposal;
    QuorumCount m_count;
    QTimer m_expiry;
    QTimer m_presence; // reads again now and then: who could act changes without a wake-up
    bool m_decided = false;
    bool m_reading = false;
    bool m_readAgain = false;
    bool m_acknowledged = false;
};

} // namespace fb::team
