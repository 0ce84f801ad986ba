#include "core/TeamPolicy.h"

#include "core/Policy.h"
#include "core/Sha256.h"

#include <QJsonObject>
#include <QRegularExpression>
#include <QUrlQuery>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace fb {

namespace {

std::optional<Money> quorumMoney(const QJsonValue &v, const QString &where, QStringList *errors)
{
    QStringList problems; // one message for the rule's threshold, whatever is wrong in it
    const std::optional<Money> m = Money::parse(v, where, &problems);
    if (!m)
        errors->append(u"%1: must be an object {\"amount\": <number >= 0>, \"currency\": "
                       "\"<ISO 4217 code>\"}"_s.arg(where));
    return m;
}

std::optional<int> quorumApprovals(const QJsonValue &v, const QString &where, QStringList *errors)
{
    const double d = v.toDouble(-1);
    if (!v.isDouble() || d < 1 || d > TeamQuorum::MaxApprovals || d != std::floor(d)) {
        errors->append(
            u"%1: must be an integer from 1 to %2"_s.arg(where).arg(TeamQuorum::MaxApprovals));
        return std::nullopt;
    }
    return static_cast<int>(d);
}

// Calls each(entry, where) for the entries of the array at key (at most max, the error showing
// what they look like otherwise); true when no error was added.
template <typename Each>
bool eachEntry(const QJsonValue &value, const QString &key, qsizetype max, const QString &entries,
               QStringList *errors, Each each)
{
    const qsizetype before = errors->size();
    if (!value.isArray() || value.toArray().size() > max) {
        errors->append(
            u"%1: must be an array of at most %2 %3"_s.arg(key, QString::number(max), entries));
        return false;
    }
    const QJsonArray array = value.toArray();
    for (qsizetype i = 0; i < array.size(); ++i)
        each(array.at(i), u"%1[%2]"_s.arg(key).arg(i));
    return errors->size() == before;
}

} // namespace

int TeamQuorum::required(const std::optional<Money> &monthly) const
{
    int n = 1;
    if (!monthly) {
        if (unpriced)
            return std::max(1, *unpriced);
        for (const QuorumRule &r : rules)
            n = std::max(n, r.approvals);
        return n;
    }
    for (const QuorumRule &r : rules) {
        if (monthly->above(r.aboveMonthly))
            n = std::max(n, r.approvals);
    }
    return n;
}

int teamRequired(const Policy &policy, const QJsonObject &priceContext)
{
    return policy.teamQuorum ? policy.teamQuorum->required(monthlyPrice(priceContext)) : 1;
}

QJsonArray TeamQuorum::toJson() const
{
    QJsonArray out;
    for (const QuorumRule &r : rules)
        out.append(QJsonObject{{u"above_monthly"_s, r.aboveMonthly.toJson()},
                               {u"approvals"_s, r.approvals}});
    if (unpriced)
        out.append(QJsonObject{{u"unpriced"_s, true}, {u"approvals"_s, *unpriced}});
    return out;
}

std::optional<TeamQuorum> TeamQuorum::parse(const QJsonValue &value, const QString &key,
                                            QStringList *errors)
{
    TeamQuorum q;
    const bool ok = eachEntry(
        value, key, MaxRules,
        u"rules such as {\"above_monthly\": {\"amount\": 500, \"currency\": \"USD\"}, "
        "\"approvals\": 2}"_s,
        errors, [&](const QJsonValue &entry, const QString &where) {
            const QJsonObject o = entry.toObject();
            if (!entry.isObject() || o.size() != 2 || !o.contains(u"approvals"_s)) {
                errors->append(u"%1: must be {\"above_monthly\": {...}, \"approvals\": n} or "
                               "{\"unpriced\": true, \"approvals\": n}"_s.arg(where));
                return;
            }
            const auto n =
                quorumApprovals(o.value(u"approvals"_s), where + u".approvals"_s, errors);
            if (o.contains(u"unpriced"_s)) {
                if (o.value(u"unpriced"_s) != QJsonValue(true) || q.unpriced)
                    errors->append(u"%1.unpriced: must be true, in one rule only"_s.arg(where));
                else if (n)
                    q.unpriced = *n;
                return;
            }
            if (!o.contains(u"above_monthly"_s)) {
                errors->append(u"%1: must have above_monthly or unpriced"_s.arg(where));
                return;
            }
            const auto m =
                quorumMoney(o.value(u"above_monthly"_s), where + u".above_monthly"_s, errors);
            if (m && n)
                q.rules.append(QuorumRule{*m, *n});
        });
    if (!ok)
        return std::nullopt;
    return q;
}

TeamQuorum TeamQuorum::merged(const TeamQuorum &a, const TeamQuorum &b)
{
    TeamQuorum m;
    // A rule that another of the same currency covers (a lower or equal threshold, at least as
    // many approvals) adds nothing.
    auto covered = [](const QuorumRule &r, const QList<QuorumRule> &by) {
        return std::any_of(by.begin(), by.end(), [&](const QuorumRule &s) {
            return s.aboveMonthly.currency == r.aboveMonthly.currency &&
                   s.aboveMonthly.amount <= r.aboveMonthly.amount && s.approvals >= r.approvals;
        });
    };
    m.rules = a.rules;
    for (const QuorumRule &r : b.rules)
        if (!covered(r, m.rules))
            m.rules.append(r);
    if (a.unpriced || b.unpriced) {
        m.unpriced = std::max(a.required(std::nullopt), b.required(std::nullopt));
        TeamQuorum implicit = m;
        implicit.unpriced.reset();
        if (!a.unpriced && implicit.required(std::nullopt) == *m.unpriced)
            m.unpriced.reset();
    }
    return m;
}

QJsonObject ApproverKey::toJson() const
{
    return QJsonObject{{u"role"_s, role},
                       {u"fingerprint"_s, fingerprint},
                       {u"public_key"_s, QString::fromLatin1(publicKey.toBase64())}};
}

QJsonArray ApproverKey::toJson(const QList<ApproverKey> &keys)
{
    QJsonArray out;
    for (const ApproverKey &k : keys)
        out.append(k.toJson());
    return out;
}

QString ApproverKey::fingerprintOf(const QByteArray &publicKey)
{
    return u"SHA256:"_s + QString::fromLatin1(Sha256::hash(publicKey).toBase64(
                              QByteArray::Base64Encoding | QByteArray::OmitTrailingEquals));
}

std::optional<QList<ApproverKey>> ApproverKey::parse(const QJsonValue &value, const QString &key,
                                                     QStringList *errors)
{
    static const QRegularExpression roleRe(u"^[^\\x00-\\x1f\\x7f]{1,63}$"_s);
    static const QRegularExpression keyRe(u"^[A-Za-z0-9+/]{43}=$"_s);
    QList<ApproverKey> out;
    const bool ok = eachEntry(
        value, key, MaxKeys,
        u"entries such as {\"role\": \"alice\", \"fingerprint\": \"SHA256:...\", "
        "\"public_key\": \"<base64>\"}"_s,
        errors, [&](const QJsonValue &entry, const QString &where) {
            const QJsonObject o = entry.toObject();
            const QString role = o.value(u"role"_s).toString();
            const QString fp = o.value(u"fingerprint"_s).toString();
            const QString pub = o.value(u"public_key"_s).toString();
            if (!entry.isObject() || o.size() != 3 || !o.value(u"role"_s).isString() ||
                !o.value(u"fingerprint"_s).isString() || !o.value(u"public_key"_s).isString()) {
                errors->append(u"%1: must be {\"role\": ..., \"fingerprint\": ..., \"public_key\": "
                               "...}, three strings"_s.arg(where));
                return;
            }
            if (!roleRe.match(role).hasMatch() || role.toUtf8().size() > 63) {
                errors->append(
                    u"%1.role: must be a PostgreSQL role name of 1 to 63 bytes"_s.arg(where));
                return;
            }
            const QByteArray raw = QByteArray::fromBase64(pub.toLatin1());
            if (!keyRe.match(pub).hasMatch() || raw.size() != 32 ||
                QString::fromLatin1(raw.toBase64()) != pub) {
                errors->append(
                    u"%1.public_key: must be the base64 of a raw 32-byte Ed25519 key"_s.arg(where));
                return;
            }
            ApproverKey k{role, fingerprintOf(raw), raw};
            if (fp != k.fingerprint) {
                errors->append(u"%1.fingerprint: is not the fingerprint of public_key (%2)"_s.arg(
                    where, k.fingerprint));
                return;
            }
            if (!out.contains(k))
                out.append(k);
        });
    if (!ok)
        return std::nullopt;
    return out;
}

QList<ApproverKey> ApproverKey::merged(const QList<ApproverKey> &admin,
                                       const QList<ApproverKey> &user)
{
    QList<ApproverKey> out;
    for (const ApproverKey &k : admin)
        if (user.contains(k))
            out.append(k);
    return out;
}

QString teamDatabaseUriError(const QString &uri)
{
    if (uri.toUtf8().size() > 2048)
        return u"must be at most 2048 bytes"_s;
    if (!uri.startsWith(u"postgresql://") && !uri.startsWith(u"postgres://"))
        return u"must be a libpq connection URI (postgresql://...)"_s;
    // libpq's URI: postgresql://[userspec@][hostspec][/dbname][?paramspec], userspec being
    // user[:password]; hostspec may list several hosts, so this is not parsed as a QUrl.
    const QString rest = uri.mid(uri.indexOf(u"://") + 3);
    const qsizetype end = rest.indexOf(QRegularExpression(u"[/?]"_s));
    const QString authority = end < 0 ? rest : rest.left(end);
    const qsizetype at = authority.lastIndexOf(u'@');
    const bool passwordInUserinfo = at >= 0 && authority.left(at).contains(u':');
    const qsizetype q = rest.indexOf(u'?');
    const QUrlQuery query(q < 0 ? QString() : rest.mid(q + 1));
    if (passwordInUserinfo || query.hasQueryItem(u"password"_s))
        return u"must not carry a password: keep it in ~/.pgpass, or use peer or certificate "
               "authentication (docs/team.md)"_s;
    return {};
}

} // namespace fb
