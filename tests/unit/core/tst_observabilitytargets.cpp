// Where the audit trail and the telemetry go (src/core/ObservabilityTargets): the policy's value
// wins over the environment and the saved Settings value, which the environment beats; what
// loses is reported; a user's file cannot name the audit export (the merge drops it first).
#include "TestEnvironment.h"
#include "core/ObservabilityTargets.h"
#include "policy_fixtures.h"

#include <QTest>

using namespace fb;
using fbtest::parseOk;

namespace {

SettingSources sources(const QString &envName, const QString &envValue, SettingId id,
                       const QString &saved)
{
    SettingSources s;
    if (!envName.isEmpty())
        s.environment.insert(envName, envValue);
    if (!saved.isEmpty())
        s.saved.insert(id, saved);
    return s;
}

} // namespace

class TestObservabilityTargets : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void nothingSetIsOff()
    {
        for (const SettingId id : {SettingId::AuditSyslog, SettingId::OtlpEndpoint}) {
            const ObservabilityTarget t = observabilityTarget(id, Policy{}, SettingSources{});
            QVERIFY(t.value.isEmpty());
            QVERIFY(!t.fromPolicy);
            QVERIFY(t.ignored.isEmpty());
            QCOMPARE(t.describeSource(id), QString());
        }
    }

    void precedence_data()
    {
        QTest::addColumn<int>("id");
        QTest::addColumn<QByteArray>("policy");
        QTest::addColumn<QString>("env");
        QTest::addColumn<QString>("saved");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("source");
        QTest::addColumn<int>("ignored");
        const int syslog = int(SettingId::AuditSyslog);
        const int otlp = int(SettingId::OtlpEndpoint);
        const QByteArray syslogPolicy = "{\"audit\": {\"syslog\": \"tls://siem.corp:6514\"}}";
        const QByteArray otlpPolicy =
            "{\"observability\": {\"otlp_endpoint\": \"https://otel.corp\"}}";
        QTest::newRow("syslog saved only")
            << syslog << QByteArray("{}") << QString() << "tcp://127.0.0.1:514"
            << "tcp://127.0.0.1:514"
            << "saved audit/syslog" << 0;
        QTest::newRow("syslog environment over saved")
            << syslog << QByteArray("{}") << "tcp://10.0.0.1:514"
            << "tcp://127.0.0.1:514"
            << "tcp://10.0.0.1:514"
            << "FABRIC_BROKER_AUDIT_SYSLOG" << 1;
        QTest::newRow("syslog policy over both") << syslog << syslogPolicy << "tcp://10.0.0.1:514"
                                                 << "tcp://127.0.0.1:514"
                                                 << "tls://siem.corp:6514"
                                                 << "audit.syslog in admin.json" << 2;
        QTest::newRow("syslog policy, the same environment value is not reported")
            << syslog << syslogPolicy << "tls://siem.corp:6514" << QString()
            << "tls://siem.corp:6514"
            << "audit.syslog in admin.json" << 0;
        QTest::newRow("otlp saved only")
            << otlp << QByteArray("{}") << QString() << "http://127.0.0.1:4318"
            << "http://127.0.0.1:4318"
            << "saved observability/otlpEndpoint" << 0;
        QTest::newRow("otlp environment over saved")
            << otlp << QByteArray("{}") << "http://10.0.0.1:4318"
            << "http://127.0.0.1:4318"
            << "http://10.0.0.1:4318"
            << "OTEL_EXPORTER_OTLP_ENDPOINT" << 1;
        QTest::newRow("otlp policy over both") << otlp << otlpPolicy << "http://10.0.0.1:4318"
                                               << "http://127.0.0.1:4318"
                                               << "https://otel.corp"
                                               << "observability.otlp_endpoint in admin.json" << 2;
        QTest::newRow("otlp blank environment is unset") << otlp << QByteArray("{}") << "   "
                                                         << "http://127.0.0.1:4318"
                                                         << "http://127.0.0.1:4318"
                                                         << "saved observability/otlpEndpoint" << 0;
    }
    void precedence()
    {
        QFETCH(int, id);
        QFETCH(QByteArray, policy);
        QFETCH(QString, env);
        QFETCH(QString, saved);
        QFETCH(QString, value);
        QFETCH(QString, source);
        QFETCH(int, ignored);
        const SettingId setting = SettingId(id);
        const Policy p = parseOk(policy, QStringLiteral("admin.json"));
        const ObservabilityTarget t = observabilityTarget(
            setting, p,
            sources(env.isEmpty() ? QString() : Settings::envName(setting), env, setting, saved));
        QCOMPARE(t.value, value);
        QCOMPARE(t.describeSource(setting), source);
        QCOMPARE(t.fromPolicy, source.contains(QStringLiteral(" in admin.json")));
        QCOMPARE(t.ignored.size(), ignored);
        for (const QString &line : t.ignored)
            QVERIFY2(line.endsWith(QStringLiteral(" wins")) && line.contains(source),
                     qPrintable(line));
    }

    // The agent can write the user's policy file: its audit.syslog never reaches the target,
    // whatever else is set; the environment's value stays in force.
    void aUsersFileCannotRedirectTheAuditExport()
    {
        const Policy user = parseOk("{\"audit\": {\"syslog\": \"tcp://attacker.example:514\"}}",
                                    QStringLiteral("user.json"));
        const Policy effective = mergePolicy(Policy{}, user).effective;
        const ObservabilityTarget t = observabilityTarget(
            SettingId::AuditSyslog, effective,
            sources(QStringLiteral("FABRIC_BROKER_AUDIT_SYSLOG"), QStringLiteral("tcp://siem:514"),
                    SettingId::AuditSyslog, {}));
        QCOMPARE(t.value, QStringLiteral("tcp://siem:514"));
        QVERIFY(!t.fromPolicy);
    }
};

QTEST_GUILESS_MAIN(TestObservabilityTargets)
#include "tst_observabilitytargets.moc"
