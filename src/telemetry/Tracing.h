#pragma once
// Tracing: spans as the OpenTelemetry MCP semantic conventions name them (docs/observability.md)
// and their OTLP/HTTP JSON form (ExportTraceServiceRequest). No OpenTelemetry C++ SDK is
// packaged in Debian 12; this is the part of one the broker needs: W3C trace context in and out,
// a span handle that ends exactly once, a bounded queue of finished spans that the exporter
// drains in batches (OTEL_BSP_*), and a counted drop when the queue is full.
//
// What a span may hold: names of methods, tools, change types, predicates and outcomes; a
// request's SHA-256; ids the broker made. Never a tool argument's value, a token, a credential
// or a Fabric response body (tests/unit/telemetry and the e2e grep the exported payloads).
#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <memory>
#include <optional>
#include <variant>

namespace fb::telemetry {

// W3C trace context of one span: 16-byte trace id, 8-byte span id, trace flags (bit 0 sampled).
struct SpanContext {
    QByteArray traceId; // 16 raw bytes; empty = invalid
    QByteArray spanId;  // 8 raw bytes
    quint8 flags = 0;
    bool remote = false; // taken from a traceparent

    bool isValid() const; // both ids present, not all zero
    bool isSampled() const { return flags & 0x01; }
    // "00-<32 hex>-<16 hex>-<2 hex>"; empty when invalid.
    QString traceparent() const;
    // Strict W3C parse (version 00 exactly 55 chars; a higher version at least 55 chars with
    // "-" after them; lowercase hex; ids not all zero; version ff invalid). nullopt = ignore
    // and start a new trace.
    static std::optional<SpanContext> fromTraceparent(QStringView text);
};

using AttributeValue = std::variant<QString, qint64, double, bool>;
struct SpanAttribute {
    QString key;
    AttributeValue value;
};

enum class SpanKind { Internal = 1, Server = 2, Client = 3 };

struct SpanEvent {
    QString name;
    qint64 timeUnixNano = 0;
    QList<SpanAttribute> attributes;
};

struct SpanRecord {
    QString name;
    SpanKind kind = SpanKind::Internal;
    SpanContext context;     // this span (trace id shared with its parent)
    QByteArray parentSpanId; // 8 raw bytes, empty for a root
    bool parentRemote = false;
    qint64 startUnixNano = 0;
    qint64 endUnixNano = 0;
    QList<SpanAttribute> attributes;
    QList<SpanEvent> events;
    bool error = false;            // status ERROR (error.type set)
    QString statusMessage;         // with error
    quint32 droppedAttributes = 0; // beyond Span::MaxAttributes (droppedAttributesCount)
    quint32 droppedEvents = 0;     // beyond Span::MaxEvents (droppedEventsCount)
};

class Tracer;

// A span being recorded. Move-only; a default-constructed or unsampled span records nothing
// and every call on it is a cheap no-op. end() finishes it once (later calls do nothing); the
// destructor ends a span not ended yet. The tracer may be destroyed first: the span then
// records nothing. Bounds (OpenTelemetry's default span limits): a string value (attribute,
// event name, status message) keeps its first MaxStringLength characters; a span keeps
// MaxAttributes attributes and MaxEvents events, an event MaxAttributes attributes; what is
// beyond them is counted (droppedAttributesCount, droppedEventsCount) and not kept. Setting a
// key again replaces its value.
class Span {
public:
    static constexpr int MaxStringLength = 4096;
    static constexpr int MaxAttributes = 128;
    static constexpr int MaxEvents = 128;

    Span() = default;
    Span(Span &&other) noexcept;
    Span &operator=(Span &&other) noexcept;
    Span(const Span &) = delete;
    Span &operator=(const Span &) = delete;
    ~Span();

    bool isRecording() const { return m_record != nullptr; }
    // This span's context (for children); invalid when not recording.
    SpanContext context() const;
    void setAttribute(const QString &key, const AttributeValue &value);
    void addEvent(const QString &name, const QList<SpanAttribute> &attributes = {});
    // Status ERROR with error.type = type (and the message as the status description).
    void setError(const QString &type, const QString &message = {});
    void end();

private:
    friend class Tracer;
    QPointer<Tracer> m_tracer;
    std::unique_ptr<SpanRecord> m_record;
};

class Tracer : public QObject {
    Q_OBJECT
public:
    explicit Tracer(QObject *parent = nullptr);
    ~Tracer() override;

    // Off by default: startSpan returns non-recording spans and nothing is queued.
    void setEnabled(bool enabled);
    bool isEnabled() const { return m_enabled; }
    // OTEL_BSP_MAX_QUEUE_SIZE (default 2048): finished spans beyond it are dropped and counted.
    void setMaxQueueSize(int size);
    int maxQueueSize() const { return m_maxQueue; }

    // A new span. With a valid parent it joins the parent's trace (parentbased sampling: an
    // unsampled remote parent gives a non-recording span); without one it starts a new trace,
    // sampled. Ids come from QRandomGenerator::global() (seeded from the system once).
    Span startSpan(const QString &name, SpanKind kind, const SpanContext &parent = {});

    // Spans that end while the tracer is disabled are discarded (not counted as dropped).
    int queued() const { return static_cast<int>(m_queue.size()); }
    quint64 dropped() const { return m_dropped; }
    // Removes and returns up to max finished spans, oldest first.
    QList<SpanRecord> takeBatch(int max);

    // ExportTraceServiceRequest JSON for a batch: resource attributes (service.name first), one
    // scope "fabric-broker", ids as lowercase hex, times as decimal strings, kind and status
    // code as integers, flags 0x100|trace flags (0x300|... for a remote parent).
    static QJsonObject otlpJson(const QList<SpanRecord> &spans,
                                const QList<SpanAttribute> &resource, const QString &scopeVersion);
    // The same document as compact JSON bytes, written directly without a QJsonObject per span
    // (what the exporter sends; tst_tracing checks both parse to the same JSON).
    static QByteArray otlpJsonBytes(const QList<SpanRecord> &spans,
                                    const QList<SpanAttribute> &resource,
                                    const QString &scopeVersion);

signals:
    // A span was queued; queued() reached the batch size given to notifyAt (the exporter's
    // OTEL_BSP_MAX_EXPORT_BATCH_SIZE) — the exporter may export early.
    void batchReady();

public:
    void notifyAt(int batchSize) { m_notifyAt = batchSize; }

private:
    friend class Span;
    void finish(std::unique_ptr<SpanRecord> record);

    bool m_enabled = false;
    int m_maxQueue = 2048;
    int m_notifyAt = 512;
    QList<SpanRecord> m_queue;
    quint64 m_dropped = 0;
};

// Nanoseconds since the Unix epoch (CLOCK_REALTIME).
qint64 nowUnixNano();

} // namespace fb::telemetry
