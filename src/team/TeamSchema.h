#pragma once
// TeamSchema: the team database's schema (fabric_team) and its versioned migrations, shipped as
// Qt resources (resources/team/NNN_name.sql). migrate() creates or upgrades the schema, one
// migration per transaction, under an advisory lock so two `team init` runs never interleave;
// it records each migration's version, name and SHA-256 in fabric_team.schema_migrations, and
// refuses a schema that is newer than the binary knows or whose recorded migrations differ from
// the binary's. It must run as the schema owner (the role that first created fabric_team).
#include "team/PgConnection.h"

#include <QList>
#include <QString>

namespace fb::team {

struct Migration {
    int version = 0;
    QString name;   // "001_initial"
    QByteArray sql; // the file's bytes
    QByteArray sha256() const;
};

struct MigrateResult {
    bool ok = false;
    int fromVersion = 0; // 0 = the schema did not exist
    int toVersion = 0;
    QStringList applied; // names of the migrations this run applied
    QString error;       // set when !ok: what was refused or failed, and what to do
};

class TeamSchema {
public:
    static constexpr const char *SchemaName = "fabric_team";
    // The migrations this binary ships, ordered by version (1, 2, ... without gaps).
    static QList<Migration> builtIn();
    // The newest version this binary knows.
    static int knownVersion();
    // Creates or migrates to the last of `migrations` (builtIn() unless a test says otherwise).
    static MigrateResult migrate(PgConnection &db, const QList<Migration> &migrations = builtIn());
    // The version recorded in the database: 0 when fabric_team does not exist, nullopt on error.
    static std::optional<int> currentVersion(PgConnection &db, PgError *error = nullptr);
};

} // namespace fb::team
