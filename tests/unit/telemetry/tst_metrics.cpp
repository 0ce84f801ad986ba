// Metrics (src/telemetry): the metric store's buckets, and its two writers checked line by line
// against the Prometheus text format 0.0.4 and OTLP/HTTP JSON as the OpenTelemetry specification
// maps them (names, units, escaping, cumulative buckets, decimal-string integers).
#include "TestEnvironment.h"
#include "telemetry/Metrics.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QtTest>
#include <chrono>
#include <cmath>

using namespace Qt::StringLiterals;
using fb::telemetry::Attributes;
using fb::telemetry::GaugePoint;
using fb::telemetry::MetricRegistry;

namespace {

// The expected texts live outside the test class (moc reads the class).
const char kHistogramText[] =
    "# HELP target_info Target metadata\n"
    "# TYPE target_info gauge\n"
    "target_info{service_name=\"fabric-broker\",service_version=\"1.2.3\"} 1\n"
    "# HELP mcp_server_operation_duration_seconds MCP request duration\n"
    "# TYPE mcp_server_operation_duration_seconds histogram\n"
    "mcp_server_operation_duration_seconds_bucket{mcp_method_name=\"initialize\",le=\"0.5\"} 0\n"
    "mcp_server_operation_duration_seconds_bucket{mcp_method_name=\"initialize\",le=\"1\"} 1\n"
    "mcp_server_operation_duration_seconds_bucket{mcp_method_name=\"initialize\",le=\"120\"} 1\n"
    "mcp_server_operation_duration_seconds_bucket{mcp_method_name=\"initialize\",le=\"+Inf\"} 1\n"
    "mcp_server_operation_duration_seconds_sum{mcp_method_name=\"initialize\"} 1\n"
    "mcp_server_operation_duration_seconds_count{mcp_method_name=\"initialize\"} 1\n"
    "mcp_server_operation_duration_seconds_bucket{mcp_method_name=\"tools/call\",le=\"0.5\"} 2\n"
    "mcp_server_operation_duration_seconds_bucket{mcp_method_name=\"tools/call\",le=\"1\"} 3\n"
    "mcp_server_operation_duration_seconds_bucket{mcp_method_name=\"tools/call\",le=\"120\"} 3\n"
    "mcp_server_operation_duration_seconds_bucket{mcp_method_name=\"tools/call\",le=\"+Inf\"} 4\n"
    "mcp_server_operation_duration_seconds_sum{mcp_method_name=\"tools/call\"} 201.5\n"
    "mcp_server_operation_duration_seconds_count{mcp_method_name=\"tools/call\"} 4\n"
    "# HELP fabric_upstream_size_bytes Response size\n"
    "# TYPE fabric_upstream_size_bytes histogram\n"
    "fabric_upstream_size_bytes_bucket{le=\"1024\"} 1\n"
    "fabric_upstream_size_bytes_bucket{le=\"+Inf\"} 1\n"
    "fabric_upstream_size_bytes_sum 100\n"
    "fabric_upstream_size_bytes_count 1\n";

const char kCounterText[] = "# HELP fabric_proposals_total Proposals made\n"
                            "# TYPE fabric_proposals_total counter\n"
                            "fabric_proposals_total{outcome=\"approved\"} 3\n"
                            "fabric_proposals_total{outcome=\"pending\"} 0\n"
                            "fabric_proposals_total{outcome=\"refused\"} 9007199254740993\n"
                            "# TYPE requests_total counter\n"
                            "requests_total 1\n"
                            "# HELP cpu_time_seconds_total CPU time\n"
                            "# TYPE cpu_time_seconds_total counter\n"
                            "cpu_time_seconds_total 2\n";

// A description with a newline, a backslash and quotes; a label value with all three.
const char kEscapedHelp[] = "# HELP fabric_escapes_total Line one\\nback\\\\slash \"quoted\"\n";
const char kEscapedSample[] =
    "fabric_escapes_total{client=\"C:\\\\dir \\\"x\\\"\\nPrice: USD 0.00\"} 1\n";

const char kGaugeText[] = "# HELP fabric_queue_depth Queued proposals\n"
                          "# TYPE fabric_queue_depth gauge\n"
                          "fabric_queue_depth{channel=\"desktop\"} 3\n"
                          "fabric_queue_depth{channel=\"team\"} 0.25\n";

// OTLP JSON with ' for " (replaced before parsing); START and NOW are the two timestamps.
const char kOtlpJson[] =
    "{'resourceMetrics':[{"
    " 'resource':{'attributes':["
    "  {'key':'host.name','value':{'stringValue':'box'}},"
    "  {'key':'service.name','value':{'stringValue':'fabric-broker'}},"
    "  {'key':'service.version','value':{'stringValue':'1.2.3'}}]},"
    " 'scopeMetrics':[{'scope':{'name':'fabric-broker','version':'1.2.3'},'metrics':["
    "  {'name':'mcp.server.operation.duration','description':'MCP request duration','unit':'s',"
    "   'histogram':{'aggregationTemporality':2,'dataPoints':[{"
    "    'attributes':[{'key':'mcp.method.name','value':{'stringValue':'ping'}}],"
    "    'startTimeUnixNano':'START','timeUnixNano':'NOW','count':'3','sum':3.75,"
    "    'bucketCounts':['2','0','1'],'explicitBounds':[0.5,1],'min':0.25,'max':3}]}},"
    "  {'name':'fabric.proposals','description':'Proposals','unit':'{proposal}',"
    "   'sum':{'aggregationTemporality':2,'isMonotonic':true,'dataPoints':["
    "    {'attributes':[{'key':'outcome','value':{'stringValue':'approved'}}],"
    "     'startTimeUnixNano':'START','timeUnixNano':'NOW','asInt':'2'},"
    "    {'attributes':[{'key':'outcome','value':{'stringValue':'refused'}}],"
    "     'startTimeUnixNano':'START','timeUnixNano':'NOW','asInt':'9007199254740993'}]}},"
    "  {'name':'fabric.queue.depth','description':'Queued','unit':'{proposal}',"
    "   'gauge':{'dataPoints':[{'attributes':[],'timeUnixNano':'NOW','asDouble':3}]}}"
    "]}]}]}";

const char kTargetInfoOnly[] =
    "# HELP target_info Target metadata\n"
    "# TYPE target_info gauge\n"
    "target_info{service_name=\"fabric-broker\",service_version=\"1.2.3\"} 1\n";

constexpr quint64 TwoTo53PlusOne = (quint64(1) << 53) + 1; // not a double: must stay exact

QByteArray withTargetInfo(const char *rest)
{
    return QByteArray(kTargetInfoOnly) + rest;
}

qint64 nowNano()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

QByteArrayList linesOf(const QByteArray &text)
{
    QByteArrayList lines = text.split('\n');
    if (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    return lines;
}

// The single histogram metric's one data point in an OTLP export.
QJsonObject firstDataPoint(const QJsonObject &otlp, const QString &kind)
{
    const QJsonArray metrics =
        otlp[u"resourceMetrics"_s][0][u"scopeMetrics"_s][0][u"metrics"_s].toArray();
    return metrics.at(0)[kind][u"dataPoints"_s][0].toObject();
}

QJsonArray metricsOf(const QJsonObject &otlp)
{
    return otlp[u"resourceMetrics"_s][0][u"scopeMetrics"_s][0][u"metrics"_s].toArray();
}

QList<qint64> decimalStrings(const QJsonArray &values, bool *allStrings)
{
    QList<qint64> out;
    *allStrings = true;
    for (const QJsonValue &v : values) {
        *allStrings = *allStrings && v.isString();
        out.append(v.toString().toLongLong());
    }
    return out;
}

} // namespace

class TestMetrics : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    // Bucket i = (bounds[i-1], bounds[i]]; the last one above the last bound.
    void bucketBoundaries_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<int>("bucket");
        QTest::newRow("below the first bound") << 0.5 << 0;
        QTest::newRow("negative") << -3.0 << 0;
        QTest::newRow("-Inf") << -qInf() << 0;
        QTest::newRow("equal to the first bound") << 1.0 << 0;
        QTest::newRow("just above the first bound") << std::nextafter(1.0, 2.0) << 1;
        QTest::newRow("equal to the second bound") << 2.0 << 1;
        QTest::newRow("between") << 3.0 << 2;
        QTest::newRow("equal to the last bound") << 5.0 << 2;
        QTest::newRow("above the last bound") << 5.5 << 3;
        QTest::newRow("+Inf") << qInf() << 3;
    }
    void bucketBoundaries()
    {
        QFETCH(double, value);
        QFETCH(int, bucket);
        MetricRegistry registry;
        registry.histogram(u"h"_s, u"H"_s, u"s"_s, {1, 2, 5})->record(value);
        const QJsonObject point = firstDataPoint(registry.otlpJson(1), u"histogram"_s);
        QJsonArray expected{u"0"_s, u"0"_s, u"0"_s, u"0"_s};
        expected[bucket] = u"1"_s;
        QCOMPARE(point[u"bucketCounts"_s].toArray(), expected);
        QCOMPARE(point[u"count"_s].toString(), u"1"_s);
    }

    // NaN is ignored: no point is made, and an existing point is unchanged.
    void nanIsIgnored()
    {
        MetricRegistry registry(u"fabric-broker"_s, u"1.2.3"_s);
        auto *h = registry.histogram(u"h"_s, u"H"_s, u"s"_s, {1});
        h->record(qQNaN());
        QCOMPARE(registry.prometheusText(), QByteArray(kTargetInfoOnly));
        QVERIFY(metricsOf(registry.otlpJson(1)).isEmpty());
        h->record(0.5);
        h->record(qQNaN());
        const QJsonObject point = firstDataPoint(registry.otlpJson(1), u"histogram"_s);
        QCOMPARE(point[u"count"_s].toString(), u"1"_s);
        QCOMPARE(point[u"sum"_s].toDouble(), 0.5);
        QCOMPARE(point[u"bucketCounts"_s].toArray(), (QJsonArray{u"1"_s, u"0"_s}));
    }

    // Infinite values are counted; OTLP JSON writes non-finite doubles as proto3 JSON strings.
    void infiniteValues()
    {
        MetricRegistry registry;
        auto *h = registry.histogram(u"h"_s, u"H"_s, u"s"_s, {1});
        h->record(qInf());
        h->record(-qInf());
        const QJsonObject point = firstDataPoint(registry.otlpJson(1), u"histogram"_s);
        QCOMPARE(point[u"sum"_s].toString(), u"NaN"_s); // +Inf + -Inf
        QCOMPARE(point[u"min"_s].toString(), u"-Infinity"_s);
        QCOMPARE(point[u"max"_s].toString(), u"Infinity"_s);
        QVERIFY(registry.prometheusText().contains("\nh_seconds_sum NaN\n"));
    }

    // Many values against a brute-force count of each interval (lo, hi].
    void bucketsAgainstBruteForce()
    {
        MetricRegistry registry;
        const QList<double> bounds = fb::telemetry::mcpDurationBuckets();
        auto *h = registry.histogram(u"mcp.server.operation.duration"_s, u"D"_s, u"s"_s, bounds);
        QList<double> values;
        for (int i = 0; i < 400; ++i)
            values.append(i * 0.837 - 3); // some negative, some above 300
        values << 0.01 << 0.02 << 1 << 300 << 120;
        double sum = 0;
        for (double v : std::as_const(values)) {
            h->record(v);
            sum += v;
        }
        const QJsonObject point = firstDataPoint(registry.otlpJson(1), u"histogram"_s);
        bool allStrings = false;
        const QList<qint64> counts =
            decimalStrings(point[u"bucketCounts"_s].toArray(), &allStrings);
        QVERIFY(allStrings);
        QCOMPARE(counts.size(), bounds.size() + 1);
        qint64 total = 0;
        for (qsizetype b = 0; b < counts.size(); ++b) {
            const double lo = b == 0 ? -qInf() : bounds.at(b - 1);
            const double hi = b == bounds.size() ? qInf() : bounds.at(b);
            const auto expected = std::count_if(values.cbegin(), values.cend(),
                                                [&](double v) { return v > lo && v <= hi; });
            QCOMPARE(counts.at(b), qint64(expected));
            total += counts.at(b);
        }
        QCOMPARE(total, qint64(values.size()));
        QCOMPARE(point[u"count"_s].toString(), QString::number(values.size()));
        QCOMPARE(point[u"sum"_s].toDouble(), sum);
        QCOMPARE(point[u"min"_s].toDouble(), -3.0);
        QCOMPARE(point[u"max"_s].toDouble(), 399 * 0.837 - 3);

        // The Prometheus buckets of the same data: cumulative, increasing le, +Inf == _count.
        const QByteArrayList lines = linesOf(registry.prometheusText());
        qint64 previous = 0;
        qint64 running = 0;
        int bucketLines = 0;
        static const QRegularExpression bucketLine(
            u"^mcp_server_operation_duration_seconds_bucket\\{le=\"([^\"]+)\"\\} (\\d+)$"_s);
        for (const QByteArray &line : lines) {
            const auto m = bucketLine.match(QString::fromUtf8(line));
            if (!m.hasMatch())
                continue;
            const qint64 cumulative = m.captured(2).toLongLong();
            running += counts.at(bucketLines);
            QCOMPARE(cumulative, running);
            QVERIFY(cumulative >= previous);
            previous = cumulative;
            ++bucketLines;
        }
        QCOMPARE(bucketLines, int(bounds.size()) + 1);
        const QByteArray n = QByteArray::number(values.size());
        QVERIFY(lines.contains(
            QByteArray("mcp_server_operation_duration_seconds_bucket{le=\"+Inf\"} " + n)));
        QVERIFY(lines.contains(QByteArray("mcp_server_operation_duration_seconds_count " + n)));
    }

    // The MCP semantic conventions' buckets, and le written shortest ("1", "0.01", "120").
    void mcpDurationBucketsAndLe()
    {
        const QList<double> expected{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1,
                                     2,    5,    10,   30,  60,  120, 300};
        QCOMPARE(fb::telemetry::mcpDurationBuckets(), expected);
        MetricRegistry registry;
        registry
            .histogram(u"mcp.server.session.duration"_s, u"S"_s, u"s"_s,
                       fb::telemetry::mcpDurationBuckets())
            ->record(0.2);
        QStringList les;
        static const QRegularExpression le(u"le=\"([^\"]*)\""_s);
        for (const QByteArray &line : linesOf(registry.prometheusText())) {
            const auto m = le.match(QString::fromUtf8(line));
            if (m.hasMatch())
                les << m.captured(1);
        }
        QCOMPARE(les, (QStringList{"0.01", "0.02", "0.05", "0.1", "0.2", "0.5", "1", "2", "5", "10",
                                   "30", "60", "120", "300", "+Inf"}));
    }

    // Cumulative buckets, _sum and _count per point, in attribute order, exactly.
    void prometheusHistogram()
    {
        MetricRegistry registry(u"fabric-broker"_s, u"1.2.3"_s);
        auto *h = registry.histogram(u"mcp.server.operation.duration"_s, u"MCP request duration"_s,
                                     u"s"_s, {0.5, 1, 120});
        const auto call = Attributes::of({{u"mcp.method.name"_s, u"tools/call"_s}});
        h->record(0.25, call);
        h->record(0.5, call);
        h->record(0.75, call);
        h->record(200, call);
        h->record(1, Attributes::of({{u"mcp.method.name"_s, u"initialize"_s}}));
        registry.histogram(u"fabric.upstream.size"_s, u"Response size"_s, u"By"_s, {1024})
            ->record(100);
        QCOMPARE(registry.prometheusText(), QByteArray(kHistogramText));
    }

    void prometheusNames_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("unit");
        QTest::addColumn<QString>("expected");
        QTest::newRow("s") << "mcp.server.operation.duration"
                           << "s"
                           << "mcp_server_operation_duration_seconds";
        QTest::newRow("ms") << "http.client.duration"
                            << "ms"
                            << "http_client_duration_milliseconds";
        QTest::newRow("By") << "fabric.response.size"
                            << "By"
                            << "fabric_response_size_bytes";
        QTest::newRow("KiBy") << "system.memory.usage"
                              << "KiBy"
                              << "system_memory_usage_kibibytes";
        QTest::newRow("Cel") << "room.temperature"
                             << "Cel"
                             << "room_temperature_celsius";
        QTest::newRow("1") << "fabric.ratio"
                           << "1"
                           << "fabric_ratio";
        QTest::newRow("annotation") << "fabric.proposals"
                                    << "{proposal}"
                                    << "fabric_proposals";
        QTest::newRow("two annotations") << "x"
                                         << "{a}{b}"
                                         << "x";
        QTest::newRow("no unit") << "no.unit"
                                 << ""
                                 << "no_unit";
        QTest::newRow("already there") << "request_seconds"
                                       << "s"
                                       << "request_seconds";
        QTest::newRow("already there after mapping") << "request.seconds"
                                                     << "s"
                                                     << "request_seconds";
        QTest::newRow("not a whole word") << "fooseconds"
                                          << "s"
                                          << "fooseconds_seconds";
        QTest::newRow("per second") << "network.io"
                                    << "By/s"
                                    << "network_io_bytes_per_second";
        QTest::newRow("annotation per second") << "packets"
                                               << "{packet}/s"
                                               << "packets_per_second";
        QTest::newRow("1 per hour") << "requests"
                                    << "1/h"
                                    << "requests_per_hour";
        QTest::newRow("meters per second") << "odd.speed"
                                           << "m/s"
                                           << "odd_speed_meters_per_second";
        QTest::newRow("unknown unit") << "custom"
                                      << "widgets"
                                      << "custom_widgets";
        QTest::newRow("repeated separators") << "weird..name--x"
                                             << ""
                                             << "weird_name_x";
        QTest::newRow("leading underscores") << "__leading"
                                             << ""
                                             << "_leading";
        QTest::newRow("leading digit") << "9lives"
                                       << "s"
                                       << "_9lives_seconds";
        QTest::newRow("colon kept") << "colon:ok"
                                    << ""
                                    << "colon:ok";
        QTest::newRow("non-ASCII") << QString::fromUtf8("caf\xc3\xa9.latency") << "s"
                                   << "caf_latency_seconds";
    }
    void prometheusNames()
    {
        QFETCH(QString, name);
        QFETCH(QString, unit);
        QFETCH(QString, expected);
        QCOMPARE(fb::telemetry::prometheusMetricName(name, unit), expected);
    }

    void prometheusLabelNames_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("expected");
        QTest::newRow("dots") << "mcp.method.name"
                              << "mcp_method_name";
        QTest::newRow("underscore kept") << "gen_ai.tool.name"
                                         << "gen_ai_tool_name";
        QTest::newRow("colon") << "a:b"
                               << "a_b";
        QTest::newRow("leading digit") << "1st"
                                       << "_1st";
        QTest::newRow("reserved prefix collapsed") << "__reserved"
                                                   << "_reserved";
        QTest::newRow("repeated") << "a..b"
                                  << "a_b";
        QTest::newRow("empty") << ""
                               << "_";
    }
    void prometheusLabelNames()
    {
        QFETCH(QString, key);
        QFETCH(QString, expected);
        QCOMPARE(fb::telemetry::prometheusLabelName(key), expected);
    }

    // Counters get _total (once), after the unit; values are exact integers.
    void counterTotal()
    {
        MetricRegistry registry(u"fabric-broker"_s, u"1.2.3"_s);
        auto *proposals =
            registry.counter(u"fabric.proposals"_s, u"Proposals made"_s, u"{proposal}"_s);
        const auto approved = Attributes::of({{u"outcome"_s, u"approved"_s}});
        proposals->add(1, approved);
        proposals->add(2, approved);
        proposals->add(TwoTo53PlusOne, Attributes::of({{u"outcome"_s, u"refused"_s}}));
        proposals->add(0, Attributes::of({{u"outcome"_s, u"pending"_s}}));
        registry.counter(u"requests_total"_s, {}, u"1"_s)->add();
        registry.counter(u"cpu.time"_s, u"CPU time"_s, u"s"_s)->add(2);
        QCOMPARE(registry.prometheusText(), withTargetInfo(kCounterText));
    }

    // HELP escapes \ and LF; label values escape \, " and LF; no line starts with injected text.
    void escaping()
    {
        MetricRegistry registry(u"fabric-broker"_s, u"1.2.3"_s);
        registry.counter(u"fabric.escapes"_s, u"Line one\nback\\slash \"quoted\""_s, u"{escape}"_s)
            ->add(1, Attributes::of({{u"client"_s, u"C:\\dir \"x\"\nPrice: USD 0.00"_s}}));
        const QByteArray text = registry.prometheusText();
        const QByteArrayList lines = linesOf(text);
        QCOMPARE(lines.size(), 6);
        QCOMPARE(QByteArray(lines.at(3) + '\n'), QByteArray(kEscapedHelp));
        QCOMPARE(lines.at(4), "# TYPE fabric_escapes_total counter"_ba);
        QCOMPARE(QByteArray(lines.at(5) + '\n'), QByteArray(kEscapedSample));
        QVERIFY(text.endsWith('\n'));
        for (const QByteArray &line : lines)
            QVERIFY2(line.startsWith('#') || line.startsWith("target_info") ||
                         line.startsWith("fabric_escapes_total"),
                     line.constData());
    }

    // Keys that map to the same label name give one label, values joined in key order.
    void collidingLabelNames()
    {
        MetricRegistry registry;
        registry.counter(u"c"_s, {}, {})
            ->add(1, Attributes::of({{u"a_b"_s, u"second"_s}, {u"a.b"_s, u"first"_s}}));
        QVERIFY(linesOf(registry.prometheusText()).contains("c_total{a_b=\"first;second\"} 1"));
    }

    // Callbacks run at each collection; NaN points are skipped; a second registration
    // replaces the callback but keeps the first description and unit.
    void gaugeCallback()
    {
        MetricRegistry registry(u"fabric-broker"_s, u"1.2.3"_s);
        int calls = 0;
        double depth = 3;
        registry.gauge(u"fabric.queue.depth"_s, u"Queued proposals"_s, u"{proposal}"_s, [&] {
            ++calls;
            return QList<GaugePoint>{
                {Attributes::of({{u"channel"_s, u"team"_s}}), 0.25},
                {Attributes::of({{u"channel"_s, u"broken"_s}}), qQNaN()},
                {Attributes::of({{u"channel"_s, u"desktop"_s}}), depth},
            };
        });
        QCOMPARE(calls, 0);
        QCOMPARE(registry.prometheusText(), withTargetInfo(kGaugeText));
        QCOMPARE(calls, 1);
        depth = 7;
        QVERIFY(linesOf(registry.prometheusText())
                    .contains("fabric_queue_depth{channel=\"desktop\"} 7"));
        QCOMPARE(calls, 2);
        const QJsonArray points =
            metricsOf(registry.otlpJson(2))[0][u"gauge"_s][u"dataPoints"_s].toArray();
        QCOMPARE(calls, 3);
        QCOMPARE(points.size(), 2);
        QCOMPARE(points[0][u"asDouble"_s].toDouble(), 7.0);
        QCOMPARE(points[0][u"attributes"_s][0][u"value"_s][u"stringValue"_s].toString(),
                 u"desktop"_s);
        QCOMPARE(points[1][u"asDouble"_s].toDouble(), 0.25);
        QCOMPARE(points[1][u"timeUnixNano"_s].toString(), u"2"_s);

        int replacementCalls = 0;
        registry.gauge(u"fabric.queue.depth"_s, u"Another description"_s, u"s"_s, [&] {
            ++replacementCalls;
            return QList<GaugePoint>{{{}, -qInf()}};
        });
        const QByteArray text = registry.prometheusText();
        QCOMPARE(calls, 3);
        QCOMPARE(replacementCalls, 1);
        QCOMPARE(text, withTargetInfo("# HELP fabric_queue_depth Queued proposals\n"
                                      "# TYPE fabric_queue_depth gauge\n"
                                      "fabric_queue_depth -Inf\n"));
        QCOMPARE(metricsOf(registry.otlpJson(3))[0][u"gauge"_s][u"dataPoints"_s][0][u"asDouble"_s]
                     .toString(),
                 u"-Infinity"_s);
    }

    // target_info carries the resource attributes; service.name and .version are the registry's.
    void targetInfo()
    {
        MetricRegistry registry(u"svc"_s, u"9.9"_s);
        registry.setResourceAttributes(Attributes::of({{u"host.name"_s, u"h\"1"_s},
                                                       {u"service.name"_s, u"ignored"_s},
                                                       {u"deployment.environment"_s, u"prod"_s}}));
        QCOMPARE(registry.prometheusText(),
                 "# HELP target_info Target metadata\n"
                 "# TYPE target_info gauge\n"
                 "target_info{deployment_environment=\"prod\",host_name=\"h\\\"1\","
                 "service_name=\"svc\",service_version=\"9.9\"} 1\n"_ba);

        MetricRegistry defaults;
        QVERIFY(linesOf(defaults.prometheusText())
                    .contains(QByteArray("target_info{service_name=\"fabric-broker\","
                                         "service_version=\"" FB_VERSION "\"} 1")));
        QCOMPARE(metricsOf(defaults.otlpJson(1)).size(), 0);
    }

    // The whole ExportMetricsServiceRequest, compared as JSON values (a string "3" is not 3).
    void otlpJsonStructure()
    {
        const qint64 before = nowNano();
        MetricRegistry registry(u"fabric-broker"_s, u"1.2.3"_s);
        const qint64 after = nowNano();
        registry.setResourceAttributes(Attributes::of({{u"host.name"_s, u"box"_s}}));
        auto *h = registry.histogram(u"mcp.server.operation.duration"_s, u"MCP request duration"_s,
                                     u"s"_s, {0.5, 1});
        const auto ping = Attributes::of({{u"mcp.method.name"_s, u"ping"_s}});
        h->record(0.25, ping);
        h->record(0.5, ping);
        h->record(3, ping);
        registry.counter(u"fabric.unused"_s, u"Never added to"_s, u"1"_s);
        auto *c = registry.counter(u"fabric.proposals"_s, u"Proposals"_s, u"{proposal}"_s);
        c->add(TwoTo53PlusOne, Attributes::of({{u"outcome"_s, u"refused"_s}}));
        c->add(2, Attributes::of({{u"outcome"_s, u"approved"_s}}));
        registry.gauge(u"fabric.queue.depth"_s, u"Queued"_s, u"{proposal}"_s, [] {
            return QList<GaugePoint>{{{}, 3}};
        });
        registry.gauge(u"fabric.nothing"_s, u"Nothing"_s, u"1"_s, [] {
            return QList<GaugePoint>{{{}, qQNaN()}};
        });

        const qint64 start = registry.startTimeUnixNano();
        QVERIFY(start >= before && start <= after);
        for (const qint64 now : {after + 1000, after + 61000000000}) {
            const QJsonObject actual = registry.otlpJson(now);
            const QByteArray expectedText = QByteArray(kOtlpJson)
                                                .replace('\'', '"')
                                                .replace("START", QByteArray::number(start))
                                                .replace("NOW", QByteArray::number(now));
            QJsonParseError error;
            const QJsonObject expected = QJsonDocument::fromJson(expectedText, &error).object();
            QCOMPARE(error.error, QJsonParseError::NoError);
            QVERIFY2(actual == expected,
                     QJsonDocument(actual).toJson(QJsonDocument::Compact).constData());
            // The same start on every export (cumulative temporality).
            QCOMPARE(firstDataPoint(actual, u"histogram"_s)[u"startTimeUnixNano"_s].toString(),
                     QString::number(start));
        }
    }

    void sameNameSameInstrument()
    {
        MetricRegistry registry(u"fabric-broker"_s, u"1.2.3"_s);
        auto *first = registry.histogram(u"h"_s, u"First"_s, u"s"_s, {1, 2});
        auto *second = registry.histogram(u"h"_s, u"Second"_s, u"ms"_s, {10, 20, 30});
        QCOMPARE(second, first);
        second->record(1.5);
        first->record(1.5);
        auto *counter = registry.counter(u"c"_s, u"C"_s, {});
        QCOMPARE(registry.counter(u"c"_s, u"Other"_s, u"s"_s), counter);
        counter->add(1);
        registry.counter(u"c"_s, {}, {})->add(1);

        // Another kind under a taken name: a warning and an instrument never exported.
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression(u"metric \"h\" already exists"_s));
        auto *misfit = registry.counter(u"h"_s, u"Clash"_s, {});
        QVERIFY(misfit);
        misfit->add(5);
        QCOMPARE(registry.prometheusText(), withTargetInfo("# HELP h_seconds First\n"
                                                           "# TYPE h_seconds histogram\n"
                                                           "h_seconds_bucket{le=\"1\"} 0\n"
                                                           "h_seconds_bucket{le=\"2\"} 2\n"
                                                           "h_seconds_bucket{le=\"+Inf\"} 2\n"
                                                           "h_seconds_sum 3\n"
                                                           "h_seconds_count 2\n"
                                                           "# HELP c_total C\n"
                                                           "# TYPE c_total counter\n"
                                                           "c_total 2\n"));
        QCOMPARE(metricsOf(registry.otlpJson(1)).size(), 2);
    }

    // Unsorted or repeated bounds are sorted and deduplicated; non-finite ones dropped.
    void boundsAreCleaned()
    {
        MetricRegistry registry;
        registry.histogram(u"h"_s, {}, {}, {5, 1, qInf(), 1, qQNaN(), 2})->record(1.5);
        const QJsonObject point = firstDataPoint(registry.otlpJson(1), u"histogram"_s);
        QCOMPARE(point[u"explicitBounds"_s].toArray(), (QJsonArray{1, 2, 5}));
        QCOMPARE(point[u"bucketCounts"_s].toArray(), (QJsonArray{u"0"_s, u"1"_s, u"0"_s, u"0"_s}));
    }

    // Each distinct attribute set is one point; the order the caller lists keys in does not count.
    void distinctAttributeSets()
    {
        const auto ab = Attributes::of({{u"a"_s, u"1"_s}, {u"b"_s, u"x"_s}});
        const auto ba = Attributes::of({{u"b"_s, u"x"_s}, {u"a"_s, u"1"_s}});
        QVERIFY(ab == ba);
        QCOMPARE(qHash(ab, 7), qHash(ba, 7));
        QCOMPARE(Attributes::of({{u"k"_s, u"old"_s}, {u"k"_s, u"new"_s}}).items,
                 (QList<std::pair<QString, QString>>{{u"k"_s, u"new"_s}}));

        MetricRegistry registry;
        auto *c = registry.counter(u"c"_s, {}, {});
        c->add(1, Attributes::of({{u"a"_s, u"1"_s}}));
        c->add(1, Attributes::of({{u"a"_s, u"2"_s}}));
        c->add(1, ab);
        c->add(1, ba);
        c->add(1);
        const QByteArrayList lines = linesOf(registry.prometheusText());
        QCOMPARE(lines.mid(4),
                 (QByteArrayList{"c_total 1", "c_total{a=\"1\"} 1", "c_total{a=\"1\",b=\"x\"} 2",
                                 "c_total{a=\"2\"} 1"}));
        const QJsonArray points =
            metricsOf(registry.otlpJson(1))[0][u"sum"_s][u"dataPoints"_s].toArray();
        QCOMPARE(points.size(), 4);
        QCOMPARE(points[0][u"attributes"_s].toArray(), QJsonArray());
        QCOMPARE(points[2][u"asInt"_s].toString(), u"2"_s);
    }

    // Instruments in creation order, points sorted by attributes, whatever the insertion order.
    void deterministicOrder()
    {
        const auto fill = [](MetricRegistry &registry, bool reversed) {
            auto *z = registry.counter(u"zeta"_s, u"Z"_s, {});
            auto *a = registry.histogram(u"alpha"_s, u"A"_s, u"s"_s, {1});
            registry.gauge(u"mid"_s, u"M"_s, {}, [] {
                return QList<GaugePoint>{{Attributes::of({{u"k"_s, u"b"_s}}), 2},
                                         {Attributes::of({{u"k"_s, u"a"_s}}), 1}};
            });
            for (int n = 0; n < 40; ++n) {
                const int i = reversed ? 39 - n : n;
                const auto key = Attributes::of({{u"p"_s, u"p%1"_s.arg(i, 2, 10, QChar(u'0'))}});
                z->add(quint64(i), key);
                a->record(i, key);
            }
        };
        MetricRegistry forward(u"fabric-broker"_s, u"1.2.3"_s);
        MetricRegistry backward(u"fabric-broker"_s, u"1.2.3"_s);
        fill(forward, false);
        fill(backward, true);
        const QByteArray text = forward.prometheusText();
        QCOMPARE(backward.prometheusText(), text);
        QCOMPARE(forward.prometheusText(), text);

        QByteArrayList types;
        QByteArrayList counterSeries;
        for (const QByteArray &line : linesOf(text)) {
            if (line.startsWith("# TYPE "))
                types << line.mid(7);
            if (line.startsWith("zeta_total{"))
                counterSeries << line;
        }
        QCOMPARE(types, (QByteArrayList{"target_info gauge", "zeta_total counter",
                                        "alpha_seconds histogram", "mid gauge"}));
        QCOMPARE(counterSeries.size(), 40);
        for (int i = 0; i < 40; ++i)
            QCOMPARE(counterSeries.at(i),
                     QByteArray("zeta_total{p=\"p" + QByteArray::number(i).rightJustified(2, '0') +
                                "\"} " + QByteArray::number(i)));
        QVERIFY(text.endsWith("mid{k=\"a\"} 1\nmid{k=\"b\"} 2\n"));

        const QJsonArray fm = metricsOf(forward.otlpJson(5));
        const QJsonArray bm = metricsOf(backward.otlpJson(5));
        QCOMPARE(fm.size(), 3);
        for (int m = 0; m < 3; ++m) {
            QCOMPARE(fm[m][u"name"_s], bm[m][u"name"_s]);
            const QString kind = m == 0 ? u"sum"_s : m == 1 ? u"histogram"_s : u"gauge"_s;
            const QJsonArray fp = fm[m][kind][u"dataPoints"_s].toArray();
            const QJsonArray bp = bm[m][kind][u"dataPoints"_s].toArray();
            QCOMPARE(fp.size(), bp.size());
            for (qsizetype i = 0; i < fp.size(); ++i)
                QCOMPARE(fp[i][u"attributes"_s], bp[i][u"attributes"_s]);
        }
        QCOMPARE(
            fm[0][u"sum"_s][u"dataPoints"_s][7][u"attributes"_s][0][u"value"_s][u"stringValue"_s]
                .toString(),
            u"p07"_s);
    }

    // Instruments without points are left out of both writers (no HELP or TYPE either).
    void emptyInstrumentsAreLeftOut()
    {
        MetricRegistry registry(u"fabric-broker"_s, u"1.2.3"_s);
        registry.histogram(u"h"_s, u"H"_s, u"s"_s, {1});
        registry.counter(u"c"_s, u"C"_s, {});
        registry.gauge(u"g"_s, u"G"_s, {}, [] { return QList<GaugePoint>{}; });
        registry.gauge(u"null"_s, u"N"_s, {}, {});
        QCOMPARE(registry.prometheusText(), QByteArray(kTargetInfoOnly));
        const QJsonObject otlp = registry.otlpJson(1);
        QCOMPARE(otlp[u"resourceMetrics"_s].toArray().size(), 1);
        QVERIFY(otlp[u"resourceMetrics"_s][0][u"scopeMetrics"_s][0][u"metrics"_s].isArray());
        QVERIFY(metricsOf(otlp).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestMetrics)
#include "tst_metrics.moc"
