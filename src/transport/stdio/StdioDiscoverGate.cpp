#include "transport/stdio/StdioDiscoverGate.h"
#include "mcp/Logging.h"
#include "mcp/ModernEra.h"
#include "mcp/Protocol.h"
#include "transport/stdio/StdioDevices.h"

#include <QJsonDocument>
#include <QTimer>

using namespace Qt::StringLiterals;

namespace fb::transport {

StdioDiscoverGate::StdioDiscoverGate(StdioDevices *devices, const mcp::ServerOptions &options,
                                     QObject *parent)
    : QObject(parent)
    , m_devices(devices)
    , m_discover(mcp::modern::discoverResult(options))
{
}

void StdioDiscoverGate::start(int idleMs, std::function<void()> open)
{
    m_open = std::move(open);
    m_idle = new QTimer(this);
    m_idle->setSingleShot(true);
    connect(m_idle, &QTimer::timeout, this, &StdioDiscoverGate::openGate);
    m_idle->start(idleMs);
    connect(m_devices->input(), &QIODevice::readyRead, this, &StdioDiscoverGate::onReadyRead);
    connect(m_devices->input(), &QIODevice::readChannelFinished, this,
            &StdioDiscoverGate::onInputFinished);
    QMetaObject::invokeMethod(this, &StdioDiscoverGate::onReadyRead, Qt::QueuedConnection);
}

void StdioDiscoverGate::onReadyRead()
{
    if (m_done)
        return;
    m_buffer.append(m_devices->input()->readAll());
    qsizetype newline;
    while (!m_done && (newline = m_buffer.indexOf('\n')) >= 0) {
        const QByteArray line = m_buffer.left(newline);
        if (line.trimmed().isEmpty()) {
            m_buffer.remove(0, newline + 1);
            continue;
        }
        if (!answerLine(line)) {
            openGate();
            return;
        }
        m_buffer.remove(0, newline + 1);
        m_idle->start(); // the next request of this client follows at once, if any
    }
    if (!m_done && m_buffer.size() > 64 * 1024)
        openGate(); // not a probe: the session deals with it
}

void StdioDiscoverGate::onInputFinished()
{
    if (m_done)
        return;
    onReadyRead();
    if (m_done)
        return;
    if (m_answered > 0 && m_buffer.trimmed().isEmpty()) {
        m_done = true;
        m_idle->stop();
        qCInfo(mcp::lcMcpSession) << "end of input after" << m_answered
                                  << "server/discover request(s): nothing else to serve";
        emit finishedEarly();
        return;
    }
    openGate();
    // The session comes after the end was announced: tell it again once it listens.
    StdinDevice *input = m_devices->input();
    QMetaObject::invokeMethod(
        input, [input] { emit input->readChannelFinished(); }, Qt::QueuedConnection);
}

bool StdioDiscoverGate::answerLine(const QByteArray &line)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(line, &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject())
        return false;
    const QJsonObject message = doc.object();
    const QJsonValue id = message.value("id"_L1);
    const QJsonValue params = message.value("params"_L1);
    if (message.value("jsonrpc"_L1) != QJsonValue(u"2.0"_s) ||
        message.value("method"_L1) != QJsonValue(u"server/discover"_s) ||
        !mcp::protocol::isValidRequestId(id) || (!params.isUndefined() && !params.isObject()))
        return false;
    const mcp::modern::Envelope envelope = mcp::modern::readEnvelope(params.toObject());
    if (envelope.kind != mcp::modern::Envelope::Kind::None &&
        envelope.kind != mcp::modern::Envelope::Kind::Modern)
        return false; // its error is the session's to answer
    const QJsonObject response{{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, id}, {u"result"_s, m_discover}};
    QByteArray frame = QJsonDocument(response).toJson(QJsonDocument::Compact);
    frame.append('\n');
    m_devices->output()->write(frame);
    ++m_answered;
    return true;
}

void StdioDiscoverGate::openGate()
{
    if (m_done)
        return;
    m_done = true;
    m_idle->stop();
    disconnect(m_devices->input(), nullptr, this, nullptr);
    m_devices->input()->unread(std::exchange(m_buffer, QByteArray()));
    if (m_open)
        m_open();
}

} // namespace fb::transport
