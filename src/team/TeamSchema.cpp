#include "team/TeamSchema.h"

#include "core/Sha256.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>

static void fbInitTeamResources()
{
    Q_INIT_RESOURCE(team);
}

namespace fb::team {

namespace {

// pg_advisory_xact_lock key of "one migration at a time" (the bytes "fbteam01").
constexpr const char *MigrationLockKey = "7378150431155433777";

// The schema and the version table exist before migration 001 runs; both are created in the
// first migration's transaction.
constexpr const char *Bootstrap = R"sql(
CREATE SCHEMA IF NOT EXISTS fabric_team;
CREATE TABLE IF NOT EXISTS fabric_team.schema_migrations (
  version integer PRIMARY KEY CHECK (version > 0),
  name text NOT NULL,
  sha256 bytea NOT NULL CHECK (octet_length(sha256) = 32),
  applied_at timestamptz NOT NULL DEFAULT now(),
  applied_by name NOT NULL DEFAULT current_user
);
)sql";

QString failure(const QString &what, const PgError &e)
{
    return what + QStringLiteral(": ") + e.text();
}

// What migrate() does inside one transaction: the steps return an error text or empty.
struct Step {
    PgConnection &db;
    const QList<Migration> &migrations;
    MigrateResult &result;

    QString checkServer()
    {
        const auto r = db.exec("SELECT current_setting('server_encoding') AS encoding, "
                               "current_setting('server_version_num') AS version");
        if (!r.ok())
            return failure(QStringLiteral("cannot read the server's settings"), r.error);
        const QByteArray encoding = r.value->value(0, "encoding");
        if (encoding != "UTF8")
            return QStringLiteral("the database's encoding is %1; team mode needs UTF8 (create "
                                  "the database WITH ENCODING 'UTF8')")
                .arg(QString::fromUtf8(encoding));
        if (r.value->value(0, "version").toInt() < 130000)
            return QStringLiteral("PostgreSQL %1 is too old; team mode needs 13 or newer")
                .arg(QString::fromUtf8(r.value->value(0, "version")));
        return {};
    }

    QString checkOwner()
    {
        const auto r = db.exec("SELECT pg_get_userbyid(nspowner) AS owner, current_user AS me "
                               "FROM pg_namespace WHERE nspname = 'fabric_team'");
        if (!r.ok())
            return failure(QStringLiteral("cannot read the schema's owner"), r.error);
        if (r.value->rowCount() == 1 && r.value->value(0, "owner") != r.value->value(0, "me"))
            return QStringLiteral("the schema fabric_team belongs to the role %1, not to %2: run "
                                  "'fabric-broker team init' as its owner")
                .arg(QString::fromUtf8(r.value->value(0, "owner")),
                     QString::fromUtf8(r.value->value(0, "me")));
        return {};
    }

    // The next migration to apply, or null when the schema is current. Sets result.fromVersion.
    QString nextMigration(const Migration **next)
    {
        *next = nullptr;
        const auto r =
            db.exec("SELECT version, name, sha256 FROM fabric_team.schema_migrations ORDER BY 1");
        if (!r.ok())
            return failure(QStringLiteral("cannot read fabric_team.schema_migrations"), r.error);
        int expected = 1;
        for (int i = 0; i < r.value->rowCount(); ++i, ++expected) {
            const int version = r.value->value(i, "version").toInt();
            const QString name = QString::fromUtf8(r.value->value(i, "name"));
            if (version > migrations.size())
                return QStringLiteral("the team database's schema is at version %1 (%2), newer "
                                      "than this fabric-broker knows (%3): upgrade fabric-broker")
                    .arg(QString::fromUtf8(r.value->value(r.value->rowCount() - 1, "version")),
                         QString::fromUtf8(r.value->value(r.value->rowCount() - 1, "name")))
                    .arg(migrations.size());
            if (version != expected)
                return QStringLiteral("fabric_team.schema_migrations lacks version %1")
                    .arg(expected);
            const Migration &m = migrations.at(version - 1);
            if (fromByteaText(r.value->value(i, "sha256")) != m.sha256() || name != m.name)
                return QStringLiteral("migration %1 was applied as %2 with other contents than "
                                      "this fabric-broker's %3; the schema was changed or made by "
                                      "a different build")
                    .arg(version)
                    .arg(name, m.name);
        }
        const int current = expected - 1;
        if (result.applied.isEmpty())
            result.fromVersion = current;
        result.toVersion = current;
        if (current < migrations.size())
            *next = &migrations.at(current);
        return {};
    }

    // Only the two groups (and the owner) may connect: CONNECT is granted to PUBLIC by default,
    // and any login role could then LISTEN, NOTIFY and take locks. Done when the database's
    // owner (or a member of it) runs this; otherwise refused with the SQL its owner runs.
    QString restrictConnect()
    {
        const auto r = db.exec(
            "SELECT has_database_privilege('public', d.oid, 'CONNECT') AS public_connects, "
            "has_database_privilege('fabric_proposers', d.oid, 'CONNECT') AND "
            "has_database_privilege('fabric_approvers', d.oid, 'CONNECT') AS groups_connect, "
            "pg_has_role(d.datdba, 'MEMBER') AS may, quote_ident(d.datname) AS name "
            "FROM pg_database d WHERE d.datname = current_database()");
        if (!r.ok())
            return failure(QStringLiteral("cannot read who may connect to the database"), r.error);
        const bool open = r.value->value(0, "public_connects") == "t";
        if (!open && r.value->value(0, "groups_connect") == "t")
            return {};
        const QString name = QString::fromUtf8(r.value->value(0, "name"));
        const QString sql = QStringLiteral("REVOKE CONNECT ON DATABASE %1 FROM PUBLIC; GRANT "
                                           "CONNECT ON DATABASE %1 TO fabric_proposers, "
                                           "fabric_approvers;")
                                .arg(name);
        if (r.value->value(0, "may") != "t")
            return QStringLiteral("every login role may connect to the database %1 (CONNECT is "
                                  "granted to PUBLIC) and this role may not change that: have "
                                  "the database's owner run\n  %2\nthen run 'fabric-broker team "
                                  "init' again")
                .arg(name, sql);
        if (auto x = db.execScript(sql.toUtf8()); !x.ok())
            return failure(QStringLiteral("cannot restrict CONNECT to the team's groups"), x.error);
        return {};
    }

    // One transaction: lock, check, apply at most one migration. *done when nothing was left.
    QString run(bool *done)
    {
        *done = false;
        if (auto r = db.exec("BEGIN ISOLATION LEVEL READ COMMITTED"); !r.ok())
            return failure(QStringLiteral("cannot begin a transaction"), r.error);
        if (auto r = db.exec("SELECT pg_advisory_xact_lock($1::bigint)", {MigrationLockKey});
            !r.ok())
            return failure(QStringLiteral("cannot take the migration lock"), r.error);
        if (QString e = checkServer(); !e.isEmpty())
            return e;
        if (QString e = checkOwner(); !e.isEmpty())
            return e;
        if (auto r = db.execScript(Bootstrap); !r.ok())
            return failure(QStringLiteral("cannot create the schema fabric_team"), r.error);
        const Migration *next = nullptr;
        if (QString e = nextMigration(&next); !e.isEmpty())
            return e;
        if (!next) {
            *done = true;
            return restrictConnect();
        }
        if (auto r = db.execScript(next->sql); !r.ok()) {
            QString e = failure(QStringLiteral("migration %1 failed").arg(next->name), r.error);
            if (r.error.sqlState == u"42501" && r.error.message.contains(u"create role"))
                e += QStringLiteral("\nThe roles fabric_proposers and fabric_approvers are "
                                    "missing and this role may not create them: have an "
                                    "administrator run CREATE ROLE fabric_proposers NOLOGIN; "
                                    "CREATE ROLE fabric_approvers NOLOGIN; (docs/team.md)");
            return e;
        }
        if (auto r = db.exec("INSERT INTO fabric_team.schema_migrations (version, name, sha256) "
                             "VALUES ($1, $2, $3)",
                             {QByteArray::number(next->version), next->name.toUtf8(),
                              byteaLiteral(next->sha256())});
            !r.ok())
            return failure(QStringLiteral("cannot record migration %1").arg(next->name), r.error);
        if (auto r = db.exec("COMMIT"); !r.ok())
            return failure(QStringLiteral("migration %1 did not commit").arg(next->name), r.error);
        result.applied << next->name;
        result.toVersion = next->version;
        return {};
    }
};

} // namespace

QByteArray Migration::sha256() const
{
    return Sha256::hash(sql);
}

QList<Migration> TeamSchema::builtIn()
{
    fbInitTeamResources();
    static const QRegularExpression pattern(QStringLiteral("^(\\d{3})_([a-z0-9_]+)\\.sql$"));
    QList<Migration> out;
    const QDir dir(QStringLiteral(":/fabric-broker/team"));
    for (const QString &file : dir.entryList({QStringLiteral("*.sql")}, QDir::Files, QDir::Name)) {
        const auto match = pattern.match(file);
        QFile f(dir.filePath(file));
        if (!match.hasMatch() || !f.open(QIODevice::ReadOnly))
            qFatal("resources/team: bad migration file %s", qUtf8Printable(file));
        Migration m;
        m.version = match.captured(1).toInt();
        m.name = file.chopped(4);
        m.sql = f.readAll();
        if (m.version != out.size() + 1)
            qFatal("resources/team: migration %s out of sequence", qUtf8Printable(file));
        out << m;
    }
    return out;
}

int TeamSchema::knownVersion()
{
    return static_cast<int>(builtIn().size());
}

MigrateResult TeamSchema::migrate(PgConnection &db, const QList<Migration> &migrations)
{
    MigrateResult result;
    Step step{db, migrations, result};
    for (;;) {
        bool done = false;
        const QString e = step.run(&done);
        if (!e.isEmpty()) {
            db.exec("ROLLBACK");
            result.error = e;
            return result;
        }
        if (done) {
            db.exec("COMMIT");
            result.ok = true;
            return result;
        }
    }
}

std::optional<int> TeamSchema::currentVersion(PgConnection &db, PgError *error)
{
    auto r = db.exec("SELECT to_regclass('fabric_team.schema_migrations') IS NOT NULL AS present");
    if (r.ok() && r.value->value(0, "present") != "t")
        return 0;
    if (r.ok())
        r = db.exec("SELECT coalesce(max(version), 0) AS version FROM "
                    "fabric_team.schema_migrations");
    if (!r.ok()) {
        if (error)
            *error = r.error;
        return std::nullopt;
    }
    return r.value->value(0, "version").toInt();
}

} // namespace fb::team
