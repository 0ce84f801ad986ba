// OtlpExporter (src/telemetry): OtlpConfig from the OTEL_* variables, and the exporter against
// a loopback OTLP/HTTP receiver in this file (a QTcpServer that reads whole HTTP/1.1 requests
// and answers each with a scripted status, headers and body): paths, headers, bodies, retries,
// Retry-After, drops, batching, the body bound, gzip, and a collector that is not there.
#include "TestEnvironment.h"
#include "telemetry/Metrics.h"
#include "telemetry/OtlpExporter.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QtTest>

using namespace Qt::StringLiterals;
using namespace fb::telemetry;

namespace {

struct ReceivedRequest {
    QByteArray method;
    QByteArray path;
    QHash<QByteArray, QByteArray> headers; // lowercase names
    QByteArray body;
    qint64 atMs = 0;
};

struct ScriptedReply {
    int status = 200;
    QList<std::pair<QByteArray, QByteArray>> headers;
    QByteArray body = "{}";
};

// The loopback OTLP receiver. POSTs are recorded and answered from script (in order), then with
// fallback; with hold set they wait for release(). "GET /echo" answers with the last POST's body
// as it came, labelled Content-Encoding: gzip (so a client can check a gzip body decodes).
class Receiver {
public:
    Receiver()
    {
        m_clock.start();
        QObject::connect(&m_server, &QTcpServer::newConnection, &m_server, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                socket->setParent(&m_server);
                QObject::connect(socket, &QTcpSocket::readyRead, socket,
                                 [this, socket] { readFrom(socket); });
                QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    }
    bool listen() { return m_server.listen(QHostAddress::LocalHost, 0); }
    QString base() const { return u"http://127.0.0.1:%1"_s.arg(m_server.serverPort()); }
    qint64 elapsed() const { return m_clock.elapsed(); }

    QList<ReceivedRequest> requests;
    QList<ScriptedReply> script;
    ScriptedReply fallback;
    bool hold = false;

    void release()
    {
        const auto held = std::exchange(m_held, {});
        for (const auto &[socket, reply] : held) {
            if (socket)
                answer(socket, reply);
        }
    }

private:
    void readFrom(QTcpSocket *socket)
    {
        QByteArray &buffer = m_buffers[socket];
        buffer += socket->readAll();
        for (;;) {
            const qsizetype end = buffer.indexOf("\r\n\r\n");
            if (end < 0)
                return;
            const QList<QByteArray> lines = buffer.first(end).split('\n');
            ReceivedRequest request;
            const QList<QByteArray> first = lines.value(0).trimmed().split(' ');
            request.method = first.value(0);
            request.path = first.value(1);
            for (qsizetype i = 1; i < lines.size(); ++i) {
                const qsizetype colon = lines[i].indexOf(':');
                if (colon > 0)
                    request.headers.insert(lines[i].first(colon).trimmed().toLower(),
                                           lines[i].sliced(colon + 1).trimmed());
            }
            const qsizetype length = request.headers.value("content-length", "0").toLongLong();
            if (buffer.size() < end + 4 + length)
                return;
            request.body = buffer.sliced(end + 4, length);
            request.atMs = m_clock.elapsed();
            buffer.remove(0, end + 4 + length);
            if (request.method == "GET" && request.path == "/echo") {
                ScriptedReply echo;
                echo.headers = {{"Content-Encoding", "gzip"}};
                echo.body = requests.isEmpty() ? QByteArray() : requests.last().body;
                answer(socket, echo);
                continue;
            }
            requests.append(request);
            const ScriptedReply reply = script.isEmpty() ? fallback : script.takeFirst();
            if (hold)
                m_held.append({socket, reply});
            else
                answer(socket, reply);
        }
    }

    static void answer(QTcpSocket *socket, const ScriptedReply &reply)
    {
        QByteArray out = "HTTP/1.1 " + QByteArray::number(reply.status) +
                         (reply.status < 300 ? " OK" : " Not OK") + "\r\n";
        out += "Content-Type: application/json\r\n";
        out += "Content-Length: " + QByteArray::number(reply.body.size()) + "\r\n";
        for (const auto &[name, value] : reply.headers)
            out += name + ": " + value + "\r\n";
        out += "\r\n" + reply.body;
        socket->write(out);
    }

    QHash<QTcpSocket *, QByteArray> m_buffers;
    QList<std::pair<QPointer<QTcpSocket>, ScriptedReply>> m_held;
    QElapsedTimer m_clock;
    QTcpServer m_server; // last: destroyed (with its sockets) first
};

QProcessEnvironment environment(const QStringList &entries)
{
    QProcessEnvironment env;
    for (const QString &entry : entries) {
        const qsizetype eq = entry.indexOf(u'=');
        env.insert(entry.first(eq), entry.sliced(eq + 1));
    }
    return env;
}

// Fast settings for a receiver at base, plus extra entries.
OtlpConfig fastConfig(const QString &base, const QStringList &extra = {})
{
    QStringList entries{u"OTEL_EXPORTER_OTLP_ENDPOINT="_s + base, u"OTEL_BSP_SCHEDULE_DELAY=50"_s,
                        u"OTEL_METRIC_EXPORT_INTERVAL=60000"_s};
    entries += extra;
    OtlpConfig config = OtlpConfig::fromEnvironment(environment(entries), {}, u"9.9.9"_s);
    if (!config.warnings.isEmpty())
        qWarning("unexpected configuration warnings: %s",
                 qPrintable(config.warnings.join(u" | "_s)));
    return config;
}

QStringList spanNames(const QByteArray &body)
{
    QStringList names;
    const QJsonObject request = QJsonDocument::fromJson(body).object();
    for (const QJsonValue &rs : request[u"resourceSpans"_s].toArray()) {
        for (const QJsonValue &ss : rs[u"scopeSpans"_s].toArray()) {
            for (const QJsonValue &span : ss[u"spans"_s].toArray())
                names << span[u"name"_s].toString();
        }
    }
    return names;
}

void makeSpans(Tracer &tracer, const QStringList &names)
{
    for (const QString &name : names)
        tracer.startSpan(name, SpanKind::Server).end();
}

QStringList keyValues(const QList<SpanAttribute> &attributes)
{
    QStringList out;
    for (const SpanAttribute &a : attributes)
        out << a.key + u'=' + std::get<QString>(a.value);
    return out;
}

QStringList headerList(const QList<std::pair<QByteArray, QByteArray>> &headers)
{
    QStringList out;
    for (const auto &[name, value] : headers)
        out << QString::fromUtf8(name + ": " + value);
    return out;
}

int configField(const OtlpConfig &config, const QString &field)
{
    if (field == u"scheduleDelayMs"_s)
        return config.scheduleDelayMs;
    if (field == u"maxQueueSize"_s)
        return config.maxQueueSize;
    if (field == u"maxExportBatchSize"_s)
        return config.maxExportBatchSize;
    if (field == u"metricIntervalMs"_s)
        return config.metricIntervalMs;
    if (field == u"timeoutMs"_s)
        return config.timeoutMs;
    if (field == u"spanExportTimeoutMs"_s)
        return config.spanExportTimeoutMs;
    if (field == u"metricExportTimeoutMs"_s)
        return config.metricExportTimeoutMs;
    qFatal("unknown field");
}

} // namespace

class TestOtlpExporter : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    // ---- OtlpConfig::fromEnvironment ------------------------------------------------------

    void configEndpoints_data()
    {
        QTest::addColumn<QStringList>("env");
        QTest::addColumn<QString>("configured");
        QTest::addColumn<QString>("traces");  // empty: off
        QTest::addColumn<QString>("metrics"); // empty: off
        QTest::addColumn<QString>("warning"); // a warning containing it; empty: none at all

        const QString base = u"OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318"_s;
        QTest::newRow("nothing configured")
            << QStringList() << QString() << QString() << QString() << QString();
        QTest::newRow("settings but no endpoint")
            << QStringList{u"OTEL_EXPORTER_OTLP_HEADERS=a=b"_s, u"OTEL_SERVICE_NAME=x"_s,
                           u"OTEL_BSP_SCHEDULE_DELAY=100"_s}
            << QString() << QString() << QString() << QString();
        QTest::newRow("blank endpoint is unset")
            << QStringList{u"OTEL_EXPORTER_OTLP_ENDPOINT=  "_s} << QString() << QString()
            << QString() << QString();
        QTest::newRow("base") << QStringList{base} << QString()
                              << u"http://collector:4318/v1/traces"_s
                              << u"http://collector:4318/v1/metrics"_s << QString();
        QTest::newRow("base with trailing slash")
            << QStringList{u"OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318/"_s} << QString()
            << u"http://collector:4318/v1/traces"_s << u"http://collector:4318/v1/metrics"_s
            << QString();
        QTest::newRow("base with path")
            << QStringList{u"OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318/otlp"_s} << QString()
            << u"http://collector:4318/otlp/v1/traces"_s
            << u"http://collector:4318/otlp/v1/metrics"_s << QString();
        QTest::newRow("base with path and slash")
            << QStringList{u"OTEL_EXPORTER_OTLP_ENDPOINT=https://c.example/a/b/"_s} << QString()
            << u"https://c.example/a/b/v1/traces"_s << u"https://c.example/a/b/v1/metrics"_s
            << QString();
        QTest::newRow("traces endpoint as-is")
            << QStringList{u"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://t:9999/custom/path"_s}
            << QString() << u"http://t:9999/custom/path"_s << QString() << QString();
        QTest::newRow("metrics endpoint with empty path")
            << QStringList{u"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT=http://m:9999"_s} << QString()
            << QString() << u"http://m:9999/"_s << QString();
        QTest::newRow("signal endpoint wins over the base")
            << QStringList{base, u"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://t:1/x"_s} << QString()
            << u"http://t:1/x"_s << u"http://collector:4318/v1/metrics"_s << QString();
        QTest::newRow("configured endpoint")
            << QStringList() << u"http://configured:4318"_s << u"http://configured:4318/v1/traces"_s
            << u"http://configured:4318/v1/metrics"_s << QString();
        QTest::newRow("environment wins over the configured endpoint")
            << QStringList{base} << u"http://configured:4318"_s
            << u"http://collector:4318/v1/traces"_s << u"http://collector:4318/v1/metrics"_s
            << QString();
        QTest::newRow("SDK disabled")
            << QStringList{base, u"OTEL_SDK_DISABLED=true"_s} << u"http://configured:4318"_s
            << QString() << QString() << QString();
        QTest::newRow("SDK disabled, any case") << QStringList{base, u"OTEL_SDK_DISABLED=TRUE"_s}
                                                << QString() << QString() << QString() << QString();
        QTest::newRow("SDK not disabled") << QStringList{base, u"OTEL_SDK_DISABLED=false"_s}
                                          << QString() << u"http://collector:4318/v1/traces"_s
                                          << u"http://collector:4318/v1/metrics"_s << QString();
        QTest::newRow("SDK disabled neither true nor false")
            << QStringList{base, u"OTEL_SDK_DISABLED=yes"_s} << QString()
            << u"http://collector:4318/v1/traces"_s << u"http://collector:4318/v1/metrics"_s
            << u"OTEL_SDK_DISABLED"_s;
        QTest::newRow("traces exporter none")
            << QStringList{base, u"OTEL_TRACES_EXPORTER=none"_s} << QString() << QString()
            << u"http://collector:4318/v1/metrics"_s << QString();
        QTest::newRow("metrics exporter none")
            << QStringList{base, u"OTEL_METRICS_EXPORTER=none"_s} << QString()
            << u"http://collector:4318/v1/traces"_s << QString() << QString();
        QTest::newRow("metrics exporter prometheus")
            << QStringList{base, u"OTEL_METRICS_EXPORTER=prometheus"_s} << QString()
            << u"http://collector:4318/v1/traces"_s << QString() << QString();
        QTest::newRow("traces exporter otlp") << QStringList{base, u"OTEL_TRACES_EXPORTER=otlp"_s}
                                              << QString() << u"http://collector:4318/v1/traces"_s
                                              << u"http://collector:4318/v1/metrics"_s << QString();
        QTest::newRow("traces exporter zipkin")
            << QStringList{base, u"OTEL_TRACES_EXPORTER=zipkin"_s} << QString() << QString()
            << u"http://collector:4318/v1/metrics"_s << u"OTEL_TRACES_EXPORTER"_s;
        QTest::newRow("ftp scheme")
            << QStringList{u"OTEL_EXPORTER_OTLP_ENDPOINT=ftp://collector:21"_s} << QString()
            << QString() << QString() << u"only http and https"_s;
        QTest::newRow("configured endpoint with a bad scheme")
            << QStringList() << u"file:///tmp/otlp"_s << QString() << QString()
            << u"The configured OTLP endpoint"_s;
        QTest::newRow("no host") << QStringList{u"OTEL_EXPORTER_OTLP_ENDPOINT=collector:4318"_s}
                                 << QString() << QString() << QString() << u"not a valid URL"_s;
        QTest::newRow("bad signal endpoint keeps the other signal")
            << QStringList{base, u"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=unix:///run/otel"_s}
            << QString() << QString() << u"http://collector:4318/v1/metrics"_s
            << u"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"_s;
        QTest::newRow("grpc protocol")
            << QStringList{base, u"OTEL_EXPORTER_OTLP_PROTOCOL=grpc"_s} << QString()
            << u"http://collector:4318/v1/traces"_s << u"http://collector:4318/v1/metrics"_s
            << u"OTEL_EXPORTER_OTLP_PROTOCOL=\"grpc\""_s;
        QTest::newRow("http/protobuf for traces")
            << QStringList{base, u"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf"_s} << QString()
            << u"http://collector:4318/v1/traces"_s << u"http://collector:4318/v1/metrics"_s
            << u"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"_s;
        QTest::newRow("http/json protocol")
            << QStringList{base, u"OTEL_EXPORTER_OTLP_PROTOCOL=http/json"_s} << QString()
            << u"http://collector:4318/v1/traces"_s << u"http://collector:4318/v1/metrics"_s
            << QString();
        QTest::newRow("bad compression")
            << QStringList{base, u"OTEL_EXPORTER_OTLP_COMPRESSION=zstd"_s} << QString()
            << u"http://collector:4318/v1/traces"_s << u"http://collector:4318/v1/metrics"_s
            << u"OTEL_EXPORTER_OTLP_COMPRESSION"_s;
    }
    void configEndpoints()
    {
        QFETCH(QStringList, env);
        QFETCH(QString, configured);
        QFETCH(QString, traces);
        QFETCH(QString, metrics);
        QFETCH(QString, warning);
        const OtlpConfig config = OtlpConfig::fromEnvironment(environment(env), configured);
        QCOMPARE(config.tracesEnabled, !traces.isEmpty());
        QCOMPARE(config.metricsEnabled, !metrics.isEmpty());
        QCOMPARE(config.anyEnabled(), !traces.isEmpty() || !metrics.isEmpty());
        QCOMPARE(config.tracesUrl.toString(), traces);
        QCOMPARE(config.metricsUrl.toString(), metrics);
        if (warning.isEmpty()) {
            QVERIFY2(config.warnings.isEmpty(), qPrintable(config.warnings.join(u" | "_s)));
        } else {
            QVERIFY2(!config.warnings.filter(warning).isEmpty(),
                     qPrintable(config.warnings.join(u" | "_s)));
        }
        if (!config.anyEnabled())
            QCOMPARE(config.describe(), u"off"_s);
    }
    // observability.otlp_endpoint (the operator policy) wins over every variable that would send
    // elsewhere or nowhere, each named in a warning; what only tunes the export still applies.
    void policyEndpointWinsOverTheEnvironment()
    {
        const QStringList env{u"OTEL_EXPORTER_OTLP_ENDPOINT=http://agent.example:4318"_s,
                              u"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://agent.example/t"_s,
                              u"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT=http://agent.example/m"_s,
                              u"OTEL_SDK_DISABLED=true"_s,
                              u"OTEL_TRACES_EXPORTER=none"_s,
                              u"OTEL_METRICS_EXPORTER=none"_s,
                              u"OTEL_BSP_SCHEDULE_DELAY=250"_s};
        const OtlpConfig config = OtlpConfig::fromEnvironment(
            environment(env), u"https://otel.corp.example:4318"_s, {}, true);
        QVERIFY(config.tracesEnabled);
        QVERIFY(config.metricsEnabled);
        QCOMPARE(config.tracesUrl.toString(), u"https://otel.corp.example:4318/v1/traces"_s);
        QCOMPARE(config.metricsUrl.toString(), u"https://otel.corp.example:4318/v1/metrics"_s);
        QCOMPARE(config.scheduleDelayMs, 250);
        for (const char *name :
             {"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
              "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER",
              "OTEL_METRICS_EXPORTER"})
            QVERIFY2(!config.warnings
                          .filter(QString::fromLatin1(name) +
                                  u" is ignored: the policy's observability.otlp_endpoint wins"_s)
                          .isEmpty(),
                     qPrintable(config.warnings.join(u" | "_s)));
        // Nor can its tuning starve it (attack review of #38): later, fewer or shorter than the
        // defaults are brought back to them, and the service keeps its name.
        const QStringList starving{u"OTEL_BSP_SCHEDULE_DELAY=2147483647"_s,
                                   u"OTEL_METRIC_EXPORT_INTERVAL=2147483647"_s,
                                   u"OTEL_BSP_MAX_QUEUE_SIZE=1"_s,
                                   u"OTEL_EXPORTER_OTLP_TIMEOUT=1"_s,
                                   u"OTEL_EXPORTER_OTLP_TRACES_TIMEOUT=1"_s,
                                   u"OTEL_BSP_EXPORT_TIMEOUT=1"_s,
                                   u"OTEL_METRIC_EXPORT_TIMEOUT=1"_s,
                                   u"OTEL_SERVICE_NAME=payroll"_s,
                                   u"OTEL_RESOURCE_ATTRIBUTES=service.name=payroll,team=ops"_s};
        const OtlpConfig clamped = OtlpConfig::fromEnvironment(
            environment(starving), u"https://otel.corp.example:4318"_s, {}, true);
        const OtlpConfig defaults;
        QCOMPARE(clamped.scheduleDelayMs, defaults.scheduleDelayMs);
        QCOMPARE(clamped.metricIntervalMs, defaults.metricIntervalMs);
        QCOMPARE(clamped.maxQueueSize, defaults.maxQueueSize);
        QCOMPARE(clamped.timeoutMs, defaults.timeoutMs);
        QCOMPARE(clamped.tracesOptions.timeoutMs, defaults.timeoutMs);
        QCOMPARE(clamped.spanExportTimeoutMs, defaults.spanExportTimeoutMs);
        QCOMPARE(clamped.metricExportTimeoutMs, defaults.metricExportTimeoutMs);
        QCOMPARE(clamped.resource.value(0).key, u"service.name"_s);
        QCOMPARE(std::get<QString>(clamped.resource.value(0).value), u"fabric-broker"_s);
        QVERIFY(std::any_of(clamped.resource.cbegin(), clamped.resource.cend(),
                            [](const SpanAttribute &a) { return a.key == u"team"_s; }));
        QCOMPARE(clamped.warnings.filter(u"observability.otlp_endpoint"_s).size(), 9);
        // Without the policy the same values are taken as given.
        const OtlpConfig free =
            OtlpConfig::fromEnvironment(environment(starving), u"https://otel.corp.example:4318"_s);
        QCOMPARE(free.scheduleDelayMs, 2147483647);
        QCOMPARE(free.maxQueueSize, 1);
        QCOMPARE(std::get<QString>(free.resource.value(0).value), u"payroll"_s);
        // Not the policy's (Settings): the variables win, and may turn it off.
        const OtlpConfig saved =
            OtlpConfig::fromEnvironment(environment(env), u"https://otel.corp.example:4318"_s);
        QVERIFY(!saved.anyEnabled());
        const OtlpConfig savedOnly =
            OtlpConfig::fromEnvironment(environment({}), u"https://otel.corp.example:4318"_s);
        QCOMPARE(savedOnly.tracesUrl.toString(), u"https://otel.corp.example:4318/v1/traces"_s);
        // An empty policy value locks nothing.
        const OtlpConfig none = OtlpConfig::fromEnvironment(environment(env), {}, {}, true);
        QVERIFY(!none.anyEnabled());
    }

    void configNumbers_data()
    {
        QTest::addColumn<QString>("variable");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("field");
        QTest::addColumn<int>("expected");
        QTest::addColumn<bool>("warned");

        QTest::newRow("defaults") << u"UNRELATED"_s << u"1"_s << u"scheduleDelayMs"_s << 5000
                                  << false;
        QTest::newRow("schedule delay")
            << u"OTEL_BSP_SCHEDULE_DELAY"_s << u"200"_s << u"scheduleDelayMs"_s << 200 << false;
        QTest::newRow("schedule delay not a number")
            << u"OTEL_BSP_SCHEDULE_DELAY"_s << u"abc"_s << u"scheduleDelayMs"_s << 5000 << true;
        QTest::newRow("schedule delay negative")
            << u"OTEL_BSP_SCHEDULE_DELAY"_s << u"-5"_s << u"scheduleDelayMs"_s << 5000 << true;
        QTest::newRow("schedule delay zero")
            << u"OTEL_BSP_SCHEDULE_DELAY"_s << u"0"_s << u"scheduleDelayMs"_s << 5000 << true;
        QTest::newRow("queue size")
            << u"OTEL_BSP_MAX_QUEUE_SIZE"_s << u"10"_s << u"maxQueueSize"_s << 10 << false;
        QTest::newRow("batch size follows a small queue")
            << u"OTEL_BSP_MAX_QUEUE_SIZE"_s << u"10"_s << u"maxExportBatchSize"_s << 10 << false;
        QTest::newRow("batch size") << u"OTEL_BSP_MAX_EXPORT_BATCH_SIZE"_s << u"64"_s
                                    << u"maxExportBatchSize"_s << 64 << false;
        QTest::newRow("batch larger than the queue")
            << u"OTEL_BSP_MAX_EXPORT_BATCH_SIZE"_s << u"5000"_s << u"maxExportBatchSize"_s << 2048
            << true;
        QTest::newRow("metric interval") << u"OTEL_METRIC_EXPORT_INTERVAL"_s << u"1000"_s
                                         << u"metricIntervalMs"_s << 1000 << false;
        QTest::newRow("metric interval fractional") << u"OTEL_METRIC_EXPORT_INTERVAL"_s << u"1.5"_s
                                                    << u"metricIntervalMs"_s << 60000 << true;
        QTest::newRow("timeout") << u"OTEL_EXPORTER_OTLP_TIMEOUT"_s << u"2500"_s << u"timeoutMs"_s
                                 << 2500 << false;
        QTest::newRow("timeout overflowing") << u"OTEL_EXPORTER_OTLP_TIMEOUT"_s << u"99999999999"_s
                                             << u"timeoutMs"_s << 10000 << true;
        QTest::newRow("span export timeout")
            << u"OTEL_BSP_EXPORT_TIMEOUT"_s << u"700"_s << u"spanExportTimeoutMs"_s << 700 << false;
        QTest::newRow("metric export timeout") << u"OTEL_METRIC_EXPORT_TIMEOUT"_s << u"x"_s
                                               << u"metricExportTimeoutMs"_s << 30000 << true;
    }
    void configNumbers()
    {
        QFETCH(QString, variable);
        QFETCH(QString, value);
        QFETCH(QString, field);
        QFETCH(int, expected);
        QFETCH(bool, warned);
        const OtlpConfig config = OtlpConfig::fromEnvironment(
            environment({u"OTEL_EXPORTER_OTLP_ENDPOINT=http://c:4318"_s, variable + u'=' + value}));
        QCOMPARE(configField(config, field), expected);
        QCOMPARE(!config.warnings.filter(variable).isEmpty(), warned);
        QCOMPARE(config.warnings.size(), warned ? 1 : 0);
    }

    void configHeadersNeverInWarnings()
    {
        const OtlpConfig config = OtlpConfig::fromEnvironment(environment(
            {u"OTEL_EXPORTER_OTLP_ENDPOINT=http://user:pw-s3cret@collector:4318/base?token=s3cret"_s,
             u"OTEL_EXPORTER_OTLP_HEADERS=api-key=s3cret-one, Authorization = "
             u"Bearer%20s3cret%2Ctwo "
             ",,Bearer s3cret-no-name,x-b ad=s3cret-bad-name,x-crlf=line%0Ds3cret,"
             "x-badpct=s3cret%zz,content-type=text/s3cret"_s,
             u"OTEL_EXPORTER_OTLP_TRACES_HEADERS=x-traces=s3cret-traces"_s}));
        QCOMPARE(headerList(config.headers),
                 QStringList({u"api-key: s3cret-one"_s, u"Authorization: Bearer s3cret,two"_s}));
        QVERIFY(config.tracesOptions.headers.has_value());
        QCOMPARE(headerList(*config.tracesOptions.headers),
                 QStringList({u"x-traces: s3cret-traces"_s}));
        QVERIFY(!config.metricsOptions.headers.has_value());
        // Malformed entries (2), a line break, bad percent-encoding, a reserved name.
        QCOMPARE(config.warnings.size(), 4);
        QVERIFY(!config.warnings.filter(u"x-crlf"_s).isEmpty());
        QVERIFY(!config.warnings.filter(u"x-badpct"_s).isEmpty());
        QVERIFY(!config.warnings.filter(u"content-type"_s).isEmpty());
        for (const QString &w : config.warnings) {
            QVERIFY2(!w.contains(u"s3cret"_s), qPrintable(w));
            QVERIFY2(!w.contains(u"Bearer"_s), qPrintable(w));
        }
        const QString described = config.describe();
        QVERIFY2(described.contains(u"http://collector:4318/base/v1/traces"_s),
                 qPrintable(described));
        QVERIFY2(!described.contains(u"s3cret"_s) && !described.contains(u"user"_s),
                 qPrintable(described));

        // A rejected endpoint with user info: the warning does not quote it either.
        const OtlpConfig bad = OtlpConfig::fromEnvironment(
            environment({u"OTEL_EXPORTER_OTLP_ENDPOINT=ftp://u:s3cret@collector/x"_s}));
        QVERIFY(!bad.anyEnabled());
        QCOMPARE(bad.warnings.size(), 1);
        QVERIFY2(!bad.warnings.first().contains(u"s3cret"_s), qPrintable(bad.warnings.first()));
    }

    void configResource_data()
    {
        QTest::addColumn<QStringList>("env");
        QTest::addColumn<QStringList>("resource");
        QTest::addColumn<bool>("warned");

        QTest::newRow("none") << QStringList()
                              << QStringList{u"service.name=fabric-broker"_s,
                                             u"service.version=1.2.3"_s}
                              << false;
        QTest::newRow("percent-decoded")
            << QStringList{u"OTEL_RESOURCE_ATTRIBUTES=deployment.environment=prod, "
                           "team=a%2Cb%3Dc%20d,my%20key=%C3%A9"_s}
            << QStringList{u"service.name=fabric-broker"_s, u"service.version=1.2.3"_s,
                           u"deployment.environment=prod"_s, u"team=a,b=c d"_s, u"my key=\u00e9"_s}
            << false;
        QTest::newRow("service name variable wins")
            << QStringList{u"OTEL_SERVICE_NAME=svc"_s,
                           u"OTEL_RESOURCE_ATTRIBUTES=x=1,service.name=other"_s}
            << QStringList{u"service.name=svc"_s, u"service.version=1.2.3"_s, u"x=1"_s} << false;
        QTest::newRow("service name from the attributes")
            << QStringList{u"OTEL_RESOURCE_ATTRIBUTES=x=1,service.name=from-attributes,"
                           "service.version=7"_s}
            << QStringList{u"service.name=from-attributes"_s, u"service.version=7"_s, u"x=1"_s}
            << false;
        QTest::newRow("malformed percent-encoding drops the variable")
            << QStringList{u"OTEL_SERVICE_NAME=svc"_s, u"OTEL_RESOURCE_ATTRIBUTES=good=1,bad=%zz"_s}
            << QStringList{u"service.name=svc"_s, u"service.version=1.2.3"_s} << true;
        QTest::newRow("entry without =")
            << QStringList{u"OTEL_RESOURCE_ATTRIBUTES=good=1,novalue"_s}
            << QStringList{u"service.name=fabric-broker"_s, u"service.version=1.2.3"_s} << true;
        QTest::newRow("not UTF-8")
            << QStringList{u"OTEL_RESOURCE_ATTRIBUTES=k=%ff"_s}
            << QStringList{u"service.name=fabric-broker"_s, u"service.version=1.2.3"_s} << true;
    }
    void configResource()
    {
        QFETCH(QStringList, env);
        QFETCH(QStringList, resource);
        QFETCH(bool, warned);
        env << u"OTEL_EXPORTER_OTLP_ENDPOINT=http://c:4318"_s;
        const OtlpConfig config = OtlpConfig::fromEnvironment(environment(env), {}, u"1.2.3"_s);
        QCOMPARE(keyValues(config.resource), resource);
        QCOMPARE(config.warnings.size(), warned ? 1 : 0);
        if (warned)
            QVERIFY(config.warnings.first().contains(u"OTEL_RESOURCE_ATTRIBUTES"_s));
    }

    // ---- the exporter against the loopback receiver ---------------------------------------

    void exportsSpansWithHeaders()
    {
        Receiver receiver;
        QVERIFY(receiver.listen());
        Tracer tracer;
        tracer.setEnabled(true);
        OtlpExporter exporter(
            fastConfig(receiver.base(), {u"OTEL_EXPORTER_OTLP_HEADERS=x-api-key=t0ken%21"_s,
                                         u"OTEL_SERVICE_NAME=broker-under-test"_s}),
            &tracer, nullptr);
        QSignalSpy changed(&exporter, &OtlpExporter::statsChanged);
        makeSpans(tracer, {u"initialize"_s, u"tools/list"_s, u"tools/call list_ports"_s});

        QTRY_COMPARE_WITH_TIMEOUT(receiver.requests.size(), 1, 5000);
        const ReceivedRequest &r = receiver.requests.first();
        QCOMPARE(r.method, QByteArray("POST"));
        QCOMPARE(r.path, QByteArray("/v1/traces"));
        QCOMPARE(r.headers.value("content-type"), QByteArray("application/json"));
        QCOMPARE(r.headers.value("x-api-key"), QByteArray("t0ken!"));
        QVERIFY(!r.headers.contains("content-encoding"));
        QCOMPARE(spanNames(r.body),
                 QStringList({u"initialize"_s, u"tools/list"_s, u"tools/call list_ports"_s}));
        const QJsonObject body = QJsonDocument::fromJson(r.body).object();
        const QJsonArray resource =
            body[u"resourceSpans"_s][0][u"resource"_s][u"attributes"_s].toArray();
        QCOMPARE(resource[0][u"value"_s][u"stringValue"_s].toString(), u"broker-under-test"_s);
        QCOMPARE(
            body[u"resourceSpans"_s][0][u"scopeSpans"_s][0][u"scope"_s][u"version"_s].toString(),
            u"9.9.9"_s);

        QTRY_COMPARE(exporter.stats().spansExported, quint64(3));
        QCOMPARE(exporter.stats().spansDropped, quint64(0));
        QVERIFY(exporter.stats().lastSuccessUnixMs > 0);
        QVERIFY(changed.count() > 0);
        QCOMPARE(tracer.queued(), 0);
    }

    void exportsMetrics()
    {
        Receiver receiver;
        QVERIFY(receiver.listen());
        MetricRegistry registry(u"fabric-broker"_s, u"9.9.9"_s);
        registry.counter(u"fabric_broker.creates"_s, u"Creates"_s, u"{create}"_s)
            ->add(5, Attributes::of({{u"fabric_broker.outcome"_s, u"created"_s}}));
        Tracer tracer;
        tracer.setEnabled(true);
        OtlpExporter exporter(
            fastConfig(receiver.base(), {u"OTEL_METRIC_EXPORT_INTERVAL=50"_s,
                                         u"OTEL_EXPORTER_OTLP_HEADERS=x-common=1"_s,
                                         u"OTEL_EXPORTER_OTLP_METRICS_HEADERS=x-metrics=2"_s}),
            &tracer, &registry);
        QTRY_VERIFY_WITH_TIMEOUT(!receiver.requests.isEmpty(), 5000);
        const ReceivedRequest &r = receiver.requests.first();
        QCOMPARE(r.method, QByteArray("POST"));
        QCOMPARE(r.path, QByteArray("/v1/metrics"));
        QCOMPARE(r.headers.value("content-type"), QByteArray("application/json"));
        QCOMPARE(r.headers.value("x-metrics"), QByteArray("2"));
        QVERIFY(!r.headers.contains("x-common")); // the signal's headers replace the common ones
        const QJsonObject body = QJsonDocument::fromJson(r.body).object();
        QVERIFY2(body.contains(u"resourceMetrics"_s), r.body.constData());
        QVERIFY2(r.body.contains("fabric_broker.creates"), r.body.constData());
        QTRY_VERIFY(exporter.stats().metricExports >= 1);
        QCOMPARE(exporter.stats().metricExportsFailed, quint64(0));

        // Spans go to their own path with the common headers.
        makeSpans(tracer, {u"ping"_s});
        QTRY_VERIFY_WITH_TIMEOUT(
            std::any_of(receiver.requests.cbegin(), receiver.requests.cend(),
                        [](const ReceivedRequest &q) { return q.path == "/v1/traces"; }),
            5000);
        for (const ReceivedRequest &q : std::as_const(receiver.requests)) {
            if (q.path == "/v1/traces")
                QCOMPARE(q.headers.value("x-common"), QByteArray("1"));
        }
    }

    void retriedAfter503AndDeliveredOnce()
    {
        Receiver receiver;
        QVERIFY(receiver.listen());
        receiver.script = {{503, {}, "{}"}};
        Tracer tracer;
        tracer.setEnabled(true);
        OtlpExporter exporter(fastConfig(receiver.base()), &tracer, nullptr);
        makeSpans(tracer, {u"a"_s, u"b"_s});
        QTRY_COMPARE_WITH_TIMEOUT(receiver.requests.size(), 2, 5000);
        QCOMPARE(receiver.requests[0].body, receiver.requests[1].body);
        // Backoff: at least half of one second.
        QVERIFY(receiver.requests[1].atMs - receiver.requests[0].atMs >= 450);
        QTRY_COMPARE(exporter.stats().spansExported, quint64(2));
        QCOMPARE(exporter.stats().spansDropped, quint64(0));
        QTest::qWait(300); // nothing more is sent
        QCOMPARE(receiver.requests.size(), 2);
    }

    void droppedOn400NotRetried()
    {
        Receiver receiver;
        QVERIFY(receiver.listen());
        receiver.script = {{400, {}, "{\"message\":\"bad\"}"}};
        Tracer tracer;
        tracer.setEnabled(true);
        OtlpExporter exporter(fastConfig(receiver.base()), &tracer, nullptr);
        makeSpans(tracer, {u"a"_s, u"b"_s, u"c"_s});
        QTRY_COMPARE_WITH_TIMEOUT(exporter.stats().spansDropped, quint64(3), 5000);
        QCOMPARE(exporter.stats().spansExported, quint64(0));
        QVERIFY2(exporter.stats().lastError.contains(u"400"_s),
                 qPrintable(exporter.stats().lastError));
        QTest::qWait(1200); // longer than a retry's backoff
        QCOMPARE(receiver.requests.size(), 1);
        // Later spans still go out.
        makeSpans(tracer, {u"d"_s});
        QTRY_COMPARE_WITH_TIMEOUT(exporter.stats().spansExported, quint64(1), 5000);
    }

    void retryAfterHonoured()
    {
        Receiver receiver;
        QVERIFY(receiver.listen());
        receiver.script = {{429, {{"Retry-After", "2"}}, "{}"}};
        Tracer tracer;
        tracer.setEnabled(true);
        OtlpExporter exporter(fastConfig(receiver.base()), &tracer, nullptr);
        makeSpans(tracer, {u"a"_s});
        QTRY_COMPARE_WITH_TIMEOUT(receiver.requests.size(), 2, 8000);
        const qint64 gap = receiver.requests[1].atMs - receiver.requests[0].atMs;
        // Longer than any backoff of a first retry (at most 1 s): the header's 2 s.
        QVERIFY2(gap >= 1900, qPrintable(QString::number(gap)));
        QTRY_COMPARE(exporter.stats().spansExported, quint64(1));
    }

    void retryAfterBeyondTheDeadlineDrops()
    {
        Receiver receiver;
        QVERIFY(receiver.listen());
        receiver.script = {{503, {{"Retry-After", "20"}}, "{}"}};
        Tracer tracer;
        tracer.setEnabled(true);
        OtlpExporter exporter(fastConfig(receiver.base(), {u"OTEL_BSP_EXPORT_TIMEOUT=2000"_s}),
                              &tracer, nullptr);
        makeSpans(tracer, {u"a"_s, u"b"_s});
        QElapsedTimer clock;
        clock.start();
        QTRY_COMPARE_WITH_TIMEOUT(exporter.stats().spansDropped, quint64(2), 5000);
        QVERIFY(clock.elapsed() < 2000); // given up at once, not after waiting
        QCOMPARE(receiver.requests.size(), 1);
        QVERIFY(exporter.stats().lastError.contains(u"503"_s));
    }

    void collectorDownIsACountedDrop()
    {
        quint16 port = 0;
        {
            QTcpServer probe;
            QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
            port = probe.serverPort();
        } // closed: connections are refused
        MetricRegistry registry;
        registry.counter(u"x"_s, u"x"_s, u"1"_s)->add();
        Tracer tracer;
        tracer.setEnabled(true);
        OtlpExporter exporter(
            fastConfig(u"http://127.0.0.1:%1"_s.arg(port),
                       {u"OTEL_BSP_EXPORT_TIMEOUT=1500"_s, u"OTEL_METRIC_EXPORT_TIMEOUT=1500"_s,
                        u"OTEL_EXPORTER_OTLP_TIMEOUT=500"_s, u"OTEL_METRIC_EXPORT_INTERVAL=100"_s}),
            &tracer, &registry);
        int ticks = 0;
        QTimer ticker;
        connect(&ticker, &QTimer::timeout, this, [&ticks] { ++ticks; });
        ticker.start(10);
        makeSpans(tracer, {u"a"_s, u"b"_s});
        QTRY_COMPARE_WITH_TIMEOUT(exporter.stats().spansDropped, quint64(2), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(exporter.stats().metricExportsFailed >= 1, 10000);
        QCOMPARE(exporter.stats().spansExported, quint64(0));
        QCOMPARE(exporter.stats().metricExports, quint64(0));
        QVERIFY2(exporter.stats().lastError.contains(u"ConnectionRefused"_s),
                 qPrintable(exporter.stats().lastError));
        // The event loop kept running all along (an export retried on timers, never waited).
        QVERIFY2(ticks > 20, qPrintable(QString::number(ticks)));
        // Spans made while the collector is down are dropped too, not piled up.
        makeSpans(tracer, {u"c"_s});
        QTRY_COMPARE_WITH_TIMEOUT(exporter.stats().spansDropped, quint64(3), 10000);
        QCOMPARE(tracer.queued(), 0);
    }

    void tracerQueueOverflowCounted()
    {
        Receiver receiver;
        QVERIFY(receiver.listen());
        Tracer tracer;
        tracer.setEnabled(true);
        OtlpExporter exporter(fastConfig(receiver.base(), {u"OTEL_BSP_MAX_QUEUE_SIZE=2"_s,
                                                           u"OTEL_BSP_SCHEDULE_DELAY=60000"_s}),
                              &tracer, nullptr);
        QCOMPARE(tracer.maxQueueSize(), 2);
        makeSpans(tracer, {u"a"_s, u"b"_s, u"c"_s, u"d"_s, u"e"_s});
        QCOMPARE(tracer.dropped(), quint64(3));
        exporter.flush();
        QTRY_COMPARE_WITH_TIMEOUT(exporter.stats().spansExported, quint64(2), 5000);
        QCOMPARE(exporter.stats().spansDropped, quint64(3));
        QCOMPARE(spanNames(receiver.requests.first().body), QStringList({u"a"_s, u"b"_s}));
    }

    void batchesBySize()
    {
        Receiver receiver;
        QVERIFY(receiver.listen());
        Tracer tracer;
        tracer.setEnabled(true);
        OtlpExporter exporter(fastConfig(receiver.base(), {u"OTEL_BSP_SCHEDULE_DELAY=60000"_s,
                                                           u"OTEL_BSP_MAX_EXPORT_BATCH_SIZE=3"_s}),
                              &tracer, nullptr);
        makeSpans(tracer, {u"1"_s, u"2"_s});
        QTest::qWait(200); // below the batch size and long before the schedule: nothing
        QCOMPARE(receiver.requests.size(), 0);
        makeSpans(tracer, {u"3"_s});
        QTRY_COMPARE_WITH_TIMEOUT(receiver.requests.size(), 1, 5000);
        QCOMPARE(spanNames(receiver.requests[0].body), QStringList({u"1"_s, u"2"_s, u"3"_s}));
        makeSpans(tracer, {u"4"_s, u"5"_s});
        QTest::qWait(200);
        QCOMPARE(receiver.requests.size(), 1);
        exporter.flush();
        QTRY_COMPARE_WITH_TIMEOUT(receiver.requests.size(), 2, 5000);
        QCOMPARE(spanNames(receiver.requests[1].body), QStringList({u"4"_s, u"5"_s}));

        // flush() with more than a batch queued sends them all, a batch at a time.
        makeSpans(tracer, {u"6"_s, u"7"_s, u"8"_s, u"9"_s, u"10"_s, u"11"_s, u"12"_s});
        exporter.flush();
        QTRY_COMPARE_WITH_TIMEOUT(exporter.stats().spansExported, quint64(12), 5000);
        QStringList all;
        for (const ReceivedRequest &r : std::as_const(receiver.requests)) {
            const QStringList names = spanNames(r.body);
            QVERIFY(names.size() <= 3);
            all += names;
        }
        QCOMPARE(all.size(), 12);
        QCOMPARE(all.last(), u"12"_s);
    }

    void oneRequestInFlightPerSignal()
    {
        Receiver receiver;
        QVERIFY(receiver.listen());
        receiver.hold = true;
        Tracer tracer;
        tracer.setEnabled(true);
        OtlpExporter exporter(fastConfig(receiver.base(), {u"OTEL_BSP_MAX_EXPORT_BATCH_SIZE=1"_s}),
                              &tracer, nullptr);
        makeSpans(tracer, {u"a"_s, u"b"_s, u"c"_s});
        QTRY_COMPARE_WITH_TIMEOUT(receiver.requests.size(), 1, 5000);
        QTest::qWait(300); // six schedule ticks and a batchReady: still one request
        QCOMPARE(receiver.requests.size(), 1);
        receiver.hold = false;
        receiver.release();
        QTRY_COMPARE_WITH_TIMEOUT(exporter.stats().spansExported, quint64(3), 5000);
        QCOMPARE(receiver.requests.size(), 3);
    }

    void bodyBoundSplitsABatch()
    {
        Receiver receiver;
        QVERIFY(receiver.listen());
        Tracer tracer;
        tracer.setEnabled(true);
        OtlpExporter exporter(fastConfig(receiver.base(), {u"OTEL_BSP_SCHEDULE_DELAY=60000"_s}),
                              &tracer, nullptr);
        // About 0.5 MB each: 12 of them are more than one body may hold.
        const QString big(Span::MaxStringLength, u'x');
        for (int i = 0; i < 12; ++i) {
            Span span = tracer.startSpan(u"big %1"_s.arg(i), SpanKind::Internal);
            for (int k = 0; k < Span::MaxAttributes; ++k)
                span.setAttribute(u"k%1"_s.arg(k), big);
        }
        exporter.flush();
        QTRY_COMPARE_WITH_TIMEOUT(exporter.stats().spansExported, quint64(12), 10000);
        QVERIFY(receiver.requests.size() >= 2);
        QStringList all;
        for (const ReceivedRequest &r : std::as_const(receiver.requests)) {
            QVERIFY2(r.body.size() <= OtlpExporter::MaxBodyBytes,
                     qPrintable(QString::number(r.body.size())));
            all += spanNames(r.body);
        }
        QStringList expected;
        for (int i = 0; i < 12; ++i)
            expected << u"big %1"_s.arg(i);
        QCOMPARE(all, expected); // each once, in order
        QCOMPARE(exporter.stats().spansDropped, quint64(0));
    }

    void gzipBody()
    {
        Receiver receiver;
        QVERIFY(receiver.listen());
        Tracer tracer;
        tracer.setEnabled(true);
        OtlpExporter exporter(
            fastConfig(receiver.base(), {u"OTEL_EXPORTER_OTLP_COMPRESSION=gzip"_s}), &tracer,
            nullptr);
        QStringList names;
        for (int i = 0; i < 50; ++i)
            names << u"tools/call list_ports %1"_s.arg(i);
        makeSpans(tracer, names);
        QTRY_COMPARE_WITH_TIMEOUT(receiver.requests.size(), 1, 5000);
        const ReceivedRequest r = receiver.requests.first();
        QCOMPARE(r.headers.value("content-encoding"), QByteArray("gzip"));
        QVERIFY(r.body.startsWith("\x1f\x8b\x08"));
        // Qt's own gzip decoder (zlib inflate, which checks the CRC-32 and the length) reads it.
        QNetworkAccessManager client;
        QNetworkReply *echo = client.get(QNetworkRequest(QUrl(receiver.base() + u"/echo"_s)));
        QTRY_VERIFY_WITH_TIMEOUT(echo->isFinished(), 5000);
        QCOMPARE(echo->error(), QNetworkReply::NoError);
        const QByteArray json = echo->readAll();
        echo->deleteLater();
        QVERIFY(json.size() > r.body.size());
        QCOMPARE(spanNames(json), names);
        QTRY_COMPARE(exporter.stats().spansExported, quint64(50));
    }

    void partialSuccessIsNotRetried()
    {
        Receiver receiver;
        QVERIFY(receiver.listen());
        receiver.script = {
            {200, {}, "{\"partialSuccess\":{\"rejectedSpans\":\"1\",\"errorMessage\":\"x\"}}"}};
        Tracer tracer;
        tracer.setEnabled(true);
        OtlpExporter exporter(fastConfig(receiver.base()), &tracer, nullptr);
        makeSpans(tracer, {u"a"_s, u"b"_s, u"c"_s});
        QTRY_COMPARE_WITH_TIMEOUT(exporter.stats().spansExported, quint64(2), 5000);
        QCOMPARE(exporter.stats().spansDropped, quint64(1));
        QTest::qWait(200);
        QCOMPARE(receiver.requests.size(), 1);
    }

    void destroyedWithARequestInFlight()
    {
        Receiver receiver;
        QVERIFY(receiver.listen());
        receiver.hold = true;
        Tracer tracer;
        tracer.setEnabled(true);
        auto *exporter = new OtlpExporter(fastConfig(receiver.base()), &tracer, nullptr);
        makeSpans(tracer, {u"a"_s});
        QTRY_COMPARE_WITH_TIMEOUT(receiver.requests.size(), 1, 5000);
        delete exporter;
        receiver.hold = false;
        receiver.release();
        QTest::qWait(100); // the late answer reaches nobody
        // And the tracer may go first: the exporter then exports nothing.
        auto *tracer2 = new Tracer;
        tracer2->setEnabled(true);
        OtlpExporter orphan(fastConfig(receiver.base()), tracer2, nullptr);
        delete tracer2;
        orphan.flush();
        QTest::qWait(100);
        QCOMPARE(receiver.requests.size(), 1);
    }

    void offExportsNothing()
    {
        Receiver receiver;
        QVERIFY(receiver.listen());
        Tracer tracer;
        tracer.setEnabled(true);
        const OtlpConfig config = OtlpConfig::fromEnvironment(environment({}));
        QVERIFY(!config.anyEnabled());
        OtlpExporter exporter(config, &tracer, nullptr);
        makeSpans(tracer, {u"a"_s});
        exporter.flush();
        QTest::qWait(100);
        QCOMPARE(receiver.requests.size(), 0);
        QCOMPARE(exporter.stats().spansExported, quint64(0));
    }
};

QTEST_GUILESS_MAIN(TestOtlpExporter)
#include "tst_otlpexporter.moc"
