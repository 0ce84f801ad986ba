#pragma once
// TeamAudit: the team's one audit chain (fabric_team.team_audit, docs/team.md). The database
// computes each row's hash inside the insert (a trigger holding the chain head's row lock);
// verify() recomputes every hash here, independently of the database's functions, so a row that
// anyone changed, inserted or removed afterwards (the schema owner included) is found.
#include "team/PgConnection.h"

#include <QByteArray>
#include <QString>

namespace fb::team {

struct TeamAuditVerifyResult {
    bool ok = false;      // the whole chain verified
    bool dbError = false; // could not read it (error says why); ok is false
    qint64 rows = 0;      // rows read
    qint64 firstBadSeq = 0;
    QString problem; // what is wrong, naming the row
    qint64 headSeq = 0;
    QByteArray headHash; // 32 bytes: the last row's hash (zero bytes when empty)
};

class TeamAudit {
public:
    // Appends one event as the connection's role; returns its seq.
    static PgResult<qint64> append(PgConnection &db, const QString &event,
                                   const QString &proposalId, const QByteArray &detailJson);
    // Reads the chain in one snapshot and checks seq, prev_hash and hash of every row and that
    // the last row is the recorded head.
    static TeamAuditVerifyResult verify(PgConnection &db);
    // The row hash of 001_initial.sql's comment; atMicros is microseconds since the epoch (UTC).
    static QByteArray rowHash(const QByteArray &prevHash, qint64 seq, qint64 atMicros,
                              const QByteArray &actor, const QByteArray &event,
                              const QByteArray &proposalId, const QByteArray &detail);
    // "2026-12-01T21:04:05.123456Z"
    static QByteArray timeText(qint64 atMicros);
};

} // namespace fb::team
