#include "mcp/ToolCall.h"
#include "mcp/Logging.h"
#include "mcp/Protocol.h"
#include "mcp/Session.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTimer>

using namespace Qt::StringLiterals;

namespace fb::mcp {

class ToolCall::Private {
public:
    QPointer<Session> session;
    ToolCallRequest request;
    ClientInfo client; // snapshot, refreshed while the session lives (2025 era)
    bool cancelled = false;
    QString cancelReason;
    bool finished = false;
    bool reportEvenIfCancelled = false;
    double lastProgress = -1;
    bool progressSent = false;
    QByteArray resultJson; // finishStructuredJson()
    QString taskId;
    QString statusMessage;
    QJsonObject taskDetail;

    // Marks the call finished and cancels its client requests; false (with a warning naming
    // the caller) when it had finished already.
    bool markFinished(const ToolCall *owner, const char *twiceWarning)
    {
        if (finished) {
            qCWarning(lcMcpSession) << twiceWarning << request.tool << request.id;
            return false;
        }
        finished = true;
        if (session)
            session->cancelClientRequestsOf(owner, u"The tool call finished"_s);
        return true;
    }
};

ToolCall::ToolCall(Session *session, ToolCallRequest request)
    : d(new Private)
{
    d->session = session;
    d->request = std::move(request);
    if (d->request.modern)
        d->client = d->request.modernClient;
    else if (session)
        d->client = session->clientInfo();
}

ToolCall::~ToolCall()
{
    delete d;
}

QString ToolCall::toolName() const
{
    return d->request.tool;
}

QJsonObject ToolCall::arguments() const
{
    return d->request.arguments;
}

QJsonValue ToolCall::requestId() const
{
    return d->request.id;
}

const ClientInfo &ToolCall::client() const
{
    if (d->session && !d->request.modern)
        d->client = d->session->clientInfo();
    return d->client;
}

bool ToolCall::isModernEra() const
{
    return d->request.modern;
}

bool ToolCall::clientSupportsFormElicitation() const
{
    return client().supportsFormElicitation();
}

QJsonObject ToolCall::requestParams() const
{
    return d->request.params;
}

bool ToolCall::hasProgressToken() const
{
    return d->request.progressToken.isString() || d->request.progressToken.isDouble();
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

bool ToolCall::reportsEvenIfCancelled() const
{
    return d->reportEvenIfCancelled;
}

void ToolCall::markCancelled(const QString &reason)
{
    if (d->cancelled || d->finished)
        return;
    d->cancelled = true;
    d->cancelReason = reason;
    if (d->session)
        d->session->cancelClientRequestsOf(this, u"The tool call was cancelled"_s);
    emit cancelled(reason);
}

void ToolCall::finish(const QJsonObject &callToolResult)
{
    if (!d->markFinished(this, "ToolCall::finish called twice for"))
        return;
    emit finished(callToolResult);
    deleteLater();
}

void ToolCall::finishWithProtocolError(int code, const QString &message)
{
    if (!d->markFinished(this, "ToolCall finished twice for"))
        return;
    emit failed(code, message);
    deleteLater();
}

void ToolCall::finishStructured(const QJsonObject &structured, const QString &text, bool isError)
{
    finish(makeResult(structured, text, isError));
}

void ToolCall::finishStructuredJson(const QJsonObject &structured, const QString &lead,
                                    const QByteArray &structuredJson, bool isError)
{
    const QJsonObject result =
        makeResult(structured, lead + QString::fromUtf8(structuredJson), isError);
    if (!d->markFinished(this, "ToolCall::finish called twice for"))
        return;
    if (!structured.isEmpty()) {
        // The result is {"content":[{"text":T,"type":"text"}][,"isError":true],
        // "structuredContent":S}: Qt writes object keys sorted, and compact. T is lead followed
        // by S's JSON; S's JSON is Qt's own compact output (no raw control character: those are
        // escaped inside its strings; non-ASCII as UTF-8), so as a JSON string it only needs a
        // backslash before each '"' and '\', which is what Qt's escaping does to those bytes.
        // The lead is escaped by Qt itself. tst_session compares both ways byte for byte.
        const QByteArray leadJson =
            QJsonDocument(QJsonArray{lead}).toJson(QJsonDocument::Compact); // ["..."]
        QByteArray &json = d->resultJson;
        json.reserve(2 * structuredJson.size() + leadJson.size() + 96);
        json.append("{\"content\":[{\"text\":\"");
        json.append(QByteArrayView(leadJson).sliced(2, leadJson.size() - 4));
        const qsizetype at = json.size();
        json.resize(at + 2 * structuredJson.size()); // room for a backslash before every byte
        char *out = json.data() + at;
        for (const char c : structuredJson) {
            if (c == '"' || c == '\\')
                *out++ = '\\';
            *out++ = c;
        }
        json.resize(out - json.constData());
        json.append("\",\"type\":\"text\"}]");
        if (isError)
            json.append(",\"isError\":true");
        json.append(",\"structuredContent\":");
        json.append(structuredJson);
        json.append('}');
    }
    emit finished(result);
    deleteLater();
}

QByteArray ToolCall::resultJson() const
{
    return d->resultJson;
}

void ToolCall::finishError(const QString &message, const QJsonObject &structured)
{
    finish(makeResult(structured, message, true));
}

void ToolCall::progress(double progress, double total, const QString &message)
{
    if (!d->finished && !message.isEmpty() && message != d->statusMessage) {
        d->statusMessage = message;
        emit taskStatusChanged();
    }
    if (d->finished || !hasProgressToken() || !d->session)
        return;
    if (d->progressSent && progress <= d->lastProgress)
        return;
    d->progressSent = true;
    d->lastProgress = progress;
    QJsonObject params{{u"progressToken"_s, d->request.progressToken}, {u"progress"_s, progress}};
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
    if (!d->request.modern) {
        d->session->sendLog(level, logger, data);
        return;
    }
    // 2026-07-28: only a request that asked for a log level gets notifications/message.
    const int index = protocol::logLevelIndex(level);
    if (d->finished || d->request.modernLogLevel < 0 || index < d->request.modernLogLevel)
        return;
    QJsonObject params{{u"level"_s, level}, {u"data"_s, data}};
    if (!logger.isEmpty())
        params.insert(u"logger"_s, logger);
    d->session->sendNotification(u"notifications/message"_s, params);
}

qint64 ToolCall::sendClientRequest(const QString &method, const QJsonObject &params, int timeoutMs,
                                   std::function<void(const ClientReply &)> callback)
{
    if (d->finished || d->cancelled || !d->session || d->request.modern) {
        ClientReply reply;
        reply.status = ClientReply::Status::NotSent;
        reply.message = d->finished    ? u"The tool call has already finished"_s
                        : d->cancelled ? u"The tool call was cancelled"_s
                        : d->request.modern
                            ? u"In the 2026-07-28 era the server sends no requests to the client"_s
                            : u"The session has ended"_s;
        QTimer::singleShot(0, QCoreApplication::instance(), [cb = std::move(callback), reply] {
            if (cb)
                cb(reply);
        });
        return 0;
    }
    QJsonObject sent = params;
    if (!d->taskId.isEmpty()) {
        QJsonObject meta = sent.value("_meta"_L1).toObject();
        meta.insert(u"io.modelcontextprotocol/related-task"_s,
                    QJsonObject{{u"taskId"_s, d->taskId}});
        sent.insert(u"_meta"_s, meta);
    }
    return d->session->sendClientRequest(method, sent, timeoutMs, std::move(callback), this);
}

bool ToolCall::becomeTask()
{
    if (!d->request.mayBecomeTask || isTask() || d->finished || d->cancelled || !d->session)
        return false;
    return d->session->escalateToTask(this);
}

void ToolCall::setTask(const QString &taskId)
{
    d->taskId = taskId;
}

QString ToolCall::taskId() const
{
    return d->taskId;
}

bool ToolCall::isTask() const
{
    return !d->taskId.isEmpty();
}

QString ToolCall::statusMessage() const
{
    return d->statusMessage;
}

void ToolCall::setTaskDetail(const QJsonObject &detail)
{
    if (d->finished || detail == d->taskDetail)
        return;
    d->taskDetail = detail;
    emit taskStatusChanged();
}

QJsonObject ToolCall::taskDetail() const
{
    return d->taskDetail;
}

void ToolCall::cancelClientRequest(qint64 id, const QString &reason)
{
    if (d->session)
        d->session->cancelClientRequestOf(this, id, reason);
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

telemetry::Span ToolCall::startSpan(const QString &name) const
{
    if (!d->session || d->finished)
        return {};
    return d->session->startChildSpan(d->request.id, name);
}

void ToolCall::setSpanAttribute(const QString &key, const telemetry::AttributeValue &value)
{
    if (d->session && !d->finished)
        d->session->setOperationAttribute(d->request.id, key, value);
}

telemetry::Telemetry *ToolCall::telemetry() const
{
    return d->session ? d->session->telemetry() : nullptr;
}

} // namespace fb::mcp
