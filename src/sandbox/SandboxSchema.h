#pragma once
// The sandbox's request-body schema checks, shared by the create validators (SandboxValidator):
// each violation becomes one EQ-3142501 error naming the field's path (e.g. "aSide.accessPoint
// .port.uuid") and what it must be, the way Fabric answers an invalid argument.
#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <initializer_list>

namespace fb {

class SandboxValidator;

// Collects schema violations as EQ-3142501 errors, through the validator's invalidArgument.
class SandboxSchema {
public:
    SandboxSchema(const SandboxValidator &v, QJsonArray *errors);
    void fail(const QString &path, const QString &reason);
    bool has(const QJsonObject &o, const char *key) const;
    QJsonObject object(const QJsonObject &o, const char *key, const QString &path, bool required);
    QString string(const QJsonObject &o, const char *key, const QString &path, bool required,
                   const QStringList &allowed = {});
    void integer(const QJsonObject &o, const char *key, const QString &path, bool required,
                 double min, double max);
    void notifications(const QJsonObject &o, const QString &path, bool required);
    // ConnectionSideAdditionalInfo: {key, value}, both strings.
    void additionalInfo(const QJsonObject &o, const QString &path);
    // SimplifiedLinkProtocol: nothing is required; the tags are integers 2-4092.
    void linkProtocol(const QJsonObject &owner, const QString &path);
    static QString join(const QString &path, const char *key);

    static QStringList list(std::initializer_list<const char *> items);

private:
    const SandboxValidator &m_v;
    QJsonArray *m_errors;
};

} // namespace fb
