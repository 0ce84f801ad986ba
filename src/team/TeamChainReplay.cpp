#include "team/TeamChainReplay.h"

#include "core/Sha256.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QSet>

using namespace Qt::StringLiterals;

namespace fb::team {

namespace {

QJsonObject detailOf(const QByteArray &json)
{
    return QJsonDocument::fromJson(json).object();
}

QString text(const QJsonObject &o, const char *key)
{
    return o.value(QLatin1StringView(key)).toString();
}

// The hash of a signed statement as the triggers record it (absent when there is none).
QString statementSha256(const QByteArray &statement)
{
    return statement.isEmpty() ? QString() : QString::fromLatin1(Sha256::hash(statement).toHex());
}

QString base64(const QByteArray &raw)
{
    return raw.isEmpty() ? QString() : QString::fromLatin1(raw.toBase64());
}

// One member of an event's detail against the row's value: the name reported when they differ.
struct Expected {
    const char *key;
    QString value;
    QString name;
};

// The names of the members whose event text is not the signed row's value, comma-separated
// (empty when all agree): the row's own members, then what every signed row has.
QString differing(const QJsonObject &d, std::initializer_list<Expected> own,
                  const QByteArray &dialogSha256, const QByteArray &statement,
                  const QByteArray &publicKey)
{
    QList<Expected> expected(own);
    expected << Expected{"dialog_sha256", QString::fromLatin1(dialogSha256.toHex()),
                         u"dialog_sha256"_s}
             << Expected{"statement_sha256", statementSha256(statement), u"statement"_s}
             << Expected{"public_key", base64(publicKey), u"public_key"_s};
    QStringList what;
    for (const Expected &e : std::as_const(expected))
        if (text(d, e.key) != e.value)
            what << e.name;
    return what.join(u", "_s);
}

// What of the approval row differs from its approval_recorded event (empty when nothing).
QString approvalDiffers(const HistoryApproval &a, const QJsonObject &d)
{
    return differing(d, {{"decision", a.row.decision, u"decision"_s}}, a.row.dialogSha256,
                     a.row.statement, a.row.publicKey);
}

QString resolutionDiffers(const HistoryResolution &r, const QJsonObject &d)
{
    return differing(d,
                     {{"outcome", r.row.outcome, u"outcome"_s},
                      {"resolver", r.row.resolver, u"resolver"_s},
                      {"uuid", r.row.uuid, u"uuid"_s}},
                     r.row.dialogSha256, r.row.statement, r.row.publicKey);
}

// What of the proposal row differs from its proposal_created event (whose actor is the role that
// inserted it). expires_at is the
// database's microsecond time in the session's zone; the row's is in milliseconds.
QString proposalDiffers(const TeamProposal &p, const ChainProposal &c)
{
    const QJsonObject &d = c.created;
    QStringList what;
    if (c.createdBy != p.proposer)
        what << u"proposer"_s;
    if (text(d, "change_type") != p.changeType)
        what << u"change_type"_s;
    if (text(d, "request_sha256") != QString::fromLatin1(p.requestSha256.toLower()))
        what << u"request_sha256"_s;
    const QDateTime expires = QDateTime::fromString(text(d, "expires_at"), Qt::ISODateWithMs);
    if (!expires.isValid() || std::abs(expires.toMSecsSinceEpoch() - p.expiresMs) > 1)
        what << u"expires_at"_s;
    return what.join(u", "_s);
}

// A row the chain has no event for: written past the table's triggers.
QString missingFromChain(const QString &row, const char *event)
{
    return row + u": the team audit chain has no %1 event for it: the row was written past the "
                 "table's triggers"_s.arg(QLatin1StringView(event));
}

// A row that differs from its event (at seq) in what.
QString changedSinceRecorded(const QString &row, const char *event, qint64 seq, const QString &what)
{
    return row +
           u": differs from its %1 event (seq %2) in its %3: changed after it was recorded"_s.arg(
               QLatin1StringView(event), QString::number(seq), what);
}

} // namespace

ChainReplay replayChain(const TeamHistory &history)
{
    ChainReplay r;
    // Chain -> state: each proposal's events in seq order.
    // When each proposal began, as far as the chain says: its proposal_created event, else the
    // latest event naming it.
    QHash<QByteArray, qint64> beganAtMicros;
    for (const HistoryAuditRow &row : history.audit) {
        if (row.proposalId.isEmpty())
            continue;
        const QString at = u"team audit row seq %1 (%2 of proposal %3)"_s.arg(row.seq).arg(
            shown(row.event), shown(row.proposalId));
        ChainProposal &c = r.proposals[row.proposalId];
        if (c.createdSeq == 0)
            beganAtMicros[row.proposalId] = row.atMicros;
        const QJsonObject d = detailOf(row.detail);
        if (row.event == "proposal_created") {
            if (c.createdSeq != 0) {
                r.failures.append(
                    at + u": the proposal was already created at seq %1"_s.arg(c.createdSeq));
            } else {
                c.createdSeq = row.seq;
                c.created = d;
                c.createdBy = QString::fromUtf8(row.actor);
            }
        } else if (row.event == "proposal_state") {
            const QString from = text(d, "from"), to = text(d, "to");
            if (c.createdSeq == 0)
                r.failures.append(at + u": moves it before its proposal_created event"_s);
            else if (from != c.state)
                r.failures.append(
                    at +
                    u": moves it from %1 to %2, but the chain had it %3 (seq %4): a state "
                    "changed without a chain event"_s.arg(shown(from), shown(to), shown(c.state))
                        .arg(c.stateSeq));
            c.state = to;
            c.stateSeq = row.seq;
            if (to == u"sending" && c.sendingSeq == 0)
                c.sendingSeq = row.seq;
        } else if (row.event == "approval_recorded") {
            c.approvals.append({row.seq, d});
        } else if (row.event == "outcome_resolved") {
            c.resolutions.append({row.seq, d});
        }
    }

    // Rows -> chain.
    QSet<QByteArray> rows;
    for (const TeamProposal &p : history.proposals) {
        rows.insert(p.id);
        const QString row = u"proposal %1 (%2, proposed by %3)"_s.arg(shown(p.id), shown(p.state),
                                                                      shown(p.proposer));
        const ChainProposal c = r.proposals.value(p.id);
        if (c.createdSeq == 0) {
            r.failures.append(missingFromChain(row, "proposal_created"));
            continue;
        }
        if (const QString what = proposalDiffers(p, c); !what.isEmpty())
            r.failures.append(
                row +
                u": differs from its proposal_created event (seq %2) in its %1"_s.arg(what).arg(
                    c.createdSeq));
        if (c.state != p.state)
            r.failures.append(
                row + u": the team audit chain has it %1 (%2): a state changed without a chain "
                      "event"_s.arg(shown(c.state),
                                    c.stateSeq
                                        ? u"its last proposal_state event, seq %1"_s.arg(c.stateSeq)
                                        : u"no proposal_state event"_s));
    }
    // Chain -> rows: every proposal the chain names.
    for (auto it = r.proposals.cbegin(); it != r.proposals.cend(); ++it) {
        if (rows.contains(it.key()))
            continue;
        if (history.sinceMs && beganAtMicros.value(it.key()) < *history.sinceMs * 1000)
            continue; // created before the history begins
        r.failures.append(
            u"proposal %1: the team audit chain names it (first at seq %2) but no "
            "proposal row has that id: the row was dropped from the table"_s.arg(shown(it.key()))
                .arg(it->createdSeq ? it->createdSeq : it->stateSeq));
    }

    // Approvals both ways, by proposal and role (one decision per role and proposal).
    QSet<qint64> matched;
    for (const HistoryApproval &a : history.approvals) {
        const QString row = u"approval %1 (proposal %2, %3, %4)"_s.arg(
            shown(a.id), shown(a.proposalId), shown(a.row.approver), shown(a.row.decision));
        const ChainProposal c = r.proposals.value(a.proposalId);
        const auto e = std::find_if(c.approvals.cbegin(), c.approvals.cend(), [&](const auto &ev) {
            return !matched.contains(ev.seq) && text(ev.detail, "approver") == a.row.approver;
        });
        if (e == c.approvals.cend()) {
            r.failures.append(missingFromChain(row, "approval_recorded"));
            continue;
        }
        matched.insert(e->seq);
        r.approvalSeq.insert(a.id, e->seq);
        if (const QString what = approvalDiffers(a, e->detail); !what.isEmpty())
            r.failures.append(changedSinceRecorded(row, "approval_recorded", e->seq, what));
    }
    for (auto it = r.proposals.cbegin(); it != r.proposals.cend(); ++it)
        for (const ChainProposal::Event &e : it->approvals)
            if (rows.contains(it.key()) && !matched.contains(e.seq))
                r.failures.append(
                    u"team audit row seq %1 records %2's %3 of proposal %4, but no approval row "
                    "holds it: the row was dropped from the table"_s.arg(e.seq)
                        .arg(shown(text(e.detail, "approver")), shown(text(e.detail, "decision")),
                             shown(it.key())));

    // Resolutions both ways, by resolution id.
    QSet<QString> resolved;
    for (const HistoryResolution &res : history.resolutions) {
        const QString row = u"resolution %1 (proposal %2, %3, %4)"_s.arg(
            shown(res.row.id), shown(res.proposalId), shown(res.row.resolver),
            shown(res.row.outcome));
        const ChainProposal c = r.proposals.value(res.proposalId);
        const auto e =
            std::find_if(c.resolutions.cbegin(), c.resolutions.cend(), [&](const auto &ev) {
                return text(ev.detail, "resolution_id") == QString::fromLatin1(res.row.id);
            });
        if (e == c.resolutions.cend()) {
            r.failures.append(missingFromChain(row, "outcome_resolved"));
            continue;
        }
        resolved.insert(text(e->detail, "resolution_id"));
        if (const QString what = resolutionDiffers(res, e->detail); !what.isEmpty())
            r.failures.append(changedSinceRecorded(row, "outcome_resolved", e->seq, what));
    }
    for (auto it = r.proposals.cbegin(); it != r.proposals.cend(); ++it)
        for (const ChainProposal::Event &e : it->resolutions)
            if (rows.contains(it.key()) && !resolved.contains(text(e.detail, "resolution_id")))
                r.failures.append(u"team audit row seq %1 records resolution %2 (%3) of proposal "
                                  "%4, but no resolution row holds it: the row was dropped from "
                                  "the table"_s.arg(e.seq)
                                      .arg(shown(text(e.detail, "resolution_id")),
                                           shown(text(e.detail, "outcome")), shown(it.key())));
    return r;
}

} // namespace fb::team
