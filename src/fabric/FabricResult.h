#pragma once
// FabricResult: the typed outcome of one Fabric call, and the agent-facing rendering of it.
#include "core/PropertyReasons.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QMetaType>
#include <QString>

namespace fb {

// One entry of the Fabric ErrorList.
struct FabricError {
    QString errorCode; // e.g. "EQ-3142306"
    QString errorMessage;
    QString correlationId;
    QString details;
    PropertyReasons additionalInfo;
    QJsonObject toJson() const;
};

struct FabricResult {
    enum class Kind {
        Ok,                // 2xx with a JSON body
        FabricError,       // 4xx/5xx carrying a Fabric ErrorList
        AuthError,         // OAuth failure or 401/403 after refresh
        HttpError,         // non-2xx without a parsable ErrorList
        NetworkError,      // connection refused, DNS, TLS... before the request was sent
        Timeout,           // no reply in time (reads, dry runs)
        OutcomeUnknown,    // real create sent, then timeout or lost connection
        DryRunUnsupported, // EQ-3142411
        InvalidResponse,   // unparsable body, or a dry run reply with a uuid
        Cancelled,         // aborted before a real create was sent
    };
    Kind kind = Kind::Ok;
    int httpStatus = 0;
    QJsonValue body;
    QList<FabricError> errors;
    QString message;          // one sentence an agent can act on; never secrets
    QString correlationId;    // X-CORRELATION-ID we sent
    bool requestSent = false; // whether the request bytes left this process
    QString method;
    QString path;

    bool ok() const { return kind == Kind::Ok; }
    static QString kindName(Kind kind); // "ok", "fabric_error", ...
    // {"kind", "http_status", "message", "correlation_id", "errors": [...]} (no body)
    QJsonObject toJson() const;
};

// What the answer to a real create (POST without dryRun) says about the resource. Only a
// documented Fabric rejection, a 4xx carrying a Fabric ErrorList, proves that nothing was
// created. Every other answer once the request left (a 5xx even with an ErrorList, a 3xx, a 4xx
// without an ErrorList, a malformed or oversized body, a 2xx without a uuid, a timeout, a reset)
// may follow a commit on Fabric's side, so the outcome is unknown and the create is never resent.
enum class CreateOutcome {
    Created,  // 2xx whose body is a JSON object with a non-empty string "uuid"
    Rejected, // 4xx with a Fabric ErrorList: nothing was created
    Unknown,  // sent, and nothing proves either way
    NotSent,  // not a byte of the request left this process: nothing was created
};
// "created", "rejected", "unknown", "not_sent" (the broker's execution.outcome).
QString createOutcomeName(CreateOutcome outcome);
// The decision as a pure function. sent: whether any byte of the request left this process;
// httpStatus: 0 when no answer arrived; fabricErrorList: the body parsed as a Fabric ErrorList;
// uuid: the body is a JSON object with a non-empty string "uuid".
CreateOutcome decideCreateOutcome(bool sent, int httpStatus, bool fabricErrorList, bool uuid);
// The same decision for the result of a finished FabricClient::create() call.
CreateOutcome createOutcome(const FabricResult &result);

} // namespace fb

Q_DECLARE_METATYPE(fb::FabricResult)
