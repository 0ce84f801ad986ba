#include "core/AuditDayMarker.h"

#include "core/AuditLogDetail.h"
#include "core/CanonicalJson.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace fb {

using namespace Qt::StringLiterals;

QString AuditDayMarker::defaultPath()
{
    QString state = qEnvironmentVariable("XDG_STATE_HOME");
    if (state.isEmpty() || !QDir::isAbsolutePath(state))
        state = QDir::homePath() + u"/.local/state"_s;
    return state + u"/fabric-broker/audit-day"_s;
}

std::optional<AuditDayMarker> AuditDayMarker::read(const QString &path, QString *why)
{
    const auto bytes = auditdetail::readSmallFile(path, FileBytes, why);
    if (!bytes)
        return std::nullopt;
    const QByteArray &buf = *bytes;
    QJsonParseError pe{};
    const QJsonDocument doc = QJsonDocument::fromJson(buf.trimmed(), &pe);
    const QJsonObject o = doc.object();
    AuditDayMarker m;
    m.log = o.value(u"log"_s).toString();
    m.seq = static_cast<qint64>(o.value(u"seq"_s).toDouble(-1));
    m.sha256 = o.value(u"sha256"_s).toString();
    const QDateTime at = QDateTime::fromString(o.value(u"at"_s).toString(), Qt::ISODateWithMs);
    m.atMs = at.isValid() ? at.toMSecsSinceEpoch() : -1;
    static const QRegularExpression hex(u"^[0-9a-f]{64}$"_s);
    if (pe.error != QJsonParseError::NoError || !doc.isObject() ||
        o.value(u"format"_s).toString() != QLatin1String(Format) || o.size() != 5 ||
        !QDir::isAbsolutePath(m.log) || m.seq < 0 || !hex.match(m.sha256).hasMatch() ||
        m.atMs < 0) {
        *why = u"it is not a day marker (\"%1\")"_s.arg(QLatin1String(Format));
        return std::nullopt;
    }
    return m;
}

QByteArray AuditDayMarker::content() const
{
    QByteArray line = canonicalJson(QJsonObject{
        {u"format"_s, QLatin1String(Format)},
        {u"log"_s, log},
        {u"seq"_s, static_cast<double>(seq)},
        {u"sha256"_s, sha256},
        {u"at"_s, QDateTime::fromMSecsSinceEpoch(atMs, Qt::UTC).toString(Qt::ISODateWithMs)}});
    if (line.size() < FileBytes - 1)
        line.append(QByteArray(FileBytes - 1 - line.size(), ' '));
    line.append('\n');
    return line;
}

QString AuditDayMarker::discontinuity(const QString &logPath, qint64 logSeq,
                                      const QString &logSha256, qint64 nowMs, qint64 windowMs,
                                      const QString &markerPath) const
{
    if (atMs < nowMs - windowMs)
        return {};
    const QString fix =
        u"Daily-limit confirms are refused until the day can be counted: restore that log (or "
        "point EQUINIX_MCP_AUDIT_LOG back at it), or have the administrator run `fabric-broker "
        "policy reset-ledger` (audited)."_s;
    const QString at = QDateTime::fromMSecsSinceEpoch(atMs, Qt::UTC).toString(Qt::ISODateWithMs);
    if (QFileInfo(logPath).absoluteFilePath() != log)
        return u"the audit log is now %1, but the last record of the last 24 hours went to %2 "
               "(seq %3 at %4, recorded in %5): the day's creates are not in this log. %6"_s.arg(
                   QFileInfo(logPath).absoluteFilePath(), log, QString::number(seq), at, markerPath,
                   fix);
    if (logSeq < seq || (logSeq == seq && logSha256 != sha256))
        return u"the audit log %1 ends at seq %2, but its record seq %3 of %4 (recorded in %5) "
               "is missing: the log was deleted, truncated or replaced. %6"_s.arg(
                   log, QString::number(logSeq), QString::number(seq), at, markerPath, fix);
    return {};
}

} // namespace fb
