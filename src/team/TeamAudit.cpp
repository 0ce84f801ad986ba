#include "team/TeamAudit.h"

#include "core/Sha256.h"

#include <QDateTime>

namespace fb::team {

namespace {

constexpr qint64 BatchRows = 1000;

void addField(Sha256 &h, const QByteArray &field)
{
    const QByteArray encoded = QByteArray::number(field.size()) + ':' + field + ';';
    h.addData(encoded);
}

} // namespace

QByteArray TeamAudit::timeText(qint64 atMicros)
{
    qint64 secs = atMicros / 1000000;
    qint64 micros = atMicros % 1000000;
    if (micros < 0) {
        micros += 1000000;
        --secs;
    }
    const QDateTime t = QDateTime::fromSecsSinceEpoch(secs, Qt::UTC);
    return t.toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss")).toLatin1() + '.' +
           QByteArray::number(micros).rightJustified(6, '0') + 'Z';
}

QByteArray TeamAudit::rowHash(const QByteArray &prevHash, qint64 seq, qint64 atMicros,
                              const QByteArray &actor, const QByteArray &event,
                              const QByteArray &proposalId, const QByteArray &detail)
{
    Sha256 h;
    h.addData(prevHash);
    h.addData(QByteArrayView("fabric-broker team_audit 1\n"));
    addField(h, QByteArray::number(seq));
    addField(h, timeText(atMicros));
    addField(h, actor);
    addField(h, event);
    addField(h, proposalId);
    addField(h, detail);
    const auto digest = h.result();
    return QByteArray(reinterpret_cast<const char *>(digest.data()),
                      static_cast<qsizetype>(digest.size()));
}

PgResult<qint64> TeamAudit::append(PgConnection &db, const QString &event,
                                   const QString &proposalId, const QByteArray &detailJson)
{
    PgResult<qint64> out;
    const auto r = db.exec(
        "INSERT INTO fabric_team.team_audit (event, proposal_id, detail) "
        "VALUES ($1, $2::uuid, $3) RETURNING seq",
        {event.toUtf8(), proposalId.isEmpty() ? QByteArray() : proposalId.toUtf8(), detailJson});
    if (!r.ok()) {
        out.error = r.error;
        return out;
    }
    out.value = r.value->value(0, "seq").toLongLong();
    return out;
}

TeamAuditVerifyResult TeamAudit::verify(PgConnection &db)
{
    TeamAuditVerifyResult v;
    v.headHash = QByteArray(32, '\0');
    auto fail = [&v](const PgError &e) {
        v.dbError = true;
        v.problem = e.text();
        return v;
    };
    // One snapshot: rows appended while this reads are neither half-seen nor blamed.
    const PgReadSnapshot snapshot(db);
    if (!snapshot.ok())
        return fail(snapshot.error());

    QByteArray prev(32, '\0');
    qint64 lastSeq = 0;
    for (;;) {
        const auto r = db.exec(
            "SELECT seq, (extract(epoch FROM at) * 1000000)::bigint AS at_us, actor, event, "
            "proposal_id, detail, prev_hash, hash FROM fabric_team.team_audit WHERE seq > $1 "
            "ORDER BY seq LIMIT $2",
            {QByteArray::number(lastSeq), QByteArray::number(BatchRows)});
        if (!r.ok())
            return fail(r.error);
        const PgRows &rows = *r.value;
        for (int i = 0; i < rows.rowCount(); ++i) {
            const qint64 seq = rows.value(i, "seq").toLongLong();
            ++v.rows;
            auto bad = [&](const QString &problem) {
                v.firstBadSeq = seq;
                v.problem = QStringLiteral("row seq %1: ").arg(seq) + problem;
                return v;
            };
            if (seq != lastSeq + 1)
                return bad(QStringLiteral("expected seq %1 (rows missing)").arg(lastSeq + 1));
            const auto prevHash = fromByteaText(rows.value(i, "prev_hash"));
            const auto hash = fromByteaText(rows.value(i, "hash"));
            if (!prevHash || !hash || hash->size() != 32)
                return bad(QStringLiteral("hash columns unreadable"));
            if (*prevHash != prev)
                return bad(QStringLiteral("prev_hash is not the hash of the row before it"));
            const QByteArray computed = rowHash(
                prev, seq, rows.value(i, "at_us").toLongLong(), rows.value(i, "actor"),
                rows.value(i, "event"), rows.value(i, "proposal_id"), rows.value(i, "detail"));
            if (computed != *hash)
                return bad(QStringLiteral("its content does not match its hash (the row was "
                                          "changed after it was written)"));
            prev = *hash;
            lastSeq = seq;
        }
        if (rows.rowCount() < BatchRows)
            break;
    }
    v.headSeq = lastSeq;
    v.headHash = prev;
    const auto head = db.exec("SELECT seq, hash FROM fabric_team.team_audit_head");
    if (!head.ok())
        return fail(head.error);
    if (head.value->rowCount() != 1 || head.value->value(0, "seq").toLongLong() != lastSeq ||
        fromByteaText(head.value->value(0, "hash")) != prev) {
        v.firstBadSeq = lastSeq + 1;
        v.problem = QStringLiteral("the chain ends at seq %1 but its recorded head is seq %2 "
                                   "(rows removed from the end?)")
                        .arg(lastSeq)
                        .arg(QString::fromUtf8(head.value->value(0, "seq")));
        return v;
    }
    v.ok = true;
    return v;
}

} // namespace fb::team
