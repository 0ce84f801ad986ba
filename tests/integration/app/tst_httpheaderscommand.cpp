// HttpHeadersCommand: `fabric-broker http-headers` prints {"Authorization":"Bearer <token>"} (or
// the token alone with --token) from the token file the running broker writes, by default in
// the per-user runtime directory; no usable token is exit 1 with the reason on stderr and
// nothing on stdout, and it never creates a token.
#include "AppOutput.h"
#include "TestEnvironment.h"
#include "app/HttpHeadersCommand.h"
#include "transport/http/HttpToken.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace fb;

namespace {

using Run = fbtest::CommandRun;

Run run(const QStringList &options)
{
    return fbtest::runCommand(runHttpHeadersCommand,
                              QStringList{"fabric-broker", "http-headers"} + options);
}

bool makePrivate(const QString &dir)
{
    return QFile::setPermissions(dir, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                          QFileDevice::ExeOwner);
}

} // namespace

class TestHttpHeadersCommand : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private slots:
    void init() { fbtest::failOnWarnings(); }

    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY(makePrivate(m_dir.path()));
    }

    void headerFromTheDefaultFile()
    {
        fbtest::ScopedEnvironmentVariable runtime("XDG_RUNTIME_DIR",
                                                  QFile::encodeName(m_dir.path()));
        QString error;
        const QByteArray token =
            transport::HttpToken::loadOrCreate(transport::HttpToken::defaultPath(), &error);
        QVERIFY2(!token.isEmpty(), qPrintable(error));

        const Run r = run({});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.err, QString());
        QVERIFY(r.out.endsWith(u'\n'));
        QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object(),
                 QJsonObject({{"Authorization", QString("Bearer " + QString::fromLatin1(token))}}));

        const Run bare = run({"--token"});
        QCOMPARE(bare.exitCode, 0);
        QCOMPARE(bare.out, QString::fromLatin1(token) + u'\n');
        QVERIFY(QFile::remove(transport::HttpToken::defaultPath()));
    }

    void tokenFileOption()
    {
        const QString path = m_dir.filePath("other.token");
        QString error;
        const QByteArray token = transport::HttpToken::loadOrCreate(path, &error);
        QVERIFY2(!token.isEmpty(), qPrintable(error));
        const Run r = run({"--token", "--token-file", path});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, QString::fromLatin1(token) + u'\n');
    }

    void noTokenIsExitOne()
    {
        const QString path = m_dir.filePath("missing.token");
        const Run r = run({"--token-file", path});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.out, QString());
        QVERIFY2(r.err.startsWith("fabric-broker http-headers: "), qPrintable(r.err));
        QVERIFY2(!QFile::exists(path), "http-headers created a token");
    }

    void publicDirectoryIsRefused()
    {
        QTemporaryDir open;
        QVERIFY(open.isValid());
        const QString path = open.filePath("token");
        QVERIFY(makePrivate(open.path()));
        QString error;
        QVERIFY(!transport::HttpToken::loadOrCreate(path, &error).isEmpty());
        QVERIFY(QFile::setPermissions(
            open.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner |
                             QFileDevice::ReadOther | QFileDevice::ExeOther));
        const Run r = run({"--token-file", path});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.out, QString());
    }

    void usageError()
    {
        const Run r = run({"--bearer"});
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.out, QString());
        QVERIFY2(r.err.endsWith("Try 'fabric-broker http-headers --help'.\n"), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestHttpHeadersCommand)
#include "tst_httpheaderscommand.moc"
