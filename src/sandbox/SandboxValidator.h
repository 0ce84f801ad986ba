#pragma once
// SandboxValidator: checks create requests the way Fabric does. Schema violations come back as
// EQ-3142501 errors naming the field path in additionalInfo[].property; estate rules (unknown
// port/profile, metro, bandwidth, authentication key, VLAN in use) use their own codes.
#include "sandbox/SandboxEstate.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QString>

namespace fb {

class SandboxValidator {
public:
    SandboxValidator(const SandboxEstate &estate, const QString &correlationId);

    // Shape of ConnectionPostRequest / NetworkPostRequest / ServiceToken (create).
    QJsonArray connectionSchema(const QJsonObject &body) const;
    QJsonArray networkSchema(const QJsonObject &body) const;
    QJsonArray serviceTokenSchema(const QJsonObject &body) const;

    // Rules against the estate; run only on schema-valid bodies.
    QJsonArray connectionRules(const QJsonObject &body) const;
    QJsonArray networkRules(const QJsonObject &body) const;
    QJsonArray serviceTokenRules(const QJsonObject &body) const;

    QJsonObject invalidArgument(const QString &property, const QString &reason) const;

private:
    // The COLO port named at path (an access point or a token selector): it must be the user's
    // (false, with the error, when it is not) and its VLAN free, the error naming vlanSTag for a
    // QINQ link protocol when sTagForQinq.
    bool checkColoPort(const QJsonObject &ref, const QString &path, bool sTagForQinq,
                       QJsonArray &errors) const;
    void checkAccessPoint(const QJsonObject &ap, const QString &path, QJsonArray *errors) const;
    void checkSelector(const QJsonObject &selector, const QString &path, QJsonArray *errors) const;
    QString sideMetro(const QJsonObject &body, const QString &side) const;

    const SandboxEstate &m_estate;
    QString m_correlationId;
};

} // namespace fb
