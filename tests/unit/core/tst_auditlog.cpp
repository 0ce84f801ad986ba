// fb::AuditLog, the writer: record format, the hash chain across reopen, scrubbing of tokens and
// secrets, bounds on client values, permissions, sync before record() returns, writers of other
// processes. Verification and recovery: tst_auditlog_verify; the file's safety (symlinks,
// replacement, truncation, the head file): tst_auditlog_file.
#include "TestEnvironment.h"
#include "auditlog_fixtures.h"

using fb::AuditLog;
using namespace fbtest::auditlog;

class TestAuditLog : public QObject, protected Fixture {
    Q_OBJECT
private slots:
    void init()
    {
        fbtest::failOnWarnings();
        setUp();
    }
    void cleanup() { tearDown(); }

    // Another process holding the log's flock: record() gives up after a bounded wait (never a
    // blocking flock on the event loop) and says why; once the lock is free it records again.
    void lockHeldElsewhereFailsTheRecord()
    {
        AuditLog log(&m_clock);
        QVERIFY(log.open(m_path, nullptr));
        QVERIFY(log.recordForTesting(QStringLiteral("step"), {}));
        const int other = ::open(QFile::encodeName(m_path).constData(), O_RDONLY | O_CLOEXEC);
        QVERIFY(other >= 0);
        QCOMPARE(::flock(other, LOCK_EX), 0);
        QVERIFY(!log.recordForTesting(QStringLiteral("step"), {}));
        QVERIFY2(log.lastError().contains(QStringLiteral("lock")), qPrintable(log.lastError()));
        QCOMPARE(log.recordCount(), 1);
        ::flock(other, LOCK_UN);
        ::close(other);
        QVERIFY(log.recordForTesting(QStringLiteral("step"), {}));
        QCOMPARE(log.recordCount(), 2);
        QVERIFY(AuditLog::verify(m_path).ok);
    }

    void recordFormat()
    {
        AuditLog log(&m_clock);
        QVERIFY(log.open(m_path, nullptr));
        QCOMPARE(log.recordCount(), 0);
        QCOMPARE(log.headSha256(), AuditLog::zeroHash());
        m_clock.advanceMs(1234);
        QVERIFY(log.record(
            fb::AuditEventType::Proposed,
            {{QStringLiteral("target"), QStringLiteral("x")}, {QStringLiteral("price"), 12.5}}));
        QCOMPARE(log.recordCount(), 1);
        QCOMPARE(log.path(), m_path);

        const QByteArray all = readAll(m_path);
        QVERIFY(all.endsWith('\n'));
        QCOMPARE(all.count('\n'), 1);
        const QByteArray line = all.chopped(1);
        QCOMPARE(fb::canonicalJson(parse(line)), line); // canonical form, one line
        QCOMPARE(line, QByteArray("{\"data\":{\"price\":12.5,\"target\":\"x\"},\"prev\":\"" +
                                  QByteArray(64, '0') +
                                  "\",\"seq\":1,\"time\":\"2026-01-01T00:00:01.234Z\","
                                  "\"type\":\"proposed\"}"));
        QCOMPARE(log.headSha256().toLatin1(), sha(line));

        const auto v = AuditLog::verify(m_path);
        QVERIFY2(v.ok, qPrintable(v.problem));
        QCOMPARE(v.records, 1);
        QCOMPARE(v.firstBadLine, 0);
        QVERIFY(v.problem.isEmpty());
        QCOMPARE(v.headSha256.toLatin1(), sha(line));
    }

    void chainAcrossReopen()
    {
        writeRecords(3);
        {
            AuditLog log(&m_clock);
            QVERIFY(log.open(m_path, nullptr));
            QCOMPARE(log.recordCount(), 3);
            const QList<QByteArray> before = lines(m_path);
            QCOMPARE(log.headSha256().toLatin1(), sha(before.last()));
            QVERIFY(log.recordForTesting(QStringLiteral("step"), {{QStringLiteral("index"), 4}}));
            QVERIFY(log.recordForTesting(QStringLiteral("step"), {{QStringLiteral("index"), 5}}));
            QCOMPARE(log.recordCount(), 5);
        }
        const QList<QByteArray> ls = lines(m_path);
        QCOMPARE(ls.size(), 5);
        for (int i = 0; i < ls.size(); ++i) {
            const QJsonObject o = parse(ls.at(i));
            QCOMPARE(o.value(QStringLiteral("seq")).toInt(), i + 1);
            const QByteArray expectedPrev = i == 0 ? QByteArray(64, '0') : sha(ls.at(i - 1));
            QCOMPARE(o.value(QStringLiteral("prev")).toString().toLatin1(), expectedPrev);
        }
        const auto v = AuditLog::verify(m_path);
        QVERIFY2(v.ok, qPrintable(v.problem));
        QCOMPARE(v.records, 5);
        QCOMPARE(v.lastSeq, 5);
        QVERIFY(v.tornLines.isEmpty());
    }

    void scrubsTokensAndSecrets()
    {
        AuditLog log(&m_clock);
        QVERIFY(log.open(m_path, nullptr));
        const QJsonObject data{
            {QStringLiteral("confirm_token"), kToken},
            {QStringLiteral("message"),
             QStringLiteral("Confirm token: %1 (expires soon)").arg(kToken)},
            {QStringLiteral("not_a_token"), QStringLiteral("chg-0123")},
            {QStringLiteral("access_token"), QStringLiteral("eyJhbGciOi.secret")},
            {QStringLiteral("Client_Secret"), QStringLiteral("s3cr3t")},
            {QStringLiteral("request"),
             QJsonObject{
                 {QStringLiteral("headers"),
                  QJsonObject{
                      {QStringLiteral("Authorization"), QStringLiteral("Bearer eyJhbGciOi.secret")},
                      {QStringLiteral("Accept"), QStringLiteral("application/json")}}},
                 {QStringLiteral("items"),
                  QJsonArray{kToken,
                             QJsonObject{{QStringLiteral("password"), QStringLiteral("hunter2")},
                                         {QStringLiteral("dbPassword"), QStringLiteral("hunter3")},
                                         {QStringLiteral("secret"), 42},
                                         {QStringLiteral("name"), QStringLiteral("n")}}}}}},
            {QStringLiteral("tokens_by_id"), QJsonObject{{kToken, 1}}},
        };
        QVERIFY(log.record(fb::AuditEventType::Proposed, data));
        const QByteArray all = readAll(m_path);
        for (const char *forbidden :
             {"chg-0123456789abcdef", "eyJhbGciOi", "s3cr3t", "hunter", "Authorization",
              "access_token", "Client_Secret", "\"secret\"", "Bearer"})
            QVERIFY2(!all.contains(forbidden), forbidden);

        const QString hashed = QStringLiteral("sha256:") + fb::tokenDigest(kToken);
        const QJsonObject stored = parse(all.chopped(1)).value(QStringLiteral("data")).toObject();
        QCOMPARE(stored.value(QStringLiteral("confirm_token")).toString(), hashed);
        QCOMPARE(stored.value(QStringLiteral("message")).toString(),
                 QStringLiteral("Confirm token: %1 (expires soon)").arg(hashed));
        QCOMPARE(stored.value(QStringLiteral("not_a_token")).toString(),
                 QStringLiteral("chg-0123"));
        const QJsonObject request = stored.value(QStringLiteral("request")).toObject();
        QCOMPARE(request.value(QStringLiteral("headers")).toObject(),
                 (QJsonObject{{QStringLiteral("Accept"), QStringLiteral("application/json")}}));
        const QJsonArray items = request.value(QStringLiteral("items")).toArray();
        QCOMPARE(items.at(0).toString(), hashed);
        QCOMPARE(items.at(1).toObject(),
                 (QJsonObject{{QStringLiteral("name"), QStringLiteral("n")}}));
        QVERIFY(stored.value(QStringLiteral("tokens_by_id")).toObject().contains(hashed));
        QVERIFY(!stored.contains(QStringLiteral("access_token")));
        QVERIFY(AuditLog::verify(m_path).ok);

        // token_sha256 (what the broker writes) is not mistaken for a secret.
        const QJsonObject kept =
            AuditLog::scrub({{QStringLiteral("token_sha256"), fb::tokenDigest(kToken)},
                             {QStringLiteral("request_sha256"), QStringLiteral("ab")}});
        QCOMPARE(kept.size(), 2);
    }

    void evictionAndExpiryRecords()
    {
        AuditLog log(&m_clock);
        QVERIFY(log.open(m_path, nullptr));
        fb::Proposal p;
        p.token = kToken;
        p.target = QStringLiteral("port A to port B");
        p.requestSha256 = QString(64, u'a');
        p.proposedAtMs = m_clock.nowMs();
        p.expiresAtMs = p.proposedAtMs + 600000;
        p.context = {
            {QStringLiteral("client"), QJsonObject{{QStringLiteral("name"), QStringLiteral("c")}}}};
        m_clock.advanceMs(5000);
        QVERIFY(log.recordEviction(p));
        m_clock.advanceMs(600000);
        QVERIFY(log.recordExpiry(p));

        QList<QJsonObject> records;
        QVERIFY(AuditLog::readRecords(m_path, &records));
        QCOMPARE(records.size(), 2);
        QCOMPARE(records.at(0).value(QStringLiteral("type")).toString(), QStringLiteral("evicted"));
        QCOMPARE(records.at(1).value(QStringLiteral("type")).toString(), QStringLiteral("expired"));
        const QJsonObject d = records.at(0).value(QStringLiteral("data")).toObject();
        QCOMPARE(d.value(QStringLiteral("token_sha256")).toString(), fb::tokenDigest(kToken));
        QCOMPARE(d.value(QStringLiteral("target")).toString(), p.target);
        QCOMPARE(d.value(QStringLiteral("request_sha256")).toString(), p.requestSha256);
        QCOMPARE(d.value(QStringLiteral("age_ms")).toInt(), 5000);
        QCOMPARE(
            d.value(QStringLiteral("client")).toObject().value(QStringLiteral("name")).toString(),
            QStringLiteral("c"));
        QCOMPARE(records.at(1).value(QStringLiteral("time")).toString(),
                 QStringLiteral("2026-01-01T00:10:05.000Z"));
        QVERIFY(!readAll(m_path).contains("chg-"));
    }

    void permissions()
    {
        const QString nested = m_tmp->filePath(QStringLiteral("a/b/audit.jsonl"));
        AuditLog log(&m_clock);
        QString error;
        QVERIFY2(log.open(nested, &error), qPrintable(error));
        QVERIFY(log.recordForTesting(QStringLiteral("step"), {}));
        QCOMPARE(mode(nested), 0600);
        QCOMPARE(mode(m_tmp->filePath(QStringLiteral("a/b"))), 0700);
        QCOMPARE(mode(m_tmp->filePath(QStringLiteral("a"))), 0700);

        // An existing, too-open log is tightened.
        writeAll(m_path, {});
        QVERIFY(QFile::setPermissions(m_path, QFile::ReadOwner | QFile::WriteOwner |
                                                  QFile::ReadGroup | QFile::ReadOther));
        QCOMPARE(mode(m_path), 0644);
        AuditLog other(&m_clock);
        QVERIFY(other.open(m_path, nullptr));
        QCOMPARE(mode(m_path), 0600);

        // Not a regular file.
        AuditLog dir(&m_clock);
        QVERIFY(!dir.open(m_tmp->path(), &error));
        QVERIFY(!dir.recordForTesting(QStringLiteral("step"), {}));
    }

    void defaultPath()
    {
        fbtest::ScopedEnvironmentVariable log("EQUINIX_MCP_AUDIT_LOG", QFile::encodeName(m_path));
        fbtest::ScopedEnvironmentVariable xdg("XDG_DATA_HOME");
        QCOMPARE(AuditLog::defaultPath(), m_path);
        qunsetenv("EQUINIX_MCP_AUDIT_LOG");
        qputenv("XDG_DATA_HOME", QFile::encodeName(m_tmp->path()));
        QCOMPARE(AuditLog::defaultPath(),
                 m_tmp->path() + QStringLiteral("/fabric-broker/audit.jsonl"));
    }

    void syncIsCalledBeforeRecordReturns()
    {
        AuditLog log(&m_clock);
        QVERIFY(log.open(m_path, nullptr));
        int syncs = 0;
        qint64 sizeAtSync = -1;
        const QString path = m_path;
        log.setIoHooksForTesting(nullptr, [&](int fd) {
            ++syncs;
            sizeAtSync = QFileInfo(path).size();
            return ::fdatasync(fd);
        });
        QVERIFY(log.recordForTesting(QStringLiteral("step"), {}));
        QCOMPARE(syncs, 1);
        QCOMPARE(sizeAtSync, readAll(m_path).size()); // the whole line was written first
        QVERIFY(log.recordForTesting(QStringLiteral("step"), {}));
        QCOMPARE(syncs, 2);
    }

    void syncFailureIsNotDurable()
    {
        AuditLog log(&m_clock);
        QVERIFY(log.open(m_path, nullptr));
        QVERIFY(log.recordForTesting(QStringLiteral("step"), {}));
        log.setIoHooksForTesting(nullptr, [](int) {
            errno = EIO;
            return -1;
        });
        QVERIFY(!log.record(fb::AuditEventType::Sending, {}));
        QVERIFY2(log.lastError().contains(QStringLiteral("sync")), qPrintable(log.lastError()));
        // The bytes did reach the file: the chain continues after them once sync works again.
        log.setIoHooksForTesting(nullptr, nullptr);
        QVERIFY(log.recordForTesting(QStringLiteral("step"), {}));
        QCOMPARE(log.recordCount(), 3);
        const auto v = AuditLog::verify(m_path);
        QVERIFY2(v.ok, qPrintable(v.problem));
        QCOMPARE(v.records, 3);
    }

    void partialWriteLeavesTornLineAndRecovers()
    {
        AuditLog log(&m_clock);
        QVERIFY(log.open(m_path, nullptr));
        QVERIFY(log.recordForTesting(QStringLiteral("step"), {}));
        int calls = 0;
        log.setIoHooksForTesting(
            [&](int fd, const char *data, qint64 size) -> qint64 {
                if (calls++ == 0)
                    return ::write(fd, data, static_cast<size_t>(qMin<qint64>(size, 20)));
                errno = ENOSPC;
                return -1;
            },
            nullptr);
        QVERIFY(!log.record(fb::AuditEventType::Sending, {}));
        QVERIFY2(log.lastError().contains(QStringLiteral("write")), qPrintable(log.lastError()));
        QCOMPARE(log.recordCount(), 1);
        log.setIoHooksForTesting(nullptr, nullptr);
        QVERIFY(log.recordForTesting(QStringLiteral("step"), {}));
        QCOMPARE(log.recordCount(), 2);

        const auto v = AuditLog::verify(m_path);
        QVERIFY2(v.ok, qPrintable(v.problem));
        QCOMPARE(v.records, 2);
        QCOMPARE(v.tornLines, QList<qint64>{2});
    }

    void twoWritersInterleave()
    {
        AuditLog a(&m_clock);
        AuditLog b(&m_clock);
        QVERIFY(a.open(m_path, nullptr));
        QVERIFY(b.open(m_path, nullptr));
        for (int i = 0; i < 5; ++i) {
            QVERIFY(a.recordForTesting(QStringLiteral("a"), {}));
            QVERIFY(b.recordForTesting(QStringLiteral("b"), {}));
        }
        QCOMPARE(b.recordCount(), 10);
        const auto v = AuditLog::verify(m_path);
        QVERIFY2(v.ok, qPrintable(v.problem));
        QCOMPARE(v.records, 10);
    }

    // ---- bounds on client-supplied values ----

    void deepClientInfoIsBoundedAndVerifies()
    {
        // A capabilities object nested 1010 levels deep: before the bounds, its record was deeper
        // than verification parses (1000) and the chain was reported BROKEN from then on.
        QJsonObject deep{{QStringLiteral("leaf"), true}};
        for (int i = 0; i < 1010; ++i)
            deep = QJsonObject{{QStringLiteral("x"), deep}};
        const QJsonObject client{{QStringLiteral("name"), QStringLiteral("hostile")},
                                 {QStringLiteral("capabilities"), deep}};
        AuditLog log(&m_clock);
        QVERIFY(log.open(m_path, nullptr));
        QVERIFY(log.record(fb::AuditEventType::Proposed,
                           {{QStringLiteral("client"), client}, {QStringLiteral("target"), 1}}));
        QVERIFY(log.record(fb::AuditEventType::Decision, {{QStringLiteral("client"), client}}));
        log.close();

        const auto v = AuditLog::verify(m_path);
        QVERIFY2(v.ok, qPrintable(v.problem));
        QCOMPARE(v.records, 2);
        const QByteArray first = lines(m_path).first();
        QVERIFY2(first.count('{') < 20, first.left(400));
        const QJsonObject data = parse(first).value(QStringLiteral("data")).toObject();
        QCOMPARE(data.value(QStringLiteral("target")).toInt(), 1);
        QCOMPARE(data.value(QStringLiteral("client"))
                     .toObject()
                     .value(QStringLiteral("name"))
                     .toString(),
                 QStringLiteral("hostile"));
        QVERIFY2(first.contains("[truncated: nested deeper than 6 level(s)]"), first);
        const QJsonArray marks = data.value(QStringLiteral("audit_truncated")).toArray();
        QCOMPARE(marks.size(), 1);
        QVERIFY2(marks.at(0).toString().startsWith(QStringLiteral("client.capabilities.x.x.x")),
                 qPrintable(marks.at(0).toString()));

        // The writer reopens it and goes on.
        AuditLog again(&m_clock);
        QString error;
        QVERIFY2(again.open(m_path, &error), qPrintable(error));
        QCOMPARE(again.recordCount(), 2);
    }

    void hugeValuesAreBounded()
    {
        QJsonObject manyKeys;
        for (int i = 0; i < 20000; ++i)
            manyKeys.insert(QStringLiteral("k%1").arg(i, 5, 10, QLatin1Char('0')), i);
        QJsonArray manyElements;
        for (int i = 0; i < 5000; ++i)
            manyElements.append(i);
        const QJsonObject client{{QStringLiteral("name"), QString(100000, u'n')},
                                 {QStringLiteral("capabilities"), manyKeys}};
        QJsonObject data{{QStringLiteral("client"), client},
                         {QStringLiteral("list"), manyElements},
                         {QStringLiteral("message"), QString(50000, u'm')}};
        const QJsonObject out = AuditLog::scrub(data);
        const QJsonObject c = out.value(QStringLiteral("client")).toObject();
        QVERIFY(c.value(QStringLiteral("name")).toString().size() < 600);
        QVERIFY(c.value(QStringLiteral("name"))
                    .toString()
                    .contains(QStringLiteral("…[truncated: 99488 more character(s)]")));
        const QJsonObject caps = c.value(QStringLiteral("capabilities")).toObject();
        QVERIFY(caps.size() <= AuditLog::ClientBounds.members + 1);
        QCOMPARE(caps.value(QStringLiteral("[truncated]")).toString(),
                 QStringLiteral("%1 more member(s) left out")
                     .arg(20000 - AuditLog::ClientBounds.members));
        QVERIFY(canonicalSize(c) <= AuditLog::ClientBounds.totalBytes + 1024);
        const QJsonArray list = out.value(QStringLiteral("list")).toArray();
        QCOMPARE(list.size(), AuditLog::DataBounds.elements + 1);
        QCOMPARE(list.last().toString(), QStringLiteral("[truncated: %1 more element(s) left out]")
                                             .arg(5000 - AuditLog::DataBounds.elements));
        QCOMPARE(out.value(QStringLiteral("message")).toString().left(8192), QString(8192, u'm'));
        const QJsonArray marks = out.value(QStringLiteral("audit_truncated")).toArray();
        QCOMPARE(marks.size(), 4);

        // Total size: many members that are each within bounds still stop at the budget.
        QJsonObject wide;
        for (int i = 0; i < 250; ++i)
            wide.insert(QStringLiteral("s%1").arg(i, 3, 10, QLatin1Char('0')), QString(8000, u'w'));
        const QJsonObject bounded = AuditLog::scrub(wide);
        QVERIFY(canonicalSize(bounded) <= AuditLog::DataBounds.totalBytes + 16 * 1024);
        QVERIFY(bounded.contains(QStringLiteral("[truncated]")));

        // Small, legitimate data passes unchanged.
        const QJsonObject plain{{QStringLiteral("a"), QJsonArray{1, 2, QStringLiteral("x")}},
                                {QStringLiteral("b"), QJsonObject{{QStringLiteral("c"), true}}}};
        QCOMPARE(AuditLog::scrub(plain), plain);

        AuditLog log(&m_clock);
        QVERIFY(log.open(m_path, nullptr));
        QVERIFY(log.record(fb::AuditEventType::Proposed, data));
        QVERIFY(readAll(m_path).size() < 300 * 1024);
        QVERIFY(AuditLog::verify(m_path).ok);
    }

    void recordWithoutOpenFails()
    {
        AuditLog log(&m_clock);
        QVERIFY(!log.recordForTesting(QStringLiteral("step"), {}));
        QVERIFY(!log.lastError().isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestAuditLog)
#include "tst_auditlog.moc"
