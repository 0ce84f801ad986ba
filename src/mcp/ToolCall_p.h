#pragma once
// Private state of a ToolCall, shared by ToolCall.cpp and Session.cpp.
#include "mcp/Session.h"
#include "mcp/ToolCall.h"

#include <QList>
#include <QPointer>

namespace fb::mcp {

class ToolCall::Private {
public:
    QPointer<Session> session;
    QJsonValue id;
    QString tool;
    QJsonObject arguments;
    QJsonValue progressToken; // undefined = none
    ClientInfo client;        // snapshot, refreshed while the session lives
    bool cancelled = false;
    QString cancelReason;
    bool finished = false;
    bool reportEvenIfCancelled = false;
    double lastProgress = -1;
    bool progressSent = false;
    QList<qint64> clientRequests; // outstanding server-to-client requests of this call
    QJsonObject params;           // the whole tools/call params
    bool modern = false;          // served in the 2026-07-28 era: client is per request, fixed
    int modernLogLevel = -1;      // modern: the request's logLevel index, -1 = no logs
};

} // namespace fb::mcp
