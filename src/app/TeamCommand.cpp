#include "app/TeamCommand.h"

#include "app/ConsoleOutput.h"
#include "team/PgConnection.h"
#include "team/TeamAudit.h"
#include "team/TeamSchema.h"

#include <cstdio>
#include <memory>

namespace fb {

namespace {

using team::PgConnection;
using team::TeamSchema;

using console::err;
using console::out;

QString help()
{
    return QStringLiteral(
        "Usage: fabric-broker team <command> URI\n"
        "Team mode's shared PostgreSQL database (docs/team.md).\n"
        "\n"
        "Commands:\n"
        "  init URI     create or migrate the schema fabric_team; run it as the role that owns\n"
        "               (or will own) the schema; idempotent; refuses a newer schema\n"
        "  status URI   the schema version and the role this connection is\n"
        "\n"
        "URI is a libpq connection URI, e.g. postgresql://fb_owner@db.example.com/fabric?"
        "sslmode=verify-full\n"
        "Keep passwords out of it (a command line is visible to other local users): use\n"
        "~/.pgpass, peer or certificate authentication.\n"
        "Verify the team audit chain with 'fabric-broker audit verify --team URI'.\n"
        "Exit codes: 0 = done, 1 = refused by the database or schema mismatch, 2 = usage error\n"
        "or no connection.\n");
}

std::unique_ptr<PgConnection> connect(const QString &command, const QString &uri)
{
    auto c = PgConnection::open(uri);
    if (!c.ok()) {
        err(QStringLiteral("fabric-broker %1: cannot connect: %2\n").arg(command, c.error.text()));
        return nullptr;
    }
    return std::move(*c.value);
}

int init(const QString &uri)
{
    const auto db = connect(QStringLiteral("team init"), uri);
    if (!db)
        return 2;
    const team::MigrateResult r = TeamSchema::migrate(*db);
    if (!r.ok) {
        err(QStringLiteral("fabric-broker team init: %1\n").arg(r.error));
        return 1;
    }
    if (r.applied.isEmpty())
        out(QStringLiteral("fabric_team is at version %1, the newest this fabric-broker knows: "
                           "nothing to do (%2)\n")
                .arg(r.toVersion)
                .arg(db->describe()));
    else
        out(QStringLiteral("fabric_team migrated from version %1 to %2 (applied %3; %4)\n")
                .arg(r.fromVersion)
                .arg(r.toVersion)
                .arg(r.applied.join(QStringLiteral(", ")), db->describe()));
    return 0;
}

int status(const QString &uri)
{
    const auto db = connect(QStringLiteral("team status"), uri);
    if (!db)
        return 2;
    team::PgError e;
    const auto version = TeamSchema::currentVersion(*db, &e);
    if (!version) {
        err(QStringLiteral("fabric-broker team status: %1\n").arg(e.text()));
        if (e.sqlState == u"42501")
            err(QStringLiteral("%1 may not read the schema fabric_team: it is a member of "
                               "neither fabric_proposers nor fabric_approvers\n")
                    .arg(db->role()));
        return 1;
    }
    const auto roles =
        db->exec("SELECT pg_has_role(current_user, 'fabric_proposers', 'USAGE') AS proposer, "
                 "pg_has_role(current_user, 'fabric_approvers', 'USAGE') AS approver "
                 "WHERE EXISTS (SELECT FROM pg_roles WHERE rolname = 'fabric_proposers') "
                 "AND EXISTS (SELECT FROM pg_roles WHERE rolname = 'fabric_approvers')");
    QString member = QStringLiteral("the roles fabric_proposers and fabric_approvers do not exist");
    if (roles.ok() && roles.value->rowCount() == 1) {
        QStringList in;
        if (roles.value->value(0, "proposer") == "t")
            in << QStringLiteral("fabric_proposers");
        if (roles.value->value(0, "approver") == "t")
            in << QStringLiteral("fabric_approvers");
        member = in.isEmpty() ? QStringLiteral("member of neither fabric_proposers nor "
                                               "fabric_approvers")
                              : QStringLiteral("member of ") + in.join(QStringLiteral(", "));
    }
    out(QStringLiteral("%1\nschema fabric_team: version %2 (this fabric-broker knows %3)\n%4\n")
            .arg(db->describe())
            .arg(*version)
            .arg(TeamSchema::knownVersion())
            .arg(member));
    return *version > TeamSchema::knownVersion() ? 1 : 0;
}

} // namespace

int runTeamAuditVerify(const QString &uri)
{
    const auto db = connect(QStringLiteral("audit verify --team"), uri);
    if (!db)
        return 2;
    const team::TeamAuditVerifyResult r = team::TeamAudit::verify(*db);
    if (r.dbError) {
        err(QStringLiteral("fabric-broker audit verify --team: %1\n").arg(r.problem));
        return 2;
    }
    if (!r.ok) {
        out(QStringLiteral("BROKEN: team audit chain (%1 rows read): %2\n")
                .arg(r.rows)
                .arg(r.problem));
        return 1;
    }
    out(QStringLiteral("OK: team audit chain intact, %1 rows, head %2:%3\n")
            .arg(r.rows)
            .arg(r.headSeq)
            .arg(QString::fromLatin1(r.headHash.toHex())));
    return 0;
}

int runTeamCommand(const QStringList &args)
{
    QStringList rest = args;
    if (!rest.isEmpty() && rest.first() != u"team")
        rest.removeFirst();
    if (!rest.isEmpty())
        rest.removeFirst(); // "team"
    if (rest.isEmpty() || rest.first() == u"--help" || rest.first() == u"-h" ||
        rest.first() == u"help") {
        out(help());
        return rest.isEmpty() ? 2 : 0;
    }
    const QString command = rest.takeFirst();
    if (rest.size() == 1 && !rest.first().startsWith(u'-')) {
        if (command == u"init")
            return init(rest.first());
        if (command == u"status")
            return status(rest.first());
    }
    err(QStringLiteral("fabric-broker team: unknown command or arguments\n") + help());
    return 2;
}

} // namespace fb
