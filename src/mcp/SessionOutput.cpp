// Session: what it writes. Responses (single, or gathered for a batch), errors, notifications
// and log messages, each serialized as one complete frame and handed to the FrameWriter.
#include "mcp/Logging.h"
#include "mcp/Protocol.h"
#include "mcp/Session.h"

#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace fb::mcp {

namespace {

QJsonObject errorObject(int code, const QString &message, const QJsonValue &data)
{
    QJsonObject error{{u"code"_s, code}, {u"message"_s, message}};
    if (!data.isUndefined() && !data.isNull())
        error.insert(u"data"_s, data);
    return error;
}
} // namespace

void Session::sendNotification(const QString &method, const QJsonObject &params)
{
    if (m_closed)
        return;
    QJsonObject message{{u"jsonrpc"_s, u"2.0"_s}, {u"method"_s, method}};
    if (!params.isEmpty())
        message.insert(u"params"_s, params);
    writeMessage(message);
}

bool Session::sendLog(const QString &level, const QString &logger, const QJsonValue &data)
{
    const int index = protocol::logLevelIndex(level);
    if (index < 0) {
        qCWarning(lcMcpSession) << "not a log level:" << level;
        return false;
    }
    if (m_closed || !m_initializeAnswered || index < m_logLevel)
        return false;
    QJsonObject params{{u"level"_s, level}, {u"data"_s, data}};
    if (!logger.isEmpty())
        params.insert(u"logger"_s, logger);
    sendNotification(u"notifications/message"_s, params);
    return true;
}

void Session::notifyToolsListChanged()
{
    if (m_client.initialized)
        sendNotification(u"notifications/tools/list_changed"_s, QJsonObject());
    notifyListeners(u"notifications/tools/list_changed"_s);
}

void Session::respond(const QJsonValue &id, const QJsonObject &result, const BatchPtr &batch)
{
    if (batch) {
        deliver(QJsonObject{{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, id}, {u"result"_s, result}}, batch);
        return;
    }
    // The envelope is written directly: only the result goes through the JSON serializer, and
    // an empty result (ping) not even that.
    respondJson(id, result.isEmpty() ? QByteArrayLiteral("{}")
                                     : QJsonDocument(result).toJson(QJsonDocument::Compact));
}

void Session::respondJson(const QJsonValue &id, const QByteArray &resultJson)
{
    if (m_closed)
        return;
    // Keys in the order Qt's serializer uses (sorted), so every frame has one canonical shape.
    m_writer.writeWith([&](QByteArray &frame) {
        // A frame of its own is sized once (64: the envelope, an integer id and the newline);
        // the coalesced bytes keep their geometric growth (an exact reserve would copy them all
        // for every frame).
        if (frame.isEmpty())
            frame.reserve(resultJson.size() + 64);
        frame.append("{\"id\":");
        protocol::appendValueJson(frame, id);
        frame.append(",\"jsonrpc\":\"2.0\",\"result\":");
        frame.append(resultJson);
        frame.append('}');
    });
}

void Session::respondFlat(const protocol::FlatRequest &request, QByteArrayView resultJson)
{
    if (m_closed)
        return;
    // The same bytes as respondJson: a flat request's id is an integer of at most 15 digits or a
    // string without escapes (scanFlatRequest), so its text is what the serializer writes.
    m_writer.writeWith([&](QByteArray &frame) {
        if (frame.isEmpty())
            frame.reserve(resultJson.size() + 64);
        frame.append("{\"id\":");
        if (request.idIsString)
            frame.append('"').append(request.id).append('"');
        else
            frame.append(request.id);
        frame.append(",\"jsonrpc\":\"2.0\",\"result\":");
        frame.append(resultJson);
        frame.append('}');
    });
}

void Session::respondError(const QJsonValue &id, int code, const QString &message,
                           const BatchPtr &batch, const QJsonValue &data)
{
    const QJsonValue replyId = id.isUndefined() ? QJsonValue(QJsonValue::Null) : id;
    // The request being dispatched answered with an error: its operation ends with it when the
    // dispatch returns (SessionTelemetry.cpp). Asynchronous errors end theirs where they are made.
    if (!m_dispatchKey.isEmpty() && !id.isUndefined() && !id.isNull() &&
        protocol::idKey(id) == m_dispatchKey)
        m_dispatchError = QString::number(code);
    deliver(QJsonObject{{u"jsonrpc"_s, u"2.0"_s},
                        {u"id"_s, replyId},
                        {u"error"_s, errorObject(code, message, data)}},
            batch);
}

void Session::deliver(QJsonObject message, const BatchPtr &batch)
{
    if (batch)
        batch->responses.append(std::move(message));
    else
        writeMessage(message);
}

void Session::finishBatchItem(const BatchPtr &batch)
{
    --batch->pending;
    if (batch->sealed && batch->pending == 0)
        flushBatch(batch);
}

void Session::flushBatch(const BatchPtr &batch)
{
    if (batch->responses.isEmpty())
        return; // a batch of notifications only gets no response
    const QJsonArray responses = std::exchange(batch->responses, {});
    writeFrame(QJsonDocument(responses).toJson(QJsonDocument::Compact));
}

void Session::writeMessage(const QJsonObject &message)
{
    writeFrame(QJsonDocument(message).toJson(QJsonDocument::Compact));
}

void Session::writeFrame(QByteArray frame)
{
    if (!m_closed)
        m_writer.write(std::move(frame));
}

} // namespace fb::mcp
