#include "team/ApproverDecision.h"

#include "core/ChangeType.h"
#include "core/CompiledRequest.h"
#include "core/Sha256.h"
#include "team/ApprovalKeys.h"

#include <QRegularExpression>
#include <QUrl>

using namespace Qt::StringLiterals;

namespace fb::team {

QByteArray requestSha256Shown(const TeamProposal &p)
{
    const auto type = changeTypeFromName(p.changeType);
    return type ? requestSha256(*type, p.request).toLatin1() : QByteArray();
}

QByteArray bodySha256(const TeamProposal &p)
{
    return Sha256::hash(p.request).toHex();
}

QString refusalOf(const TeamProposal &p)
{
    if (!changeTypeFromName(p.changeType))
        return u"its change type is not one this app knows"_s;
    if (p.requestSha256.toLower() != bodySha256(p))
        return u"its stored request hash is not the SHA-256 of the request body it carries: the "
               "row was changed after it was published"_s;
    return {};
}

FabricTarget fabricTargetOf(const TeamProposal &p)
{
    FabricTarget t;
    t.endpoint = p.binding.value(u"fabric_endpoint"_s).toString();
    t.identity = p.binding.value(u"credential_identity"_s).toString();
    const QUrl url(t.endpoint, QUrl::StrictMode);
    const QString host = url.host();
    // Loopback: localhost, 127.0.0.0/8 or ::1 (QUrl gives hosts lower-cased, IPv6 unbracketed).
    static const QRegularExpression v4(u"^127\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}$"_s);
    t.sandbox =
        url.isValid() && (host == u"localhost"_s || host == u"::1"_s || v4.match(host).hasMatch());
    return t;
}

QByteArray shownTextSha256(const QString &shown)
{
    return Sha256::hash(shown.toUtf8());
}

std::optional<SignedDecision> signShownDecision(const TeamProposal &p, const QString &decision,
                                                const QString &shown, const QString &role,
                                                const QByteArray &privateKey, qint64 nowMs)
{
    if (!refusalOf(p).isEmpty())
        return std::nullopt;
    return signDecision(p, decision, shownTextSha256(shown), role, privateKey, nowMs);
}

bool awaitsResolution(const TeamProposal &p)
{
    return p.state == u"unknown" && !p.resolution;
}

bool openToDecision(const TeamProposal &p)
{
    return refusalOf(p).isEmpty() && (p.state == u"pending" || p.state == u"consumed");
}

QString DecisionSigning::fingerprint() const
{
    return signature ? ApprovalKeys::fingerprint(signature->publicKey) : QString();
}

namespace {
DecisionSigning signingWith(const QByteArray &privateKey, const QString &keyError,
                            const std::optional<SignedDecision> &signedBy)
{
    DecisionSigning s;
    if (privateKey.isEmpty()) {
        s.keyError = keyError;
        return s;
    }
    if (!signedBy) {
        s.status = DecisionSigning::Status::NotEd25519;
        return s;
    }
    s.status = DecisionSigning::Status::Signed;
    s.signature =
        TeamQueue::Signature{signedBy->statement, signedBy->signature, signedBy->publicKey};
    return s;
}
} // namespace

DecisionSigning decisionSigning(const TeamProposal &p, const QString &decision,
                                const QString &shown, const QString &role,
                                const QByteArray &privateKey, const QString &keyError, qint64 nowMs)
{
    if (privateKey.isEmpty())
        return signingWith(privateKey, keyError, std::nullopt);
    return signingWith(privateKey, keyError,
                       signShownDecision(p, decision, shown, role, privateKey, nowMs));
}

namespace {
DecisionSigning signedBy(const std::optional<SignedDecision> &made, const QString &why)
{
    DecisionSigning s;
    if (!made) {
        s.status = DecisionSigning::Status::SignerFailed;
        s.keyError = why.isEmpty() ? u"no signature was made"_s : why;
        return s;
    }
    s.status = DecisionSigning::Status::Signed;
    s.signature = TeamQueue::Signature{made->statement, made->signature, made->publicKey};
    return s;
}
} // namespace

DecisionSigning decisionSigningWith(const TeamProposal &p, const QString &decision,
                                    const QString &shown, const QString &role,
                                    const StatementSigner &signer, qint64 nowMs)
{
    QString why;
    const auto made =
        signDecisionWith(p, decision, shownTextSha256(shown), role, signer, nowMs, &why);
    return signedBy(made, why);
}

DecisionSigning resolutionSigningWith(const TeamProposal &p, const QString &outcome,
                                      const QString &uuid, const QString &shown,
                                      const QString &role, const StatementSigner &signer,
                                      qint64 nowMs)
{
    QString why;
    const auto made =
        signResolutionWith(p, outcome, uuid, shownTextSha256(shown), role, signer, nowMs, &why);
    return signedBy(made, why);
}

DecisionSigning resolutionSigning(const TeamProposal &p, const QString &outcome,
                                  const QString &uuid, const QString &shown, const QString &role,
                                  const QByteArray &privateKey, const QString &keyError,
                                  qint64 nowMs)
{
    if (privateKey.isEmpty())
        return signingWith(privateKey, keyError, std::nullopt);
    return signingWith(
        privateKey, keyError,
        signResolution(p, outcome, uuid, shownTextSha256(shown), role, privateKey, nowMs));
}

} // namespace fb::team
