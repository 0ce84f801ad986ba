#include "PgCluster.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRandomGenerator>
#include <QUrl>

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fbtest {

namespace {

// Every folder from / down to path is searchable by other users.
bool reachableByOthers(const QString &path)
{
    QDir d(QFileInfo(path).absoluteFilePath());
    for (;;) {
        struct stat st = {};
        if (::stat(QFile::encodeName(d.absolutePath()).constData(), &st) != 0 ||
            (st.st_mode & S_IXOTH) == 0)
            return false;
        if (d.isRoot())
            return true;
        d.cdUp();
    }
}

} // namespace

PgCluster::PgCluster()
{
    m_bindir = qEnvironmentVariable("FB_PG_BINDIR", QStringLiteral("/usr/lib/postgresql/15/bin"));
    m_asPostgresUser = ::geteuid() == 0;
    QString parent = QDir::tempPath();
    if (m_asPostgresUser && !reachableByOthers(parent))
        parent = QStringLiteral("/tmp");
    m_base = std::make_unique<QTemporaryDir>(parent + QStringLiteral("/fbpg-XXXXXX"));
    m_dir = m_base->path();
    m_port = 20000 + static_cast<int>(QRandomGenerator::global()->bounded(40000));
}

PgCluster::~PgCluster()
{
    if (m_running)
        run(QStringLiteral("pg_ctl"),
            {QStringLiteral("-D"), m_dir + QStringLiteral("/data"), QStringLiteral("stop"),
             QStringLiteral("-m"), QStringLiteral("fast"), QStringLiteral("-w"),
             QStringLiteral("-t"), QStringLiteral("60")},
            70000);
    // QTemporaryDir removes the folder (as root, whoever owns what is inside).
}

bool PgCluster::run(const QString &tool, const QStringList &arguments, int timeoutMs)
{
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    const QString program = m_bindir + u'/' + tool;
    if (m_asPostgresUser)
        p.start(QStringLiteral("runuser"),
                QStringList{QStringLiteral("-u"), QStringLiteral("postgres"), QStringLiteral("--"),
                            program} +
                    arguments);
    else
        p.start(program, arguments);
    if (!p.waitForFinished(timeoutMs) || p.exitStatus() != QProcess::NormalExit ||
        p.exitCode() != 0) {
        if (p.state() != QProcess::NotRunning) {
            p.kill();
            p.waitForFinished(5000);
        }
        m_error = QStringLiteral("%1 failed (%2): %3")
                      .arg(tool, p.errorString(), QString::fromLocal8Bit(p.readAll()).right(2000));
        return false;
    }
    return true;
}

bool PgCluster::start()
{
    if (!m_base->isValid()) {
        m_error = QStringLiteral("cannot create the cluster folder: ") + m_base->errorString();
        return false;
    }
    if (!QFileInfo::exists(m_bindir + QStringLiteral("/initdb"))) {
        m_error = m_bindir + QStringLiteral("/initdb is missing: install Debian's postgresql");
        return false;
    }
    if (m_asPostgresUser) {
        const struct passwd *pw = ::getpwnam("postgres");
        if (!pw || ::chown(QFile::encodeName(m_dir).constData(), pw->pw_uid, pw->pw_gid) != 0) {
            m_error = QStringLiteral("running as root needs the user postgres (Debian's "
                                     "postgresql package creates it)");
            return false;
        }
    }
    const QString data = m_dir + QStringLiteral("/data");
    if (!run(QStringLiteral("initdb"),
             {QStringLiteral("-D"), data, QStringLiteral("-U"), superuser(),
              QStringLiteral("--auth=trust"), QStringLiteral("--encoding=UTF8"),
              QStringLiteral("--locale=C"), QStringLiteral("--no-sync"), QStringLiteral("-N")},
             120000))
        return false;
    const QString options = QStringLiteral("-k %1 -c listen_addresses= -p %2 -c fsync=off "
                                           "-c max_connections=40 -c shared_buffers=16MB")
                                .arg(m_dir)
                                .arg(m_port);
    if (!run(QStringLiteral("pg_ctl"),
             {QStringLiteral("-D"), data, QStringLiteral("-l"),
              m_dir + QStringLiteral("/server.log"), QStringLiteral("-o"), options,
              QStringLiteral("-w"), QStringLiteral("-t"), QStringLiteral("60"),
              QStringLiteral("start")},
             70000)) {
        m_error += QStringLiteral("\n") + serverLog();
        return false;
    }
    m_running = true;
    return true;
}

bool PgCluster::requirePasswordFor(const QString &role)
{
    const QString data = m_dir + QStringLiteral("/data");
    QFile hba(data + QStringLiteral("/pg_hba.conf"));
    if (!hba.open(QIODevice::ReadOnly)) {
        m_error = hba.errorString();
        return false;
    }
    const QByteArray rest = hba.readAll();
    hba.close();
    if (!hba.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        m_error = hba.errorString();
        return false;
    }
    hba.write("local all " + role.toUtf8() + " scram-sha-256\n" + rest);
    hba.close();
    return run(QStringLiteral("pg_ctl"), {QStringLiteral("-D"), data, QStringLiteral("reload")},
               30000);
}

QString PgCluster::uri(const QString &role, const QString &database) const
{
    // Concatenated, not .arg()-chained: the percent-encoded parts contain "%2F".
    return QStringLiteral("postgresql://") + QString::fromLatin1(QUrl::toPercentEncoding(role)) +
           QStringLiteral("@/") + QString::fromLatin1(QUrl::toPercentEncoding(database)) +
           QStringLiteral("?host=") + QString::fromLatin1(QUrl::toPercentEncoding(m_dir)) +
           QStringLiteral("&port=") + QString::number(m_port);
}

QString PgCluster::serverLog() const
{
    QFile f(m_dir + QStringLiteral("/server.log"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll()).right(4000);
}

} // namespace fbtest
