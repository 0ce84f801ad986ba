// TeamQueueRows without a database (issue #40): the quorum rules, pure (an approval counts once
// per role, never from the proposer's own role, never from the proposing OS user on the proposing
// host, a deny from anyone ends it, a rejection has the last word on what would count), the
// count's JSON as the team audit and the confirm's answer carry it, and the resolution read back
// from the database's JSON. On a real PostgreSQL: tests/integration/team/tst_teamqueue.
#include "TestEnvironment.h"
#include "team/TeamQueueRows.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace fb::team;

namespace {

TeamProposal proposal()
{
    TeamProposal p;
    p.id = "11111111-1111-4111-8111-111111111111";
    p.proposer = QStringLiteral("bob");
    p.osUser = QStringLiteral("bob-os");
    p.host = QStringLiteral("ws1");
    return p;
}

TeamApproval approval(const char *role, const char *decision, const char *osUser = "someone",
                      const char *host = "ws9")
{
    TeamApproval a(QString::fromLatin1(role), QString::fromLatin1(decision),
                   QString::fromLatin1(osUser), QString::fromLatin1(host));
    a.id = QByteArray(role) + "-approval";
    return a;
}

QStringList whyNot(const QuorumCount &q)
{
    QStringList out;
    for (const QJsonValue &v : q.notCounted)
        out << v[QStringLiteral("approver")].toString() + u": " +
                   v[QStringLiteral("why")].toString();
    return out;
}

} // namespace

class TestTeamQueueRows : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void distinctRolesCount()
    {
        const QuorumCount q = countQuorum(
            proposal(), {approval("alice", "approve"), approval("carol", "approve")}, 2);
        QCOMPARE(q.counted, QStringList({"alice", "carol"}));
        QVERIFY(q.notCounted.isEmpty());
        QVERIFY(q.met());
        QVERIFY(!countQuorum(proposal(), {approval("alice", "approve")}, 2).met());
        // A required count below one is one.
        QCOMPARE(countQuorum(proposal(), {}, 0).required, 1);
        QVERIFY(!countQuorum(proposal(), {}, 0).met());
    }

    void whatNeverCounts()
    {
        const QuorumCount q =
            countQuorum(proposal(),
                        {approval("bob", "approve"), approval("alice", "approve", "bob-os", "ws1"),
                         approval("carol", "approve"), approval("carol", "approve"),
                         approval("dave", "abstain")},
                        2);
        QCOMPARE(q.counted, QStringList({"carol"}));
        QCOMPARE(whyNot(q), QStringList({"bob: the proposer's own role",
                                         "alice: the proposing OS user on the proposing host",
                                         "carol: this role already counted"}));
        QVERIFY(!q.met());
        // The proposer's OS user on another host is another person's desk: it counts.
        QCOMPARE(
            countQuorum(proposal(), {approval("alice", "approve", "bob-os", "ws2")}, 1).counted,
            QStringList({"alice"}));
    }

    void anyDenyEndsIt()
    {
        const QuorumCount q = countQuorum(proposal(),
                                          {approval("alice", "approve"), approval("carol", "deny"),
                                           approval("dave", "deny"), approval("erin", "approve")},
                                          1);
        QCOMPARE(q.deniedBy, QStringLiteral("carol"));
        QCOMPARE(q.counted.size(), 2);
        QVERIFY(!q.met());
        // The proposer's own deny ends it too.
        QCOMPARE(countQuorum(proposal(), {approval("bob", "deny")}, 1).deniedBy,
                 QStringLiteral("bob"));
    }

    void rejectionHasTheLastWord()
    {
        int asked = 0;
        const QuorumCount q =
            countQuorum(proposal(),
                        {approval("bob", "approve"), approval("alice", "approve"),
                         approval("carol", "approve")},
                        1, [&](const TeamApproval &a) {
                            ++asked;
                            return a.approver == u"alice"
                                       ? QStringLiteral("its signature does not verify")
                                       : QString();
                        });
        QCOMPARE(asked, 2); // never asked about what would not count anyway
        QCOMPARE(q.counted, QStringList({"carol"}));
        const QJsonObject rejected = q.notCounted.last().toObject();
        QCOMPARE(rejected.value("approver").toString(), QStringLiteral("alice"));
        QCOMPARE(rejected.value("why").toString(), QStringLiteral("its signature does not verify"));
        QCOMPARE(rejected.value("approval_id").toString(), QStringLiteral("alice-approval"));
        QCOMPARE(rejected.value("rejected").toBool(), true);
        QVERIFY(!q.notCounted.first().toObject().contains("rejected"));
    }

    void countAsJson()
    {
        QuorumCount q =
            countQuorum(proposal(), {approval("bob", "approve"), approval("alice", "approve")}, 2);
        q.proposerAcknowledged = true;
        const QJsonObject j = q.toJson();
        QCOMPARE(j.value("required").toInt(), 2);
        QCOMPARE(j.value("approvals").toArray(), QJsonArray({"alice"}));
        QCOMPARE(j.value("not_counted").toArray().size(), 1);
        QVERIFY(j.value("denied_by").isNull());
        QCOMPARE(j.value("proposer_acknowledged").toBool(), true);
        q.deniedBy = QStringLiteral("carol");
        QCOMPARE(q.toJson().value("denied_by").toString(), QStringLiteral("carol"));
    }

    void resolutionFromTheDatabasesJson()
    {
        QVERIFY(!resolutionFromJson(QByteArray())); // NULL: no resolution
        const QJsonObject row{{"id", "44444444-4444-4444-8444-444444444444"},
                              {"resolver", "carol"},
                              {"outcome", "created"},
                              {"uuid", "c0000000-0000-4000-8000-000000000009"},
                              {"dialog_sha256", "0a0b"},
                              {"resolved_ms", 1796187800000.0},
                              {"os_user", "carol-os"},
                              {"host", "ws3"},
                              {"statement", QStringLiteral("{\"s\":\"\u00fc\"}")},
                              {"signature", "ff00"},
                              {"public_key", "01"}};
        const auto r = resolutionFromJson(QJsonDocument(row).toJson(QJsonDocument::Compact));
        QVERIFY(r);
        QCOMPARE(r->id, QByteArray("44444444-4444-4444-8444-444444444444"));
        QCOMPARE(r->resolver, QStringLiteral("carol"));
        QCOMPARE(r->outcome, QStringLiteral("created"));
        QCOMPARE(r->uuid, QStringLiteral("c0000000-0000-4000-8000-000000000009"));
        QCOMPARE(r->dialogSha256, QByteArray("\x0a\x0b"));
        QCOMPARE(r->resolvedMs, 1796187800000);
        QCOMPARE(r->osUser, QStringLiteral("carol-os"));
        QCOMPARE(r->host, QStringLiteral("ws3"));
        QCOMPARE(r->statement, QStringLiteral("{\"s\":\"\u00fc\"}").toUtf8());
        QCOMPARE(r->signature, QByteArray("\xff\x00", 2));
        QCOMPARE(r->publicKey, QByteArray("\x01"));
        // Without its id or outcome it is not a resolution.
        QVERIFY(!resolutionFromJson("{\"outcome\":\"created\"}"));
        QVERIFY(!resolutionFromJson("{\"id\":\"x\"}"));
        QVERIFY(!resolutionFromJson("not json"));
    }
};

QTEST_GUILESS_MAIN(TestTeamQueueRows)
#include "tst_teamqueuerows.moc"
