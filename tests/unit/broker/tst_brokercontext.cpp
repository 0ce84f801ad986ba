// BrokerContext (src/broker/BrokerContext): what every operation shares. The Fabric binding (the
// endpoint without user info or trailing slash, the credential identity that never holds a
// secret) and what changed in words; a change of the client's configuration denies every open
// approval; audit() writes to the sink before it signals and reports a record that is not
// durable; without an audit log the day's spend is not established; the rows published to the
// team's queue are taken once and expire.
#include "TestEnvironment.h"
#include "broker/BrokerContext.h"
#include "core/AuditSink.h"
#include "core/Clock.h"
#include "core/ProposalStore.h"
#include "fabric/FabricClient.h"
#include "fabric/FabricConfig.h"

#include <QSignalSpy>
#include <QTest>

using namespace fb;
using namespace Qt::StringLiterals;

namespace {

// An approver that only records the reasons it was told to deny every open prompt for.
class RecordingApprover : public Approver {
public:
    QString channel() const override { return u"desktop"_s; }
    void requestApproval(mcp::ToolCall *, const ApprovalContext &,
                         std::function<void(const HumanDecision &)>) override
    {
    }
    void denyAllOpen(const QString &reason) override { reasons << reason; }
    QStringList reasons;
};

// A sink that records what it was given, and fails when told to.
class ListSink : public AuditSink {
public:
    bool record(AuditEventType type, const QJsonObject &) override
    {
        types << type;
        return !failing;
    }
    QList<AuditEventType> types;
    bool failing = false;
};

FabricConfig config(const QString &endpoint, const QString &id, const QString &secret,
                    const QString &token = {})
{
    FabricConfig c;
    c.endpoint = QUrl(endpoint);
    c.clientId = id;
    c.clientSecret = secret;
    c.staticToken = token;
    return c;
}

} // namespace

class TestBrokerContext : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void bindingOfAConfiguration()
    {
        const FabricBinding b =
            FabricBinding::of(config(u"https://user:pw@api.equinix.com/"_s, u"id1"_s, u"s"_s));
        QCOMPARE(b.endpoint, "https://api.equinix.com");
        QCOMPARE(b.identity, "client id id1");
        const FabricBinding path =
            FabricBinding::of(config(u"http://127.0.0.1:8080/fabric/"_s, {}, {}));
        QCOMPARE(path.endpoint, "http://127.0.0.1:8080/fabric");
        QCOMPARE(path.identity, "none");
        // A client id without its secret is no credential: the static token identifies.
        const FabricBinding token = FabricBinding::of(
            config(u"https://api.equinix.com"_s, u"id1"_s, {}, u"secret-token"_s));
        QVERIFY(token.identity.startsWith("static token sha256:"));
        QCOMPARE(token.identity.size(), QStringLiteral("static token sha256:").size() + 16);
        QVERIFY(!token.identity.contains("secret"));
        QVERIFY(token.identity !=
                FabricBinding::of(config(u"https://api.equinix.com"_s, {}, {}, u"other-token"_s))
                    .identity);
    }

    void changesInWords()
    {
        const FabricBinding a{u"https://a"_s, u"none"_s};
        QCOMPARE(a.changesSince(a), QString());
        const FabricBinding b{u"https://b"_s, u"none"_s};
        QCOMPARE(b.changesSince(a), "the Fabric endpoint changed from https://a to https://b");
        const FabricBinding c{u"https://b"_s, u"client id x"_s};
        QCOMPARE(c.changesSince(a), "the Fabric endpoint changed from https://a to https://b and "
                                    "the credentials changed from none to client id x");
    }

    void settingsReachTheStore()
    {
        ManualClock clock;
        ProposalStore store(&clock);
        BrokerSettings settings;
        settings.proposalTtlMs = 1234;
        settings.maxPending = 3;
        BrokerContext context(&store, nullptr, settings, &clock);
        QCOMPARE(store.ttlMs(), 1234);
        QCOMPARE(store.maxPending(), 3);
        QCOMPARE(context.nowMs(), clock.nowMs());
    }

    void anotherBindingDeniesOpenApprovals()
    {
        ManualClock clock;
        ProposalStore store(&clock);
        FabricClient fabric(config(u"https://api.equinix.com"_s, u"id1"_s, u"s"_s));
        BrokerContext context(&store, &fabric, BrokerSettings{}, &clock);
        RecordingApprover approver;
        context.setApprover(&approver);
        fabric.setConfig(config(u"https://api.equinix.com/"_s, u"id1"_s, u"s"_s));
        QCOMPARE(approver.reasons, QStringList()); // the same binding
        QTest::ignoreMessage(QtWarningMsg,
                             QRegularExpression("^Fabric binding changed: the credentials"));
        fabric.setConfig(config(u"https://api.equinix.com"_s, u"id2"_s, u"s"_s));
        QCOMPARE(approver.reasons.size(), 1);
        QCOMPARE(approver.reasons.at(0), "the credentials changed from client id id1 to client "
                                         "id id2 while this approval was open; nothing was sent");
        context.setApprover(nullptr); // back to the client's elicitation
        QCOMPARE(context.approver()->channel(), "client");
    }

    void auditWritesBeforeItSignals()
    {
        ManualClock clock;
        ProposalStore store(&clock);
        BrokerContext context(&store, nullptr, BrokerSettings{}, &clock);
        QSignalSpy spy(&context, &BrokerEvents::auditEvent);
        QVERIFY(context.audit(AuditEventType::Proposed, {})); // no sink: nothing to make durable
        ListSink sink;
        context.setAuditSink(&sink);
        QList<qsizetype> recordedAtSignal; // what the sink held when each signal came
        connect(&context, &BrokerEvents::auditEvent, this,
                [&] { recordedAtSignal << sink.types.size(); });
        QVERIFY(context.audit(AuditEventType::Sending, {}));
        sink.failing = true;
        QTest::ignoreMessage(QtCriticalMsg, QRegularExpression("could not be made durable"));
        QVERIFY(!context.audit(AuditEventType::Executed, {}));
        QCOMPARE(sink.types,
                 (QList<AuditEventType>{AuditEventType::Sending, AuditEventType::Executed}));
        QCOMPARE(spy.size(), 3); // the signal follows even a record that is not durable
        QCOMPARE(recordedAtSignal, (QList<qsizetype>{1, 2})); // the sink had each one first
    }

    void withoutALogTheDayIsNotEstablished()
    {
        ManualClock clock;
        ProposalStore store(&clock);
        BrokerContext context(&store, nullptr, BrokerSettings{}, &clock);
        QVERIFY(!context.ledger()->isEstablished());
        QVERIFY(context.ledger()->unestablishedReason().contains("no audit log is open"));
        ListSink sink;
        context.setAuditSink(&sink);
        QVERIFY(!context.ledger()->isEstablished());
    }

    void publishedRowsAreTakenOnceAndExpire()
    {
        ManualClock clock;
        ProposalStore store(&clock);
        BrokerContext context(&store, nullptr, BrokerSettings{}, &clock);
        const qint64 now = clock.nowMs();
        context.rememberPublished(u"a"_s, {"row-a", now + 1000});
        context.rememberPublished(u"b"_s, {"row-b", now + 1000});
        const auto a = context.takePublished(u"a"_s);
        QVERIFY(a);
        QCOMPARE(a->id, QByteArray("row-a"));
        QVERIFY(!context.takePublished(u"a"_s));
        QVERIFY(!context.takePublished(u"unknown"_s));
        // A minute past its expiry, an entry is dropped when the next one is remembered.
        clock.advanceMs(1000 + 60000 + 1);
        context.rememberPublished(u"c"_s, {"row-c", clock.nowMs() + 1000});
        QVERIFY(!context.takePublished(u"b"_s));
        QVERIFY(context.takePublished(u"c"_s));
    }
};

QTEST_GUILESS_MAIN(TestBrokerContext)
#include "tst_brokercontext.moc"
