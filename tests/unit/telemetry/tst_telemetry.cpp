// The Telemetry hub (src/telemetry/Telemetry.cpp): its instruments, the decision and create
// counters, and configureExport turning tracing and the exporter on and off.
#include "TestEnvironment.h"
#include "telemetry/Telemetry.h"

#include <QProcessEnvironment>
#include <QTest>

using namespace fb::telemetry;

class TestTelemetry : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void decisionsAndCreatesAreCounted()
    {
        Telemetry t("1.2.3");
        t.recordDecision("accepted", "desktop", 12.5);
        t.recordDecision("accepted", "desktop", 0.5);
        t.recordDecision("declined", "client", 3);
        t.recordDecision("call_cancelled", "client", -1); // no latency: counted, not timed
        t.recordCreate("connection_create", "created");
        t.recordCreate("connection_create", "unknown");
        const QByteArray text = t.metrics()->prometheusText();
        QVERIFY2(text.contains("fabric_broker_decisions_total{fabric_broker_channel=\"desktop\","
                               "fabric_broker_decision=\"accepted\"} 2\n"),
                 text.constData());
        QVERIFY(text.contains("fabric_broker_decisions_total{fabric_broker_channel=\"client\","
                              "fabric_broker_decision=\"call_cancelled\"} 1\n"));
        QVERIFY(text.contains("fabric_broker_decision_duration_seconds_count{fabric_broker_channel="
                              "\"desktop\",fabric_broker_decision=\"accepted\"} 2\n"));
        QVERIFY(text.contains("fabric_broker_decision_duration_seconds_sum{fabric_broker_channel="
                              "\"desktop\",fabric_broker_decision=\"accepted\"} 13\n"));
        QVERIFY(
            !text.contains("fabric_broker_decision_duration_seconds_count{fabric_broker_channel="
                           "\"client\",fabric_broker_decision=\"call_cancelled\"}"));
        QVERIFY(text.contains("fabric_broker_creates_total{fabric_broker_change_type=\"connection_"
                              "create\",fabric_broker_outcome=\"unknown\"} 1\n"));
        QVERIFY(text.contains("service_version=\"1.2.3\""));
    }

    void exportTurnsTracingOnAndOff()
    {
        Telemetry t("1");
        QVERIFY(!t.tracer()->isEnabled());
        QVERIFY(!t.exporter());
        QProcessEnvironment env;
        env.insert("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9");
        env.insert("OTEL_METRICS_EXPORTER", "none");
        const OtlpConfig config = OtlpConfig::fromEnvironment(env);
        QVERIFY(config.tracesEnabled);
        QVERIFY(!config.metricsEnabled);
        t.configureExport(config);
        QVERIFY(t.tracer()->isEnabled());
        QVERIFY(t.exporter());
        t.configureExport(OtlpConfig::fromEnvironment(QProcessEnvironment()));
        QVERIFY(!t.tracer()->isEnabled());
        QVERIFY(!t.exporter());
    }

    // The tracer's overflow is counted once, with or without an exporter.
    void droppedSpansCountedOnce()
    {
        Telemetry t("1");
        t.tracer()->setEnabled(true);
        t.tracer()->setMaxQueueSize(1);
        t.tracer()->startSpan("a", SpanKind::Internal).end();
        t.tracer()->startSpan("b", SpanKind::Internal).end();
        t.tracer()->startSpan("c", SpanKind::Internal).end();
        QCOMPARE(t.tracer()->dropped(), 2u);
        QVERIFY2(t.metrics()->prometheusText().contains(
                     "fabric_broker_telemetry_dropped{signal=\"traces\"} 2\n"),
                 t.metrics()->prometheusText().constData());
    }
};

QTEST_GUILESS_MAIN(TestTelemetry)
#include "tst_telemetry.moc"
