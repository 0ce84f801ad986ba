#pragma once
// What the team queue suites share (tst_teamqueue, tst_team_queue_faults): the team's database
// on a private cluster (TeamFixture.h) with dave an approver too, a TeamQueue per role, OS user
// and host on its own asynchronous connection, and the publish, consume and signed decide steps
// the brokers and the approver's dialog take.
#include "TeamFixture.h"
#include "team/ApprovalVerify.h"
#include "team/TeamQueue.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QMap>
#include <QTest>

namespace fbtest {

inline const QByteArray Request = R"({"name":"vc-1","type":"EVPL_VC"})";

inline QByteArray sha(const QByteArray &bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256);
}

inline QJsonObject priced(double monthly, const QString &currency = QStringLiteral("USD"))
{
    return {{QStringLiteral("priced"), true},
            {QStringLiteral("currency"), currency},
            {QStringLiteral("monthly_recurring"), monthly}};
}

class TeamQueueHarness {
protected:
    TeamFixture fx;
    QString db;

    // The suite's initTestCase: the cluster, the database, dave an approver, the owner's session.
    void initTeam()
    {
        QVERIFY2(fx.setUp(), "PostgreSQL did not start (see the warning above)");
        db = fx.initializedDatabase();
        QVERIFY(!db.isEmpty());
        // dave both proposes and approves (docs/team.md's example team).
        FB_SQL(*fx.super, "GRANT fabric_approvers TO dave");
        owner = connectAs(fx.cluster, QStringLiteral("fb_owner"), db);
        QVERIFY(owner);
    }

    std::unique_ptr<fb::team::TeamQueue> queueAs(const QString &role, const QString &osUser,
                                                 const QString &host)
    {
        auto q = std::make_unique<fb::team::TeamQueue>(
            fx.cluster.uri(role, db),
            fb::team::TeamIdentity{osUser, host, QStringLiteral("test-client 1.0")});
        q->connection().reconnectDelayMs = 50;
        q->setRecoversOwn(true);
        q->start();
        return q;
    }

    // Publishes one proposal as q; returns its id (empty on failure).
    QByteArray publish(fb::team::TeamQueue &q, const QByteArray &token,
                       const std::optional<QJsonObject> &price, qint64 ttlMs = 60000)
    {
        std::optional<QByteArray> id;
        QString error;
        bool done = false;
        q.publish(QStringLiteral("connection_create"), Request,
                  {{QStringLiteral("fabric_endpoint"), QStringLiteral("https://api.equinix.com")}},
                  price, R"({"uuid":"x"})", sha(token), ttlMs,
                  [&](const std::optional<QByteArray> &v, const QString &e) {
                      id = v;
                      error = e;
                      done = true;
                  });
        if (!QTest::qWaitFor([&] { return done; }, 10000) || !id) {
            qWarning("publish: %s", qUtf8Printable(error));
            return {};
        }
        return *id;
    }

    std::optional<fb::team::TeamProposal> consume(fb::team::TeamQueue &q, const QByteArray &token,
                                                  QString *error = nullptr)
    {
        std::optional<fb::team::TeamProposal> row;
        bool done = false;
        q.consume(sha(token),
                  [&](const std::optional<fb::team::TeamProposal> &p, const QString &e) {
                      row = p;
                      if (error)
                          *error = e;
                      done = true;
                  });
        if (!QTest::qWaitFor([&] { return done; }, 10000))
            return std::nullopt;
        return row;
    }

    // Every approver's key; the confirms list them (only signed approvals count, issue #34).
    QMap<QString, TeamSigner> signers{
        {QStringLiteral("alice"), TeamSigner::make(QStringLiteral("alice"))},
        {QStringLiteral("bob"), TeamSigner::make(QStringLiteral("bob"))},
        {QStringLiteral("dave"), TeamSigner::make(QStringLiteral("dave"))}};
    QList<fb::ApproverKey> keys() const
    {
        QList<fb::ApproverKey> k;
        for (const TeamSigner &s : signers)
            k << s.listed();
        return k;
    }

    // The decision as the role's dialog records it: signed over the row it showed.
    bool decide(fb::team::TeamQueue &q, const QByteArray &id, const QString &decision,
                QString *error = nullptr)
    {
        const auto r = owner->exec("SELECT " + fb::team::proposalColumns() +
                                       " FROM fabric_team.proposals WHERE id = $1::uuid",
                                   {id});
        if (!r.ok() || r.value->rowCount() != 1)
            return false;
        const std::optional<fb::team::TeamProposal> row = fb::team::proposalFromRow(*r.value, 0);
        if (!row)
            return false;
        const TeamSigner &signer = signers[q.role()];
        const auto d =
            fb::team::signDecision(*row, decision, sha("dialog text"), signer.role,
                                   signer.privateKey, QDateTime::currentMSecsSinceEpoch());
        if (!d)
            return false;
        std::optional<bool> ok;
        bool done = false;
        q.decide(
            id, decision, sha("dialog text"),
            [&](const std::optional<bool> &v, const QString &e) {
                ok = v;
                if (error)
                    *error = e;
                done = true;
            },
            fb::team::TeamQueue::Signature{d->statement, d->signature, d->publicKey});
        return QTest::qWaitFor([&] { return done; }, 10000) && ok.value_or(false);
    }

    std::unique_ptr<PgConnection> owner;

    QByteArray stateOf(const QByteArray &id)
    {
        const auto s =
            owner->exec("SELECT state FROM fabric_team.proposals WHERE id = $1::uuid", {id});
        return s.ok() ? s.value->value(0, "state") : QByteArray();
    }
};

} // namespace fbtest
