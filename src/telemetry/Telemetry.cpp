#include "telemetry/Telemetry.h"

using namespace Qt::StringLiterals;

namespace fb::telemetry {

const QList<double> &decisionDurationBuckets()
{
    static const QList<double> bounds{1, 2, 5, 10, 20, 30, 60, 120, 300, 600};
    return bounds;
}

Telemetry::Telemetry(const QString &serviceVersion, QObject *parent)
    : QObject(parent)
    , m_tracer(new Tracer(this))
    , m_metrics(std::make_unique<MetricRegistry>(u"fabric-broker"_s, serviceVersion))
{
    m_operationDuration = m_metrics->histogram(
        QString::fromLatin1(names::OperationDuration),
        u"MCP request or notification duration as observed on the receiver from the time it "
        "was received until the result or ack is sent"_s,
        u"s"_s, mcpDurationBuckets());
    m_sessionDuration = m_metrics->histogram(QString::fromLatin1(names::SessionDuration),
                                             u"The duration of the MCP session as observed on "
                                             "the MCP server"_s,
                                             u"s"_s, mcpDurationBuckets());
    m_decisions = m_metrics->counter(QString::fromLatin1(names::Decisions),
                                     u"Human decisions on proposed creates, by outcome and "
                                     "channel"_s,
                                     u"{decision}"_s);
    m_decisionDuration = m_metrics->histogram(QString::fromLatin1(names::DecisionDuration),
                                              u"Time from asking a person to their decision"_s,
                                              u"s"_s, decisionDurationBuckets());
    m_creates = m_metrics->counter(QString::fromLatin1(names::Creates),
                                   u"Creates whose bytes were sent, by outcome"_s, u"{create}"_s);
    m_metrics->gauge(
        QString::fromLatin1(names::TelemetryDropped),
        u"Spans and metric exports dropped (queue full, collector unreachable or "
        "refusing)"_s,
        u"{item}"_s, [this] {
            QList<GaugePoint> points;
            // The exporter's count includes the tracer's queue overflow.
            const quint64 spans =
                m_exporter ? m_exporter->stats().spansDropped : m_tracer->dropped();
            points.append({Attributes::of({{u"signal"_s, u"traces"_s}}), double(spans)});
            points.append({Attributes::of({{u"signal"_s, u"metrics"_s}}),
                           double(m_exporter ? m_exporter->stats().metricExportsFailed : 0)});
            return points;
        });
}

Telemetry::~Telemetry()
{
    delete m_exporter;
    m_exporter = nullptr;
}

void Telemetry::recordDecision(const QString &outcome, const QString &channel, double seconds)
{
    const Attributes attributes = Attributes::of(
        {{u"fabric_broker.decision"_s, outcome}, {u"fabric_broker.channel"_s, channel}});
    m_decisions->add(1, attributes);
    if (seconds >= 0)
        m_decisionDuration->record(seconds, attributes);
}

void Telemetry::recordCreate(const QString &changeType, const QString &outcome)
{
    m_creates->add(1, Attributes::of({{u"fabric_broker.change_type"_s, changeType},
                                      {u"fabric_broker.outcome"_s, outcome}}));
}

void Telemetry::configureExport(const OtlpConfig &config)
{
    delete m_exporter;
    m_exporter = nullptr;
    m_tracer->setEnabled(config.tracesEnabled);
    m_tracer->setMaxQueueSize(config.maxQueueSize);
    m_tracer->notifyAt(config.maxExportBatchSize);
    if (config.anyEnabled()) {
        m_exporter = new OtlpExporter(config, m_tracer, m_metrics.get(), this);
        connect(m_exporter, &OtlpExporter::statsChanged, this, &Telemetry::exportChanged);
    }
    emit exportChanged();
}

void Telemetry::flush()
{
    if (m_exporter)
        m_exporter->flush();
}

} // namespace fb::telemetry
