// "fabric-broker team ..." and "audit verify --team" (TeamCommand) in this process, against the
// team database on a real PostgreSQL 15 (a private cluster, ../team/TeamFixture.h): usage and
// each command's --help; init creates the schema, then has nothing to do, and refuses a newer
// one; status says the version and who the connection is, and refuses a role that may not read
// the schema or a schema newer than it knows; the team audit chain verifies and a changed row
// breaks it; verify refuses bad options and a policy without approver keys before it connects; no
// connection is exit 2; the approver's terminal commands (pending, show, approve, deny) answer
// --help and refuse a key file and a missing team.database. The executable runs them
// (tst_commandline: every command answers --help).
// Signed histories: tests/integration/team/tst_teamverify, tst_team_verify_history.
#include "../team/TeamFixture.h"
#include "AppOutput.h"
#include "TestEnvironment.h"
#include "app/TeamCommand.h"
#include "team/TeamAudit.h"

#include <QLoggingCategory>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace fb;
using namespace fbtest;
using fb::team::Migration;
using fb::team::TeamAudit;
using fb::team::TeamSchema;
using namespace Qt::StringLiterals;

class TstTeamCommand : public QObject {
    Q_OBJECT
    TeamFixture fx;
    QTemporaryDir m_dir;
    std::unique_ptr<ScopedEnvironmentVariable> m_policy;

    static CommandRun team(const QStringList &args)
    {
        return runCommand(runTeamCommand, QStringList{u"fabric-broker"_s, u"team"_s} + args);
    }
    static CommandRun auditVerifyTeam(const QString &uri)
    {
        return runCommand([](const QStringList &args) { return runTeamAuditVerify(args.first()); },
                          {uri});
    }
    QString uri(const QString &role, const QString &db) const { return fx.cluster.uri(role, db); }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // No administrator's or user's policy of the machine running the tests.
        m_policy = std::make_unique<ScopedEnvironmentVariable>(
            "FABRIC_BROKER_POLICY", QFile::encodeName(m_dir.filePath(u"no-policy.json"_s)));
        QVERIFY2(fx.setUp(), "PostgreSQL did not start (see the warning above)");
        // Qt Test prints the library's notes on the stdout the commands are read from.
        QLoggingCategory::setFilterRules(
            u"fabricbroker.*.debug=false\nfabricbroker.*.info=false"_s);
    }
    void cleanupTestCase()
    {
        fx.super.reset();
        m_policy.reset();
    }
    void init() { failOnWarnings(); }

    void usageAndEachCommandsHelp()
    {
        CommandRun r = team({});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.out.startsWith(u"Usage: fabric-broker team <command> [URI]"_s),
                 qPrintable(r.out));
        const QList<std::pair<QString, QString>> helps{
            {u"init"_s, u"Usage: fabric-broker team init URI\n"_s},
            {u"status"_s, u"Usage: fabric-broker team status URI\n"_s},
            {u"key"_s, u"Usage: fabric-broker team key\n"_s},
            {u"verify"_s, u"Usage: fabric-broker team verify URI [--since DATE]"_s}};
        for (const auto &[command, usage] : helps) {
            r = team({command, u"postgresql:///x"_s, u"-h"_s});
            QCOMPARE(r.exitCode, 0);
            QVERIFY2(r.out.startsWith(usage), qPrintable(r.out));
        }
        for (const QStringList &wrong :
             {QStringList{u"frob"_s}, QStringList{u"init"_s},
              QStringList{u"init"_s, u"a"_s, u"b"_s}, QStringList{u"status"_s, u"--uri"_s},
              QStringList{u"key"_s, u"extra"_s}}) {
            r = team(wrong);
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.startsWith(u"fabric-broker team: unknown command or arguments\n"_s),
                     qPrintable(r.err));
        }
        r = team({u"verify"_s, u"--bundle"_s, u"a"_s, u"b"_s});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(u"--bundle FILE takes only --trust-bundle-keys"_s),
                 qPrintable(r.err));
    }

    // An approver's terminal commands (issue #37): each answers --help; what is refused before
    // the database or a terminal is reached. Their runs on a terminal, with ssh-agent and the
    // desktop dialog: tests/e2e/team-terminal.test.mjs.
    void terminalCommandsUsageAndRefusals()
    {
        CommandRun r = team({});
        QVERIFY2(
            r.out.contains(u"  pending      the proposals open to a decision"_s) &&
                r.out.contains(u"  approve ID [--key keychain | --key ssh-agent[:FINGERPRINT]]"_s),
            qPrintable(r.out));
        const QList<std::pair<QString, QString>> helps{
            {u"pending"_s, u"Usage: fabric-broker team pending\n"_s},
            {u"show"_s, u"Usage: fabric-broker team show ID\n"_s},
            {u"approve"_s, u"Usage: fabric-broker team approve ID [--key keychain | --key "
                           "ssh-agent[:FINGERPRINT]]\n"_s},
            {u"deny"_s, u"Usage: fabric-broker team deny ID [--key keychain"_s}};
        for (const auto &[command, usage] : helps) {
            r = team({command, u"--help"_s});
            QCOMPARE(r.exitCode, 0);
            QVERIFY2(r.out.startsWith(usage), qPrintable(r.out));
        }
        QVERIFY(team({u"approve"_s, u"-h"_s}).out.contains(u"never from a flag or a pipe"_s));
        for (const QStringList &wrong :
             {QStringList{u"show"_s}, QStringList{u"approve"_s}, QStringList{u"pending"_s, u"x"_s},
              QStringList{u"deny"_s, u"a"_s, u"b"_s}, QStringList{u"show"_s, u"--key"_s}}) {
            r = team(wrong);
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains(u"unknown arguments"_s), qPrintable(r.err));
        }
        // A key file is never read, whatever --key names.
        for (const QString &key : {u"/root/.ssh/id_ed25519"_s, u"file:/tmp/k"_s}) {
            r = team({u"approve"_s, u"0d4f0f6e"_s, u"--key"_s, key});
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains(u"a key file is never read"_s), qPrintable(r.err));
            r = team({u"deny"_s, u"0d4f0f6e"_s, u"--key="_s + key});
            QCOMPARE(r.exitCode, 2);
        }
        // No administrator's team.database (this suite reads no policy of the machine's user).
        const ScopedEnvironmentVariable noAdmin("FABRIC_BROKER_EXTRA_ADMIN_POLICY",
                                                QFile::encodeName(m_dir.filePath(u"none.json"_s)));
        if (QFile::exists(u"/etc/fabric-broker/policy.json"_s))
            QSKIP("this machine has an administrator's policy file");
        for (const QStringList &args :
             {QStringList{u"pending"_s}, QStringList{u"show"_s, u"0d4f0f6e"_s},
              QStringList{u"approve"_s, u"0d4f0f6e"_s, u"--key"_s, u"ssh-agent"_s}}) {
            r = team(args);
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains(u"no team database: team.database is set by the "
                                    "administrator's policy alone"_s),
                     qPrintable(r.err));
        }
    }

    void noConnectionIsExitTwo()
    {
        const QString nowhere = u"postgresql:///team?host=%1"_s.arg(m_dir.filePath(u"none"_s));
        for (const QString &command : {u"init"_s, u"status"_s}) {
            const CommandRun r = team({command, nowhere});
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.startsWith(u"fabric-broker team %1: cannot connect: "_s.arg(command)),
                     qPrintable(r.err));
        }
        const CommandRun r = auditVerifyTeam(nowhere);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.startsWith(u"fabric-broker audit verify --team: cannot connect: "_s),
                 qPrintable(r.err));
    }

    void initTwiceIsIdempotentAndStatusSaysWhoIsConnected()
    {
        const QString db = fx.freshDatabase();
        CommandRun r = team({u"status"_s, uri(u"fb_owner"_s, db)});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(
            r.out.contains(u"schema fabric_team: version 0 (this fabric-broker knows %1)"_s.arg(
                TeamSchema::knownVersion())) &&
                r.out.contains(u"there is no schema yet: the schema owner runs `fabric-broker "
                               "team init URI`"_s),
            qPrintable(r.out));
        r = team({u"init"_s, uri(u"fb_owner"_s, db)});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(u"migrated from version 0 to %1 (applied 001_initial, "_s.arg(
                     TeamSchema::knownVersion())),
                 qPrintable(r.out));
        r = team({u"init"_s, uri(u"fb_owner"_s, db)});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(u"nothing to do"_s), qPrintable(r.out));
        QVERIFY2(!r.out.contains(u"NOTICE"_s) && !r.err.contains(u"NOTICE"_s), qPrintable(r.err));
        r = team({u"status"_s, uri(u"fb_owner"_s, db)});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(
            r.out.contains(u"schema fabric_team: version %1 (this fabric-broker knows %1)"_s.arg(
                TeamSchema::knownVersion())) &&
                r.out.contains(u"member of neither fabric_proposers nor fabric_approvers"_s),
            qPrintable(r.out));
        FB_SQL(*fx.super, "GRANT fabric_approvers TO alice; GRANT fabric_proposers TO carol");
        r = team({u"status"_s, uri(u"alice"_s, db)});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(u"\nmember of fabric_approvers\n"_s), qPrintable(r.out));
        // team init revoked CONNECT from PUBLIC; granted by hand, mallory still reads nothing.
        FB_SQL(*fx.super, u"GRANT CONNECT ON DATABASE %1 TO mallory"_s.arg(db).toUtf8());
        r = team({u"status"_s, uri(u"mallory"_s, db)});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(u"mallory may not read the schema fabric_team: it is a member of "
                                "neither fabric_proposers nor fabric_approvers"_s),
                 qPrintable(r.err));
    }

    void initRefusesANewerSchema()
    {
        const QString db = fx.freshDatabase();
        auto owner = connectAs(fx.cluster, u"fb_owner"_s, db);
        QVERIFY(owner);
        // What a newer fabric-broker made: one migration more than this one knows.
        QList<Migration> newer = TeamSchema::builtIn();
        Migration future;
        future.version = static_cast<int>(newer.size()) + 1;
        future.name = u"%1_future"_s.arg(future.version, 3, 10, QLatin1Char('0'));
        future.sql = "CREATE TABLE fabric_team.future (x integer);";
        newer << future;
        QVERIFY(TeamSchema::migrate(*owner, newer).ok);
        CommandRun r = team({u"init"_s, uri(u"fb_owner"_s, db)});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.startsWith(u"fabric-broker team init: "_s) &&
                     r.err.contains(u"upgrade fabric-broker"_s),
                 qPrintable(r.err));
        QCOMPARE(TeamSchema::currentVersion(*owner).value_or(-1), future.version);
        r = team({u"status"_s, uri(u"fb_owner"_s, db)});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.contains(u"version %1 (this fabric-broker knows %2)"_s.arg(future.version)
                                    .arg(TeamSchema::knownVersion())) &&
                     r.out.contains(u"the schema is newer than this fabric-broker knows"_s),
                 qPrintable(r.out));
    }

    // What an upgrade leaves: the schema an older fabric-broker made. status says to migrate it
    // (exit 1); init migrates it; then status is 0.
    void statusSaysAnOlderSchemaNeedsInitAndInitMigratesIt()
    {
        const QString db = fx.freshDatabase();
        auto owner = connectAs(fx.cluster, u"fb_owner"_s, db);
        QVERIFY(owner);
        const QList<Migration> all = TeamSchema::builtIn();
        QVERIFY(all.size() >= 2);
        QVERIFY(TeamSchema::migrate(*owner, all.mid(0, all.size() - 1)).ok);
        CommandRun r = team({u"status"_s, uri(u"fb_owner"_s, db)});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.contains(u"version %1 (this fabric-broker knows %2)"_s.arg(all.size() - 1)
                                    .arg(all.size())) &&
                     r.out.contains(u"the schema is older than this fabric-broker needs: team "
                                    "mode refuses it until the schema owner runs `fabric-broker "
                                    "team init URI`"_s),
                 qPrintable(r.out));
        r = team({u"init"_s, uri(u"fb_owner"_s, db)});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(
            r.out.contains(u"migrated from version %1 to %2"_s.arg(all.size() - 1).arg(all.size())),
            qPrintable(r.out));
        r = team({u"status"_s, uri(u"fb_owner"_s, db)});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(!r.out.contains(u"older"_s) && !r.out.contains(u"newer"_s), qPrintable(r.out));
    }

    void theTeamAuditChainVerifiesAndAChangedRowBreaksIt()
    {
        const QString db = fx.initializedDatabase();
        auto alice = connectAs(fx.cluster, u"alice"_s, db);
        QVERIFY(alice);
        for (const char *note : {R"({"n":1})", R"({"text":"é ü 日本 \n"})"})
            QVERIFY(TeamAudit::append(*alice, u"note"_s, QString(), QByteArray(note)).ok());
        const auto chain = TeamAudit::verify(*alice);
        QVERIFY2(chain.ok, qPrintable(chain.problem));
        CommandRun r = auditVerifyTeam(uri(u"bob"_s, db));
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out, u"OK: team audit chain intact, %1 rows, head %2:%3\n"_s.arg(chain.rows)
                            .arg(chain.headSeq)
                            .arg(QString::fromLatin1(chain.headHash.toHex())));
        // The schema owner changes one row: verify names it.
        auto owner = connectAs(fx.cluster, u"fb_owner"_s, db);
        FB_SQL(*owner, "UPDATE fabric_team.team_audit SET detail = '{\"n\":2}' WHERE seq = 1");
        r = auditVerifyTeam(uri(u"bob"_s, db));
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.startsWith(u"BROKEN: team audit chain"_s) && r.out.contains(u"row seq 1"_s),
                 qPrintable(r.out));
    }

    void verifyRefusesBadOptionsAndAPolicyWithoutKeys()
    {
        const QString db = fx.initializedDatabase();
        const QString bob = uri(u"bob"_s, db);
        const QList<std::pair<QStringList, QString>> refused{
            {{u"--since"_s, u"yesterday"_s}, u"--since must be an ISO 8601 date"_s},
            {{u"--since"_s, u"2026-12-01"_s, u"--since"_s, u"2026-12-02"_s},
             u"--since must be an ISO 8601 date"_s},
            {{u"--frob"_s, u"x"_s}, u"unknown option --frob"_s},
            {{u"--export"_s}, u"--export needs a value"_s},
            {{}, u"the policy sets no team.approver_keys"_s}};
        for (const auto &[options, why] : refused) {
            const CommandRun r = team(QStringList{u"verify"_s, bob} + options);
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.startsWith(u"fabric-broker team verify: "_s + why), qPrintable(r.err));
            QVERIFY(r.out.isEmpty());
        }
        const CommandRun r = team({u"verify"_s, u"--bundle"_s, m_dir.filePath(u"missing.json"_s)});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.startsWith(u"fabric-broker team verify: cannot read "_s), qPrintable(r.err));
    }

    void theExecutableRunsThem()
    {
        const QString db = fx.initializedDatabase();
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(brokerBinary(), {u"audit"_s, u"verify"_s, u"--team"_s, uri(u"bob"_s, db)});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        QVERIFY2(p.readAll().startsWith("OK: team audit chain intact, "), "audit verify --team");
        p.start(brokerBinary(), {u"team"_s, u"status"_s, uri(u"alice"_s, db)});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        QVERIFY(p.readAll().contains("member of fabric_approvers"));
    }
};

QTEST_MAIN(TstTeamCommand)
#include "tst_teamcommand.moc"
