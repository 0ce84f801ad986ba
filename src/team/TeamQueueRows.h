#pragma once
// The rows of the team's queue as C++ values (fabric_team.proposals, approvals, resolutions), how
// TeamQueue's statements select and parse them, and the quorum rule over them (pure). GUI-free;
// every text in them is the database's, untrusted for display.
#include "team/PgAsync.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>
#include <functional>
#include <optional>

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
    // Sessions of the team database whose login is an approver (a member of fabric_approvers)
    // other than the proposer's own: who could act now. -1 = not known. Shown, never counted,
    // not part of toJson().
    int approversConnected = -1;
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

// A refusal or failure of a statement, as one sentence (the server's SQLSTATE when it refused).
QString teamFailure(const PgResult<PgRows> &r);
// The JSON object in json (empty when it is none).
QJsonObject teamObjectOf(const QByteArray &json);

} // namespace fb::team
