#pragma once
// OtlpExporter: OTLP/HTTP with the JSON encoding (POST <endpoint>/v1/traces and /v1/metrics,
// Content-Type application/json), configured by the standard OTEL_* variables, which the policy
// file and Settings may also set (docs/observability.md). Off by default. Everything happens off
// the request path on the event loop: spans are batched (OTEL_BSP_SCHEDULE_DELAY,
// OTEL_BSP_MAX_EXPORT_BATCH_SIZE), metrics are sent every OTEL_METRIC_EXPORT_INTERVAL, one
// request per signal is in flight at a time, bodies are bounded, and an unreachable or failing
// collector costs a counted drop (fabric_broker.telemetry.dropped), never a wait.
//
// Retries: only 429, 502, 503, 504 and a network error without a response, honouring
// Retry-After (bounded), else exponential backoff with jitter, at most MaxRetries, within the
// export timeout; every other status drops the batch. A partialSuccess answer is not retried.
#include "telemetry/Tracing.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QPointer>
#include <QProcessEnvironment>
#include <QStringList>
#include <QTimer>
#include <QUrl>

#include <functional>
#include <memory>
#include <optional>

class QNetworkAccessManager;
class QNetworkReply;

namespace fb::telemetry {

class MetricRegistry;

struct OtlpConfig {
    bool tracesEnabled = false;
    bool metricsEnabled = false;
    QUrl tracesUrl;                                   // http(s)://host:port/v1/traces
    QUrl metricsUrl;                                  // http(s)://host:port/v1/metrics
    QList<std::pair<QByteArray, QByteArray>> headers; // OTEL_EXPORTER_OTLP_[SIGNAL_]HEADERS
    int timeoutMs = 10000;                            // OTEL_EXPORTER_OTLP_[SIGNAL_]TIMEOUT
    bool gzip = false;                                // OTEL_EXPORTER_OTLP_COMPRESSION=gzip
    int scheduleDelayMs = 5000;                       // OTEL_BSP_SCHEDULE_DELAY
    int maxQueueSize = 2048;                          // OTEL_BSP_MAX_QUEUE_SIZE
    int maxExportBatchSize = 512;                     // OTEL_BSP_MAX_EXPORT_BATCH_SIZE
    int metricIntervalMs = 60000;                     // OTEL_METRIC_EXPORT_INTERVAL
    int spanExportTimeoutMs = 30000;   // OTEL_BSP_EXPORT_TIMEOUT: one batch, retries included
    int metricExportTimeoutMs = 30000; // OTEL_METRIC_EXPORT_TIMEOUT: one export, retries included
    // What OTEL_EXPORTER_OTLP_{TRACES,METRICS}_{HEADERS,TIMEOUT,COMPRESSION} set for one
    // signal: when present it replaces headers, timeoutMs or gzip for that signal.
    struct SignalOptions {
        std::optional<QList<std::pair<QByteArray, QByteArray>>> headers;
        std::optional<int> timeoutMs;
        std::optional<bool> gzip;
    };
    SignalOptions tracesOptions;
    SignalOptions metricsOptions;
    QList<SpanAttribute> resource; // service.name (OTEL_SERVICE_NAME), OTEL_RESOURCE_ATTRIBUTES
    QStringList warnings;          // what was ignored and why (one line each; no header values)

    bool anyEnabled() const { return tracesEnabled || metricsEnabled; }

    // From the environment (and an endpoint the policy or Settings give, used when
    // OTEL_EXPORTER_OTLP_ENDPOINT is unset; empty = none). Export is on only when an endpoint
    // is configured (a variable, the policy or Settings) and OTEL_SDK_DISABLED is not true;
    // OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER = none turn a signal off. A protocol other
    // than http/json, a malformed number or URL is a warning and the default is used.
    // policyEndpoint: configuredEndpoint is the operator policy's (observability.otlp_endpoint)
    // and wins: OTEL_EXPORTER_OTLP_[SIGNAL_]ENDPOINT, OTEL_SDK_DISABLED and
    // OTEL_{TRACES,METRICS}_EXPORTER are then ignored, each with a warning.
    static OtlpConfig fromEnvironment(const QProcessEnvironment &environment,
                                      const QString &configuredEndpoint = {},
                                      const QString &serviceVersion = {},
                                      bool policyEndpoint = false);
    // Endpoint shown in Settings and logs: scheme, host, port and path; never headers.
    QString describe() const;
};

class OtlpExporter : public QObject {
    Q_OBJECT
public:
    static constexpr int MaxRetries = 3;
    static constexpr qint64 MaxBodyBytes = 4 * 1024 * 1024; // per request (before gzip)
    static constexpr qint64 MaxResponseBytes = 64 * 1024;

    // tracer and metrics may be null (that signal is not exported). Neither is owned.
    OtlpExporter(OtlpConfig config, Tracer *tracer, MetricRegistry *metrics,
                 QObject *parent = nullptr);
    ~OtlpExporter() override;

    const OtlpConfig &config() const { return m_config; }
    // Exports what is queued now (spans and a metrics snapshot), e.g. at shutdown; returns at once.
    void flush();
    // An export is in flight, or spans wait in the tracer or in a split batch.
    bool isBusy() const;

    struct Stats {
        quint64 spansExported = 0;
        quint64 spansDropped = 0; // queue overflow (the tracer's) + failed batches
        quint64 metricExports = 0;
        quint64 metricExportsFailed = 0;
        qint64 lastSuccessUnixMs = 0; // any signal
        QString lastError;            // one line, no header values
    };
    const Stats &stats() const { return m_stats; }

signals:
    void statsChanged();

private:
    enum class Signal { Traces = 0, Metrics = 1 };
    // How one export ended: delivered (ok; rejected = items the collector refused in a
    // partialSuccess) or dropped (error: one line for Stats::lastError and the log).
    struct Outcome {
        bool ok = false;
        qint64 rejected = 0;
        QString error;
    };
    void exportSpans();
    // On the event loop, with a batch the worker thread serialized (exportSpans).
    void postSpans(QByteArray body, qint64 count, QList<SpanRecord> rest, bool oversized);
    struct Mailbox;
    std::shared_ptr<Mailbox> m_mailbox;
    void exportMetrics();
    void collectTracerDrops();
    // POSTs body (already compressed when the signal uses gzip) and retries as the header
    // comment says until deadlineMs (m_clock); done runs once, on the event loop.
    void post(Signal signal, QByteArray body, int attempt, qint64 deadlineMs,
              std::function<void(const Outcome &)> done);
    void retryOrGiveUp(Signal signal, QByteArray body, int attempt, qint64 deadlineMs,
                       qint64 retryAfterMs, const QString &error,
                       std::function<void(const Outcome &)> done);
    void logFailure(Signal signal, const QString &error);

    OtlpConfig m_config;
    QPointer<Tracer> m_tracer;
    MetricRegistry *m_metrics;
    QNetworkAccessManager *m_network;
    QTimer m_spanTimer;
    QTimer m_metricTimer;
    bool m_spansInFlight = false;
    bool m_metricsInFlight = false;
    bool m_drainSpans = false;   // flush(): export batches until the queue is empty
    bool m_metricsAgain = false; // flush() while a metrics export was in flight
    QList<SpanRecord> m_carry;   // rest of a batch split to stay under MaxBodyBytes
    quint64 m_tracerDropsSeen = 0;
    QList<QPointer<QNetworkReply>> m_replies; // in flight
    qint64 m_lastFailureLogMs[2] = {-1, -1};  // m_clock; one line a minute per signal
    int m_unloggedFailures[2] = {0, 0};
    Stats m_stats;
    QElapsedTimer m_clock;
};

} // namespace fb::telemetry
