#pragma once
// TeamQueue: one workstation's view of the team's shared queue (docs/team.md, "The queue"), on
// one asynchronous connection (PgAsync: never blocks the event loop). GUI-free.
//
// The proposing broker publishes each proposal (the token's SHA-256 only, never the token),
// consumes it atomically at confirm (UPDATE ... WHERE state = 'pending' RETURNING), and moves it
// on (sending before a byte leaves, then created/failed). Approver apps list the open proposals
// and record decisions. Every change in the database wakes every app through LISTEN/NOTIFY
// (proposalChanged); a wake-up is never taken as a fact, the rows are read again.
//
// On every (re)connect the broker's queue (setRecoversOwn) settles what a crash left behind, for
// its own role, OS user and host only: a proposal left `sending` by a process that is gone becomes
// `unknown` (never sent again), one left `consumed` becomes `cancelled` (nothing was sent).
#include "core/Policy.h"
#include "team/PgAsync.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QObject>
#include <QSet>
#include <QTimer>
#include <functional>

namespace fb::team {

// Who this workstation is, as it reports itself (the database's role is the identity; these
// only ever exclude, e.g. an approval from the proposing OS user on the proposing host).
struct TeamIdentity {
    QString osUser;
    QString host;
    QString mcpClient; // the MCP client, when publish() is not given the session's own

    // This process: the OS user of its effective uid (from the password database, not from
    // $USER, which MCP clients often do not pass on) and the host name, each at most 256 bytes.
    static TeamIdentity local();
};

// One row of fabric_team.resolutions (migration 005): an approver other than the proposer says
// what became of a create whose outcome was `unknown`, optionally signed (team/ApprovalVerify's
// signResolution; statement, signature and publicKey empty when not signed).
struct TeamResolution {
    QByteArray id; // uuid text
    QString resolver;
    QString outcome;         // created | not_created
    QString uuid;            // the Fabric uuid found (created), empty (not_created)
    QByteArray dialogSha256; // 32 raw bytes
    qint64 resolvedMs = 0;
    QString osUser;
    QString host;
    QByteArray statement; // the canonical statement text as stored
    QByteArray signature; // 64 raw bytes
    QByteArray publicKey; // 32 raw bytes
};

// One row of fabric_team.proposals. Every text is the database's, untrusted for display.
struct TeamProposal {
    QByteArray id; // uuid text
    QString changeType;
    QByteArray request;       // the canonical JSON body
    QByteArray requestSha256; // hex
    QJsonObject binding;
    std::optional<QJsonObject> price; // nullopt: unpriced
    QByteArray dryRun;                // JSON text
    QString proposer;                 // the role that inserted it (current_user)
    QString osUser;
    QString host;
    QString mcpClient;
    QByteArray tokenSha256; // hex
    qint64 createdMs = 0;
    qint64 expiresMs = 0;
    QString state;
    bool live = false; // expires_at > now() when read
    // Its resolution, when a second person resolved its unknown outcome (filled by listOpen and
    // TeamHistory::read; nullopt otherwise).
    std::optional<TeamResolution> resolution;
};

// One decision of fabric_team.approvals, with what its approver signed (migration 004; empty
// when the approval is not signed).
struct TeamApproval {
    TeamApproval() = default;
    TeamApproval(QString approverRole, QString decided, QString fromOsUser, QString fromHost)
        : approver(std::move(approverRole))
        , decision(std::move(decided))
        , osUser(std::move(fromOsUser))
        , host(std::move(fromHost))
    {
    }
    QString approver;
    QString decision; // approve | deny
    QString osUser;
    QString host;
    QByteArray id;           // uuid text
    QByteArray dialogSha256; // 32 raw bytes
    QByteArray statement;    // the canonical statement text as stored
    QByteArray signature;    // 64 raw bytes
    QByteArray publicKey;    // 32 raw bytes
};

// Which approvals count toward a proposal's quorum, and why the others do not.
struct QuorumCount {
    int required = 1;
    QStringList counted;               // distinct approver roles
    QJsonArray notCounted;             // [{approver, why}]
    QString deniedBy;                  // the first deny's role; any deny ends it
    bool proposerAcknowledged = false; // the MCP client's "accept": shown, never counted
    bool met() const { return deniedBy.isEmpty() && counted.size() >= required; }
    // {required, approvals[], not_counted[], denied_by, proposer_acknowledged}
    QJsonObject toJson() const;
};

// The quorum rules (pure): an approval counts only once per role, never from the proposer's own
// role, never from the proposing OS user on the proposing host; a deny from anyone ends it.
// rejects, when given, has the last word on an approval that would count: a non-empty reason
// (e.g. its signature does not verify, team/ApprovalVerify) and it does not, listed with
// {approver, why, approval_id, rejected: true}.
QuorumCount countQuorum(const TeamProposal &proposal, const QList<TeamApproval> &approvals,
                        int required,
                        const std::function<QString(const TeamApproval &)> &rejects = {});

// What a confirm's atomic consume found, in one statement: the row as it was, and whether this
// call moved it from pending to consumed.
struct TeamConsumeReply {
    std::optional<TeamProposal> row; // nullopt: no proposal has this token, or unreachable
    bool consumedNow = false;        // this call won: the row is now `consumed`
    QString error;                   // the database could not be asked
};

// What beginSend found: whether the proposal is now `sending`, the team's day before it (in the
// limit's currency), and why not.
struct TeamSendReply {
    bool moved = false;
    std::optional<double> daySpent;
    QString reason;
};

template <typename T>
using TeamDone = std::function<void(const std::optional<T> &, const QString &)>;

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
    // connection holds the proposal's sending lock until finishSend (or until it dies, when
    // any app settles the proposal as `unknown`).
    void beginSend(const QByteArray &id, const std::optional<Money> &dayLimit,
                   std::function<void(const TeamSendReply &)> done);
    // sending -> outcome (created | failed | unknown), and the sending lock released.
    void finishSend(const QByteArray &id, const QString &outcome, TeamDone<bool> done);
    // Moves id from `from` to `to` (one transaction); true when this call moved it.
    void transition(const QByteArray &id, const QString &from, const QString &to,
                    TeamDone<bool> done);
    // The proposal's state, whether it is still live, and its decisions, in one snapshot.
    struct Snapshot {
        QString state;
        bool live = false;
        QList<TeamApproval> approvals;
        std::optional<TeamResolution> resolution; // when its unknown outcome was resolved
    };
    void read(const QByteArray &id, TeamDone<Snapshot> done);

    // Approver side: the proposals still open to a decision (and, for everyone to see, every
    // unknown outcome not resolved yet, those left sending in the last day and those resolved in
    // the last day, with their resolution), oldest first, at most 200.
    void listOpen(TeamDone<QList<TeamProposal>> done);
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

    // Tells the team (the team audit chain, event approval_rejected) that an approval on
    // proposal id does not count, and why.
    void reportRejected(const QByteArray &id, const TeamApproval &approval, const QString &reason,
                        TeamDone<bool> done = {});
    // The approval_rejected reports on proposal id, oldest first: [{approval_id, approver,
    // reason, reported_by}], at most 50.
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
    // The schema version this binary needs (005: resolutions of unknown outcomes).
    static constexpr int RequiredSchemaVersion = 5;

signals:
    void availabilityChanged(bool available, const QString &reason);
    void proposalChanged(const QByteArray &id); // a wake-up: read again
    void recovered(const QByteArray &id, const QString &state);
    void rolesKnown();

private:
    void recover();
    PgAsync m_db;
    QTimer *m_settle = nullptr;
    QSet<QByteArray> m_sending; // proposals this connection holds the sending lock of
    QString m_schemaError;
    QString m_uri;
    TeamIdentity m_identity;
    QSet<QByteArray> m_held;
    bool m_approver = false;
    bool m_recoversOwn = false;
    bool m_settled = false;
};

// Parses one proposal row as TeamQueue's statements select it.
std::optional<TeamProposal> proposalFromRow(const PgRows &rows, int row);
// The select list those statements use (from fabric_team.proposals), for proposalFromRow.
QByteArray proposalColumns();
// A select-list expression (from fabric_team.proposals, whose row it names `proposals`, or the
// alias given):
// the proposal's resolution as one JSON object, NULL when there is none; resolutionFromJson
// reads it. The schema must be at version 5.
QByteArray resolutionColumn(const QByteArray &proposals = "proposals");
std::optional<TeamResolution> resolutionFromJson(const QByteArray &json);

} // namespace fb::team
