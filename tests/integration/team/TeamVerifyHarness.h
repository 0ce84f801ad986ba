#pragma once
// What the `team verify` suites share (tst_teamverify, tst_team_verify_history): proposals made
// with SQL as carol, approvals signed and inserted as the approver itself (as its app would), and
// the binary spawned as an operator runs it, with a policy file of the test's choosing.
#include "TeamFixture.h"
#include "TestEnvironment.h"
#include "core/Sha256.h"
#include "team/ApprovalKeys.h"
#include "team/ApprovalStatement.h"
#include "team/ApprovalVerify.h"
#include "team/ApproverDecision.h"
#include "team/TeamQueue.h"

#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

namespace fbtest {

// As the approver: the database fills in approver (current_user).
inline const char *InsertOwnApproval =
    "INSERT INTO fabric_team.approvals (proposal_id, decision, dialog_sha256, statement, "
    "signature, public_key) VALUES ($1, $2, decode($3, 'hex'), $4, decode($5, 'hex'), "
    "decode($6, 'hex')) RETURNING id";
// As the schema owner, in anyone's name.
inline const char *InsertSignedApproval =
    "INSERT INTO fabric_team.approvals (proposal_id, approver, decision, dialog_sha256, "
    "statement, signature, public_key) VALUES ($1, $2, $3, decode($4, 'hex'), $5, "
    "decode($6, 'hex'), decode($7, 'hex')) RETURNING id";

// A proposal of proposer's (its row id), with the rate-card context price (JSON text; empty:
// unpriced).
inline QByteArray proposeRow(PgConnection &proposer, const QByteArray &token,
                             const QByteArray &price = {})
{
    const auto r = proposer.exec(
        "INSERT INTO fabric_team.proposals (change_type, request, request_sha256, binding, price, "
        "dry_run, os_user, host, mcp_client, token_sha256, expires_at) VALUES "
        "('connection_create', '{\"name\":\"vc-1\"}', sha256(convert_to('{\"name\":\"vc-1\"}', "
        "'UTF8')), '{}', $2::jsonb, '{\"uuid\": \"x\", \"state\": \"PROVISIONED\"}', 'carol', "
        "'ws-1', 'claude-code 1.0', sha256($1::bytea), now() + interval '10 minutes') "
        "RETURNING id",
        {token, price});
    if (!r.ok())
        qWarning("propose: %s", qUtf8Printable(r.error.text()));
    return r.ok() ? r.value->value(0, "id") : QByteArray();
}

inline std::optional<fb::team::TeamProposal> readProposal(PgConnection &c, const QByteArray &id)
{
    const auto r = c.exec("SELECT " + fb::team::proposalColumns() +
                              " FROM fabric_team.proposals WHERE id = $1",
                          {id});
    if (!r.ok() || r.value->rowCount() != 1)
        return std::nullopt;
    return fb::team::proposalFromRow(*r.value, 0);
}

// What the approver's app signs for proposal p.
inline fb::team::ApprovalStatement statementFor(const fb::team::TeamProposal &p,
                                                const QString &role,
                                                const QString &decision = QStringLiteral("approve"))
{
    fb::team::ApprovalStatement s; // version 2: what the app computed from the row it showed
    s.proposalId = p.id;
    s.changeType = p.changeType;
    s.requestSha256 = fb::team::requestSha256Shown(p);
    s.dryRunSha256 = fb::team::canonicalJsonSha256Hex(p.dryRun);
    s.priceSha256 = fb::team::priceSha256Hex(p.price);
    s.fabricEndpoint = fb::team::fabricTargetOf(p).endpoint;
    s.credentialIdentity = fb::team::fabricTargetOf(p).identity;
    s.tokenSha256 = p.tokenSha256;
    s.proposer = p.proposer;
    s.dialogSha256 = fb::Sha256::hash(QByteArray("the dialog " + role.toUtf8() + " saw")).toHex();
    s.decision = decision;
    s.approver = role;
    s.decidedMs = QDateTime::currentMSecsSinceEpoch();
    s.expiresMs = p.expiresMs;
    return s;
}

// The policy entry of team.approver_keys for role's key.
inline QJsonObject approverKeyJson(const QString &role, const QByteArray &privateKey)
{
    using fb::team::ApprovalKeys;
    const QByteArray pub = *ApprovalKeys::publicKeyOf(privateKey);
    return {{QStringLiteral("role"), role},
            {QStringLiteral("fingerprint"), ApprovalKeys::fingerprint(pub)},
            {QStringLiteral("public_key"), ApprovalKeys::toBase64(pub)}};
}

// A policy file as the administrator's layer accepts it: writable by its owner alone.
inline bool writeJson(const QString &path, const QJsonObject &o)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
           f.write(QJsonDocument(o).toJson()) > 0 &&
           f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                            QFileDevice::ReadGroup | QFileDevice::ReadOther);
}

class TeamVerifyHarness {
protected:
    TeamFixture fx;
    QTemporaryDir scratch;
    QString policyPath;

    std::unique_ptr<PgConnection> as(const QString &role, const QString &db)
    {
        return connectAs(fx.cluster, role, db);
    }

    QString uri(const QString &db) { return fx.cluster.uri(QStringLiteral("alice"), db); }

    // `fabric-broker team verify args` with policy (policyPath when empty) as the administrator's
    // policy (FABRIC_BROKER_EXTRA_ADMIN_POLICY: team.approver_keys are the administrator's to
    // list) and the user's: its exit code, and its stdout and stderr in output.
    int verify(const QStringList &args, QByteArray *output, const QString &policy = {})
    {
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char *layer : {"FABRIC_BROKER_EXTRA_ADMIN_POLICY", "FABRIC_BROKER_POLICY"})
            env.insert(QLatin1StringView(layer), policy.isEmpty() ? policyPath : policy);
        p.setProcessEnvironment(env);
        p.start(brokerBinary(),
                QStringList{QStringLiteral("team"), QStringLiteral("verify")} + args);
        if (!p.waitForFinished(60000))
            return -1;
        *output = p.readAll();
        return p.exitCode();
    }

    // Signs and inserts role's decision on id (as role itself, as the app would); its row id.
    QByteArray decide(const QString &db, const QString &role, const QByteArray &key,
                      const QByteArray &id, const QString &decision = QStringLiteral("approve"))
    {
        using fb::team::ApprovalKeys;
        auto c = as(role, db);
        const auto p = readProposal(*c, id);
        if (!p)
            return {};
        const fb::team::ApprovalStatement s = statementFor(*p, role, decision);
        const QByteArray text = s.canonical();
        const auto r = c->exec(InsertOwnApproval, {id, decision.toUtf8(), s.dialogSha256, text,
                                                   ApprovalKeys::sign(key, text)->toHex(),
                                                   ApprovalKeys::publicKeyOf(key)->toHex()});
        if (!r.ok())
            qWarning("decide: %s", qUtf8Printable(r.error.text()));
        return r.ok() ? r.value->value(0, "id") : QByteArray();
    }

    // consumed, sending and the outcome, through the schema's own functions, in one session (as
    // the proposing broker does).
    static bool walk(PgConnection &carol, const QByteArray &token, const QByteArray &id,
                     const QByteArray &outcome)
    {
        const auto c =
            carol.exec("SELECT count(*) AS n FROM fabric_team.consume(sha256($1::bytea))", {token});
        const auto b =
            carol.exec("SELECT moved FROM fabric_team.begin_send($1::uuid, NULL, NULL)", {id});
        const auto f =
            carol.exec("SELECT fabric_team.finish_send($1::uuid, $2) AS moved", {id, outcome});
        const bool ok = c.ok() && c.value->value(0, "n") == "1" && b.ok() &&
                        b.value->value(0, "moved") == "t" && f.ok() &&
                        f.value->value(0, "moved") == "t";
        if (!ok)
            qWarning("walk: %s %s %s", qUtf8Printable(c.error.text()),
                     qUtf8Printable(b.error.text()), qUtf8Printable(f.error.text()));
        return ok;
    }

    // Moves proposal id through states as the schema owner (along the graph its trigger keeps).
    // Since schema version 6 a proposer moves its rows only through the queue's functions, and
    // begin_send there needs another role's approval: a history without one (what team verify
    // must fail) is what the owner alone can write.
    bool move(const QString &db, const QByteArray &id, const QList<QByteArray> &states)
    {
        auto owner = as(QStringLiteral("fb_owner"), db);
        if (!owner)
            return false;
        for (const QByteArray &state : states) {
            const auto r = owner->exec("UPDATE fabric_team.proposals SET state = $2 WHERE id = $1",
                                       {id, state});
            if (!r.ok()) {
                qWarning("move to %s: %s", state.constData(), qUtf8Printable(r.error.text()));
                return false;
            }
        }
        return true;
    }
};

} // namespace fbtest
