#pragma once
// PgCluster: a real, private PostgreSQL 15 cluster for one test file (Debian's postgresql
// package: initdb and pg_ctl under /usr/lib/postgresql/15/bin, or $FB_PG_BINDIR). It listens on a
// Unix socket in its own scratch directory only (-k DIR, listen_addresses=''), trusts local
// connections (roles are the identities under test, not passwords), and is stopped with
// `pg_ctl stop -m fast` and removed, directory and all, when the object dies.
//
// The server refuses to run as root. As root (as CI runs) every PostgreSQL tool runs through
// `runuser -u postgres --`, and the cluster lives where that user can reach it: in $TMPDIR when
// every folder above it is searchable by others, otherwise in a fresh folder under /tmp.
#include <QString>
#include <QTemporaryDir>
#include <memory>

namespace fbtest {

class PgCluster {
public:
    PgCluster();
    ~PgCluster();
    PgCluster(const PgCluster &) = delete;
    PgCluster &operator=(const PgCluster &) = delete;

    // Whether start() worked; error() says why not.
    bool start();
    bool isRunning() const { return m_running; }
    QString error() const { return m_error; }

    // From now on role must give its password (scram-sha-256) to connect; every other role is
    // still trusted. Reloads the server's configuration.
    bool requirePasswordFor(const QString &role);

    // libpq URI for role on database (over the cluster's socket).
    QString uri(const QString &role, const QString &database = QStringLiteral("postgres")) const;
    // The bootstrap superuser's name.
    static QString superuser() { return QStringLiteral("fb_super"); }
    QString socketDirectory() const { return m_dir; }
    QString serverLog() const;

private:
    bool run(const QString &tool, const QStringList &arguments, int timeoutMs);
    QString m_bindir;
    std::unique_ptr<QTemporaryDir> m_base;
    QString m_dir; // the cluster's folder: data/, the socket, the server log
    int m_port = 0;
    bool m_running = false;
    bool m_asPostgresUser = false;
    QString m_error;
};

} // namespace fbtest
