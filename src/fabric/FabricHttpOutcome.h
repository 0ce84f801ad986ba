#pragma once
// FabricHttpOutcome: what one finished Fabric HTTP exchange means, as a pure function (no
// network, no clock, no log): the status, the body bytes, the error state of the reply and
// whether a byte of the request left this process go in; the FabricResult (and whether to
// refresh the token and retry once) comes out. FabricClient's HttpCall feeds it every reply;
// tests/unit/fabric/tst_fabrichttpoutcome.cpp checks it row by row. A real create's answer is
// decided by decideCreateOutcome() (FabricResult.h), which this reuses.
#include "core/ChangeType.h"
#include "fabric/FabricResult.h"

#include <QByteArray>
#include <QNetworkReply>
#include <QString>
#include <QUrl>

namespace fb {

// What a call is: a read (GET, or a POST to a .../search endpoint), a dry run, a real create,
// or the connection test (which never reaches Fabric's API).
enum class FabricCallMode { Read, DryRun, Create, TestConnection };
// Which credentials the client sent: they decide what a 401 means.
enum class FabricCredentials { ClientCredentials, StaticToken, None };

struct HttpExchange {
    // The call.
    FabricCallMode mode = FabricCallMode::Read;
    QByteArray method = QByteArrayLiteral("GET");
    QString path;                                         // without the query
    ChangeType changeType = ChangeType::ConnectionCreate; // dry runs and creates
    QByteArray requestBody; // a create's body names it in the lookup hint
    QString correlationId;  // the X-CORRELATION-ID sent
    FabricCredentials credentials = FabricCredentials::None;
    bool retried = false; // a 401 was already answered with a fresh token and one retry
    int timeoutMs = 30000;
    qint64 maxResponseBytes = 16 * 1024 * 1024;
    QUrl endpoint;
    bool fileAnswer = false; // a read of a file: a 2xx body is described, not parsed

    // The answer. No response header changes the outcome; only the status does.
    int status = 0; // 0 = no HTTP answer arrived
    QByteArray body;
    bool tooLarge = false; // aborted while downloading: the reply was over maxResponseBytes
    QString contentType;   // the Content-Type header (described for a file answer)
    QUrl refusedRedirect;  // a redirect that was not followed (the reply was aborted)
    QNetworkReply::NetworkError error = QNetworkReply::NoError;
    QString errorString;
    bool bytesLeft = false; // whether any byte of the request left this process
};

struct HttpDecision {
    enum class Action {
        Finish,          // finish the call with result
        RefreshAndRetry, // a read or dry run got a 401: fetch a fresh token and send once more
    };
    Action action = Action::Finish;
    FabricResult result;          // kind, message, httpStatus, body, errors, requestSent
    bool invalidateToken = false; // Fabric rejected the token that was sent (a 401)
    QString warning; // a line for the warning log ("outcome unknown for ..."), or empty
};

HttpDecision decideHttpOutcome(const HttpExchange &exchange);
// A Content-Type as "type/subtype" (lower case, parameters dropped), or "unknown" when it is not
// made of token characters: a file answer's type is shown to the agent as it is.
QString mediaType(const QString &contentType);

// A result of the given kind, message and HTTP status (the rest filled in when the call finishes).
FabricResult callResult(FabricResult::Kind kind, const QString &message, int httpStatus = 0);

// The words messages use for a call: "connection" (the noun of its change type), "connection
// create" / "connection dry run" / "connection test" / "request GET /fabric/v4/...", and the
// path as shown ("...?dryRun=true" for a dry run).
QString callWhat(FabricCallMode mode, const QByteArray &method, const QString &path,
                 ChangeType changeType);
QString callShownPath(FabricCallMode mode, const QString &path);
// "Look it up before trying again: POST <collection>/search with a filter on /name = "<name>"
// [, and quote correlation id <id> to Equinix support if needed]."
QString createLookupHint(ChangeType changeType, const QByteArray &requestBody,
                         const QString &correlationId);

} // namespace fb
