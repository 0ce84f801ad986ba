#include "sandbox/SandboxSchema.h"

#include "sandbox/SandboxValidator.h"

#include <QRegularExpression>

namespace fb {

namespace {
using L1 = QLatin1String;
} // namespace

SandboxSchema::SandboxSchema(const SandboxValidator &v, QJsonArray *errors)
    : m_v(v)
    , m_errors(errors)
{
}

void SandboxSchema::fail(const QString &path, const QString &reason)
{
    m_errors->append(m_v.invalidArgument(path, reason));
}

bool SandboxSchema::has(const QJsonObject &o, const char *key) const
{
    return o.contains(L1(key));
}

QJsonObject SandboxSchema::object(const QJsonObject &o, const char *key, const QString &path,
                                  bool required)
{
    const QJsonValue v = o.value(L1(key));
    if (v.isUndefined()) {
        if (required)
            fail(join(path, key), QStringLiteral("is required"));
        return {};
    }
    if (!v.isObject()) {
        fail(join(path, key), QStringLiteral("must be an object"));
        return {};
    }
    return v.toObject();
}

QString SandboxSchema::string(const QJsonObject &o, const char *key, const QString &path,
                              bool required, const QStringList &allowed)
{
    const QJsonValue v = o.value(L1(key));
    if (v.isUndefined()) {
        if (required)
            fail(join(path, key), QStringLiteral("is required"));
        return {};
    }
    if (!v.isString() || (required && v.toString().isEmpty())) {
        fail(join(path, key), QStringLiteral("must be a non-empty string"));
        return {};
    }
    if (!allowed.isEmpty() && !allowed.contains(v.toString())) {
        fail(join(path, key),
             QStringLiteral("must be one of ") + allowed.join(QStringLiteral(", ")));
        return {};
    }
    return v.toString();
}

void SandboxSchema::integer(const QJsonObject &o, const char *key, const QString &path,
                            bool required, double min, double max)
{
    const QJsonValue v = o.value(L1(key));
    if (v.isUndefined()) {
        if (required)
            fail(join(path, key), QStringLiteral("is required"));
        return;
    }
    const double d = v.toDouble();
    if (!v.isDouble() || d != double(qint64(d)) || d < min || d > max)
        fail(join(path, key), QStringLiteral("must be an integer between %1 and %2")
                                  .arg(qint64(min))
                                  .arg(qint64(max)));
}

void SandboxSchema::notifications(const QJsonObject &o, const QString &path, bool required)
{
    const QJsonValue v = o.value(QStringLiteral("notifications"));
    if (v.isUndefined()) {
        if (required)
            fail(join(path, "notifications"), QStringLiteral("is required"));
        return;
    }
    if (!v.isArray()) {
        fail(join(path, "notifications"), QStringLiteral("must be an array"));
        return;
    }
    const QJsonArray items = v.toArray();
    for (qsizetype i = 0; i < items.size(); ++i) {
        const QString p = join(path, "notifications") + QStringLiteral("[%1]").arg(i);
        if (!items.at(i).isObject()) {
            fail(p, QStringLiteral("must be an object"));
            continue;
        }
        const QJsonObject n = items.at(i).toObject();
        string(n, "type", p, true,
               list({"NOTIFICATION", "BANDWIDTH_ALERT", "CONNECTION_APPROVAL", "PROFILE_LIFECYCLE",
                     "ALL", "SALES_REP_NOTIFICATIONS", "TECHNICAL", "ORDERING",
                     "QUOTE_NOTIFICATIONS"}));
        // SimplifiedNotification requires emails: an array of e-mail strings.
        const QJsonValue emails = n.value(QStringLiteral("emails"));
        if (emails.isUndefined()) {
            fail(p + QStringLiteral(".emails"), QStringLiteral("is required"));
        } else if (!emails.isArray()) {
            fail(p + QStringLiteral(".emails"), QStringLiteral("must be an array"));
        } else {
            const QJsonArray addresses = emails.toArray();
            for (qsizetype j = 0; j < addresses.size(); ++j) {
                if (!addresses.at(j).isString() || !addresses.at(j).toString().contains(u'@'))
                    fail(p + QStringLiteral(".emails[%1]").arg(j),
                         QStringLiteral("must be an e-mail address"));
            }
        }
        // Phone: number is an E.164 string (+ and up to 15 digits), type MOBILE or OFFICE.
        const QJsonValue phones = n.value(QStringLiteral("phone"));
        if (phones.isUndefined())
            continue;
        if (!phones.isArray()) {
            fail(p + QStringLiteral(".phone"), QStringLiteral("must be an array"));
            continue;
        }
        static const QRegularExpression e164(QStringLiteral("^\\+[1-9]\\d{1,14}$"));
        const QJsonArray phoneList = phones.toArray();
        for (qsizetype j = 0; j < phoneList.size(); ++j) {
            const QString pp = p + QStringLiteral(".phone[%1]").arg(j);
            const QJsonObject phone = phoneList.at(j).toObject();
            string(phone, "type", pp, false, list({"MOBILE", "OFFICE"}));
            const QJsonValue number = phone.value(QStringLiteral("number"));
            if (!number.isUndefined() &&
                (!number.isString() || !e164.match(number.toString()).hasMatch()))
                fail(pp + QStringLiteral(".number"),
                     QStringLiteral("must be an E.164 phone number string, e.g. +14155550100"));
        }
    }
}

void SandboxSchema::additionalInfo(const QJsonObject &o, const QString &path)
{
    const QJsonValue v = o.value(QStringLiteral("additionalInfo"));
    if (v.isUndefined())
        return;
    const QString p = join(path, "additionalInfo");
    if (!v.isArray()) {
        fail(p, QStringLiteral("must be an array"));
        return;
    }
    const QJsonArray items = v.toArray();
    for (qsizetype i = 0; i < items.size(); ++i) {
        const QString ip = p + QStringLiteral("[%1]").arg(i);
        if (!items.at(i).isObject()) {
            fail(ip, QStringLiteral("must be an object"));
            continue;
        }
        const QJsonObject item = items.at(i).toObject();
        for (const char *key : {"key", "value"}) {
            if (item.contains(QLatin1String(key)) && !item.value(QLatin1String(key)).isString())
                fail(join(ip, key), QStringLiteral("must be a string"));
        }
    }
}

void SandboxSchema::linkProtocol(const QJsonObject &owner, const QString &path)
{
    const QJsonObject lp = object(owner, "linkProtocol", path, false);
    if (lp.isEmpty())
        return;
    const QString p = join(path, "linkProtocol");
    string(lp, "type", p, false, list({"UNTAGGED", "DOT1Q", "QINQ", "EVPN_VXLAN", "VXLAN"}));
    for (const char *tag : {"vlanTag", "vlanSTag", "vlanCTag"})
        integer(lp, tag, p, false, 2, 4092);
}

QString SandboxSchema::join(const QString &path, const char *key)
{
    return path.isEmpty() ? QString(L1(key)) : path + QLatin1Char('.') + L1(key);
}

QStringList SandboxSchema::list(std::initializer_list<const char *> items)
{
    QStringList out;
    for (const char *s : items)
        out << QLatin1String(s);
    return out;
}

} // namespace fb
