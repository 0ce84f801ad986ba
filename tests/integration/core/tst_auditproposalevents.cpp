// Each eviction of a pending proposal is recorded once in the audit log, whatever evicted it:
// the capacity (a proposal beyond EQUINIX_MCP_MAX_PENDING) or the settings voiding every
// pending proposal (ProposalStore::evictAll). The broker writes to a real AuditLog and the store
// is wired to it as ServerHost wires it (auditProposalEvents).
#include "../broker/BrokerHarness.h"
#include "TestEnvironment.h"
#include "core/AuditLog.h"
#include "core/AuditProposalEvents.h"
#include "core/CanonicalJson.h"
#include "core/TokenDigest.h"

#include <QTemporaryDir>
#include <QtTest>

using fbtest::BrokerHarness;

namespace {

QString propose(BrokerHarness &h, int vlan)
{
    const QJsonObject proposed =
        h.callTool("fabric_propose_change", {{"change_type", "connection_create"},
                                             {"spec", BrokerHarness::connectionSpec(vlan)}});
    return proposed.value("structuredContent").toObject().value("confirm_token").toString();
}

// The records that mention this proposal's token (as its SHA-256, anywhere in the record).
QStringList recordsNaming(const QList<QJsonObject> &records, const QString &token)
{
    QStringList types;
    const QByteArray digest = fb::tokenDigest(token).toLatin1();
    for (const QJsonObject &r : records) {
        if (fb::canonicalJson(r).contains(digest))
            types << r.value("type").toString();
    }
    return types;
}

} // namespace

class TestAuditEviction : public QObject {
    Q_OBJECT

private slots:
    void init() { fbtest::failOnWarnings(); }

    void eachEvictionIsRecordedOnce()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath("audit.jsonl");
        fb::AuditLog log;
        QString error;
        QVERIFY2(log.open(path, &error), qPrintable(error));

        fb::BrokerSettings settings;
        settings.maxPending = 2;
        BrokerHarness h(settings);
        h.broker->setAuditSink(&log);
        fb::auditProposalEvents(&h.store, &log);
        h.initialize();

        const QString first = propose(h, 3201);
        const QString second = propose(h, 3202);
        const QString third = propose(h, 3203); // evicts the first: capacity
        QVERIFY(!first.isEmpty() && !second.isEmpty() && !third.isEmpty());
        QCOMPARE(h.store.evictAll(QStringLiteral("the settings changed")).size(), 2);

        QList<QJsonObject> records;
        QVERIFY(fb::AuditLog::readRecords(path, &records, &error));
        QVERIFY(fb::AuditLog::verify(path).ok);

        int evictions = 0;
        for (const QJsonObject &r : std::as_const(records))
            evictions += r.value("type").toString() == u"evicted";
        QCOMPARE(evictions, 3);

        // Each token: its own "proposed" record, then exactly one record of its eviction.
        for (const QString &token : {first, second, third}) {
            QCOMPARE(recordsNaming(records, token), QStringList({"proposed", "evicted"}));
        }
        for (const QJsonObject &r : std::as_const(records)) {
            if (r.value("type").toString() != u"evicted")
                continue;
            const QJsonObject d = r.value("data").toObject();
            const QString reason = d.value("reason").toString();
            if (d.value("token_sha256").toString() == fb::tokenDigest(first))
                QVERIFY2(reason.contains("more than 2 proposals were pending"), qPrintable(reason));
            else
                QCOMPARE(reason, QStringLiteral("the settings changed"));
        }
    }
};

QTEST_GUILESS_MAIN(TestAuditEviction)
#include "tst_auditproposalevents.moc"
