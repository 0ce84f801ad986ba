// TeamHistory without a database (issue #40): the exported bundle (`team verify --bundle`) read
// back exactly as written (proposals with and without a price or a send, signed approvals, a
// resolution, the audit chain, the exporter's keys and --since), a strict reader that refuses a
// format 1 bundle, any other header, a line without exactly its members and types, naming the
// line, and shown() escaping and bounding what it prints. read() on a real PostgreSQL:
// tests/integration/team/tst_team_verify*, tst_team_resolution.
#include "TestEnvironment.h"
#include "core/TeamPolicy.h"
#include "team/ApprovalKeys.h"
#include "team/TeamHistory.h"

#include <QJsonDocument>
#include <QTest>

using namespace fb;
using namespace fb::team;

namespace {

// RFC 8032, 7.1, TEST 1's public key.
const QByteArray kPub =
    QByteArray::fromHex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");

TeamProposal proposal(const QByteArray &id, bool priced)
{
    TeamProposal p;
    p.id = id;
    p.changeType = QStringLiteral("connection_create");
    p.request = R"({"a":"ü"})";
    p.requestSha256 = QByteArray(64, 'a');
    p.binding = QJsonObject{{"fabric_endpoint", "https://api.equinix.com"}};
    if (priced)
        p.price = QJsonObject{{"currency", "USD"}, {"monthly", 12.5}};
    p.dryRun = R"({"uuid":"x"})";
    p.proposer = QStringLiteral("bob");
    p.osUser = QStringLiteral("bob-os");
    p.host = QStringLiteral("ws1");
    p.tokenSha256 = QByteArray(64, 'b');
    p.createdMs = 1796187600123;
    p.expiresMs = 1796188500123;
    p.state = QStringLiteral("created");
    return p;
}

TeamHistory history()
{
    TeamHistory h;
    h.proposals = {proposal("11111111-1111-4111-8111-111111111111", true),
                   proposal("22222222-2222-4222-8222-222222222222", false)};
    h.sentMs.insert(h.proposals.first().id, 1796187700000);
    h.approvals.append(HistoryApproval{
        "33333333-3333-4333-8333-333333333333", h.proposals.first().id,
        SignedApproval{QStringLiteral("alice"), QStringLiteral("approve"), QByteArray(32, '\1'),
                       R"({"format":"x"})", QByteArray(64, '\2'), kPub},
        QStringLiteral("alice-os"), QStringLiteral("ws2")});
    TeamResolution r;
    r.id = "44444444-4444-4444-8444-444444444444";
    r.resolver = QStringLiteral("carol");
    r.outcome = QStringLiteral("not_created");
    r.dialogSha256 = QByteArray(32, '\3');
    r.resolvedMs = 1796187800000;
    r.osUser = QStringLiteral("carol-os");
    r.host = QStringLiteral("ws3");
    r.statement = R"({"format":"r"})";
    r.signature = QByteArray(64, '\4');
    r.publicKey = kPub;
    h.resolutions.append(HistoryResolution{h.proposals.last().id, r});
    h.audit.append(HistoryAuditRow{1, 1796187600123456, "bob", "proposal_created",
                                   h.proposals.first().id, R"({"k":1})", QByteArray(32, '\0'),
                                   QByteArray(32, '\5')});
    h.keys = {ApproverKey{QStringLiteral("alice"), ApprovalKeys::fingerprint(kPub), kPub}};
    h.sinceMs = 1796000000000;
    return h;
}

// The bundle with line n (0-based) replaced by f applied to its JSON object.
QByteArray withLine(int n, const std::function<void(QJsonObject &)> &f)
{
    QList<QByteArray> lines = history().toBundle().split('\n');
    QJsonObject o = QJsonDocument::fromJson(lines.at(n)).object();
    f(o);
    lines[n] = QJsonDocument(o).toJson(QJsonDocument::Compact);
    return lines.join('\n');
}

// The member `kind` of a line's object changed by f.
std::function<void(QJsonObject &)> member(const QString &kind,
                                          const std::function<void(QJsonObject &)> &f)
{
    return [kind, f](QJsonObject &o) {
        QJsonObject v = o.value(kind).toObject();
        f(v);
        o[kind] = v;
    };
}

} // namespace

class TestTeamHistory : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void bundleReadsBackWhatWasWritten()
    {
        const TeamHistory h = history();
        QString error;
        const auto back = TeamHistory::fromBundle(h.toBundle(), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->proposals.size(), 2);
        for (int i = 0; i < 2; ++i) {
            const TeamProposal &a = h.proposals.at(i), &b = back->proposals.at(i);
            QCOMPARE(b.id, a.id);
            QCOMPARE(b.changeType, a.changeType);
            QCOMPARE(b.request, a.request);
            QCOMPARE(b.requestSha256, a.requestSha256);
            QCOMPARE(b.binding, a.binding);
            QCOMPARE(b.price, a.price);
            QCOMPARE(b.dryRun, a.dryRun);
            QCOMPARE(b.proposer, a.proposer);
            QCOMPARE(b.osUser, a.osUser);
            QCOMPARE(b.host, a.host);
            QCOMPARE(b.tokenSha256, a.tokenSha256);
            QCOMPARE(b.createdMs, a.createdMs);
            QCOMPARE(b.expiresMs, a.expiresMs);
            QCOMPARE(b.state, a.state);
        }
        QCOMPARE(back->sentMs, h.sentMs); // the unsent one stays unsent
        QCOMPARE(back->approvals.size(), 1);
        const HistoryApproval &a = back->approvals.first();
        QCOMPARE(a.id, h.approvals.first().id);
        QCOMPARE(a.proposalId, h.approvals.first().proposalId);
        QCOMPARE(a.row.approver, QStringLiteral("alice"));
        QCOMPARE(a.row.decision, QStringLiteral("approve"));
        QCOMPARE(a.row.dialogSha256, QByteArray(32, '\1'));
        QCOMPARE(a.row.statement, h.approvals.first().row.statement);
        QCOMPARE(a.row.signature, QByteArray(64, '\2'));
        QCOMPARE(a.row.publicKey, kPub);
        QCOMPARE(a.osUser, QStringLiteral("alice-os"));
        QCOMPARE(a.host, QStringLiteral("ws2"));
        QCOMPARE(back->resolutions.size(), 1);
        const TeamResolution &r = back->resolutions.first().row;
        const TeamResolution &w = h.resolutions.first().row;
        QCOMPARE(back->resolutions.first().proposalId, h.resolutions.first().proposalId);
        QCOMPARE(r.id, w.id);
        QCOMPARE(r.resolver, w.resolver);
        QCOMPARE(r.outcome, w.outcome);
        QCOMPARE(r.uuid, w.uuid);
        QCOMPARE(r.dialogSha256, w.dialogSha256);
        QCOMPARE(r.resolvedMs, w.resolvedMs);
        QCOMPARE(r.statement, w.statement);
        QCOMPARE(r.signature, w.signature);
        QCOMPARE(r.publicKey, w.publicKey);
        QCOMPARE(back->audit.size(), 1);
        const HistoryAuditRow &t = back->audit.first();
        QCOMPARE(t.seq, 1);
        QCOMPARE(t.atMicros, 1796187600123456);
        QCOMPARE(t.actor, QByteArray("bob"));
        QCOMPARE(t.event, QByteArray("proposal_created"));
        QCOMPARE(t.proposalId, h.proposals.first().id);
        QCOMPARE(t.detail, QByteArray(R"({"k":1})"));
        QCOMPARE(t.prevHash, QByteArray(32, '\0'));
        QCOMPARE(t.hash, QByteArray(32, '\5'));
        QCOMPARE(back->keys, h.keys);
        QCOMPARE(back->sinceMs, h.sinceMs);
        // Written again, byte for byte the same.
        QCOMPARE(back->toBundle(), h.toBundle());
    }

    void emptyHistoryWithoutSince()
    {
        TeamHistory h;
        QString error;
        const auto back = TeamHistory::fromBundle(h.toBundle(), &error);
        QVERIFY2(back, qPrintable(error));
        QVERIFY(!back->sinceMs);
        QVERIFY(back->proposals.isEmpty() && back->audit.isEmpty() && back->keys.isEmpty());
    }

    void strictReader_data()
    {
        QTest::addColumn<QByteArray>("bundle");
        QTest::addColumn<QString>("expected");
        QTest::newRow("format 1") << withLine(0, [](QJsonObject &o) {
            o["format"] = "fabric-broker team bundle 1";
        }) << QStringLiteral("line 1: a bundle of format 1");
        QTest::newRow("other format") << withLine(0, [](QJsonObject &o) { o["format"] = "x"; })
                                      << QStringLiteral("line 1: not a fabric-broker team bundle");
        QTest::newRow("header without since_ms")
            << withLine(0, [](QJsonObject &o) { o.remove("since_ms"); })
            << QStringLiteral("line 1: not a fabric-broker team bundle");
        QTest::newRow("a bad key") << withLine(0, [](QJsonObject &o) {
            o["approver_keys"] = QJsonArray{QJsonObject{{"role", "alice"}}};
        }) << QStringLiteral("line 1: ");
        QTest::newRow("not an object") << QByteArray(history().toBundle() + "[1]\n")
                                       << QStringLiteral("line 7: not a JSON object");
        QTest::newRow("two kinds on a line")
            << withLine(1, [](QJsonObject &o) { o["audit"] = QJsonObject{}; })
            << QStringLiteral("line 2: must be one of");
        QTest::newRow("unknown kind") << withLine(1, [](QJsonObject &o) {
            o = QJsonObject{{"vote", o.value("proposal")}};
        }) << QStringLiteral("line 2: a vote line");
        QTest::newRow("proposal with an extra member")
            << withLine(1, member("proposal", [](QJsonObject &v) { v["extra"] = "1"; }))
            << QStringLiteral("line 2: a proposal line");
        QTest::newRow("proposal without its host")
            << withLine(1, member("proposal", [](QJsonObject &v) { v.remove("host"); }))
            << QStringLiteral("line 2: a proposal line");
        QTest::newRow("created_ms a string")
            << withLine(1, member("proposal", [](QJsonObject &v) { v["created_ms"] = "1"; }))
            << QStringLiteral("line 2: a proposal line");
        QTest::newRow("approval without its signature")
            << withLine(3, member("approval", [](QJsonObject &v) { v.remove("signature"); }))
            << QStringLiteral("line 4: a approval line");
        QTest::newRow("resolution's resolved_ms null")
            << withLine(4, member("resolution",
                                  [](QJsonObject &v) { v["resolved_ms"] = QJsonValue::Null; }))
            << QStringLiteral("line 5: a resolution line");
        QTest::newRow("audit's seq a string")
            << withLine(5, member("audit", [](QJsonObject &v) { v["seq"] = "1"; }))
            << QStringLiteral("line 6: a audit line");
    }

    void strictReader()
    {
        QFETCH(QByteArray, bundle);
        QFETCH(QString, expected);
        QString error;
        QVERIFY(!TeamHistory::fromBundle(bundle, &error));
        QVERIFY2(error.startsWith(expected), qPrintable(error));
    }

    void shownEscapesAndBounds()
    {
        QCOMPARE(shown(QStringLiteral("a\nb")), QStringLiteral("a\\nb"));
        QVERIFY(shown(QStringLiteral("x\u202Ey")).contains(QStringLiteral("\\u202E")));
        QVERIFY(!shown(QStringLiteral("x\u202Ey")).contains(QChar(0x202E)));
        QCOMPARE(shown(QString(500, u'a')), QString(200, u'a') + QChar(0x2026));
        QCOMPARE(shown(QByteArray("plain")), QStringLiteral("plain"));
    }
};

QTEST_GUILESS_MAIN(TestTeamHistory)
#include "tst_teamhistory.moc"
