#include "team/TeamVerify.h"

#include "core/Sha256.h"
#include "team/TeamAudit.h"
#include "team/TeamChainReplay.h"

#include <QDateTime>
#include <QHash>
#include <QSet>

using namespace Qt::StringLiterals;

namespace fb::team {

namespace {

QString timeText(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODateWithMs);
}

QString priceText(const std::optional<QJsonObject> &price)
{
    const std::optional<Money> m = monthlyPrice(price.value_or(QJsonObject{}));
    return m ? m->display() + u"/month"_s : u"unpriced"_s;
}

// The chain's hashes from seq 1: the first row that breaks it, named.
QString brokenChain(const QList<HistoryAuditRow> &audit)
{
    QByteArray prev(32, '\0');
    qint64 expected = 1;
    for (const HistoryAuditRow &row : audit) {
        const QString where = u"team audit row seq %1: "_s.arg(row.seq);
        if (row.seq != expected)
            return where + u"expected seq %1 (rows missing)"_s.arg(expected);
        if (row.prevHash != prev)
            return where + u"prev_hash is not the hash of the row before it"_s;
        if (TeamAudit::rowHash(prev, row.seq, row.atMicros, row.actor, row.event, row.proposalId,
                               row.detail) != row.hash)
            return where + u"its content does not match its hash"_s;
        prev = row.hash;
        ++expected;
    }
    return {};
}

TeamApproval teamApproval(const HistoryApproval &a)
{
    TeamApproval t(a.row.approver, a.row.decision, a.osUser, a.host);
    t.id = a.id;
    t.dialogSha256 = a.row.dialogSha256;
    t.statement = a.row.statement;
    t.signature = a.row.signature;
    t.publicKey = a.row.publicKey;
    return t;
}

} // namespace

TeamVerifyReport verifyHistory(const TeamHistory &history, const QList<ApproverKey> &keys,
                               const Policy &policy)
{
    TeamVerifyReport r;
    if (const QString broken = brokenChain(history.audit); !broken.isEmpty())
        r.failures.append(broken);
    const ChainReplay chain = replayChain(history);
    r.failures += chain.failures;
    QHash<QByteArray, QList<QString>> approvedBy;
    QHash<QByteArray, QList<TeamApproval>> decisions;
    QHash<QByteArray, const TeamProposal *> byId;
    for (const TeamProposal &p : history.proposals) {
        // The database checks this (a CHECK constraint); a bundle is only a file.
        if (Sha256::hash(p.request).toHex() != p.requestSha256.toLower())
            r.failures.append(
                u"proposal %1: its request_sha256 is not the SHA-256 of its request"_s.arg(
                    shown(p.id)));
        if (byId.contains(p.id))
            r.failures.append(u"proposal %1: listed twice"_s.arg(shown(p.id)));
        byId.insert(p.id, &p);
    }
    for (const HistoryApproval &a : history.approvals) {
        const QString row = u"approval %1 (proposal %2, %3, %4)"_s.arg(
            shown(a.id), shown(a.proposalId), shown(a.row.approver), shown(a.row.decision));
        const TeamProposal *p = byId.value(a.proposalId);
        if (!p) {
            r.failures.append(row + u": its proposal is not in the history"_s);
            continue;
        }
        decisions[a.proposalId].append(teamApproval(a));
        const ApprovalCheck c = verifyApproval(*p, a.row, keys);
        if (!c.counts) {
            r.failures.append(row + u": "_s + shown(c.reason));
            continue;
        }
        approvedBy[a.proposalId].append(u"%1 by %2 [%3] at %4, who saw dialog text %5"_s.arg(
            c.statement->decision == u"approve" ? u"approved"_s : u"denied"_s,
            shown(c.statement->approver), c.fingerprint, timeText(c.statement->decidedMs),
            QString::fromLatin1(c.statement->dialogSha256.left(16))));
    }
    QSet<QByteArray> resolved;
    for (const HistoryResolution &res : history.resolutions) {
        const QString row = u"resolution %1 (proposal %2, %3, %4)"_s.arg(
            shown(res.row.id), shown(res.proposalId), shown(res.row.resolver),
            shown(res.row.outcome));
        const TeamProposal *p = byId.value(res.proposalId);
        if (!p) {
            r.failures.append(row + u": its proposal is not in the history"_s);
            continue;
        }
        if (resolved.contains(res.proposalId)) {
            r.failures.append(row + u": its proposal is resolved twice"_s);
            continue;
        }
        resolved.insert(res.proposalId);
        const ApprovalCheck c = verifyResolution(*p, res.row, keys);
        if (!c.counts) {
            r.failures.append(row + u": "_s + shown(c.reason));
            continue;
        }
        if (p->state != res.row.outcome) {
            r.failures.append(row + u": its proposal is %1, not %2"_s.arg(shown(p->state),
                                                                          shown(res.row.outcome)));
            continue;
        }
        const auto s = ResolutionStatement::parse(res.row.statement, nullptr);
        approvedBy[res.proposalId].append(
            u"resolved %1%2 by %3 [%4] at %5, who saw dialog text %6"_s.arg(
                s->outcome, s->uuid.isEmpty() ? QString() : u" (uuid %1)"_s.arg(shown(s->uuid)),
                shown(s->resolver), c.fingerprint, timeText(s->decidedMs),
                QString::fromLatin1(s->dialogSha256.left(16))));
    }
    for (const TeamProposal &p : history.proposals)
        if (p.state == u"not_created" && !resolved.contains(p.id))
            r.failures.append(
                u"proposal %1: not_created without a resolution (only a resolution moves an "
                "unknown outcome)"_s.arg(shown(p.id)));
    // A create: it left for Fabric, or may have. `failed` counts once sent (sent_at, or a move to
    // sending in the chain), as does any state the chain says was reached through sending.
    static const QStringList sentStates{u"sending"_s, u"created"_s, u"unknown"_s, u"not_created"_s};
    for (const TeamProposal &p : history.proposals) {
        const ChainProposal c = chain.proposals.value(p.id);
        if (!sentStates.contains(p.state) && !history.sentMs.contains(p.id) && c.sendingSeq == 0)
            continue;
        const QString row = u"proposal %1 (%2, proposed by %3)"_s.arg(shown(p.id), shown(p.state),
                                                                      shown(p.proposer));
        // The broker's own rule (countQuorum), on the approvals that verify and were recorded in
        // the chain before the create was sent.
        QuorumCount q = countQuorum(
            p, decisions.value(p.id), teamRequired(policy, p.price.value_or(QJsonObject{})),
            [&](const TeamApproval &a) {
                if (const ApprovalCheck v = verifyApproval(p, a, keys); !v.counts)
                    return v.reason;
                const qint64 seq = chain.approvalSeq.value(a.id);
                if (seq == 0)
                    return u"not in the team audit chain"_s;
                if (c.sendingSeq != 0 && seq > c.sendingSeq)
                    return u"recorded after the create was sent"_s;
                return QString();
            });
        // A deny the chain recorded counts even when its row is gone.
        for (const ChainProposal::Event &e : c.approvals)
            if (q.deniedBy.isEmpty() && e.detail.value(u"decision"_s).toString() == u"deny")
                q.deniedBy = e.detail.value(u"approver"_s).toString();
        if (!q.deniedBy.isEmpty()) {
            r.failures.append(row + u": sent although %1 denied it"_s.arg(shown(q.deniedBy)));
        } else if (!q.met()) {
            QStringList why;
            for (const QJsonValue &n : q.notCounted)
                why << u"%1: %2"_s.arg(shown(n[u"approver"_s].toString()),
                                       shown(n[u"why"_s].toString()));
            r.failures.append(
                row + u": sent with %1 verified approval(s) from roles other than the "
                      "proposer's; team.quorum requires %2 for it (%3)%4"_s.arg(q.counted.size())
                          .arg(q.required)
                          .arg(priceText(p.price), why.isEmpty()
                                                       ? QString()
                                                       : u"; not counted: "_s + why.join(u"; "_s)));
        }
        const QStringList by = approvedBy.value(p.id);
        r.creates.append(
            u"%1 proposal %2 %3 (%4, proposed by %5; request %6, dry run %7): %8"_s.arg(
                timeText(p.createdMs), shown(p.id), shown(p.changeType), shown(p.state),
                shown(p.proposer), shown(p.requestSha256.left(16)),
                QString::fromLatin1(canonicalJsonSha256Hex(p.dryRun).left(16)),
                by.isEmpty() ? u"no verified approval"_s : by.join(u"; "_s)));
    }
    return r;
}

} // namespace fb::team
