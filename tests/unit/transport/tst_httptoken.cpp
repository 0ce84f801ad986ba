// HttpToken: the per-user bearer token's file (0600, reused, rotated, refused when others can
// read it, never read or written through a symlink) and the Authorization header's check.
#include "TestEnvironment.h"
#include "transport/http/HttpToken.h"

#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>
#include <sys/stat.h>

using namespace fb::transport;

class TestHttpToken : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void tokenFile();
    void authorizationHeader();
    void tokenFileNoFollow();
};

void TestHttpToken::tokenFile()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("sub/fabric-broker-http.token");
    QString error;
    const QByteArray a = HttpToken::loadOrCreate(path, &error);
    QVERIFY2(!a.isEmpty(), qPrintable(error));
    QCOMPARE(a.size(), 43);
    struct stat st = {};
    QCOMPARE(::stat(QFile::encodeName(path).constData(), &st), 0);
    QCOMPARE(st.st_mode & 0777, 0600u);
    QCOMPARE(HttpToken::loadOrCreate(path, &error), a); // reused across runs
    const QByteArray b = HttpToken::rotate(path, &error);
    QVERIFY(!b.isEmpty());
    QVERIFY(b != a);
    QCOMPARE(HttpToken::loadOrCreate(path, &error), b);
    QVERIFY(HttpToken::generate() != HttpToken::generate());
    // A file others can read is not trusted (the token may have leaked).
    QVERIFY(QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                            QFileDevice::ReadGroup));
    QVERIFY(HttpToken::loadOrCreate(path, &error).isEmpty());
    QVERIFY(error.contains("0600"));
}

void TestHttpToken::authorizationHeader()
{
    const QByteArray t = HttpToken::generate();
    QVERIFY(HttpToken::authorizationMatches(t, "Bearer " + t));
    QVERIFY(HttpToken::authorizationMatches(t, "bearer  " + t + " "));
    QVERIFY(!HttpToken::authorizationMatches(t, "Bearer " + t.left(42)));
    QVERIFY(!HttpToken::authorizationMatches(t, "Bearer " + t + "x"));
    QVERIFY(!HttpToken::authorizationMatches(t, "Basic " + t));
    QVERIFY(!HttpToken::authorizationMatches(t, t));
    QVERIFY(!HttpToken::authorizationMatches(t, {}));
    QVERIFY(!HttpToken::authorizationMatches({}, "Bearer "));
}

void TestHttpToken::tokenFileNoFollow()
{
    QTemporaryDir dir;
    const QString target = dir.filePath("elsewhere");
    QFile file(target);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QByteArray(43, 'A') + '\n');
    file.close();
    QVERIFY(file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner));
    const QString link = dir.filePath("fabric-broker-http.token");
    QVERIFY(QFile::link(target, link));
    QString error;
    QVERIFY(HttpToken::loadOrCreate(link, &error).isEmpty()); // never read through a symlink
    QVERIFY(error.contains("private file"));
    // A rotation replaces the link itself, never writes through it.
    QVERIFY(!HttpToken::rotate(link, &error).isEmpty());
    QVERIFY(!QFileInfo(link).isSymLink());
    QFile original(target);
    QVERIFY(original.open(QIODevice::ReadOnly));
    QCOMPARE(original.readAll().trimmed(), QByteArray(43, 'A'));
}

QTEST_GUILESS_MAIN(TestHttpToken)
#include "tst_httptoken.moc"
