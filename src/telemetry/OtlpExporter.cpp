// OtlpExporter: see OtlpExporter.h. Shape:
//  * one request per signal in flight; a span batch that comes out larger than MaxBodyBytes is
//    halved until it fits, the rest sent next (a single span that never fits is dropped);
//  * an attempt ends at the first of: the response, timeoutMs (the request's transfer timeout
//    and a timer for a collector that trickles), the export's deadline (OTEL_BSP_EXPORT_TIMEOUT,
//    OTEL_METRIC_EXPORT_TIMEOUT); retries wait on a timer, never in a loop;
//  * failures are counted and logged at info, one line a minute per signal with the count of
//    lines not logged: a collector that is down is an operator's business (Settings shows
//    Stats::lastError), not a warning on every batch. Warnings are only for configuration
//    (OtlpConfig::warnings, logged by whoever applies the configuration);
//  * nothing logged or kept in Stats carries a header value, the endpoint's user info or query,
//    or the collector's response body beyond a partialSuccess message's first line.
#include "telemetry/OtlpExporter.h"

#include "telemetry/Metrics.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QMetaEnum>
#include <QMutex>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QRandomGenerator>
#include <QStringDecoder>
#include <QThreadPool>

#include <array>
#include <cctype>

using namespace Qt::StringLiterals;

namespace fb::telemetry {

namespace {

Q_LOGGING_CATEGORY(lcOtlp, "fabricbroker.telemetry")

constexpr qint64 LogIntervalMs = 60000;
constexpr qint64 MaxRetryAfterMs = 30000;
constexpr qint64 BackoffBaseMs = 1000;
// An attempt with less time than this before the deadline is not started.
constexpr qint64 MinAttemptMs = 100;

using Headers = QList<std::pair<QByteArray, QByteArray>>;

// ---- gzip (RFC 1952) without linking zlib ourselves ---------------------------------------

quint32 crc32(const QByteArray &data)
{
    static const std::array<quint32, 256> table = [] {
        std::array<quint32, 256> t{};
        for (quint32 i = 0; i < 256; ++i) {
            quint32 c = i;
            for (int k = 0; k < 8; ++k)
                c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            t[i] = c;
        }
        return t;
    }();
    quint32 c = 0xFFFFFFFFu;
    for (const char b : data)
        c = table[(c ^ quint8(b)) & 0xFFu] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

void appendLittleEndian32(QByteArray &out, quint32 value)
{
    for (int i = 0; i < 4; ++i)
        out.append(char((value >> (8 * i)) & 0xFFu));
}

// qCompress gives a 4-byte big-endian length and a zlib stream (RFC 1950: 2-byte header, raw
// deflate, Adler-32); gzip wants the same raw deflate between its own header and trailer.
QByteArray gzip(const QByteArray &data)
{
    const QByteArray z = qCompress(data, 6);
    if (z.size() < 4 + 2 + 4)
        return {};
    QByteArray out;
    out.reserve(z.size() + 18);
    // magic, CM deflate, no flags, no mtime, no extra flags, OS Unix
    const char header[10] = {0x1f, char(0x8b), 8, 0, 0, 0, 0, 0, 0, 3};
    out.append(header, sizeof header);
    out.append(z.constData() + 6, z.size() - 10);
    appendLittleEndian32(out, crc32(data));
    appendLittleEndian32(out, quint32(quint64(data.size()) & 0xFFFFFFFFu));
    return out;
}

// ---- the environment ----------------------------------------------------------------------

QString envValue(const QProcessEnvironment &env, const char *name)
{
    return env.value(QString::fromLatin1(name)).trimmed(); // empty = unset
}

QString varName(const char *name)
{
    return QString::fromLatin1(name);
}

// A value safe to quote in a warning (enumerated settings: protocols, exporters, schemes).
QString quoted(const QString &value)
{
    static const QString allowed = u"abcdefghijklmnopqrstuvwxyz0123456789/._-+"_s;
    if (value.isEmpty() || value.size() > 32)
        return u"this value"_s;
    for (const QChar c : value) {
        if (!allowed.contains(c.toLower()))
            return u"this value"_s;
    }
    return u'"' + value + u'"';
}

int hexDigit(char c)
{
    return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

// Strict percent-decoding: a "%" not followed by two hex digits is an error.
std::optional<QByteArray> percentDecode(QByteArrayView in)
{
    QByteArray out;
    out.reserve(in.size());
    for (qsizetype i = 0; i < in.size(); ++i) {
        if (in[i] != '%') {
            out.append(in[i]);
            continue;
        }
        if (i + 2 >= in.size() || !isxdigit(uchar(in[i + 1])) || !isxdigit(uchar(in[i + 2])))
            return std::nullopt;
        out.append(char(hexDigit(in[i + 1]) * 16 + hexDigit(in[i + 2])));
        i += 2;
    }
    return out;
}

std::optional<QString> utf8(const QByteArray &bytes)
{
    QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    QString text = decoder.decode(bytes);
    if (decoder.hasError())
        return std::nullopt;
    return text;
}

bool isToken(const QByteArray &name)
{
    static const QByteArray extra = "!#$%&'*+-.^_`|~";
    if (name.isEmpty())
        return false;
    for (const char c : name) {
        if (!std::isalnum(uchar(c)) && !extra.contains(c))
            return false;
    }
    return true;
}

// "k1=v1,k2=v2" (the W3C baggage form) as HTTP headers. Warnings name the variable and, for a
// well-formed name, the header's name; never a value (they carry credentials).
Headers parseHeaders(const QString &text, const QString &variable, QStringList &warnings)
{
    Headers headers;
    int malformed = 0;
    for (const QByteArray &raw : text.toUtf8().split(',')) {
        const QByteArray item = raw.trimmed();
        if (item.isEmpty())
            continue;
        const qsizetype eq = item.indexOf('=');
        const QByteArray name = eq < 0 ? QByteArray() : item.first(eq).trimmed();
        if (!isToken(name)) {
            ++malformed;
            continue;
        }
        const std::optional<QByteArray> value = percentDecode(item.sliced(eq + 1).trimmed());
        if (!value) {
            warnings << variable + u": the value of header "_s + QString::fromLatin1(name) +
                            u" is not percent-encoded correctly; the header is not sent"_s;
            continue;
        }
        if (value->contains('\r') || value->contains('\n') || value->contains('\0')) {
            warnings << variable + u": the value of header "_s + QString::fromLatin1(name) +
                            u" contains a line break or NUL; the header is not sent"_s;
            continue;
        }
        const QByteArray lower = name.toLower();
        if (lower == "content-type" || lower == "content-length" || lower == "content-encoding" ||
            lower == "host" || lower == "transfer-encoding") {
            warnings << variable + u": header "_s + QString::fromLatin1(name) +
                            u" is set by the exporter; the configured one is not sent"_s;
            continue;
        }
        headers.append({name, *value});
    }
    if (malformed > 0) {
        warnings << variable +
                        u": %1 entr%2 not of the form name=value (ignored)"_s.arg(malformed).arg(
                            malformed == 1 ? u"y is"_s : u"ies are"_s);
    }
    return headers;
}

// OTEL_RESOURCE_ATTRIBUTES; nullopt (the whole variable ignored) on any decoding error.
std::optional<QList<SpanAttribute>> parseResource(const QString &text)
{
    QList<SpanAttribute> attributes;
    for (const QByteArray &raw : text.toUtf8().split(',')) {
        const QByteArray item = raw.trimmed();
        if (item.isEmpty())
            continue;
        const qsizetype eq = item.indexOf('=');
        if (eq <= 0)
            return std::nullopt;
        const std::optional<QByteArray> key = percentDecode(item.first(eq).trimmed());
        const std::optional<QByteArray> value = percentDecode(item.sliced(eq + 1).trimmed());
        if (!key || !value || key->isEmpty())
            return std::nullopt;
        const std::optional<QString> k = utf8(*key);
        const std::optional<QString> v = utf8(*value);
        if (!k || !v)
            return std::nullopt;
        attributes.removeIf([&](const SpanAttribute &a) { return a.key == *k; });
        attributes.append({*k, *v});
    }
    return attributes;
}

// A positive integer setting; the default (and a warning) when malformed.
int positiveInt(const QProcessEnvironment &env, const char *name, int fallback,
                QStringList &warnings)
{
    const QString text = envValue(env, name);
    if (text.isEmpty())
        return fallback;
    bool ok = false;
    const int value = text.toInt(&ok);
    if (ok && value > 0)
        return value;
    warnings << varName(name) + u" is not a positive integer; using %1"_s.arg(fallback);
    return fallback;
}

std::optional<int> optionalPositiveInt(const QProcessEnvironment &env, const char *name,
                                       QStringList &warnings, int fallback)
{
    if (envValue(env, name).isEmpty())
        return std::nullopt;
    return positiveInt(env, name, fallback, warnings);
}

std::optional<bool> compression(const QProcessEnvironment &env, const char *name,
                                QStringList &warnings)
{
    const QString text = envValue(env, name).toLower();
    if (text.isEmpty())
        return std::nullopt;
    if (text == u"gzip"_s)
        return true;
    if (text != u"none"_s)
        warnings << varName(name) + u"="_s + quoted(text) + u" is not gzip or none; using none"_s;
    return false;
}

void checkProtocol(const QProcessEnvironment &env, const char *name, QStringList &warnings)
{
    const QString text = envValue(env, name);
    if (!text.isEmpty() && text != u"http/json"_s) {
        warnings << varName(name) + u"="_s + quoted(text) +
                        u" is not supported; the broker sends OTLP as http/json"_s;
    }
}

// OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER: whether the signal goes out over OTLP.
bool exporterSelected(const QProcessEnvironment &env, const char *name, bool metrics,
                      QStringList &warnings)
{
    const QString text = envValue(env, name).toLower();
    if (text.isEmpty())
        return true;
    bool otlp = false;
    bool none = false;
    for (const QString &raw : text.split(u',')) {
        const QString item = raw.trimmed();
        if (item == u"otlp"_s)
            otlp = true;
        else if (item == u"none"_s)
            none = true;
        else if (metrics && item == u"prometheus"_s)
            continue; // the broker's own /metrics endpoint
        else if (!item.isEmpty())
            warnings << varName(name) + u": "_s + quoted(item) +
                            u" is not supported (otlp or none); ignored"_s;
    }
    return otlp && !none;
}

// An http(s) endpoint; nullopt and a warning naming what (never the value) otherwise.
std::optional<QUrl> endpointUrl(const QString &text, const QString &what, QStringList &warnings)
{
    const QUrl url(text, QUrl::StrictMode);
    if (!url.isValid() || url.isRelative() || url.host().isEmpty()) {
        warnings << what + u" is not a valid URL with a host; that export stays off"_s;
        return std::nullopt;
    }
    const QString scheme = url.scheme().toLower();
    if (scheme != u"http"_s && scheme != u"https"_s) {
        warnings << what + u" has the scheme "_s + quoted(scheme) +
                        u"; only http and https are supported, that export stays off"_s;
        return std::nullopt;
    }
    return url;
}

// The base endpoint with the signal's path appended after exactly one "/".
QUrl joined(QUrl base, const QString &signalPath)
{
    QString path = base.path();
    if (!path.endsWith(u'/'))
        path += u'/';
    base.setPath(path + signalPath);
    return base;
}

// A signal endpoint used as-is (an empty path is "/").
QUrl asIs(QUrl url)
{
    if (url.path().isEmpty())
        url.setPath(u"/"_s);
    return url;
}

QString display(const QUrl &url)
{
    return url.toDisplayString(QUrl::RemoveUserInfo | QUrl::RemoveQuery | QUrl::RemoveFragment);
}

QString signalName(int signal)
{
    return signal == 0 ? u"traces"_s : u"metrics"_s;
}

// The first line of a collector's message, bounded and printable.
QString oneLine(const QString &text)
{
    QString line = text.section(u'\n', 0, 0).left(200);
    for (QChar &c : line) {
        if (!c.isPrint())
            c = u' ';
    }
    return line.trimmed();
}

qint64 jsonInt(const QJsonValue &value)
{
    return value.isString() ? value.toString().toLongLong() : qint64(value.toDouble());
}

// Retry-After: delay-seconds or an HTTP-date; -1 when absent or unreadable.
qint64 retryAfterMs(const QByteArray &header)
{
    const QByteArray text = header.trimmed();
    if (text.isEmpty())
        return -1;
    bool digits = true;
    for (const char c : text)
        digits = digits && c >= '0' && c <= '9';
    if (digits)
        return text.size() > 6 ? MaxRetryAfterMs : text.toLongLong() * 1000;
    const QDateTime when = QDateTime::fromString(QString::fromLatin1(text), Qt::RFC2822Date);
    if (!when.isValid())
        return -1;
    return qMax<qint64>(0, QDateTime::currentDateTimeUtc().msecsTo(when));
}

QString networkErrorName(QNetworkReply::NetworkError error)
{
    const char *key = QMetaEnum::fromType<QNetworkReply::NetworkError>().valueToKey(error);
    return key ? QString::fromLatin1(key) : u"network error %1"_s.arg(int(error));
}

} // namespace

// ---- OtlpConfig ---------------------------------------------------------------------------

OtlpConfig OtlpConfig::fromEnvironment(const QProcessEnvironment &environment,
                                       const QString &configuredEndpoint,
                                       const QString &serviceVersion, bool policyEndpoint)
{
    const QProcessEnvironment &env = environment;
    OtlpConfig config;
    QStringList &warnings = config.warnings;
    // With the policy's endpoint, what would send elsewhere or nowhere is ignored, and said.
    const bool locked = policyEndpoint && !configuredEndpoint.trimmed().isEmpty();
    const auto overridden = [&](const char *name) {
        if (!locked || envValue(env, name).isEmpty())
            return false;
        warnings << varName(name) + u" is ignored: the policy's observability.otlp_endpoint wins"_s;
        return true;
    };

    const QString disabled = envValue(env, "OTEL_SDK_DISABLED").toLower();
    if (!overridden("OTEL_SDK_DISABLED")) {
        if (disabled == u"true"_s)
            return config;
        if (!disabled.isEmpty() && disabled != u"false"_s)
            warnings << u"OTEL_SDK_DISABLED is not true or false; taken as false"_s;
    }

    // Where to send.
    std::optional<QUrl> base;
    if (const QString text = envValue(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
        !text.isEmpty() && !overridden("OTEL_EXPORTER_OTLP_ENDPOINT"))
        base = endpointUrl(text, u"OTEL_EXPORTER_OTLP_ENDPOINT"_s, warnings);
    else if (!configuredEndpoint.trimmed().isEmpty())
        base =
            endpointUrl(configuredEndpoint.trimmed(), u"The configured OTLP endpoint"_s, warnings);
    const auto signalUrl = [&](const char *name, const QString &path) -> std::optional<QUrl> {
        const QString text = envValue(env, name);
        if (!text.isEmpty() && !overridden(name)) {
            const std::optional<QUrl> url = endpointUrl(text, varName(name), warnings);
            return url ? std::optional<QUrl>(asIs(*url)) : std::nullopt;
        }
        return base ? std::optional<QUrl>(joined(*base, path)) : std::nullopt;
    };
    const std::optional<QUrl> traces =
        signalUrl("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", u"v1/traces"_s);
    const std::optional<QUrl> metrics =
        signalUrl("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", u"v1/metrics"_s);
    const auto selected = [&](const char *name, bool isMetrics) {
        if (exporterSelected(env, name, isMetrics, warnings))
            return true;
        return overridden(name); // "none" does not turn the policy's export off
    };
    if (traces && selected("OTEL_TRACES_EXPORTER", false)) {
        config.tracesEnabled = true;
        config.tracesUrl = *traces;
    }
    if (metrics && selected("OTEL_METRICS_EXPORTER", true)) {
        config.metricsEnabled = true;
        config.metricsUrl = *metrics;
    }

    // How to send.
    checkProtocol(env, "OTEL_EXPORTER_OTLP_PROTOCOL", warnings);
    checkProtocol(env, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", warnings);
    checkProtocol(env, "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", warnings);
    if (const QString text = envValue(env, "OTEL_EXPORTER_OTLP_HEADERS"); !text.isEmpty())
        config.headers = parseHeaders(text, u"OTEL_EXPORTER_OTLP_HEADERS"_s, warnings);
    if (const QString text = envValue(env, "OTEL_EXPORTER_OTLP_TRACES_HEADERS"); !text.isEmpty())
        config.tracesOptions.headers =
            parseHeaders(text, u"OTEL_EXPORTER_OTLP_TRACES_HEADERS"_s, warnings);
    if (const QString text = envValue(env, "OTEL_EXPORTER_OTLP_METRICS_HEADERS"); !text.isEmpty())
        config.metricsOptions.headers =
            parseHeaders(text, u"OTEL_EXPORTER_OTLP_METRICS_HEADERS"_s, warnings);
    config.timeoutMs = positiveInt(env, "OTEL_EXPORTER_OTLP_TIMEOUT", config.timeoutMs, warnings);
    config.tracesOptions.timeoutMs =
        optionalPositiveInt(env, "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", warnings, config.timeoutMs);
    config.metricsOptions.timeoutMs =
        optionalPositiveInt(env, "OTEL_EXPORTER_OTLP_METRICS_TIMEOUT", warnings, config.timeoutMs);
    config.gzip = compression(env, "OTEL_EXPORTER_OTLP_COMPRESSION", warnings).value_or(false);
    config.tracesOptions.gzip = compression(env, "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", warnings);
    config.metricsOptions.gzip =
        compression(env, "OTEL_EXPORTER_OTLP_METRICS_COMPRESSION", warnings);
    for (const char *name :
         {"OTEL_EXPORTER_OTLP_CERTIFICATE", "OTEL_EXPORTER_OTLP_CLIENT_KEY",
          "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE",
          "OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY", "OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE",
          "OTEL_EXPORTER_OTLP_METRICS_CERTIFICATE", "OTEL_EXPORTER_OTLP_METRICS_CLIENT_KEY",
          "OTEL_EXPORTER_OTLP_METRICS_CLIENT_CERTIFICATE"}) {
        if (!envValue(env, name).isEmpty()) {
            warnings << varName(name) +
                            u" is not supported; https uses the system's CA certificates"_s;
        }
    }
    if (const QString text =
            envValue(env, "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE").toLower();
        !text.isEmpty() && text != u"cumulative"_s) {
        warnings << u"OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE="_s + quoted(text) +
                        u" is not supported; metrics are cumulative"_s;
    }

    // When to send.
    config.scheduleDelayMs =
        positiveInt(env, "OTEL_BSP_SCHEDULE_DELAY", config.scheduleDelayMs, warnings);
    config.spanExportTimeoutMs =
        positiveInt(env, "OTEL_BSP_EXPORT_TIMEOUT", config.spanExportTimeoutMs, warnings);
    config.maxQueueSize =
        positiveInt(env, "OTEL_BSP_MAX_QUEUE_SIZE", config.maxQueueSize, warnings);
    config.maxExportBatchSize =
        positiveInt(env, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", config.maxExportBatchSize, warnings);
    if (config.maxExportBatchSize > config.maxQueueSize) {
        // Only a batch size that was asked for is worth a warning.
        if (!envValue(env, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE").isEmpty())
            warnings << u"OTEL_BSP_MAX_EXPORT_BATCH_SIZE is larger than OTEL_BSP_MAX_QUEUE_SIZE; "
                        "using %1"_s.arg(config.maxQueueSize);
        config.maxExportBatchSize = config.maxQueueSize;
    }
    config.metricIntervalMs =
        positiveInt(env, "OTEL_METRIC_EXPORT_INTERVAL", config.metricIntervalMs, warnings);
    config.metricExportTimeoutMs =
        positiveInt(env, "OTEL_METRIC_EXPORT_TIMEOUT", config.metricExportTimeoutMs, warnings);
    if (locked) {
        // The policy's export cannot be starved through its tuning: sooner, more and longer
        // than the defaults are taken; later, fewer or shorter are raised to the defaults.
        const OtlpConfig defaults;
        const auto atLeast = [&](int &value, int floor, const char *name) {
            if (value < floor) {
                warnings << varName(name) + u" below %1 is raised to %1: the policy's "
                                            "observability.otlp_endpoint is exported"_s.arg(floor);
                value = floor;
            }
        };
        const auto atMost = [&](int &value, int ceiling, const char *name) {
            if (value > ceiling) {
                warnings << varName(name) +
                                u" above %1 is lowered to %1: the policy's "
                                "observability.otlp_endpoint is exported"_s.arg(ceiling);
                value = ceiling;
            }
        };
        atMost(config.scheduleDelayMs, defaults.scheduleDelayMs, "OTEL_BSP_SCHEDULE_DELAY");
        atMost(config.metricIntervalMs, defaults.metricIntervalMs, "OTEL_METRIC_EXPORT_INTERVAL");
        atLeast(config.maxQueueSize, defaults.maxQueueSize, "OTEL_BSP_MAX_QUEUE_SIZE");
        atLeast(config.timeoutMs, defaults.timeoutMs, "OTEL_EXPORTER_OTLP_TIMEOUT");
        atLeast(config.spanExportTimeoutMs, defaults.spanExportTimeoutMs,
                "OTEL_BSP_EXPORT_TIMEOUT");
        atLeast(config.metricExportTimeoutMs, defaults.metricExportTimeoutMs,
                "OTEL_METRIC_EXPORT_TIMEOUT");
        for (auto *options : {&config.tracesOptions, &config.metricsOptions}) {
            if (options->timeoutMs && *options->timeoutMs < defaults.timeoutMs) {
                warnings << u"OTEL_EXPORTER_OTLP_{TRACES,METRICS}_TIMEOUT below %1 is raised to "
                            "%1: the policy's observability.otlp_endpoint is exported"_s.arg(
                                defaults.timeoutMs);
                options->timeoutMs = defaults.timeoutMs;
            }
        }
    }

    // Who sends: service.name (OTEL_SERVICE_NAME wins), service.version, then the rest.
    QList<SpanAttribute> given;
    if (const QString text = envValue(env, "OTEL_RESOURCE_ATTRIBUTES"); !text.isEmpty()) {
        if (const auto parsed = parseResource(text))
            given = *parsed;
        else
            warnings << u"OTEL_RESOURCE_ATTRIBUTES is not a list of key=value pairs with "
                        "percent-encoded UTF-8; it is ignored"_s;
    }
    QString serviceName = envValue(env, "OTEL_SERVICE_NAME");
    // The policy's collector knows the broker by its own name: the environment cannot rename it
    // (an administrator's dashboards would go empty).
    if (locked && !serviceName.isEmpty()) {
        warnings << u"OTEL_SERVICE_NAME is ignored: the policy's observability.otlp_endpoint "
                    "wins, and the service is fabric-broker"_s;
        serviceName.clear();
    }
    QString version = serviceVersion;
    QList<SpanAttribute> rest;
    for (const SpanAttribute &a : given) {
        const QString value = std::get<QString>(a.value);
        if (a.key == u"service.name"_s) {
            if (locked)
                warnings << u"service.name in OTEL_RESOURCE_ATTRIBUTES is ignored: the policy's "
                            "observability.otlp_endpoint wins, and the service is "
                            "fabric-broker"_s;
            else if (serviceName.isEmpty())
                serviceName = value;
        } else if (a.key == u"service.version"_s) {
            version = value;
        } else {
            rest.append(a);
        }
    }
    config.resource.append(
        {u"service.name"_s, serviceName.isEmpty() ? u"fabric-broker"_s : serviceName});
    if (!version.isEmpty())
        config.resource.append({u"service.version"_s, version});
    config.resource += rest;
    return config;
}

QString OtlpConfig::describe() const
{
    QStringList parts;
    if (tracesEnabled)
        parts << u"traces to "_s + display(tracesUrl);
    if (metricsEnabled)
        parts << u"metrics to "_s + display(metricsUrl);
    if (parts.isEmpty())
        return u"off"_s;
    return parts.join(u", "_s) + (gzip ? u" (gzip)"_s : QString());
}

// ---- OtlpExporter -------------------------------------------------------------------------

// The exporter's side of a worker's result: set to null by the destructor, under the lock, so a
// worker finishing late posts to nobody.
struct OtlpExporter::Mailbox {
    QMutex mutex;
    OtlpExporter *exporter = nullptr;
};

OtlpExporter::OtlpExporter(OtlpConfig config, Tracer *tracer, MetricRegistry *metrics,
                           QObject *parent)
    : QObject(parent)
    , m_config(std::move(config))
    , m_tracer(tracer)
    , m_metrics(metrics)
    , m_network(new QNetworkAccessManager(this))
{
    m_mailbox = std::make_shared<Mailbox>();
    m_mailbox->exporter = this;
    m_clock.start();
    if (m_tracer && m_config.tracesEnabled) {
        m_tracer->setMaxQueueSize(m_config.maxQueueSize);
        m_tracer->notifyAt(m_config.maxExportBatchSize);
        m_tracerDropsSeen = m_tracer->dropped();
        // Queued: never serialise a batch inside the Span::end() of a request.
        connect(m_tracer, &Tracer::batchReady, this, &OtlpExporter::exportSpans,
                Qt::QueuedConnection);
        m_spanTimer.setInterval(m_config.scheduleDelayMs);
        connect(&m_spanTimer, &QTimer::timeout, this, &OtlpExporter::exportSpans);
        m_spanTimer.start();
    }
    if (m_metrics && m_config.metricsEnabled) {
        m_metricTimer.setInterval(m_config.metricIntervalMs);
        connect(&m_metricTimer, &QTimer::timeout, this, &OtlpExporter::exportMetrics);
        m_metricTimer.start();
    }
    qCDebug(lcOtlp).noquote() << "OTLP export:" << m_config.describe();
}

OtlpExporter::~OtlpExporter()
{
    {
        QMutexLocker lock(&m_mailbox->mutex);
        m_mailbox->exporter = nullptr;
    }
    // No completion may run into a half-destroyed exporter.
    for (const QPointer<QNetworkReply> &reply : std::as_const(m_replies)) {
        if (reply) {
            QObject::disconnect(reply, nullptr, this, nullptr);
            reply->abort();
        }
    }
    m_replies.clear();
    delete m_network;
    m_network = nullptr;
}

bool OtlpExporter::isBusy() const
{
    return m_spansInFlight || m_metricsInFlight || m_metricsAgain || !m_carry.isEmpty() ||
           (m_config.tracesEnabled && m_tracer && m_tracer->queued() > 0);
}

void OtlpExporter::flush()
{
    m_drainSpans = true;
    exportSpans();
    if (m_metricsInFlight)
        m_metricsAgain = true;
    else
        exportMetrics();
}

void OtlpExporter::collectTracerDrops()
{
    if (!m_tracer)
        return;
    const quint64 dropped = m_tracer->dropped();
    if (dropped > m_tracerDropsSeen) {
        m_stats.spansDropped += dropped - m_tracerDropsSeen;
        m_tracerDropsSeen = dropped;
        emit statsChanged();
    }
}

namespace {

// A batch of spans as the worker thread leaves it: the body to post (compressed when asked), the
// spans it holds, and those that did not fit under MaxBodyBytes (they wait for the next request).
struct SerializedSpans {
    QByteArray body;
    qint64 count = 0;
    QList<SpanRecord> rest;
    bool oversized = false; // one span alone was larger than the limit: dropped
    // The spans written, handed back so that they are freed on the event loop's thread, which
    // allocated them (freed on the worker, their memory returns to the allocator from another
    // thread; the event loop's profile with export on showed more time in its slow paths).
    QList<SpanRecord> written;
};

SerializedSpans serializeSpans(QList<SpanRecord> batch, const QList<SpanAttribute> &resource,
                               const QString &version, bool compress, qint64 maxBytes)
{
    SerializedSpans out;
    // Halve until the body fits; what does not fit waits for the next request.
    while (!batch.isEmpty()) {
        out.body = Tracer::otlpJsonBytes(batch, resource, version);
        if (out.body.size() <= maxBytes)
            break;
        if (batch.size() == 1) {
            out.oversized = true;
            batch.clear();
            out.body.clear();
            break;
        }
        const qsizetype keep = batch.size() / 2;
        out.rest = batch.sliced(keep) + out.rest;
        batch.resize(keep);
    }
    out.count = batch.size();
    if (out.count > 0 && compress)
        out.body = gzip(out.body);
    out.written = std::move(batch);
    return out;
}

} // namespace

void OtlpExporter::exportSpans()
{
    if (!m_config.tracesEnabled || !m_tracer)
        return;
    collectTracerDrops();
    if (m_spansInFlight)
        return;
    const int max = qMax(1, m_config.maxExportBatchSize);
    QList<SpanRecord> batch = std::move(m_carry);
    m_carry.clear();
    if (batch.size() < max)
        batch += m_tracer->takeBatch(max - int(batch.size()));
    if (batch.isEmpty()) {
        m_drainSpans = false;
        return;
    }
    QString version;
    for (const SpanAttribute &a : m_config.resource) {
        if (a.key == u"service.version"_s)
            version = std::get<QString>(a.value);
    }
    // Serializing a batch (hundreds of spans, a few ms) happens on a worker thread, never on the
    // event loop that answers requests; the request goes out from the event loop when it is done.
    m_spansInFlight = true;
    const bool compress = m_config.tracesOptions.gzip.value_or(m_config.gzip);
    auto job = [mailbox = m_mailbox, batch = std::move(batch), resource = m_config.resource,
                version, compress]() mutable {
        SerializedSpans result =
            serializeSpans(std::move(batch), resource, version, compress, MaxBodyBytes);
        QMutexLocker lock(&mailbox->mutex);
        if (OtlpExporter *exporter = mailbox->exporter)
            QMetaObject::invokeMethod(
                exporter,
                [exporter, result = std::move(result)]() mutable {
                    exporter->postSpans(std::move(result.body), result.count,
                                        std::move(result.rest), result.oversized);
                    result.written.clear(); // freed here, on the thread that allocated them
                },
                Qt::QueuedConnection);
    };
    QThreadPool::globalInstance()->start(std::move(job));
}

void OtlpExporter::postSpans(QByteArray body, qint64 count, QList<SpanRecord> rest, bool oversized)
{
    m_carry = rest + m_carry;
    if (oversized) {
        m_stats.spansDropped += 1;
        m_stats.lastError = u"traces: a span larger than the body limit"_s;
        logFailure(Signal::Traces, m_stats.lastError);
        emit statsChanged();
    }
    if (count == 0) {
        m_spansInFlight = false;
        QTimer::singleShot(0, this, &OtlpExporter::exportSpans);
        return;
    }
    const qint64 deadline = m_clock.elapsed() + m_config.spanExportTimeoutMs;
    post(Signal::Traces, body, 0, deadline, [this, count](const Outcome &outcome) {
        m_spansInFlight = false;
        if (outcome.ok) {
            const qint64 rejected = qBound<qint64>(0, outcome.rejected, count);
            m_stats.spansExported += quint64(count - rejected);
            m_stats.spansDropped += quint64(rejected);
            m_stats.lastSuccessUnixMs = QDateTime::currentMSecsSinceEpoch();
        } else {
            m_stats.spansDropped += quint64(count);
            m_stats.lastError = outcome.error;
        }
        collectTracerDrops();
        emit statsChanged();
        if (m_tracer && (!m_carry.isEmpty() || m_tracer->queued() >= m_config.maxExportBatchSize ||
                         (m_drainSpans && m_tracer->queued() > 0)))
            QTimer::singleShot(0, this, &OtlpExporter::exportSpans);
        else
            m_drainSpans = false;
    });
}

void OtlpExporter::exportMetrics()
{
    if (!m_config.metricsEnabled || !m_metrics || m_metricsInFlight)
        return;
    m_metricsAgain = false;
    QByteArray body =
        QJsonDocument(m_metrics->otlpJson(nowUnixNano())).toJson(QJsonDocument::Compact);
    if (body.size() > MaxBodyBytes) {
        m_stats.metricExportsFailed += 1;
        m_stats.lastError = u"metrics: the snapshot is larger than the body limit"_s;
        logFailure(Signal::Metrics, m_stats.lastError);
        emit statsChanged();
        return;
    }
    if (m_config.metricsOptions.gzip.value_or(m_config.gzip))
        body = gzip(body);
    m_metricsInFlight = true;
    const qint64 deadline = m_clock.elapsed() + m_config.metricExportTimeoutMs;
    post(Signal::Metrics, body, 0, deadline, [this](const Outcome &outcome) {
        m_metricsInFlight = false;
        if (outcome.ok) {
            m_stats.metricExports += 1;
            m_stats.lastSuccessUnixMs = QDateTime::currentMSecsSinceEpoch();
        } else {
            m_stats.metricExportsFailed += 1;
            m_stats.lastError = outcome.error;
        }
        emit statsChanged();
        if (m_metricsAgain)
            QTimer::singleShot(0, this, &OtlpExporter::exportMetrics);
    });
}

void OtlpExporter::post(Signal signal, QByteArray body, int attempt, qint64 deadlineMs,
                        std::function<void(const Outcome &)> done)
{
    const bool traces = signal == Signal::Traces;
    const OtlpConfig::SignalOptions &options =
        traces ? m_config.tracesOptions : m_config.metricsOptions;
    const QString name = signalName(int(signal));
    const qint64 remaining = deadlineMs - m_clock.elapsed();
    const int timeout = int(
        qMin<qint64>(options.timeoutMs.value_or(m_config.timeoutMs), qMax<qint64>(1, remaining)));

    QNetworkRequest request(traces ? m_config.tracesUrl : m_config.metricsUrl);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArray("application/json"));
    if (options.gzip.value_or(m_config.gzip))
        request.setRawHeader("Content-Encoding", "gzip");
    for (const auto &[key, value] : options.headers.value_or(m_config.headers))
        request.setRawHeader(key, value);
    // A redirect would carry the headers (credentials) elsewhere: it is an answer like others.
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                         QNetworkRequest::ManualRedirectPolicy);
    request.setTransferTimeout(timeout);

    QNetworkReply *reply = m_network->post(request, body);
    reply->setReadBufferSize(MaxResponseBytes);
    m_replies.append(reply);
    auto response = std::make_shared<QByteArray>();
    auto timedOut = std::make_shared<bool>(false);
    connect(reply, &QIODevice::readyRead, this, [reply, response] {
        const qint64 room = MaxResponseBytes - response->size();
        if (room > 0)
            response->append(reply->read(room));
        reply->skip(reply->bytesAvailable());
    });
    // setTransferTimeout counts idle time; this bounds the whole attempt.
    auto *watchdog = new QTimer(reply);
    watchdog->setSingleShot(true);
    connect(watchdog, &QTimer::timeout, reply, [reply, timedOut] {
        *timedOut = true;
        reply->abort();
    });
    watchdog->start(timeout);

    connect(reply, &QNetworkReply::finished, this,
            [this, reply, response, timedOut, signal, body, attempt, deadlineMs, name,
             done = std::move(done)]() mutable {
                m_replies.removeAll(reply);
                reply->deleteLater();
                if (reply->bytesAvailable() > 0) {
                    const qint64 room = MaxResponseBytes - response->size();
                    if (room > 0)
                        response->append(reply->read(room));
                }
                const int status =
                    reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
                const QNetworkReply::NetworkError error = reply->error();
                if (status >= 200 && status < 300) {
                    Outcome outcome;
                    outcome.ok = true;
                    const QJsonObject partial = QJsonDocument::fromJson(*response)
                                                    .object()
                                                    .value(u"partialSuccess"_s)
                                                    .toObject();
                    outcome.rejected = jsonInt(partial.value(
                        signal == Signal::Traces ? u"rejectedSpans"_s : u"rejectedDataPoints"_s));
                    const QString message = oneLine(partial.value(u"errorMessage"_s).toString());
                    if (outcome.rejected > 0 || !message.isEmpty()) {
                        qCInfo(lcOtlp).noquote()
                            << "OTLP" << name << "export partly rejected:" << outcome.rejected
                            << "refused"
                            << (message.isEmpty() ? QString() : u"("_s + message + u')');
                    } else {
                        qCDebug(lcOtlp).noquote() << "OTLP" << name << "export delivered";
                    }
                    done(outcome);
                    return;
                }
                if (status != 0) {
                    const QString what = u"%1: HTTP %2"_s.arg(name).arg(status);
                    if (status == 429 || status == 502 || status == 503 || status == 504) {
                        retryOrGiveUp(signal, body, attempt, deadlineMs,
                                      retryAfterMs(reply->rawHeader("Retry-After")), what,
                                      std::move(done));
                        return;
                    }
                    logFailure(signal, what);
                    done({false, 0, what});
                    return;
                }
                const QString what =
                    name + u": "_s + (*timedOut ? u"timed out"_s : networkErrorName(error));
                if (error == QNetworkReply::SslHandshakeFailedError ||
                    error == QNetworkReply::ProtocolUnknownError ||
                    error == QNetworkReply::ProtocolInvalidOperationError) {
                    logFailure(signal, what);
                    done({false, 0, what});
                    return;
                }
                retryOrGiveUp(signal, body, attempt, deadlineMs, -1, what, std::move(done));
            });
}

void OtlpExporter::retryOrGiveUp(Signal signal, QByteArray body, int attempt, qint64 deadlineMs,
                                 qint64 retryAfter, const QString &error,
                                 std::function<void(const Outcome &)> done)
{
    qint64 delay = 0;
    if (retryAfter >= 0) {
        delay = qMin(retryAfter, MaxRetryAfterMs);
    } else {
        const qint64 base = BackoffBaseMs << qMin(attempt, 20);
        delay = base / 2 + qint64(QRandomGenerator::global()->bounded(quint64(base / 2 + 1)));
    }
    if (attempt >= MaxRetries || m_clock.elapsed() + delay + MinAttemptMs > deadlineMs) {
        logFailure(signal, error);
        done({false, 0, error});
        return;
    }
    qCDebug(lcOtlp).noquote() << error << "- retrying in" << delay << "ms";
    QTimer::singleShot(delay, this,
                       [this, signal, body = std::move(body), attempt, deadlineMs,
                        done = std::move(done)]() mutable {
                           post(signal, std::move(body), attempt + 1, deadlineMs, std::move(done));
                       });
}

void OtlpExporter::logFailure(Signal signal, const QString &error)
{
    const int i = int(signal);
    const qint64 now = m_clock.elapsed();
    if (m_lastFailureLogMs[i] >= 0 && now - m_lastFailureLogMs[i] < LogIntervalMs) {
        ++m_unloggedFailures[i];
        return;
    }
    const int unlogged = m_unloggedFailures[i];
    m_lastFailureLogMs[i] = now;
    m_unloggedFailures[i] = 0;
    if (unlogged > 0)
        qCInfo(lcOtlp).noquote() << "OTLP" << signalName(i) << "export dropped:" << error
                                 << u"(%1 more since the last line)"_s.arg(unlogged);
    else
        qCInfo(lcOtlp).noquote() << "OTLP" << signalName(i) << "export dropped:" << error;
}

} // namespace fb::telemetry
