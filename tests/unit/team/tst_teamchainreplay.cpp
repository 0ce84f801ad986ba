// TeamChainReplay (issues #34, #40): the team audit chain replayed against the rows beside it,
// both ways, without a database. An honest history replays without a failure (the state the
// chain took each proposal to, when it was sent, which event records each approval); a row
// written, changed or dropped past the triggers, or an event without its row, is a failure that
// names it; with --since, the events of a proposal created before it are outside the history.
#include "TestEnvironment.h"
#include "core/Sha256.h"
#include "team/TeamChainReplay.h"

#include <QJsonDocument>
#include <QTest>

using namespace fb;
using namespace fb::team;

namespace {

const QByteArray kId = "11111111-1111-4111-8111-111111111111";
const QByteArray kApproval = "33333333-3333-4333-8333-333333333333";
const QByteArray kStatement = R"({"format":"fabric-broker approval 2"})";
const QByteArray kDialog(32, '\7');
const QByteArray kKey(32, '\6');
const qint64 kAtMicros = 1796187600000000; // 2026-12-02T05:00:00Z

HistoryAuditRow auditRow(qint64 seq, const QByteArray &actor, const QByteArray &name,
                         const QJsonObject &detail)
{
    return HistoryAuditRow{seq,   kAtMicros + seq * 1000000,
                           actor, name,
                           kId,   QJsonDocument(detail).toJson(QJsonDocument::Compact),
                           {},    {}};
}

HistoryAuditRow state(qint64 seq, const char *from, const char *to)
{
    return auditRow(seq, "bob", "proposal_state", QJsonObject{{"from", from}, {"to", to}});
}

// bob's create, approved by alice (signed), sent and created: every row with its events.
TeamHistory honest()
{
    TeamHistory h;
    TeamProposal p;
    p.id = kId;
    p.changeType = QStringLiteral("connection_create");
    p.requestSha256 = QByteArray(64, 'a');
    p.proposer = QStringLiteral("bob");
    p.expiresMs = 1796188500123; // 2026-12-02T05:15:00.123Z
    p.state = QStringLiteral("created");
    h.proposals.append(p);
    h.approvals.append(
        HistoryApproval{kApproval, kId,
                        SignedApproval{QStringLiteral("alice"), QStringLiteral("approve"), kDialog,
                                       kStatement, QByteArray(64, '\5'), kKey},
                        QStringLiteral("alice-os"), QStringLiteral("ws2")});
    h.audit = {
        auditRow(1, "bob", "proposal_created",
                 QJsonObject{{"change_type", "connection_create"},
                             {"request_sha256", QString(64, u'a')},
                             {"expires_at", "2026-12-02T05:15:00.123+00:00"}}),
        state(2, "pending", "consumed"),
        auditRow(
            3, "alice", "approval_recorded",
            QJsonObject{{"approver", "alice"},
                        {"decision", "approve"},
                        {"dialog_sha256", QString::fromLatin1(kDialog.toHex())},
                        {"statement_sha256", QString::fromLatin1(Sha256::hash(kStatement).toHex())},
                        {"public_key", QString::fromLatin1(kKey.toBase64())}}),
        state(4, "consumed", "sending"),
        state(5, "sending", "created"),
    };
    return h;
}

// The one failure of replaying h, which must contain `what`.
void expectOneFailure(const TeamHistory &h, const QString &what)
{
    const ChainReplay r = replayChain(h);
    QVERIFY2(r.failures.size() == 1, qPrintable(r.failures.join(u'\n')));
    QVERIFY2(r.failures.first().contains(what), qPrintable(r.failures.first()));
}

} // namespace

class TestTeamChainReplay : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void honestHistoryReplays()
    {
        const ChainReplay r = replayChain(honest());
        QVERIFY2(r.failures.isEmpty(), qPrintable(r.failures.join(u'\n')));
        const ChainProposal c = r.proposals.value(kId);
        QCOMPARE(c.createdSeq, 1);
        QCOMPARE(c.createdBy, QStringLiteral("bob"));
        QCOMPARE(c.state, QStringLiteral("created"));
        QCOMPARE(c.stateSeq, 5);
        QCOMPARE(c.sendingSeq, 4);
        QCOMPARE(c.approvals.size(), 1);
        QCOMPARE(r.approvalSeq.value(kApproval), 3);
    }

    void stateChangedPastTheChain()
    {
        TeamHistory h = honest();
        h.proposals[0].state = QStringLiteral("failed");
        expectOneFailure(h, QStringLiteral("the team audit chain has it created"));
        // A move the chain did not see between two events.
        h = honest();
        h.audit[3] = state(4, "pending", "sending");
        expectOneFailure(h, QStringLiteral("moves it from pending to sending, but the chain had "
                                           "it consumed (seq 2)"));
    }

    void proposalRowDiffersFromItsEvent_data()
    {
        QTest::addColumn<QString>("member");
        QTest::newRow("proposer") << QStringLiteral("proposer");
        QTest::newRow("change_type") << QStringLiteral("change_type");
        QTest::newRow("request_sha256") << QStringLiteral("request_sha256");
        QTest::newRow("expires_at") << QStringLiteral("expires_at");
    }

    void proposalRowDiffersFromItsEvent()
    {
        QFETCH(QString, member);
        TeamHistory h = honest();
        TeamProposal &p = h.proposals[0];
        if (member == u"proposer")
            p.proposer = QStringLiteral("mallory");
        else if (member == u"change_type")
            p.changeType = QStringLiteral("network_create");
        else if (member == u"request_sha256")
            p.requestSha256 = QByteArray(64, 'b');
        else
            p.expiresMs += 2; // a millisecond of rounding is tolerated, two are not
        expectOneFailure(h, QStringLiteral("differs from its proposal_created event (seq 1) in "
                                           "its %1")
                                .arg(member));
        if (member == u"expires_at") {
            h.proposals[0].expiresMs -= 1;
            QVERIFY(replayChain(h).failures.isEmpty());
        }
    }

    void rowWithoutItsCreatedEvent()
    {
        TeamHistory h = honest();
        h.audit.removeFirst();
        const ChainReplay r = replayChain(h);
        QVERIFY(r.failures.join(u'\n').contains(
            QStringLiteral("moves it before its proposal_created event")));
        QVERIFY(r.failures.join(u'\n').contains(
            QStringLiteral("has no proposal_created event for it")));
        // Created twice.
        h = honest();
        h.audit.append(auditRow(6, "bob", "proposal_created", QJsonObject{}));
        expectOneFailure(h, QStringLiteral("the proposal was already created at seq 1"));
    }

    void droppedProposalRow()
    {
        TeamHistory h = honest();
        h.proposals.clear();
        h.approvals.clear();
        expectOneFailure(h, QStringLiteral("no proposal row has that id"));
        // --since after its creation: outside the history, not a dropped row.
        h.sinceMs = kAtMicros / 1000 + 60 * 1000;
        QVERIFY(replayChain(h).failures.isEmpty());
        h.sinceMs = kAtMicros / 1000; // created at or after it: inside
        QCOMPARE(replayChain(h).failures.size(), 1);
    }

    void approvalRowAndEventBothWays()
    {
        TeamHistory h = honest();
        h.approvals[0].row.decision = QStringLiteral("deny");
        expectOneFailure(h, QStringLiteral("differs from its approval_recorded event (seq 3) in "
                                           "its decision"));
        h = honest();
        h.approvals[0].row.statement = R"({"format":"other"})";
        h.approvals[0].row.publicKey = QByteArray(32, '\1');
        expectOneFailure(h, QStringLiteral("in its statement, public_key"));
        // A row without its event, and an event without its row.
        h = honest();
        h.audit.removeAt(2);
        expectOneFailure(h, QStringLiteral("has no approval_recorded event for it"));
        h = honest();
        h.approvals.clear();
        expectOneFailure(h, QStringLiteral("but no approval row"));
    }
};

QTEST_GUILESS_MAIN(TestTeamChainReplay)
#include "tst_teamchainreplay.moc"
