// Which webhook event each step of a confirm is (src/notify/WebhookEvents): needs_approval,
// approved, denied only once nothing was sent (an unconfirmed create after
// "unsupported_by_client" is created, never denied), created, unknown, nothing for the other
// endings; and the bound on decisions waiting for their execution.
#include "TestEnvironment.h"
#include "core/ProposalStore.h"
#include "notify/WebhookEvents.h"

#include <QTest>

using namespace fb;
using namespace fb::notify;

namespace {

Proposal proposal(quint64 sequence = 1, const QString &sha = QString(64, 'c'))
{
    Proposal p;
    p.token = QStringLiteral("chg-0123456789abcdef0123456789abcdef");
    p.requestSha256 = sha;
    p.target = QStringLiteral("EVPL_VC 50 Mbps");
    p.sequence = sequence;
    return p;
}

} // namespace

class TestWebhookEvents : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void approvedAndCreated()
    {
        WebhookEvents events;
        const auto asked = events.approvalStarted(proposal(), "team", 10);
        QVERIFY(asked);
        QCOMPARE(asked->event, WebhookEvent::NeedsApproval);
        QCOMPARE(asked->channel, QStringLiteral("team"));
        QCOMPARE(asked->atMs, 10);
        const auto approved = events.approvalFinished(proposal(), "accepted", 11);
        QVERIFY(approved);
        QCOMPARE(approved->event, WebhookEvent::Approved);
        const auto created = events.executionFinished(proposal(), true, "created", 12);
        QVERIFY(created);
        QCOMPARE(created->event, WebhookEvent::Created);
        QCOMPARE(created->outcome, QStringLiteral("created"));
        QCOMPARE(events.open(), 0);
    }

    void unknownOutcome()
    {
        WebhookEvents events;
        events.approvalFinished(proposal(), "accepted", 0);
        const auto unknown = events.executionFinished(proposal(), true, "unknown", 0);
        QVERIFY(unknown);
        QCOMPARE(unknown->event, WebhookEvent::Unknown);
        QCOMPARE(unknown->outcome, QStringLiteral("unknown"));
        QVERIFY(!events.executionFinished(proposal(), true, "rejected", 0));
    }

    void deniedOnceNothingWasSent_data()
    {
        QTest::addColumn<QString>("status");
        for (const char *s : {"declined", "cancelled", "timed_out", "failed", "call_cancelled",
                              "unsupported_by_client"})
            QTest::newRow(s) << QString::fromLatin1(s);
    }

    void deniedOnceNothingWasSent()
    {
        QFETCH(QString, status);
        WebhookEvents events;
        QVERIFY(!events.approvalFinished(proposal(), status, 0));
        QCOMPARE(events.open(), 1);
        const auto denied = events.executionFinished(proposal(), false, "not_approved", 5);
        QVERIFY(denied);
        QCOMPARE(denied->event, WebhookEvent::Denied);
        QCOMPARE(denied->decision, status);
        QCOMPARE(events.open(), 0);
        // Once only.
        QVERIFY(!events.executionFinished(proposal(), false, "not_approved", 5));
    }

    // EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS for the session: no person, and a create follows.
    void unconfirmedCreateIsNeverDenied()
    {
        WebhookEvents events;
        QVERIFY(!events.approvalFinished(proposal(), "unsupported_by_client", 0));
        const auto created = events.executionFinished(proposal(), true, "created", 0);
        QVERIFY(created);
        QCOMPARE(created->event, WebhookEvent::Created);
        QCOMPARE(events.open(), 0);
    }

    void otherEndingsSendNothing()
    {
        WebhookEvents events;
        for (const char *kind : {"policy_denied", "revalidation_failed", "expired_during_approval",
                                 "shutting_down", "audit_unavailable"})
            QVERIFY(!events.executionFinished(proposal(), false, QString::fromLatin1(kind), 0));
        // Approved, then expired before the send: the approval was sent, no denial follows.
        QVERIFY(events.approvalFinished(proposal(), "accepted", 0));
        QVERIFY(!events.executionFinished(proposal(), false, "expired_during_approval", 0));
    }

    // Two proposals of the same request bytes are two confirms.
    void proposalsOfTheSameRequestAreApart()
    {
        WebhookEvents events;
        QVERIFY(!events.approvalFinished(proposal(1), "declined", 0));
        QVERIFY(events.approvalFinished(proposal(2), "accepted", 0));
        QCOMPARE(events.executionFinished(proposal(2), true, "created", 0)->event,
                 WebhookEvent::Created);
        QCOMPARE(events.executionFinished(proposal(1), false, "not_approved", 0)->event,
                 WebhookEvent::Denied);
    }

    void boundedWhileDecisionsWait()
    {
        WebhookEvents events;
        for (int i = 0; i < WebhookEvents::MaxOpen + 10; ++i)
            events.approvalFinished(proposal(quint64(i)), "declined", 0);
        QCOMPARE(events.open(), WebhookEvents::MaxOpen);
        // The oldest were forgotten; the newest still end in a denial.
        QVERIFY(!events.executionFinished(proposal(0), false, "not_approved", 0));
        QVERIFY(events.executionFinished(proposal(quint64(WebhookEvents::MaxOpen + 9)), false,
                                         "not_approved", 0));
    }
};

QTEST_GUILESS_MAIN(TestWebhookEvents)
#include "tst_webhookevents.moc"
