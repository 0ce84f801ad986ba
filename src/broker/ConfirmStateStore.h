#pragma once
// ConfirmStateStore: the server side of a multi-round-trip confirm (MCP 2026-07-28,
// input_required). Round 1 stores a one-time record of the confirm waiting for a person and
// hands the client an opaque requestState; round 2 brings it back with the person's answer.
//
// requestState is attacker input. It carries no approval and no proposal data, only a random
// record id and an HMAC-SHA-256 over the id and the session, keyed with a per-process random key
// (CSPRNG); it is verified in constant time before anything is looked up. A record is taken
// (removed) exactly once; a state used or timed out is remembered (bounded) so that a late or
// second retry is told what happened.
#include "core/Clock.h"
#include "core/CompiledRequest.h"
#include "core/ProposalStore.h"

#include <QByteArray>
#include <QHash>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QObject>
#include <QTimer>

#include <optional>

namespace fb {

// One confirm waiting for the person's answer: what round 2 needs to go on where round 1 left.
struct PendingConfirm {
    quint64 sessionId = 0;
    QString tokenSha256; // tokenDigest() of the consumed confirm token
    Proposal proposal;
    CompiledRequest request;
    ConfirmChecks checks;
    QJsonValue policy;        // PolicyVerdict::toJson() from round 1
    QJsonObject revalidation; // the re-validation before asking
    QJsonObject client;       // ClientInfo::toJson() of round 1
    qint64 askedAtMs = 0;
    qint64 deadlineMs = 0; // no retry by then: timed_out
};

class ConfirmStateStore : public QObject {
    Q_OBJECT
public:
    // The key of the one form elicitation under inputRequests / inputResponses.
    static constexpr QLatin1StringView InputKey{"confirm"};
    static constexpr qsizetype MaxStateLength = 256;
    static constexpr qsizetype MaxRemembered = 1024;
    // At most this many records wait at once, and this many per session: issuing one more ends
    // the oldest (of the session, else of all) as timed_out (timedOut is emitted for it).
    static constexpr qsizetype MaxPending = 64;
    static constexpr qsizetype MaxPendingPerSession = 16;

    explicit ConfirmStateStore(Clock *clock = Clock::system(), QObject *parent = nullptr);
    ~ConfirmStateStore() override;

    // Stores the record (its deadlineMs set by the caller) and returns its requestState.
    QString issue(const PendingConfirm &record);

    enum class Status {
        Taken,     // verified and removed: the record is yours, exactly once
        Invalid,   // malformed, forged, tampered or from another session: JSON-RPC -32602
        Completed, // a retry of this state already took it: the replayed-token error
        TimedOut,  // the deadline passed before the retry
    };
    struct Lookup {
        Status status = Status::Invalid;
        std::optional<PendingConfirm> record; // Taken, Completed (as taken), TimedOut
        QString endReason; // TimedOut by endAll(): why the record was ended early
    };
    // The state must come from this process, for this session and this confirm token
    // (tokenSha256 of the retry's confirm_token); anything else is Invalid and burns nothing.
    Lookup take(const QString &state, quint64 sessionId, const QString &tokenSha256);

    int pendingCount() const { return int(m_pending.size()); }
    int pendingCount(quint64 sessionId) const;
    // Ends every waiting record now (the Fabric binding changed): each is remembered as timed
    // out with reason (a later retry's Lookup::endReason) and ended is emitted for it; returns
    // how many.
    int endAll(const QString &reason);
    // Ends every record whose deadline has passed (the timer does this on its own).
    void expireDue();

    // The round-1 result: {resultType: "input_required", inputRequests: {confirm:
    // {method: "elicitation/create", params}}, requestState}.
    static QJsonObject inputRequiredResult(const QJsonObject &elicitationParams,
                                           const QString &state);
    // The person's answer (an ElicitResult) in a retry's inputResponses, or nothing when the
    // retry carries none for our request.
    static std::optional<QJsonObject> answerIn(const QJsonValue &inputResponses);

signals:
    // A record's deadline passed without a retry; it is gone (a later retry gets TimedOut).
    void timedOut(const fb::PendingConfirm &record);
    // endAll() ended the record, for reason.
    void ended(const fb::PendingConfirm &record, const QString &reason);

private:
    struct Remembered {
        Status status;
        PendingConfirm record;
        QString endReason;
    };
    QByteArray mac(const QByteArray &id, quint64 sessionId, const QString &tokenSha256) const;
    void remember(const QByteArray &id, Status status, const PendingConfirm &record,
                  const QString &endReason = {});
    void rearm();
    // Removes the oldest waiting record (of sessionId, or of all) as timed out; it is returned
    // for the caller to report.
    std::optional<PendingConfirm> endOldest(std::optional<quint64> sessionId,
                                            const QString &endReason = {});

    Clock *m_clock;
    QByteArray m_key; // 32 random bytes for this process
    QHash<QByteArray, PendingConfirm> m_pending;
    QHash<QByteArray, Remembered> m_remembered;
    QList<QByteArray> m_rememberedOrder; // oldest first
    QList<QByteArray> m_pendingOrder;    // oldest first
    QTimer m_timer;
};

} // namespace fb

Q_DECLARE_METATYPE(fb::PendingConfirm)
