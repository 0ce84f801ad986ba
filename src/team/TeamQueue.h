#pragma once
// TeamQueue: one workstation's view of the team's shared queue (docs/team.md, "The queue"), on
// one asynchronous connection (PgAsync: never blocks the event loop). GUI-free.
//
// The proposing broker publishes each proposal (the token's SHA-256 only, never the token),
// consumes it atomically at confirm (fabric_team.consume), and moves it on through the schema's
// own functions (begin_send before a byte leaves, then finish_send; transition to end it unsent):
// no role writes a proposal's state directly (migration 006). Approver apps list the open
// proposals (TeamQueueApprover.cpp) and record decisions. Every change in the database wakes
// every app through LISTEN/NOTIFY, coalesced (proposalChanged per id, queueChanged once); a
// wake-up is never taken as a fact, the rows are read again.
//
// On every (re)connect the broker's queue (setRecoversOwn) settles what a crash left behind, for
// its own role, OS user and host, and only rows whose lease holder session is gone: a proposal
// left `sending` becomes `unknown` (never sent again), one left `consumed` becomes `cancelled`
// (nothing was sent). Another live broker's rows are never touched.
#include "core/Policy.h"
#include "team/PgAsync.h"
#include "team/TeamQueueRows.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonObject>
#include <QObject>
#include <QSet>
#include <QTimer>
#include <functional>

namespace fb::team {

class TeamQueue : public QObject {
    Q_OBJECT
public:
    TeamQueue(const QString &uri, const TeamIdentity &identity, QObject *parent = nullptr);
    ~TeamQueue() override;

    // Starts connecting (and reconnecting). A URI with a password in it is refused at once.
    void start();
    // The role's password from the OS keychain (PgAsync::setPassword); before start().
    void setPassword(const QString &password) { m_db.setPassword(password); }
    bool isAvailable() const { return m_db.isConnected() && m_schemaError.isEmpty(); }
    // Whether the first connect after start() has ended either way (available or not).
    bool hasSettled() const { return m_settled; }
    // Runs then once: at once when settled, else when the first connect ends or after
    // timeoutMs, whichever comes first (from context's thread; nothing if context dies).
    void whenSettled(QObject *context, int timeoutMs, std::function<void()> then);
    QString unavailableReason() const;
    QString role() const { return m_db.role(); }
    // Whether this role is a member of fabric_approvers (known after rolesKnown()).
    bool isApprover() const { return m_approver; }
    const TeamIdentity &identity() const { return m_identity; }
    PgAsync &connection() { return m_db; }

    // Proposer side. publish: the new row's id. tokenSha256: 32 raw bytes.
    // monthly: the price the team's day counts (nullopt: unpriced).
    void publish(const QString &changeType, const QByteArray &request, const QJsonObject &binding,
                 const std::optional<QJsonObject> &price, const QByteArray &dryRun,
                 const QByteArray &tokenSha256, qint64 ttlMs, TeamDone<QByteArray> done,
                 const std::optional<Money> &monthly = std::nullopt, const QString &mcpClient = {});
    // The atomic consume: the row, or nullopt with the reason (unknown, used or expired token,
    // or the database unreachable).
    void consume(const QByteArray &tokenSha256, TeamDone<TeamProposal> done);
    // The same consume, saying what the row was when it did not move (for the confirm_checks).
    void consumeChecked(const QByteArray &tokenSha256,
                        std::function<void(const TeamConsumeReply &)> done);
    // consumed -> sending with the team's day (fabric_team.begin_send, one transaction): refused
    // when the limit would be exceeded. dayLimit nullopt: no daily limit. On success this
    // connection's session holds the proposal's lease until finishSend (or until it is gone,
    // when any app settles the proposal as `unknown`).
    void beginSend(const QByteArray &id, const std::optional<Money> &dayLimit,
                   std::function<void(const TeamSendReply &)> done);
    // sending -> outcome (created | failed | unknown) through fabric_team.finish_send, which
    // only the session holding the send's lease may call; the lease is given up.
    void finishSend(const QByteArray &id, const QString &outcome, TeamDone<bool> done);
    // Ends id unsent (fabric_team.transition: pending -> expired, consumed -> denied | expired |
    // cancelled); true when this call moved it.
    void transition(const QByteArray &id, const QString &from, const QString &to,
                    TeamDone<bool> done);
    // The proposal's state, whether it is still live, and its decisions, in one snapshot.
    struct Snapshot {
        QString state;
        bool live = false;
        QList<TeamApproval> approvals;
        std::optional<TeamResolution> resolution; // when its unknown outcome was resolved
        // Distinct approver logins other than this one with a session on the team database
        // (pg_stat_activity, whose user column every role may read): who could act now.
        int approversConnected = -1;
    };
    void read(const QByteArray &id, TeamDone<Snapshot> done);

    // Approver side: the proposals still open to a decision (and, for everyone to see, every
    // unknown outcome not resolved yet, those left sending in the last day and those resolved in
    // the last day, with their resolution). Fair: proposals open to a decision first, then the
    // others; in each, at most PerProposer of one proposer's newest before anyone's older ones;
    // newest first; PageSize a page (page 0 first).
    void listOpen(TeamDone<QList<TeamProposal>> done) { listOpen(0, std::move(done)); }
    void listOpen(int page, TeamDone<QList<TeamProposal>> done);
    static constexpr int PageSize = 200;
    static constexpr int PerProposer = 20;
    // Records this role's decision (approve | deny) on id; dialogSha256: 32 raw bytes of the
    // SHA-256 of the exact text the dialog showed. statement, signature, publicKey: what the
    // approver signed (team/ApprovalVerify's signDecision), all three or none (unsigned).
    struct Signature {
        QByteArray statement;
        QByteArray signature;
        QByteArray publicKey;
    };
    void decide(const QByteArray &id, const QString &decision, const QByteArray &dialogSha256,
                TeamDone<bool> done, const std::optional<Signature> &signedBy = std::nullopt);

    // Resolves proposal id's unknown outcome as this role (migration 005): outcome created (uuid:
    // the Fabric uuid found, lower-cased here) or not_created (uuid empty); dialogSha256: 32 raw
    // bytes of the SHA-256 of the exact text the dialog showed (the catalog lookup included);
    // signedBy: what the resolver signed (team/ApprovalVerify's signResolution), or none. With
    // this app's OS user and host. The database refuses it (done(nullopt, its message)) unless
    // this role is an approver other than the proposer's and the proposal is still unknown; on
    // success the database moves the proposal to the outcome, appends outcome_resolved to the
    // team audit chain and wakes every app.
    void resolve(const QByteArray &id, const QString &outcome, const QString &uuid,
                 const QByteArray &dialogSha256, TeamDone<bool> done,
                 const std::optional<Signature> &signedBy = std::nullopt);

    // Tells the team (the team audit chain, event approval_rejected, with reported_by) that an
    // approval on proposal id does not count, and why. Only the proposal's own proposer role may
    // (fabric_team.report_rejected).
    void reportRejected(const QByteArray &id, const TeamApproval &approval, const QString &reason,
                        TeamDone<bool> done = {});
    // The approval_rejected reports on proposal id, oldest first: [{approval_id, approver,
    // reason, reported_by}], at most 50; only those reported by the proposal's own proposer.
    void rejections(const QByteArray &id, TeamDone<QJsonArray> done);

    // Proposals this process is still responsible for (waiting for a quorum or sending): the
    // crash recovery on reconnect leaves them alone.
    void hold(const QByteArray &id) { m_held.insert(id); }
    // Whether this queue settles what a crash of this workstation's broker left behind (its own
    // role, OS user and host; see above). Only the broker's own queue does: another queue of the
    // same workstation (the desktop's approvals view) would cancel the broker's live confirms.
    void setRecoversOwn(bool recovers) { m_recoversOwn = recovers; }
    void release(const QByteArray &id) { m_held.remove(id); }

    // Every proposal left `sending` by a session that is gone becomes `unknown` (run on every
    // connect and every settleIntervalMs while connected).
    void settleOrphans();
    int settleIntervalMs = 10000;
    // Wake-ups: the first BurstPerWindow of each coalesceMs window at once, the rest of the
    // window together at its end (a NOTIFY flood costs a bounded number of re-lists).
    int coalesceMs = 50;
    static constexpr int BurstPerWindow = 4;
    static constexpr int MaxWoken = 4096;
    // The schema version this binary needs (006: every transition through the schema's own
    // functions, leases instead of advisory locks).
    static constexpr int RequiredSchemaVersion = 6;

signals:
    void availabilityChanged(bool available, const QString &reason);
    void proposalChanged(const QByteArray &id); // a wake-up: read again
    void queueChanged();                        // once per coalesced batch of wake-ups
    void recovered(const QByteArray &id, const QString &state);
    void rolesKnown();

private:
    void recover();
    void deliverWakeUps();
    PgAsync m_db;
    QTimer *m_settle = nullptr;
    QTimer *m_wake = nullptr;
    QElapsedTimer m_window;     // the current coalescing window
    int m_inWindow = 0;         // wake-ups delivered at once in it
    QSet<QByteArray> m_woken;   // ids woken since the last delivery
    QSet<QByteArray> m_sending; // proposals this connection's session holds the send of
    QString m_schemaError;
    QString m_uri;
    TeamIdentity m_identity;
    QSet<QByteArray> m_held;
    bool m_approver = false;
    bool m_recoversOwn = false;
    bool m_settled = false;
};

} // namespace fb::team
