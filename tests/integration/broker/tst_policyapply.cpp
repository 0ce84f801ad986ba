// The one path from a setting to the running broker (broker/PolicyApply's LiveSettings): saved
// values go through the table's precedence and the policy; a policy file edited while running
// (allowed -> read only -> broken -> fixed, and saved by an editor's rename) changes the served
// toolsets within 2 s, refuses mutate at once when broken, and is audited as policy_changed with
// the file's SHA-256.
#include "TestEnvironment.h"
#include "broker/Approver.h"
#include "broker/MutationBroker.h"
#include "broker/PolicyApply.h"
#include "core/ProposalStore.h"
#include "core/Sha256.h"
#include "fabric/FabricClient.h"
#include "mcp/ToolRegistry.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace fb;

namespace {

struct Host {
    ProposalStore store;
    FabricClient fabric{FabricConfig{}};
    mcp::ToolRegistry registry;
    MutationBroker broker{&store, &fabric, BrokerSettings{}};
    Host() { broker.registerTools(&registry); }
};

void writeAtomically(const QString &path, const QByteArray &bytes)
{
    // As editors save: a new file renamed over the old one (a new inode).
    const QString tmp = path + ".tmp";
    QFile f(tmp);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
    f.close();
    QVERIFY(::rename(QFile::encodeName(tmp).constData(), QFile::encodeName(path).constData()) == 0);
}

void writeInPlace(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
}

} // namespace

class TestPolicyApply : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void savedValuesGoThroughThePolicy()
    {
        QTemporaryDir dir;
        const QString user = dir.filePath("policy.json");
        writeInPlace(user, R"({"toolsets": {"allowed": ["read"]}})");
        SettingSources sources;
        sources.saved.insert(SettingId::Toolsets, "read,mutate");
        sources.saved.insert(SettingId::Approval, "client");
        LiveSettings live(sources, PolicyPaths{dir.filePath("none.json"), {}, user});
        Host host;
        QString error;
        QVERIFY(live.start("https://api.equinix.com", &error));
        live.attach(&host.registry, &host.broker);
        QCOMPARE(host.registry.servedToolsets(), QStringList{"read"});
        QVERIFY(live.current().mutateLock);
        QCOMPARE(live.current().mutateLock->text(),
                 "set by your policy file: toolsets.allowed in " + user);
        QCOMPARE(live.current().overridden.size(), 1);
        QCOMPARE(host.broker.settings().policy.toolsetsAllowed, QStringList{"read"});
        // A flag still wins over a saved value, and the policy over both.
        SettingSources flagged = sources;
        flagged.flags.insert(SettingId::Toolsets, "read,mutate");
        ResolvedSettings r;
        QVERIFY(resolveSettings(flagged, loadPolicy({{}, {}, user}), {}, &r, &error));
        QCOMPARE(r.settings.toolsets, QStringList{"read"});
        QVERIFY(r.overridden.isEmpty()); // not a saved value that lost
        // The approval channel travels as the enum.
        QCOMPARE(live.settings().approvalMode, ApprovalMode::Client);
        QCOMPARE(host.broker.approver()->channel(), QStringLiteral("client"));
    }

    void aBrokenPolicyFileServesOnlyRead()
    {
        // A file that does not apply (a misspelled toolset) may have meant ["read"]: nothing
        // looser than that is served, whatever the flags ask (found by the read attack suite).
        QTemporaryDir dir;
        const QString user = dir.filePath("policy.json");
        writeInPlace(user, R"({"toolsets": {"allowed": ["Read"]}})");
        SettingSources sources;
        sources.flags.insert(SettingId::Toolsets, "all-read,mutate");
        ResolvedSettings r;
        QString error;
        QVERIFY(resolveSettings(sources, loadPolicy({{}, {}, user}), {}, &r, &error));
        QCOMPARE(r.settings.toolsets, QStringList{"read"});
        QVERIFY2(r.lines.join('\n').contains(
                     "policy: the routing toolset is not served: a policy file could not be "
                     "applied"),
                 qPrintable(r.lines.join('\n')));
        QVERIFY(r.mutateLock);
    }

    // audit.syslog is read at startup: a policy that names another target than the one this
    // process sends its audit records to refuses mutate until a restart (attack review of #38:
    // an administrator's file broken at startup, fixed later, must not let creates be recorded
    // to the sink the environment chose, or to none).
    void anotherAuditExportThanTheRunningOneRefusesMutate()
    {
        PolicyLoadResult policy;
        policy.effective =
            parsePolicy("{\"audit\": {\"syslog\": \"tls://siem.corp.example:6514\"}}",
                        "/etc/fabric-broker/policy.json")
                .policy;
        policy.adminFiles = QStringList{"/etc/fabric-broker/policy.json"};
        SettingSources sources;
        sources.flags.insert(SettingId::Toolsets, "read,mutate");
        QString error;
        const auto resolve = [&](const std::optional<QString> &running) {
            ResolvedSettings r;
            if (!resolveSettings(sources, policy, {}, &r, &error, running))
                qWarning() << error;
            return r;
        };
        // While starting (not known yet) and when it is the same: mutate is served.
        QVERIFY(resolve(std::nullopt).settings.toolsets.contains("mutate"));
        QVERIFY(!resolve(std::nullopt).mutateLock);
        QVERIFY(
            resolve(QString("tls://siem.corp.example:6514")).settings.toolsets.contains("mutate"));
        // Another sink, or none: refused, named, and said how to fix.
        for (const QString &running : {QString("tcp://127.0.0.1:5514"), QString()}) {
            const ResolvedSettings r = resolve(running);
            QVERIFY(!r.settings.toolsets.contains("mutate"));
            QVERIFY(r.mutateLock);
            QCOMPARE(r.mutateLock->rule, QStringLiteral("audit.syslog"));
            QVERIFY(r.mutateLock->administrator);
            QVERIFY2(r.mutateLock->why.contains("restart Fabric Broker to apply it") &&
                         r.mutateLock->why.contains(running.isEmpty() ? "nowhere" : running),
                     qPrintable(r.mutateLock->why));
            QVERIFY2(r.lines.join('\n').contains("policy: the mutate toolset is NOT served: "
                                                 "audit.syslog (/etc/fabric-broker/policy.json)"),
                     qPrintable(r.lines.join('\n')));
        }
        // Without audit.syslog in the policy the running export is whatever it is.
        policy.effective.auditSyslog.reset();
        QVERIFY(resolve(QString()).settings.toolsets.contains("mutate"));
    }

    void editedPolicyAppliesWhileRunning()
    {
        QTemporaryDir dir;
        const QString user = dir.filePath("policy.json");
        writeInPlace(user, R"({"toolsets": {"allowed": ["read", "mutate"]}})");
        SettingSources sources;
        sources.saved.insert(SettingId::Toolsets, "read,mutate");
        LiveSettings live(sources, PolicyPaths{dir.filePath("none.json"), {}, user});
        Host host;
        QString error;
        QVERIFY(live.start("https://api.equinix.com", &error));
        live.attach(&host.registry, &host.broker);
        live.watchPolicyFiles();
        QCOMPARE(host.registry.servedToolsets(), QStringList({"read", "mutate"}));
        QSignalSpy toolsChanged(&host.registry, &mcp::ToolRegistry::toolsChanged);
        QList<QJsonObject> audits;
        connect(&host.broker, &MutationBroker::auditEvent, this,
                [&](AuditEventType type, const QJsonObject &record) {
                    if (type == AuditEventType::PolicyChanged)
                        audits << record;
                });
        struct Step {
            QByteArray bytes;
            bool rename;
            QStringList served;
            bool refused;
        };
        const QList<Step> steps{
            {R"({"toolsets": {"allowed": ["read"]}})", false, {"read"}, false},
            {R"({"toolsets": {"allowed": ["read", "mutate"]}})", true, {"read", "mutate"}, false},
            {R"({"toolsets": {"allowed": ["read", "mutate"]})", true, {"read"}, true},
            {R"({"toolsets": {"allowed": ["read", "mutate"]}})", false, {"read", "mutate"}, false},
        };
        int n = 0;
        for (const Step &step : steps) {
            ++n;
            QElapsedTimer timer;
            timer.start();
            if (step.rename)
                writeAtomically(user, step.bytes);
            else
                writeInPlace(user, step.bytes);
            QTRY_COMPARE_WITH_TIMEOUT(audits.size(), n, 2000);
            QVERIFY2(timer.elapsed() < 2000, qPrintable(QString::number(timer.elapsed())));
            QCOMPARE(host.registry.servedToolsets(), step.served);
            QCOMPARE(toolsChanged.count(), n); // each step changes what is served
            const QJsonObject record = audits.last();
            QCOMPARE(record.value("refuse_mutate").toBool(), step.refused);
            QCOMPARE(record.value("toolsets").toString(), step.served.join(','));
            bool found = false;
            for (const QJsonValue &f : record.value("files").toArray()) {
                if (f.toObject().value("path").toString() != user)
                    continue;
                found = true;
                QCOMPARE(f.toObject().value("sha256").toString(),
                         QString::fromLatin1(Sha256::hash(step.bytes).toHex()));
                QCOMPARE(f.toObject().value("layer").toString(), QStringLiteral("user"));
                QCOMPARE(f.toObject().contains("error"), step.refused);
            }
            QVERIFY(found);
            QCOMPARE(host.broker.settings().policy.toolsetsAllowed.has_value(), !step.refused);
        }
        // A file that appears later is seen (the directory is watched) and one removed too.
        QVERIFY(QFile::remove(user));
        QTRY_COMPARE_WITH_TIMEOUT(audits.size(), n + 1, 2000);
        for (const QJsonValue &f : audits.last().value("files").toArray())
            QCOMPARE(f.toObject().value("sha256"), QJsonValue(QJsonValue::Null));
    }

    // approval.channel: desktop arriving by a reload in a process without a desktop dialog fails
    // closed: every confirm is answered "failed" with the reason, never the client's prompt.
    void desktopChannelWithoutADesktopFailsClosed()
    {
        QTemporaryDir dir;
        const QString user = dir.filePath("policy.json");
        LiveSettings live({}, PolicyPaths{dir.filePath("none.json"), {}, user});
        Host host;
        QString error;
        QVERIFY(live.start("https://api.equinix.com", &error));
        live.attach(&host.registry, &host.broker);
        QCOMPARE(host.broker.approver()->channel(), QStringLiteral("client"));
        writeInPlace(user, R"({"approval": {"channel": "desktop"}})");
        live.reloadPolicy();
        QCOMPARE(host.broker.approver()->channel(), QStringLiteral("desktop"));
        std::optional<HumanDecision> decision;
        host.broker.approver()->requestApproval(nullptr, ApprovalContext{},
                                                [&](const HumanDecision &d) { decision = d; });
        QVERIFY(decision);
        QCOMPARE(decision->status, HumanStatus::Failed);
        QVERIFY2(decision->detail.contains("approval.channel in " + user),
                 qPrintable(decision->detail));
        QVERIFY(decision->detail.contains("nothing was sent"));
        // The policy relaxed again: back to the client's prompt.
        writeInPlace(user, "{}");
        live.reloadPolicy();
        QCOMPARE(host.broker.approver()->channel(), QStringLiteral("client"));
    }

    // The registry and the broker may go first: LiveSettings holds them by QPointer.
    void attachedObjectsMayDieFirst()
    {
        QTemporaryDir dir;
        const QString user = dir.filePath("policy.json");
        LiveSettings live({}, PolicyPaths{dir.filePath("none.json"), {}, user});
        QString error;
        QVERIFY(live.start("https://api.equinix.com", &error));
        {
            Host host;
            live.attach(&host.registry, &host.broker);
            writeInPlace(user, R"({"approval": {"channel": "desktop"}})");
            live.reloadPolicy();
        }
        writeInPlace(user, R"({"toolsets": {"allowed": ["read"]}})");
        live.reloadPolicy(); // nothing to push to, and no dangling pointer used
        live.setSaved({{SettingId::Toolsets, "read,mutate"}});
        QVERIFY(!live.mutateAllowed());
        // And the broker may outlive LiveSettings: it no longer asks an approver owned there.
        Host host;
        {
            LiveSettings shortLived({}, PolicyPaths{dir.filePath("none.json"), {}, user});
            QVERIFY(shortLived.start("https://api.equinix.com", &error));
            writeInPlace(user, R"({"approval": {"channel": "desktop"}})");
            shortLived.reloadPolicy();
            shortLived.attach(&host.registry, &host.broker);
            QCOMPARE(host.broker.approver()->channel(), QStringLiteral("desktop"));
        }
        QCOMPARE(host.broker.approver()->channel(), QStringLiteral("client"));
    }
};

QTEST_GUILESS_MAIN(TestPolicyApply)
#include "tst_policyapply.moc"
