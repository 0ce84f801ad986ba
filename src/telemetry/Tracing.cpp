// Tracing: see Tracing.h. Spans live on the thread of their tracer (the broker's event loop);
// nothing here locks. A non-recording span is a null record: no allocation, every call a no-op.
#include "telemetry/Tracing.h"

#include <QJsonArray>
#include <QLocale>
#include <QRandomGenerator>

#include <time.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

using namespace Qt::StringLiterals;

namespace fb::telemetry {

namespace {

bool allZero(const QByteArray &bytes)
{
    for (const char c : bytes) {
        if (c != 0)
            return false;
    }
    return true;
}

// size random bytes, never all zero (an all-zero id is invalid), from Qt's global generator:
// seeded once from the system, no system call per id (two ids per request; trace ids need to be
// unique, not secret).
// The resource attributes as both OTLP writers send them: service.name first (a default when
// the caller gave none, only the first when it gave several), then the rest in their order.
QList<SpanAttribute> orderedResource(const QList<SpanAttribute> &resource)
{
    QList<SpanAttribute> ordered;
    bool named = false;
    for (const SpanAttribute &a : resource) {
        if (a.key != u"service.name"_s)
            ordered.append(a);
        else if (!named)
            ordered.prepend(a);
        named = named || a.key == u"service.name"_s;
    }
    if (!named)
        ordered.prepend({u"service.name"_s, u"fabric-broker"_s});
    return ordered;
}

QByteArray randomId(int size)
{
    QByteArray id(size, Qt::Uninitialized);
    do {
        quint32 words[4];
        QRandomGenerator::global()->fillRange(words);
        memcpy(id.data(), words, size_t(size));
    } while (allZero(id));
    return id;
}

bool isLowerHex(QChar c)
{
    return (c >= u'0' && c <= u'9') || (c >= u'a' && c <= u'f');
}

// The bytes of a lowercase hex field; empty when a character is not lowercase hex.
QByteArray lowerHexBytes(QStringView text)
{
    for (const QChar c : text) {
        if (!isLowerHex(c))
            return {};
    }
    return QByteArray::fromHex(text.toLatin1());
}

QString bounded(const QString &text)
{
    return text.size() > Span::MaxStringLength ? text.left(Span::MaxStringLength) : text;
}

AttributeValue boundedValue(const AttributeValue &value)
{
    if (const auto *text = std::get_if<QString>(&value))
        return bounded(*text);
    return value;
}

// Sets key to value in a list (replacing an earlier value of the key); false when the list is
// full and the key new.
bool putAttribute(QList<SpanAttribute> &list, const QString &key, const AttributeValue &value)
{
    for (SpanAttribute &a : list) {
        if (a.key == key) {
            a.value = boundedValue(value);
            return true;
        }
    }
    if (list.size() >= Span::MaxAttributes)
        return false;
    list.append({key, boundedValue(value)});
    return true;
}

QString decimal(qint64 value)
{
    return QString::number(value);
}

QJsonObject anyValue(const AttributeValue &value)
{
    return std::visit(
        [](const auto &v) -> QJsonObject {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, QString>) {
                return {{u"stringValue"_s, v}};
            } else if constexpr (std::is_same_v<T, qint64>) {
                return {{u"intValue"_s, decimal(v)}};
            } else if constexpr (std::is_same_v<T, double>) {
                // JSON numbers cannot hold these; the proto3 JSON mapping spells them as strings.
                if (std::isnan(v))
                    return {{u"doubleValue"_s, u"NaN"_s}};
                if (std::isinf(v))
                    return {{u"doubleValue"_s, v > 0 ? u"Infinity"_s : u"-Infinity"_s}};
                return {{u"doubleValue"_s, v}};
            } else {
                return {{u"boolValue"_s, v}};
            }
        },
        value);
}

QJsonArray attributesJson(const QList<SpanAttribute> &attributes)
{
    QJsonArray array;
    for (const SpanAttribute &a : attributes)
        array.append(QJsonObject{{u"key"_s, a.key}, {u"value"_s, anyValue(a.value)}});
    return array;
}

QJsonObject spanJson(const SpanRecord &span)
{
    QJsonObject o;
    o.insert(u"traceId"_s, QString::fromLatin1(span.context.traceId.toHex()));
    o.insert(u"spanId"_s, QString::fromLatin1(span.context.spanId.toHex()));
    if (!span.parentSpanId.isEmpty())
        o.insert(u"parentSpanId"_s, QString::fromLatin1(span.parentSpanId.toHex()));
    o.insert(u"name"_s, span.name);
    o.insert(u"kind"_s, int(span.kind));
    o.insert(u"startTimeUnixNano"_s, decimal(span.startUnixNano));
    o.insert(u"endTimeUnixNano"_s, decimal(span.endUnixNano));
    o.insert(u"attributes"_s, attributesJson(span.attributes));
    if (span.droppedAttributes > 0)
        o.insert(u"droppedAttributesCount"_s, qint64(span.droppedAttributes));
    if (!span.events.isEmpty()) {
        QJsonArray events;
        for (const SpanEvent &e : span.events) {
            events.append(QJsonObject{{u"timeUnixNano"_s, decimal(e.timeUnixNano)},
                                      {u"name"_s, e.name},
                                      {u"attributes"_s, attributesJson(e.attributes)}});
        }
        o.insert(u"events"_s, events);
    }
    if (span.droppedEvents > 0)
        o.insert(u"droppedEventsCount"_s, qint64(span.droppedEvents));
    // Bit 8: whether the parent is remote is known; bit 9: it is.
    o.insert(u"flags"_s, qint64(0x100 | (span.parentRemote ? 0x200 : 0) | span.context.flags));
    QJsonObject status{{u"code"_s, span.error ? 2 : 0}};
    if (span.error && !span.statusMessage.isEmpty())
        status.insert(u"message"_s, span.statusMessage);
    o.insert(u"status"_s, status);
    return o;
}

} // namespace

// ---- SpanContext -------------------------------------------------------------------------

bool SpanContext::isValid() const
{
    return traceId.size() == 16 && spanId.size() == 8 && !allZero(traceId) && !allZero(spanId);
}

QString SpanContext::traceparent() const
{
    if (!isValid())
        return {};
    return u"00-"_s + QString::fromLatin1(traceId.toHex()) + u'-' +
           QString::fromLatin1(spanId.toHex()) + u'-' +
           QString::fromLatin1(QByteArray(1, char(flags)).toHex());
}

std::optional<SpanContext> SpanContext::fromTraceparent(QStringView text)
{
    // version "-" trace-id "-" parent-id "-" trace-flags: 2 + 1 + 32 + 1 + 16 + 1 + 2 = 55.
    constexpr qsizetype Length = 55;
    if (text.size() < Length)
        return std::nullopt;
    const QStringView version = text.first(2);
    if (!isLowerHex(version[0]) || !isLowerHex(version[1]) || version == u"ff")
        return std::nullopt;
    if (version == u"00" ? text.size() != Length : (text.size() > Length && text[Length] != u'-'))
        return std::nullopt;
    if (text[2] != u'-' || text[35] != u'-' || text[52] != u'-')
        return std::nullopt;
    const QByteArray traceId = lowerHexBytes(text.sliced(3, 32));
    const QByteArray spanId = lowerHexBytes(text.sliced(36, 16));
    const QByteArray flags = lowerHexBytes(text.sliced(53, 2));
    if (traceId.size() != 16 || spanId.size() != 8 || flags.size() != 1)
        return std::nullopt;
    SpanContext context;
    context.traceId = traceId;
    context.spanId = spanId;
    context.flags = quint8(flags[0]);
    context.remote = true;
    if (!context.isValid())
        return std::nullopt;
    return context;
}

// ---- Span --------------------------------------------------------------------------------

Span::Span(Span &&other) noexcept
    : m_tracer(std::move(other.m_tracer))
    , m_record(std::move(other.m_record))
{
}

Span &Span::operator=(Span &&other) noexcept
{
    if (this != &other) {
        end();
        m_tracer = std::move(other.m_tracer);
        m_record = std::move(other.m_record);
    }
    return *this;
}

Span::~Span()
{
    end();
}

SpanContext Span::context() const
{
    return m_record ? m_record->context : SpanContext();
}

void Span::setAttribute(const QString &key, const AttributeValue &value)
{
    if (!m_record)
        return;
    if (!putAttribute(m_record->attributes, key, value))
        ++m_record->droppedAttributes;
}

void Span::addEvent(const QString &name, const QList<SpanAttribute> &attributes)
{
    if (!m_record)
        return;
    if (m_record->events.size() >= MaxEvents) {
        ++m_record->droppedEvents;
        return;
    }
    SpanEvent event;
    event.name = bounded(name);
    event.timeUnixNano = nowUnixNano();
    for (const SpanAttribute &a : attributes)
        putAttribute(event.attributes, a.key, a.value);
    m_record->events.append(std::move(event));
}

void Span::setError(const QString &type, const QString &message)
{
    if (!m_record)
        return;
    m_record->error = true;
    m_record->statusMessage = bounded(message);
    setAttribute(u"error.type"_s, type);
}

void Span::end()
{
    if (!m_record)
        return;
    std::unique_ptr<SpanRecord> record = std::move(m_record);
    record->endUnixNano = nowUnixNano();
    if (Tracer *tracer = m_tracer.data())
        tracer->finish(std::move(record));
    m_tracer.clear();
}

// ---- Tracer ------------------------------------------------------------------------------

Tracer::Tracer(QObject *parent)
    : QObject(parent)
{
}

Tracer::~Tracer() = default;

void Tracer::setEnabled(bool enabled)
{
    m_enabled = enabled;
}

void Tracer::setMaxQueueSize(int size)
{
    m_maxQueue = qMax(1, size);
}

Span Tracer::startSpan(const QString &name, SpanKind kind, const SpanContext &parent)
{
    if (!m_enabled)
        return {};
    const bool hasParent = parent.isValid();
    // parentbased_always_on: follow the parent's sampled flag, sample every new trace.
    if (hasParent && !parent.isSampled())
        return {};
    auto record = std::make_unique<SpanRecord>();
    record->name = name;
    record->kind = kind;
    record->attributes.reserve(8); // a request's span has seven (docs/observability.md)
    if (hasParent) {
        record->context.traceId = parent.traceId;
        record->context.flags = parent.flags;
        record->parentSpanId = parent.spanId;
        record->parentRemote = parent.remote;
    } else {
        record->context.traceId = randomId(16);
        record->context.flags = 0x01;
    }
    record->context.spanId = randomId(8);
    record->startUnixNano = nowUnixNano();
    Span span;
    span.m_tracer = this;
    span.m_record = std::move(record);
    return span;
}

void Tracer::finish(std::unique_ptr<SpanRecord> record)
{
    if (!m_enabled)
        return;
    if (m_queue.size() >= m_maxQueue) {
        ++m_dropped;
        return;
    }
    m_queue.append(std::move(*record));
    if (m_notifyAt > 0 && m_queue.size() == m_notifyAt)
        emit batchReady();
}

QList<SpanRecord> Tracer::takeBatch(int max)
{
    const qsizetype n = qBound(qsizetype(0), qsizetype(max), m_queue.size());
    QList<SpanRecord> batch;
    batch.reserve(n);
    for (qsizetype i = 0; i < n; ++i)
        batch.append(std::move(m_queue[i]));
    m_queue.remove(0, n);
    return batch;
}

QJsonObject Tracer::otlpJson(const QList<SpanRecord> &spans, const QList<SpanAttribute> &resource,
                             const QString &scopeVersion)
{
    const QList<SpanAttribute> ordered = orderedResource(resource);

    QJsonObject scope{{u"name"_s, u"fabric-broker"_s}};
    if (!scopeVersion.isEmpty())
        scope.insert(u"version"_s, scopeVersion);
    QJsonArray spanArray;
    for (const SpanRecord &span : spans)
        spanArray.append(spanJson(span));
    const QJsonObject scopeSpans{{u"scope"_s, scope}, {u"spans"_s, spanArray}};
    const QJsonObject resourceSpans{
        {u"resource"_s, QJsonObject{{u"attributes"_s, attributesJson(ordered)}}},
        {u"scopeSpans"_s, QJsonArray{scopeSpans}}};
    return {{u"resourceSpans"_s, QJsonArray{resourceSpans}}};
}

namespace {

// The same document as otlpJson(), written straight into bytes: no tree of QJsonObjects per span
// (the exporter's worker serializes hundreds of spans a batch). tst_tracing checks that both parse
// to the same JSON.
//
// JsonOut writes into one QByteArray through a pointer of its own: an append is a bounds check
// and a memcpy (QByteArray::append goes through its general insert, about as costly as the
// character it writes), the buffer doubles when full and is cut to size once at the end.
class JsonOut {
public:
    void reserve(qsizetype size) { grow(size); }
    // Room for size more bytes, which the caller writes.
    char *extend(qsizetype size)
    {
        if (m_size + size > m_capacity)
            grow(m_size + size);
        char *at = m_data + m_size;
        m_size += size;
        return at;
    }
    void push_back(char c) { *extend(1) = c; }
    void append(const char *bytes, qsizetype size) { memcpy(extend(size), bytes, size_t(size)); }
    void append(const char *text) { append(text, qsizetype(strlen(text))); }
    QByteArray take()
    {
        m_buffer.truncate(m_size);
        return std::move(m_buffer);
    }

private:
    void grow(qsizetype needed)
    {
        const qsizetype capacity = qMax(needed, 2 * m_capacity);
        m_buffer.resize(capacity);
        m_data = m_buffer.data();
        m_capacity = capacity;
    }
    QByteArray m_buffer;
    char *m_data = nullptr;
    qsizetype m_size = 0;
    qsizetype m_capacity = 0;
};

void appendJsonString(JsonOut &out, QStringView text)
{
    static const char hex[] = "0123456789abcdef";
    out.push_back('"');
    // Nearly every string (keys, names, ids) is printable ASCII without a quote or backslash:
    // one byte per character, written in place without a UTF-8 copy.
    const bool plain = std::all_of(text.begin(), text.end(), [](QChar c) {
        const char16_t u = c.unicode();
        return u >= 0x20 && u < 0x7f && u != u'"' && u != u'\\';
    });
    if (plain) {
        char *p = out.extend(text.size());
        for (const QChar c : text)
            *p++ = char(c.unicode());
        out.push_back('"');
        return;
    }
    const QByteArray utf8 = text.toUtf8();
    for (const char ch : utf8) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '"' || c == '\\') {
            out.push_back('\\');
            out.push_back(char(c));
        } else if (c < 0x20) {
            switch (c) {
            case '\n':
                out.append("\\n");
                break;
            case '\r':
                out.append("\\r");
                break;
            case '\t':
                out.append("\\t");
                break;
            default:
                out.append("\\u00");
                out.push_back(hex[c >> 4]);
                out.push_back(hex[c & 0xf]);
            }
        } else {
            out.push_back(char(c));
        }
    }
    out.push_back('"');
}

// Decimal digits of an integer, appended without a temporary.
void appendNumber(JsonOut &out, qint64 value)
{
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    out.append(digits, end - digits);
}

// Lowercase hex of raw id bytes, appended without a temporary.
void appendHex(JsonOut &out, const QByteArray &bytes)
{
    static const char hex[] = "0123456789abcdef";
    char *p = out.extend(2 * bytes.size());
    for (const char ch : bytes) {
        const auto c = static_cast<unsigned char>(ch);
        *p++ = hex[c >> 4];
        *p++ = hex[c & 0xf];
    }
}

void appendAnyValue(JsonOut &out, const AttributeValue &value)
{
    std::visit(
        [&out](const auto &v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, QString>) {
                out.append("{\"stringValue\":");
                appendJsonString(out, v);
            } else if constexpr (std::is_same_v<T, qint64>) {
                out.append("{\"intValue\":\"");
                appendNumber(out, v);
                out.push_back('"');
            } else if constexpr (std::is_same_v<T, double>) {
                out.append("{\"doubleValue\":");
                if (std::isnan(v))
                    out.append("\"NaN\"");
                else if (std::isinf(v))
                    out.append(v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
                else {
                    const QByteArray number =
                        QByteArray::number(v, 'g', QLocale::FloatingPointShortest);
                    out.append(number.constData(), number.size());
                }
            } else {
                out.append("{\"boolValue\":");
                out.append(v ? "true" : "false");
            }
            out.push_back('}');
        },
        value);
}

void appendAttributes(JsonOut &out, const QList<SpanAttribute> &attributes)
{
    out.push_back('[');
    bool first = true;
    for (const SpanAttribute &a : attributes) {
        if (!std::exchange(first, false))
            out.push_back(',');
        out.append("{\"key\":");
        appendJsonString(out, a.key);
        out.append(",\"value\":");
        appendAnyValue(out, a.value);
        out.push_back('}');
    }
    out.push_back(']');
}

void appendSpan(JsonOut &out, const SpanRecord &span)
{
    out.append("{\"traceId\":\"");
    appendHex(out, span.context.traceId);
    out.append("\",\"spanId\":\"");
    appendHex(out, span.context.spanId);
    out.push_back('"');
    if (!span.parentSpanId.isEmpty()) {
        out.append(",\"parentSpanId\":\"");
        appendHex(out, span.parentSpanId);
        out.push_back('"');
    }
    out.append(",\"name\":");
    appendJsonString(out, span.name);
    out.append(",\"kind\":");
    appendNumber(out, int(span.kind));
    out.append(",\"startTimeUnixNano\":\"");
    appendNumber(out, span.startUnixNano);
    out.append("\",\"endTimeUnixNano\":\"");
    appendNumber(out, span.endUnixNano);
    out.push_back('"');
    out.append(",\"attributes\":");
    appendAttributes(out, span.attributes);
    if (span.droppedAttributes > 0) {
        out.append(",\"droppedAttributesCount\":");
        appendNumber(out, span.droppedAttributes);
    }
    if (!span.events.isEmpty()) {
        out.append(",\"events\":[");
        bool first = true;
        for (const SpanEvent &e : span.events) {
            if (!std::exchange(first, false))
                out.push_back(',');
            out.append("{\"timeUnixNano\":\"");
            appendNumber(out, e.timeUnixNano);
            out.push_back('"');
            out.append(",\"name\":");
            appendJsonString(out, e.name);
            out.append(",\"attributes\":");
            appendAttributes(out, e.attributes);
            out.push_back('}');
        }
        out.push_back(']');
    }
    if (span.droppedEvents > 0) {
        out.append(",\"droppedEventsCount\":");
        appendNumber(out, span.droppedEvents);
    }
    out.append(",\"flags\":");
    appendNumber(out, 0x100 | (span.parentRemote ? 0x200 : 0) | span.context.flags);
    out.append(",\"status\":{\"code\":");
    out.append(span.error ? "2" : "0");
    if (span.error && !span.statusMessage.isEmpty()) {
        out.append(",\"message\":");
        appendJsonString(out, span.statusMessage);
    }
    out.append("}}");
}

} // namespace

QByteArray Tracer::otlpJsonBytes(const QList<SpanRecord> &spans,
                                 const QList<SpanAttribute> &resource, const QString &scopeVersion)
{
    const QList<SpanAttribute> ordered = orderedResource(resource);
    JsonOut out;
    out.reserve(256 + spans.size() * 600);
    out.append("{\"resourceSpans\":[{\"resource\":{\"attributes\":");
    appendAttributes(out, ordered);
    out.append("},\"scopeSpans\":[{\"scope\":{\"name\":\"fabric-broker\"");
    if (!scopeVersion.isEmpty()) {
        out.append(",\"version\":");
        appendJsonString(out, scopeVersion);
    }
    out.append("},\"spans\":[");
    bool first = true;
    for (const SpanRecord &span : spans) {
        if (!std::exchange(first, false))
            out.push_back(',');
        appendSpan(out, span);
    }
    out.append("]}]}]}");
    return out.take();
}

qint64 nowUnixNano()
{
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return qint64(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

} // namespace fb::telemetry
