// The metric store and its two writers: Prometheus text format 0.0.4 and OTLP/HTTP JSON, both as
// the OpenTelemetry specification maps them (compatibility/prometheus_and_openmetrics.md,
// opentelemetry-proto's JSON encoding).
#include "telemetry/Metrics.h"

#include <QJsonArray>
#include <QJsonValue>
#include <QLocale>
#include <QLoggingCategory>
#include <algorithm>
#include <chrono>
#include <cmath>

namespace fb::telemetry {

using namespace Qt::StringLiterals;

namespace {

Q_LOGGING_CATEGORY(lcMetrics, "fabricbroker.telemetry.metrics")

enum Kind { HistogramKind, CounterKind, GaugeKind };

bool attributesLess(const Attributes &a, const Attributes &b)
{
    return std::lexicographical_compare(a.items.cbegin(), a.items.cend(), b.items.cbegin(),
                                        b.items.cend());
}

// Stable sort by key; of equal keys the last one given wins.
void normalize(QList<std::pair<QString, QString>> &items)
{
    std::stable_sort(items.begin(), items.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    QList<std::pair<QString, QString>> out;
    out.reserve(items.size());
    for (auto &item : items) {
        if (!out.isEmpty() && out.last().first == item.first)
            out.last().second = std::move(item.second);
        else
            out.append(std::move(item));
    }
    items = std::move(out);
}

// Prometheus name sanitizing: every character outside [a-zA-Z0-9_] (and ':' for metric names)
// becomes '_', runs of '_' collapse to one, a leading digit gets a '_' before it.
QString sanitize(const QString &name, bool allowColon)
{
    QString out;
    out.reserve(name.size() + 1);
    for (const QChar c : name) {
        const char16_t u = c.unicode();
        const bool valid = (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') ||
                           (u >= '0' && u <= '9') || u == '_' || (allowColon && u == ':');
        const QChar mapped = valid ? c : QChar(u'_');
        if (mapped == u'_' && out.endsWith(u'_'))
            continue;
        out.append(mapped);
    }
    if (out.isEmpty())
        return u"_"_s;
    if (out.front().isDigit())
        out.prepend(u'_');
    return out;
}

// UCUM units → the words of the specification's table; anything else sanitized as it is.
QString unitWord(const QString &unit)
{
    static const QHash<QString, QString> words{
        {u"d"_s, u"days"_s},         {u"h"_s, u"hours"_s},         {u"min"_s, u"minutes"_s},
        {u"s"_s, u"seconds"_s},      {u"ms"_s, u"milliseconds"_s}, {u"us"_s, u"microseconds"_s},
        {u"ns"_s, u"nanoseconds"_s}, {u"By"_s, u"bytes"_s},        {u"KiBy"_s, u"kibibytes"_s},
        {u"MiBy"_s, u"mebibytes"_s}, {u"GiBy"_s, u"gibibytes"_s},  {u"TiBy"_s, u"tebibytes"_s},
        {u"KBy"_s, u"kilobytes"_s},  {u"MBy"_s, u"megabytes"_s},   {u"GBy"_s, u"gigabytes"_s},
        {u"TBy"_s, u"terabytes"_s},  {u"m"_s, u"meters"_s},        {u"V"_s, u"volts"_s},
        {u"A"_s, u"amperes"_s},      {u"J"_s, u"joules"_s},        {u"W"_s, u"watts"_s},
        {u"g"_s, u"grams"_s},        {u"Cel"_s, u"celsius"_s},     {u"Hz"_s, u"hertz"_s},
        {u"%"_s, u"percent"_s},
    };
    const auto it = words.constFind(unit);
    return it != words.cend() ? *it : sanitize(unit, false);
}

QString perUnitWord(const QString &unit)
{
    static const QHash<QString, QString> words{
        {u"s"_s, u"second"_s}, {u"m"_s, u"minute"_s}, {u"h"_s, u"hour"_s}, {u"d"_s, u"day"_s},
        {u"w"_s, u"week"_s},   {u"mo"_s, u"month"_s}, {u"y"_s, u"year"_s},
    };
    const auto it = words.constFind(unit);
    return it != words.cend() ? *it : unitWord(unit);
}

// The suffix a UCUM unit gives: "seconds", "bytes_per_second", or empty ("1", "{request}").
QString unitSuffix(const QString &unit)
{
    QString bare;
    int depth = 0;
    for (const QChar c : unit) {
        if (c == u'{')
            ++depth;
        else if (c == u'}' && depth > 0)
            --depth;
        else if (depth == 0)
            bare.append(c);
    }
    bare = bare.trimmed();
    const qsizetype slash = bare.indexOf(u'/');
    const QString main = (slash < 0 ? bare : bare.left(slash)).trimmed();
    const QString per = slash < 0 ? QString() : bare.mid(slash + 1).trimmed();
    QString suffix;
    if (!main.isEmpty() && main != u"1")
        suffix = unitWord(main);
    if (!per.isEmpty() && per != u"1")
        suffix += (suffix.isEmpty() ? u""_s : u"_"_s) % u"per_" % perUnitWord(per);
    return suffix;
}

bool endsWithWord(const QString &name, const QString &word)
{
    return name == word || name.endsWith(u'_' % word);
}

// Go float syntax as Prometheus parses it: "+Inf", "-Inf", "NaN", integers without ".0", the
// shortest representation that reads back the same double otherwise.
QByteArray promNumber(double v)
{
    if (std::isnan(v))
        return "NaN"_ba;
    if (std::isinf(v))
        return v > 0 ? "+Inf"_ba : "-Inf"_ba;
    if (v == std::trunc(v) && std::fabs(v) < 9007199254740992.0)
        return QByteArray::number(static_cast<qint64>(v));
    return QByteArray::number(v, 'g', QLocale::FloatingPointShortest);
}

QByteArray escapeHelp(const QString &text)
{
    QByteArray out = text.toUtf8();
    out.replace('\\', "\\\\"_ba).replace('\n', "\\n"_ba);
    return out;
}

QByteArray escapeLabelValue(const QString &text)
{
    QByteArray out = text.toUtf8();
    out.replace('\\', "\\\\"_ba).replace('"', "\\\""_ba).replace('\n', "\\n"_ba);
    return out;
}

// The label part of a sample, without braces: `a="x",b="y"`, plus `le` when given. Keys mapping
// to the same label name become one label, values joined by ';' in key order.
QByteArray labels(const Attributes &attributes, const QByteArray &le = {})
{
    QList<std::pair<QString, QString>> mapped;
    mapped.reserve(attributes.items.size());
    for (const auto &[key, value] : attributes.items) {
        const QString name = prometheusLabelName(key);
        const auto same = std::find_if(mapped.begin(), mapped.end(),
                                       [&](const auto &item) { return item.first == name; });
        if (same != mapped.end())
            same->second += u';' % value;
        else
            mapped.append({name, value});
    }
    QByteArray out;
    for (const auto &[name, value] : std::as_const(mapped)) {
        if (!out.isEmpty())
            out += ',';
        out += name.toUtf8() + "=\"" + escapeLabelValue(value) + '"';
    }
    if (!le.isNull()) {
        if (!out.isEmpty())
            out += ',';
        out += "le=\"" + le + '"';
    }
    return out;
}

void sample(QByteArray &out, const QByteArray &name, const QByteArray &labelText,
            const QByteArray &value)
{
    out += name;
    if (!labelText.isEmpty())
        out += '{' + labelText + '}';
    out += ' ' + value + '\n';
}

void header(QByteArray &out, const QByteArray &name, const QString &description, const char *type)
{
    if (!description.isEmpty())
        out += "# HELP " + name + ' ' + escapeHelp(description) + '\n';
    out += "# TYPE " + name + ' ' + type + '\n';
}

QJsonValue jsonDouble(double v)
{
    if (std::isnan(v))
        return u"NaN"_s;
    if (std::isinf(v))
        return v > 0 ? u"Infinity"_s : u"-Infinity"_s;
    return v;
}

QJsonArray keyValues(const Attributes &attributes)
{
    QJsonArray out;
    for (const auto &[key, value] : attributes.items)
        out.append(
            QJsonObject{{u"key"_s, key}, {u"value"_s, QJsonObject{{u"stringValue"_s, value}}}});
    return out;
}

template <typename Map> QList<typename Map::key_type> sortedKeys(const Map &points)
{
    QList<Attributes> keys = points.keys();
    std::sort(keys.begin(), keys.end(), attributesLess);
    return keys;
}

QList<GaugePoint> collect(const GaugeCallback &callback)
{
    if (!callback)
        return {};
    QList<GaugePoint> points = callback();
    for (GaugePoint &p : points)
        normalize(p.attributes.items);
    points.removeIf([](const GaugePoint &p) { return std::isnan(p.value); });
    std::stable_sort(points.begin(), points.end(), [](const GaugePoint &a, const GaugePoint &b) {
        return attributesLess(a.attributes, b.attributes);
    });
    QList<GaugePoint> out;
    out.reserve(points.size());
    for (GaugePoint &p : points) {
        if (!out.isEmpty() && out.last().attributes == p.attributes)
            out.last() = std::move(p);
        else
            out.append(std::move(p));
    }
    return out;
}

} // namespace

Attributes Attributes::of(std::initializer_list<std::pair<QString, QString>> list)
{
    Attributes a;
    a.items = QList<std::pair<QString, QString>>(list);
    normalize(a.items);
    return a;
}

size_t qHash(const Attributes &attributes, size_t seed)
{
    return qHashRange(attributes.items.cbegin(), attributes.items.cend(), seed);
}

const QList<double> &mcpDurationBuckets()
{
    static const QList<double> bounds{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1,
                                      2,    5,    10,   30,  60,  120, 300};
    return bounds;
}

void Histogram::record(double value, const Attributes &attributes)
{
    if (std::isnan(value))
        return;
    auto it = m_points.find(attributes);
    if (it == m_points.end()) {
        Point fresh;
        fresh.buckets.assign(static_cast<size_t>(m_bounds.size()) + 1, 0);
        fresh.min = value;
        fresh.max = value;
        it = m_points.insert(attributes, std::move(fresh));
    }
    Point &p = *it;
    const auto bucket =
        std::lower_bound(m_bounds.cbegin(), m_bounds.cend(), value) - m_bounds.cbegin();
    ++p.buckets[static_cast<size_t>(bucket)];
    ++p.count;
    p.sum += value;
    p.min = std::min(p.min, value);
    p.max = std::max(p.max, value);
}

void Counter::add(quint64 value, const Attributes &attributes)
{
    m_points[attributes] += value;
}

struct MetricRegistry::Instrument {
    int kind = HistogramKind;
    QString name;
    QString description;
    QString unit;
    QByteArray prometheusName; // with "_total" for counters
    Histogram histogram;
    Counter counter;
    GaugeCallback callback;
};

MetricRegistry::MetricRegistry(QString serviceName, QString serviceVersion)
    : m_serviceName(std::move(serviceName))
    , m_serviceVersion(serviceVersion.isEmpty() ? QStringLiteral(FB_VERSION)
                                                : std::move(serviceVersion))
    , m_startUnixNano(std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count())
{
    setResourceAttributes({});
}

MetricRegistry::~MetricRegistry() = default;

MetricRegistry::Instrument *MetricRegistry::instrument(int kind, const QString &name,
                                                       const QString &description,
                                                       const QString &unit, bool *created)
{
    if (created)
        *created = true;
    if (Instrument *existing = m_byName.value(name)) {
        if (existing->kind == kind) {
            if (created)
                *created = false;
            return existing;
        }
        qCWarning(lcMetrics) << "metric" << name
                             << "already exists as another kind of instrument; this one is not "
                                "exported";
        auto misfit = std::make_unique<Instrument>();
        misfit->kind = kind;
        misfit->name = name;
        m_misfits.push_back(std::move(misfit));
        return m_misfits.back().get();
    }
    auto fresh = std::make_unique<Instrument>();
    fresh->kind = kind;
    fresh->name = name;
    fresh->description = description;
    fresh->unit = unit;
    QString promName = prometheusMetricName(name, unit);
    if (kind == CounterKind && !promName.endsWith(u"_total"))
        promName += promName.endsWith(u'_') ? u"total"_s : u"_total"_s;
    fresh->prometheusName = promName.toUtf8();
    Instrument *raw = fresh.get();
    m_instruments.push_back(std::move(fresh));
    m_byName.insert(name, raw);
    return raw;
}

Histogram *MetricRegistry::histogram(const QString &name, const QString &description,
                                     const QString &unit, const QList<double> &bounds)
{
    bool created = false;
    Instrument *i = instrument(HistogramKind, name, description, unit, &created);
    if (created) {
        QList<double> clean;
        for (double b : bounds) {
            if (std::isfinite(b))
                clean.append(b);
        }
        std::sort(clean.begin(), clean.end());
        clean.erase(std::unique(clean.begin(), clean.end()), clean.end());
        i->histogram.m_bounds = clean;
    }
    return &i->histogram;
}

Counter *MetricRegistry::counter(const QString &name, const QString &description,
                                 const QString &unit)
{
    return &instrument(CounterKind, name, description, unit)->counter;
}

void MetricRegistry::gauge(const QString &name, const QString &description, const QString &unit,
                           GaugeCallback callback)
{
    instrument(GaugeKind, name, description, unit)->callback = std::move(callback);
}

void MetricRegistry::setResourceAttributes(const Attributes &attributes)
{
    QList<std::pair<QString, QString>> items = attributes.items;
    items.removeIf([](const auto &item) {
        return item.first == u"service.name" || item.first == u"service.version";
    });
    items.append({u"service.name"_s, m_serviceName});
    items.append({u"service.version"_s, m_serviceVersion});
    normalize(items);
    m_resource.items = std::move(items);
}

QByteArray MetricRegistry::prometheusText() const
{
    QByteArray out;
    header(out, "target_info"_ba, u"Target metadata"_s, "gauge");
    sample(out, "target_info"_ba, labels(m_resource), "1"_ba);

    for (const auto &instrument : m_instruments) {
        const QByteArray &name = instrument->prometheusName;
        switch (instrument->kind) {
        case HistogramKind: {
            const Histogram &h = instrument->histogram;
            if (h.m_points.isEmpty())
                break;
            header(out, name, instrument->description, "histogram");
            const QByteArray bucketName = name + "_bucket";
            const QByteArray sumName = name + "_sum";
            const QByteArray countName = name + "_count";
            QList<QByteArray> les;
            for (double bound : h.m_bounds)
                les.append(promNumber(bound));
            les.append("+Inf"_ba);
            for (const Attributes &attributes : sortedKeys(h.m_points)) {
                const Histogram::Point &p = *h.m_points.constFind(attributes);
                quint64 cumulative = 0;
                for (size_t b = 0; b < p.buckets.size(); ++b) {
                    cumulative += p.buckets[b];
                    sample(out, bucketName, labels(attributes, les.at(static_cast<qsizetype>(b))),
                           QByteArray::number(cumulative));
                }
                const QByteArray plain = labels(attributes);
                sample(out, sumName, plain, promNumber(p.sum));
                sample(out, countName, plain, QByteArray::number(p.count));
            }
            break;
        }
        case CounterKind: {
            const Counter &c = instrument->counter;
            if (c.m_points.isEmpty())
                break;
            header(out, name, instrument->description, "counter");
            for (const Attributes &attributes : sortedKeys(c.m_points))
                sample(out, name, labels(attributes),
                       QByteArray::number(c.m_points.value(attributes)));
            break;
        }
        case GaugeKind: {
            const QList<GaugePoint> points = collect(instrument->callback);
            if (points.isEmpty())
                break;
            header(out, name, instrument->description, "gauge");
            for (const GaugePoint &p : points)
                sample(out, name, labels(p.attributes), promNumber(p.value));
            break;
        }
        }
    }
    return out;
}

QJsonObject MetricRegistry::otlpJson(qint64 nowUnixNano) const
{
    const QString start = QString::number(m_startUnixNano);
    const QString now = QString::number(nowUnixNano);
    QJsonArray metrics;
    for (const auto &instrument : m_instruments) {
        QJsonArray dataPoints;
        QString kindKey;
        switch (instrument->kind) {
        case HistogramKind: {
            kindKey = u"histogram"_s;
            const Histogram &h = instrument->histogram;
            QJsonArray bounds;
            for (double bound : h.m_bounds)
                bounds.append(bound);
            for (const Attributes &attributes : sortedKeys(h.m_points)) {
                const Histogram::Point &p = *h.m_points.constFind(attributes);
                QJsonArray buckets;
                for (quint64 n : p.buckets)
                    buckets.append(QString::number(n));
                dataPoints.append(QJsonObject{
                    {u"attributes"_s, keyValues(attributes)},
                    {u"startTimeUnixNano"_s, start},
                    {u"timeUnixNano"_s, now},
                    {u"count"_s, QString::number(p.count)},
                    {u"sum"_s, jsonDouble(p.sum)},
                    {u"bucketCounts"_s, buckets},
                    {u"explicitBounds"_s, bounds},
                    {u"min"_s, jsonDouble(p.min)},
                    {u"max"_s, jsonDouble(p.max)},
                });
            }
            break;
        }
        case CounterKind: {
            kindKey = u"sum"_s;
            const Counter &c = instrument->counter;
            for (const Attributes &attributes : sortedKeys(c.m_points))
                dataPoints.append(QJsonObject{
                    {u"attributes"_s, keyValues(attributes)},
                    {u"startTimeUnixNano"_s, start},
                    {u"timeUnixNano"_s, now},
                    {u"asInt"_s, QString::number(c.m_points.value(attributes))},
                });
            break;
        }
        case GaugeKind:
            kindKey = u"gauge"_s;
            for (const GaugePoint &p : collect(instrument->callback))
                dataPoints.append(QJsonObject{
                    {u"attributes"_s, keyValues(p.attributes)},
                    {u"timeUnixNano"_s, now},
                    {u"asDouble"_s, jsonDouble(p.value)},
                });
            break;
        }
        if (dataPoints.isEmpty())
            continue;
        QJsonObject data{{u"dataPoints"_s, dataPoints}};
        if (instrument->kind != GaugeKind)
            data.insert(u"aggregationTemporality"_s, 2);
        if (instrument->kind == CounterKind)
            data.insert(u"isMonotonic"_s, true);
        metrics.append(QJsonObject{
            {u"name"_s, instrument->name},
            {u"description"_s, instrument->description},
            {u"unit"_s, instrument->unit},
            {kindKey, data},
        });
    }
    const QJsonObject scopeMetrics{
        {u"scope"_s,
         QJsonObject{{u"name"_s, u"fabric-broker"_s}, {u"version"_s, m_serviceVersion}}},
        {u"metrics"_s, metrics},
    };
    const QJsonObject resourceMetrics{
        {u"resource"_s, QJsonObject{{u"attributes"_s, keyValues(m_resource)}}},
        {u"scopeMetrics"_s, QJsonArray{scopeMetrics}},
    };
    return QJsonObject{{u"resourceMetrics"_s, QJsonArray{resourceMetrics}}};
}

QString prometheusMetricName(const QString &name, const QString &unit)
{
    QString out = sanitize(name, true);
    const QString suffix = unitSuffix(unit);
    if (!suffix.isEmpty() && !endsWithWord(out, suffix))
        out = sanitize(out % u'_' % suffix, true);
    return out;
}

QString prometheusLabelName(const QString &key)
{
    return sanitize(key, false);
}

} // namespace fb::telemetry
