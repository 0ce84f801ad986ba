// SocketRules, the Qt-free home of the socket directory rules that the launcher (no Qt) and the
// app (SocketDirectory) both use: path clean-up, --socket NAME|PATH, and the directory order
// ($XDG_RUNTIME_DIR, /run/user/<uid> when private, the fallback) on scratch roots. The checks on
// the directory and the socket file are tested through SocketDirectory (tst_socketdirectory).
#include "TestEnvironment.h"
#include "transport/socket/SocketRules.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

namespace rules = fb::socketrules;

class TestSocketRules : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void cleanPathAndDirName()
    {
        QCOMPARE(rules::cleanPath("/a//b/./c/"), std::string("/a/b/c"));
        QCOMPARE(rules::cleanPath("/a/b/../../.."), std::string("/"));
        QCOMPARE(rules::cleanPath("/x/../y/z.sock"), std::string("/y/z.sock"));
        QCOMPARE(rules::cleanPath("relative/./x"), std::string("relative/./x")); // untouched
        QCOMPARE(rules::dirName("/run/user/1/fabric-broker.sock"), std::string("/run/user/1"));
        QCOMPARE(rules::dirName("/f"), std::string("/"));
        QCOMPARE(rules::dirName("f"), std::string("."));
    }

    void socketOptionIsANameOrAPath()
    {
        QCOMPARE(rules::resolveSocketPath("", "/r"), std::string("/r/fabric-broker.sock"));
        QCOMPARE(rules::resolveSocketPath("  \t", "/r"), std::string("/r/fabric-broker.sock"));
        QCOMPARE(rules::resolveSocketPath("other.sock", "/r"), std::string("/r/other.sock"));
        QCOMPARE(rules::resolveSocketPath(" /a/./b.sock ", "/r"), std::string("/a/b.sock"));
        // The same answer as QFileInfo::absoluteFilePath (what the app computes).
        QCOMPARE(QString::fromStdString(rules::resolveSocketPath("sub/../y.sock", "/r")),
                 QDir::current().absoluteFilePath("y.sock"));
    }

    void directoryOrder()
    {
        QTemporaryDir scratch;
        QVERIFY(scratch.isValid());
        const uid_t uid = ::getuid();
        const std::string runUser = scratch.filePath("run").toStdString();
        const std::string fallback = scratch.filePath("tmp").toStdString();
        QVERIFY(QDir(scratch.path()).mkpath("run"));
        // An existing absolute XDG_RUNTIME_DIR wins, cleaned.
        rules::Directory d =
            rules::resolveDirectory(scratch.path().toStdString() + "/", uid, runUser, fallback);
        QCOMPARE(d.source, rules::Source::XdgRuntimeDir);
        QCOMPARE(d.path, rules::cleanPath(scratch.path().toStdString()));
        // A relative or missing one does not.
        QCOMPARE(rules::resolveDirectory("relative", uid, runUser, fallback).source,
                 rules::Source::Fallback);
        QCOMPARE(rules::resolveDirectory(runUser + "/missing", uid, runUser, fallback).source,
                 rules::Source::Fallback);
        // /run/user/<uid> only when it is a 0700 directory of the user.
        const std::string mine = runUser + "/" + std::to_string(uid);
        QVERIFY(::mkdir(mine.c_str(), 0755) == 0);
        QCOMPARE(rules::resolveDirectory("", uid, runUser, fallback).source,
                 rules::Source::Fallback);
        QVERIFY(::chmod(mine.c_str(), 0700) == 0);
        d = rules::resolveDirectory("", uid, runUser, fallback);
        QCOMPARE(d.source, rules::Source::RunUser);
        QCOMPARE(d.path, mine);
        QVERIFY(::rmdir(mine.c_str()) == 0);
        d = rules::resolveDirectory("", uid, runUser, fallback);
        QCOMPARE(d.path, fallback + "/fabric-broker-" + std::to_string(uid));
    }
};

QTEST_GUILESS_MAIN(TestSocketRules)
#include "tst_socketrules.moc"
