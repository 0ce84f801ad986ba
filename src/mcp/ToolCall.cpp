#include "mcp/ToolCall.h"
#include "mcp/Logging.h"
#include "mcp/Protocol.h"
#include "mcp/ToolCall_p.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTimer>

using namespace Qt::StringLiterals;

namespace fb::mcp {

ToolCall::ToolCall(Session *session, QJsonValue id, QString tool, QJsonObject arguments,
                   QJsonValue progressToken)
    : d(new Private)
{
    d->session = session;
    d->id = std::move(id);
    d->tool = std::move(tool);
    d->arguments = std::move(arguments);
    d->progressToken = std::move(progressToken);
    if (session)
        d->client = session->clientInfo();
}

ToolCall::~ToolCall()
{
    delete d;
}

QString ToolCall::toolName() const
{
    return d->tool;
}

QJsonObject ToolCall::arguments() const
{
    return d->arguments;
}

QJsonValue ToolCall::requestId() const
{
    return d->id;
}

const ClientInfo &ToolCall::client() const
{
    if (d->session && !d->modern)
        d->client = d->session->clientInfo();
    return d->client;
}

bool ToolCall::isModernEra() const
{
    return d->modern;
}

bool ToolCall::clientSupportsFormElicitation() const
{
    return client().supportsFormElicitation();
}

QJsonObject ToolCall::requestParams() const
{
    return d->params;
}

bool ToolCall::hasProgressToken() const
{
    return d->progressToken.isString() || d->progressToken.isDouble();
}

bool ToolCall::isCancelled() const
{
    return d->cancelled;
}

QString ToolCall::cancelReason() const
{
    return d->cancelReason;
}

bool ToolCall::isFinished() const
{
    return d->finished;
}

void ToolCall::setReportEvenIfCancelled(bool report)
{
    d->reportEvenIfCancelled = report;
}

void ToolCall::finish(const QJsonObject &callToolResult)
{
    if (d->finished) {
        qCWarning(lcMcpSession) << "ToolCall::finish called twice for" << d->tool << d->id;
        return;
    }
    d->finished = true;
    const QList<qint64> outstanding = std::exchange(d->clientRequests, {});
    if (d->session) {
        for (qint64 rid : outstanding)
            d->session->cancelClientRequest(rid, u"The tool call finished"_s);
        d->session->toolCallFinished(this, callToolResult);
    }
    deleteLater();
}

void ToolCall::finishStructured(const QJsonObject &structured, const QString &text, bool isError)
{
    finish(makeResult(structured, text, isError));
}

void ToolCall::finishError(const QString &message, const QJsonObject &structured)
{
    finish(makeResult(structured, message, true));
}

void ToolCall::progress(double progress, double total, const QString &message)
{
    if (d->finished || !hasProgressToken() || !d->session)
        return;
    if (d->progressSent && progress <= d->lastProgress)
        return;
    d->progressSent = true;
    d->lastProgress = progress;
    QJsonObject params{{u"progressToken"_s, d->progressToken}, {u"progress"_s, progress}};
    if (total >= 0)
        params.insert(u"total"_s, total);
    if (!message.isEmpty())
        params.insert(u"message"_s, message);
    d->session->sendNotification(u"notifications/progress"_s, params);
}

void ToolCall::log(const QString &level, const QString &logger, const QJsonValue &data)
{
    if (!d->session)
        return;
    if (!d->modern) {
        d->session->sendLog(level, logger, data);
        return;
    }
    // 2026-07-28: only a request that asked for a log level gets notifications/message.
    const int index = protocol::logLevelIndex(level);
    if (d->finished || d->modernLogLevel < 0 || index < d->modernLogLevel)
        return;
    QJsonObject params{{u"level"_s, level}, {u"data"_s, data}};
    if (!logger.isEmpty())
        params.insert(u"logger"_s, logger);
    d->session->sendNotification(u"notifications/message"_s, params);
}

qint64 ToolCall::sendClientRequest(const QString &method, const QJsonObject &params, int timeoutMs,
                                   std::function<void(const ClientReply &)> callback)
{
    if (d->finished || d->cancelled || !d->session || d->modern) {
        ClientReply reply;
        reply.status = ClientReply::Status::NotSent;
        reply.message = d->finished    ? u"The tool call has already finished"_s
                        : d->cancelled ? u"The tool call was cancelled"_s
                        : d->modern
                            ? u"In the 2026-07-28 era the server sends no requests to the client"_s
                            : u"The session has ended"_s;
        QTimer::singleShot(0, QCoreApplication::instance(), [cb = std::move(callback), reply] {
            if (cb)
                cb(reply);
        });
        return 0;
    }
    const qint64 rid =
        d->session->sendClientRequest(method, params, timeoutMs, std::move(callback), this);
    if (rid > 0)
        d->clientRequests.append(rid);
    return rid;
}

void ToolCall::cancelClientRequest(qint64 id, const QString &reason)
{
    if (!d->clientRequests.contains(id))
        return;
    d->clientRequests.removeAll(id);
    if (d->session)
        d->session->cancelClientRequest(id, reason);
}

QJsonObject ToolCall::makeResult(const QJsonObject &structured, const QString &text, bool isError)
{
    QString rendering = text;
    if (rendering.isEmpty() && !structured.isEmpty())
        rendering = QString::fromUtf8(QJsonDocument(structured).toJson(QJsonDocument::Compact));
    QJsonObject result{
        {u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, rendering}}}}};
    if (!structured.isEmpty())
        result.insert(u"structuredContent"_s, structured);
    if (isError)
        result.insert(u"isError"_s, true);
    return result;
}

} // namespace fb::mcp
