#include "team/DecisionText.h"

#include "core/UntrustedText.h"
#include "team/ApproverDecision.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QStringList>
#include <QTimeZone>

using namespace Qt::StringLiterals;

namespace fb::team {

QString inertLine(const QString &s, qsizetype max)
{
    return UntrustedText::escapeInvisible(UntrustedText::bounded(s, max));
}

QString priceText(const TeamProposal &p)
{
    if (!p.price)
        return u"unpriced"_s;
    const QJsonObject &o = *p.price;
    // One arg() call: a currency holding "%2" stays text.
    return u"%1 %2 monthly recurring"_s.arg(
        inertLine(o.value(u"currency"_s).toString(), 8),
        QString::number(o.value(u"monthly_recurring"_s).toDouble(), 'f', 2));
}

QString refusalText(const TeamProposal &p)
{
    const QString why = refusalOf(p);
    if (why.isEmpty())
        return {};
    return u"Refused: this proposal is not shown and cannot be approved here: %1."_s.arg(
        inertLine(why, 300));
}

QString decisionText(const TeamProposal &p)
{
    const FabricTarget target = fabricTargetOf(p);
    const QString endpoint =
        target.endpoint.isEmpty() ? u"(none given)"_s : inertLine(target.endpoint, 256);
    const QString body =
        QString::fromUtf8(QJsonDocument::fromJson(p.request).toJson(QJsonDocument::Indented));
    QStringList lines{
        u"Change: %1"_s.arg(inertLine(p.changeType, 64)),
        u"Proposed by role %1 (OS user %2 on %3)"_s.arg(
            inertLine(p.proposer, 64), inertLine(p.osUser, 64), inertLine(p.host, 64)),
        u"MCP client: %1"_s.arg(inertLine(p.mcpClient)),
        u"Price: %1"_s.arg(priceText(p)),
        target.sandbox ? u"Fabric: Sandbox, endpoint %1 (loopback, on the proposing "
                         "workstation: nothing is billed)"_s.arg(endpoint)
                       : u"Fabric: Production, endpoint %1 (billable)"_s.arg(endpoint),
        u"Fabric credentials: %1"_s.arg(
            target.identity.isEmpty() ? u"(none given)"_s : inertLine(target.identity, 256)),
        u"State: %1"_s.arg(inertLine(p.state, 16)),
        u"Expires: %1"_s.arg(
            QDateTime::fromMSecsSinceEpoch(p.expiresMs, QTimeZone::utc()).toString(Qt::ISODate)),
        u"Request SHA-256: %1"_s.arg(QString::fromLatin1(requestSha256Shown(p))),
        u"Request:"_s};
    for (const QString &line : body.split(u'\n', Qt::SkipEmptyParts))
        lines << u"  "_s + inertLine(line, 400);
    if (p.resolution) {
        const TeamResolution &r = *p.resolution;
        lines << u"Outcome resolved by role %1 (OS user %2 on %3) at %4: %5%6"_s.arg(
            inertLine(r.resolver, 64), inertLine(r.osUser, 64), inertLine(r.host, 64),
            QDateTime::fromMSecsSinceEpoch(r.resolvedMs, QTimeZone::utc()).toString(Qt::ISODate),
            inertLine(r.outcome, 16),
            r.uuid.isEmpty() ? QString() : u" "_s + inertLine(r.uuid, 64));
    }
    return lines.join(u'\n');
}

QString summaryLine(const TeamProposal &p)
{
    return u"%1 by %2 (%3), %4"_s.arg(inertLine(p.changeType, 64), inertLine(p.proposer, 64),
                                      priceText(p), inertLine(p.state, 16));
}

bool isInert(QStringView text)
{
    for (const QStringView line : text.split(u'\n')) {
        if (UntrustedText::escapeInvisible(line) != line)
            return false;
    }
    return true;
}

} // namespace fb::team
