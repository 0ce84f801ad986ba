#pragma once
// What the team suites share: one private cluster per test file (PgCluster), the roles of a
// small team, a fresh database per test, and short ways to run SQL as one role.
//
//   fb_super   the cluster's superuser (setup only)
//   fb_owner   owns the schema fabric_team (LOGIN CREATEROLE, not a superuser)
//   alice, bob approvers (fabric_approvers); carol, dave proposers (fabric_proposers)
//   mallory    may log in, member of neither
#include "PgCluster.h"
#include "core/TeamPolicy.h"
#include "team/ApprovalKeys.h"
#include "team/PgConnection.h"
#include "team/TeamSchema.h"

#include <QTest>

namespace fbtest {

using fb::team::PgConnection;

inline std::unique_ptr<PgConnection> connectAs(const PgCluster &cluster, const QString &role,
                                               const QString &database)
{
    auto c = PgConnection::open(cluster.uri(role, database));
    if (!c.ok()) {
        qWarning("cannot connect as %s: %s", qUtf8Printable(role), qUtf8Printable(c.error.text()));
        return nullptr;
    }
    return std::move(*c.value);
}

// One operator's Ed25519 approval key, as `fabric-broker team key` makes it, and the entry the
// administrator lists for it in team.approver_keys.
struct TeamSigner {
    QString role;
    QByteArray privateKey;
    QByteArray publicKey;
    fb::ApproverKey listed() const
    {
        return {role, fb::team::ApprovalKeys::fingerprint(publicKey), publicKey};
    }
    static TeamSigner make(const QString &role)
    {
        TeamSigner s{role, fb::team::ApprovalKeys::generate().value_or(QByteArray()), {}};
        s.publicKey = fb::team::ApprovalKeys::publicKeyOf(s.privateKey).value_or(QByteArray());
        return s;
    }
};

// Runs sql (or fails the test with the server's message).
#define FB_SQL(conn, ...)                                                                          \
    do {                                                                                           \
        const auto fbSqlResult = (conn).exec(__VA_ARGS__);                                         \
        QVERIFY2(fbSqlResult.ok(), qPrintable(fbSqlResult.error.text()));                          \
    } while (false)

// Runs sql and expects the server to refuse it with sqlState.
#define FB_SQL_REFUSED(conn, state, ...)                                                           \
    do {                                                                                           \
        const auto fbSqlResult = (conn).exec(__VA_ARGS__);                                         \
        QVERIFY2(!fbSqlResult.ok(), "the statement was not refused");                              \
        QCOMPARE(fbSqlResult.error.sqlState, QStringLiteral(state));                               \
    } while (false)

class TeamFixture {
public:
    // Starts the cluster and makes the roles; false (with a QFAIL) when PostgreSQL cannot start.
    bool setUp()
    {
        if (!cluster.start()) {
            qWarning("%s", qUtf8Printable(cluster.error()));
            return false;
        }
        super = connectAs(cluster, PgCluster::superuser(), QStringLiteral("postgres"));
        if (!super)
            return false;
        const auto r = super->execScript(
            "CREATE ROLE fb_owner LOGIN CREATEROLE;"
            "CREATE ROLE alice LOGIN; CREATE ROLE bob LOGIN; CREATE ROLE carol LOGIN;"
            "CREATE ROLE dave LOGIN; CREATE ROLE mallory LOGIN;");
        if (!r.ok())
            qWarning("%s", qUtf8Printable(r.error.text()));
        return r.ok();
    }

    // A new, empty database owned by fb_owner.
    QString freshDatabase()
    {
        const QString name = QStringLiteral("team_%1").arg(++m_databases);
        const auto r = super->exec(QStringLiteral("CREATE DATABASE %1 OWNER fb_owner ENCODING "
                                                  "'UTF8' TEMPLATE template0")
                                       .arg(name)
                                       .toUtf8());
        if (!r.ok())
            qWarning("%s", qUtf8Printable(r.error.text()));
        return name;
    }

    // A fresh database with the schema at the binary's version and the team's memberships.
    QString initializedDatabase()
    {
        const QString db = freshDatabase();
        auto owner = connectAs(cluster, QStringLiteral("fb_owner"), db);
        if (!owner)
            return {};
        const auto m = fb::team::TeamSchema::migrate(*owner);
        if (!m.ok) {
            qWarning("%s", qUtf8Printable(m.error));
            return {};
        }
        const auto r = super->execScript("GRANT fabric_approvers TO alice, bob;"
                                         "GRANT fabric_proposers TO carol, dave;");
        if (!r.ok())
            qWarning("%s", qUtf8Printable(r.error.text()));
        return db;
    }

    PgCluster cluster;
    std::unique_ptr<PgConnection> super;

private:
    int m_databases = 0;
};

} // namespace fbtest
