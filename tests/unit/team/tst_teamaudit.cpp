// TeamAudit without a database (issue #40): the row hash of the team audit chain against vectors
// computed independently (Python's hashlib, following fabric_team.team_audit_hash in
// resources/team/001_initial.sql: prev || "fabric-broker team_audit 1\n" || each field as
// "<octets>:<field>;"), every field and the previous hash bound, fields that cannot be shifted
// into each other, and the time as PostgreSQL's to_char prints it. append() and verify() on a real
// PostgreSQL: tests/integration/team/tst_team_schema.
#include "TestEnvironment.h"
#include "team/TeamAudit.h"

#include <QTest>

using namespace fb::team;

namespace {

const QByteArray kProposal = "0d4f0f6e-8a41-4b8e-9c1e-2f1d3c4b5a69";
const qint64 kAt = 1796187600123456; // 2026-12-02T05:00:00.123456Z

QByteArray firstRow()
{
    return TeamAudit::rowHash(QByteArray(32, '\0'), 1, kAt, "alice", "proposal_created", kProposal,
                              R"({"a":1})");
}

} // namespace

class TestTeamAudit : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void rowHashVectors()
    {
        QCOMPARE(firstRow().toHex(),
                 QByteArray("e4e6d8c4944f7bed5d7f80ec5b7b10212183dfbbfeff237ff58b39a57267f680"));
        // The next row chains on it; a field's length counts its UTF-8 octets.
        QCOMPARE(TeamAudit::rowHash(firstRow(), 2, 1796187601000000, "bob", "proposal_state", {},
                                    QStringLiteral(R"({"n":"ü"})").toUtf8())
                     .toHex(),
                 QByteArray("9775dbc5805d51e2c5f5ec5d7368c52085550bb610d297be317fb9473d0803e0"));
    }

    void everyFieldIsBound()
    {
        const QByteArray base = firstRow();
        const QByteArray zero(32, '\0');
        QByteArray otherPrev = zero;
        otherPrev[31] = 1;
        const QList<QByteArray> changed{
            TeamAudit::rowHash(otherPrev, 1, kAt, "alice", "proposal_created", kProposal,
                               R"({"a":1})"),
            TeamAudit::rowHash(zero, 2, kAt, "alice", "proposal_created", kProposal, R"({"a":1})"),
            TeamAudit::rowHash(zero, 1, kAt + 1, "alice", "proposal_created", kProposal,
                               R"({"a":1})"),
            TeamAudit::rowHash(zero, 1, kAt, "alicf", "proposal_created", kProposal, R"({"a":1})"),
            TeamAudit::rowHash(zero, 1, kAt, "alice", "proposal_state", kProposal, R"({"a":1})"),
            TeamAudit::rowHash(zero, 1, kAt, "alice", "proposal_created", {}, R"({"a":1})"),
            TeamAudit::rowHash(zero, 1, kAt, "alice", "proposal_created", kProposal, R"({"a":2})"),
            // A byte moved from one field to the next: the lengths tell them apart.
            TeamAudit::rowHash(zero, 1, kAt, "alic", "eproposal_created", kProposal, R"({"a":1})"),
        };
        for (const QByteArray &h : changed) {
            QCOMPARE(h.size(), 32);
            QVERIFY(h != base);
        }
    }

    void timeText()
    {
        QCOMPARE(TeamAudit::timeText(kAt), QByteArray("2026-12-02T05:00:00.123456Z"));
        QCOMPARE(TeamAudit::timeText(0), QByteArray("1970-01-01T00:00:00.000000Z"));
        QCOMPARE(TeamAudit::timeText(1796187601000007), QByteArray("2026-12-02T05:00:01.000007Z"));
        // Before the epoch: the microseconds count forward from the second before.
        QCOMPARE(TeamAudit::timeText(-1), QByteArray("1969-12-31T23:59:59.999999Z"));
        QCOMPARE(TeamAudit::timeText(-1000000), QByteArray("1969-12-31T23:59:59.000000Z"));
    }
};

QTEST_GUILESS_MAIN(TestTeamAudit)
#include "tst_teamaudit.moc"
