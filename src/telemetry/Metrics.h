#pragma once
// Metrics: the broker's metric store, named as OpenTelemetry names them
// (docs/observability.md), with its two writers: the Prometheus text format 0.0.4 (the /metrics
// endpoint) and OTLP/HTTP JSON (ExportMetricsServiceRequest). No OpenTelemetry C++ SDK is
// packaged in Debian 12, so the store is ours; both writers follow the OpenTelemetry
// specification's mapping (compatibility/prometheus_and_openmetrics.md).
//
// Instruments are created once by name and live as long as the registry. record()/add() run on
// the thread that owns the registry (the broker's event loop): no locks, one hash lookup.
// Attributes are string-valued; each distinct attribute set is one point (the caller keeps
// cardinality bounded: never a request id, session id, token or value written by the agent).
#include <QByteArray>
#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <functional>
#include <memory>
#include <vector>

namespace fb::telemetry {

// Attribute key → value, kept sorted by key (Attributes::of sorts; of a key given twice the last
// value is kept). Keys are OTel names ("mcp.method.name"); the Prometheus writer maps them to
// label names ("mcp_method_name").
struct Attributes {
    QList<std::pair<QString, QString>> items;
    static Attributes of(std::initializer_list<std::pair<QString, QString>> list);
    bool operator==(const Attributes &other) const = default;
};
size_t qHash(const Attributes &attributes, size_t seed = 0);

// The MCP semantic conventions' buckets for mcp.server.*.duration, in seconds.
const QList<double> &mcpDurationBuckets();

class Histogram {
public:
    // Bucket i counts the values in (bounds[i-1], bounds[i]] (a value equal to a bound is in that
    // bound's bucket), the last one those above the last bound. NaN is ignored (no point, no
    // count); +-Inf are counted (in the last or first bucket) and make the sum infinite or NaN.
    void record(double value, const Attributes &attributes = {});

private:
    friend class MetricRegistry;
    struct Point {
        std::vector<quint64> buckets; // per bucket (not cumulative); bounds.size() + 1
        quint64 count = 0;
        double sum = 0;
        double min = 0;
        double max = 0;
    };
    QList<double> m_bounds;
    QHash<Attributes, Point> m_points;
};

// A monotonic sum (Prometheus: counter, "_total").
class Counter {
public:
    // add(0, attributes) makes the point exist (exported as 0).
    void add(quint64 value = 1, const Attributes &attributes = {});

private:
    friend class MetricRegistry;
    QHash<Attributes, quint64> m_points;
};

// An observable gauge: its callback gives the current points at each collection (points whose
// value is NaN are skipped; of two points with the same attributes the last is kept).
struct GaugePoint {
    Attributes attributes;
    double value = 0;
};
using GaugeCallback = std::function<QList<GaugePoint>()>;

class MetricRegistry {
public:
    // An empty serviceVersion means the broker's own (FB_VERSION).
    explicit MetricRegistry(QString serviceName = QStringLiteral("fabric-broker"),
                            QString serviceVersion = {});
    ~MetricRegistry();
    MetricRegistry(const MetricRegistry &) = delete;
    MetricRegistry &operator=(const MetricRegistry &) = delete;

    // The same name returns the same instrument (its first description, unit and bounds).
    // unit is UCUM ("s", "By", "1", "{proposal}"). Bounds are sorted and deduplicated (NaN and
    // infinities dropped). A gauge registered again under its name gets the new callback (the
    // old one is no longer called). A name already taken by another kind of instrument logs a
    // warning and gives an instrument that is never exported (never nullptr).
    Histogram *histogram(const QString &name, const QString &description, const QString &unit,
                         const QList<double> &bounds);
    Counter *counter(const QString &name, const QString &description, const QString &unit);
    void gauge(const QString &name, const QString &description, const QString &unit,
               GaugeCallback callback);

    // Resource attributes sent with OTLP and as Prometheus target_info (service.name and
    // service.version are always there: the constructor's, whatever attributes says).
    void setResourceAttributes(const Attributes &attributes);

    // Prometheus text format 0.0.4: names mapped (dots → "_", unit suffix "_seconds",
    // "_bytes"..., "_total" for counters), histograms cumulative with le="+Inf", HELP and label
    // values escaped, every line ending with "\n". target_info (value 1, the resource attributes
    // as labels) comes first, then the instruments in creation order, each one's points sorted by
    // attributes; an instrument without points is left out (no HELP or TYPE either), and so is
    // HELP when the description is empty. Attribute keys that map to the same label name give one
    // label, their values joined by ";" in key order.
    QByteArray prometheusText() const;
    static constexpr char PrometheusContentType[] = "text/plain; version=0.0.4; charset=utf-8";

    // OTLP ExportMetricsServiceRequest as JSON (cumulative temporality; 64-bit integers as
    // decimal strings; bucketCounts per bucket). startTimeUnixNano is the registry's creation.
    // A metric without points is left out; non-finite doubles are written as the proto3 JSON
    // strings "NaN", "Infinity", "-Infinity".
    QJsonObject otlpJson(qint64 nowUnixNano) const;
    qint64 startTimeUnixNano() const { return m_startUnixNano; }

private:
    struct Instrument;
    Instrument *instrument(int kind, const QString &name, const QString &description,
                           const QString &unit, bool *created = nullptr);
    std::vector<std::unique_ptr<Instrument>> m_instruments; // creation order
    std::vector<std::unique_ptr<Instrument>> m_misfits;     // kind clashes, never exported
    QHash<QString, Instrument *> m_byName;
    QString m_serviceName;
    QString m_serviceVersion;
    Attributes m_resource;
    qint64 m_startUnixNano = 0;
};

// The Prometheus name of an OTel metric name and unit ("mcp.server.operation.duration", "s" →
// "mcp_server_operation_duration_seconds"; counters also get "_total" from the writer). Invalid
// characters become "_", runs of "_" collapse to one, a leading digit gets a "_" before it; the
// unit's word ("seconds", "bytes", "bytes_per_second" for "By/s"; none for "1" or a "{...}"
// annotation; an unknown unit sanitized as a name) is appended unless the name ends with it.
QString prometheusMetricName(const QString &name, const QString &unit);
QString prometheusLabelName(const QString &key);

} // namespace fb::telemetry
