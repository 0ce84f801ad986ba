// Unit tests of fb::AuditEventType and its name table (core/AuditEvent.h): one unique on-disk
// name per type, names unchanged (they are the file format), name <-> type round trip.
#include "TestEnvironment.h"
#include "core/AuditEvent.h"

#include <QRegularExpression>
#include <QSet>
#include <QVariant>
#include <QtTest>

using fb::AuditEventType;

class TestAuditEvent : public QObject {
    Q_OBJECT

private slots:
    void init() { fbtest::failOnWarnings(); }

    void everyTypeHasOneUniqueName()
    {
        QCOMPARE(fb::allAuditEventTypes().size(), fb::AuditEventTypeCount);
        QSet<QString> names;
        for (int i = 0; i < fb::AuditEventTypeCount; ++i) {
            const auto type = static_cast<AuditEventType>(i);
            QCOMPARE(fb::allAuditEventTypes().at(i), type);
            const QString name = fb::auditEventNameString(type);
            QVERIFY2(!name.isEmpty(), qPrintable(QString::number(i)));
            QVERIFY2(!names.contains(name), qPrintable(name));
            names.insert(name);
            // Names are what a reader matches on: lowercase words joined by '_'.
            static const QRegularExpression shape(QStringLiteral("^[a-z]+(_[a-z]+)*$"));
            QVERIFY2(shape.match(name).hasMatch(), qPrintable(name));
        }
        QCOMPARE(names.size(), fb::AuditEventTypeCount);
    }

    void roundTrip()
    {
        for (const AuditEventType type : fb::allAuditEventTypes()) {
            const std::optional<AuditEventType> back =
                fb::auditEventFromName(fb::auditEventNameString(type));
            QVERIFY(back.has_value());
            QCOMPARE(*back, type);
            QCOMPARE(QString(fb::auditEventName(type)), fb::auditEventNameString(type));
        }
        QVERIFY(!fb::auditEventFromName(u"step").has_value());
        QVERIFY(!fb::auditEventFromName(u"").has_value());
        QVERIFY(!fb::auditEventFromName(u"Proposed").has_value()); // names are case-sensitive
        QVERIFY(!fb::auditEventFromName(u"proposed ").has_value());
    }

    // The on-disk names of docs/audit.md: logs already written hold them.
    void namesAreTheFileFormat()
    {
        const QList<std::pair<AuditEventType, QString>> expected{
            {AuditEventType::Proposed, QStringLiteral("proposed")},
            {AuditEventType::ProposeFailed, QStringLiteral("propose_failed")},
            {AuditEventType::Revalidation, QStringLiteral("revalidation")},
            {AuditEventType::Policy, QStringLiteral("policy")},
            {AuditEventType::Redemption, QStringLiteral("redemption")},
            {AuditEventType::ApprovalRequested, QStringLiteral("approval_requested")},
            {AuditEventType::Decision, QStringLiteral("decision")},
            {AuditEventType::Sending, QStringLiteral("sending")},
            {AuditEventType::Executed, QStringLiteral("executed")},
            {AuditEventType::Evicted, QStringLiteral("evicted")},
            {AuditEventType::Expired, QStringLiteral("expired")},
            {AuditEventType::LedgerReset, QStringLiteral("ledger_reset")},
            {AuditEventType::PolicyChanged, QStringLiteral("policy_changed")},
            {AuditEventType::ApprovalRejected, QStringLiteral("approval_rejected")},
            {AuditEventType::EndpointSwitched, QStringLiteral("endpoint_switched")},
            {AuditEventType::ExportInterrupted, QStringLiteral("export_interrupted")},
            {AuditEventType::ExportResumed, QStringLiteral("export_resumed")},
            {AuditEventType::ExportGap, QStringLiteral("export_gap")},
            {AuditEventType::WebhookDelivered, QStringLiteral("webhook_delivered")},
            {AuditEventType::WebhookFailed, QStringLiteral("webhook_failed")},
            {AuditEventType::LogContinued, QStringLiteral("log_continued")},
        };
        QCOMPARE(expected.size(), fb::AuditEventTypeCount);
        for (const auto &[type, name] : expected)
            QCOMPARE(fb::auditEventNameString(type), name);
    }

    // A signal argument seen through QVariant (QSignalSpy, queued connections) reads as its name.
    void variantConvertsToTheName()
    {
        const QVariant v = QVariant::fromValue(AuditEventType::ApprovalRequested);
        QCOMPARE(v.toString(), QStringLiteral("approval_requested"));
    }
};

QTEST_GUILESS_MAIN(TestAuditEvent)
#include "tst_auditevent.moc"
