#include "core/AuditLogDetail.h"
#include "core/TokenDigest.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <QSet>
#include <QStringList>

// Bounding of the values that enter a record (AuditLog::scrub): confirm tokens hashed, secret
// members dropped, and every string, key, object, array and nesting level bounded, tighter for
// the client-supplied "client" member. What was cut is marked in place and listed in
// data.audit_truncated.

namespace fb {

namespace {

bool isSecretKey(const QString &key)
{
    QString n;
    n.reserve(key.size());
    for (const QChar c : key) {
        if (c.isLetterOrNumber())
            n.append(c.toLower());
    }
    static const QSet<QString> exact{
        QStringLiteral("accesstoken"),   QStringLiteral("refreshtoken"),
        QStringLiteral("idtoken"),       QStringLiteral("sessiontoken"),
        QStringLiteral("bearertoken"),   QStringLiteral("clientsecret"),
        QStringLiteral("authorization"), QStringLiteral("proxyauthorization"),
        QStringLiteral("password"),      QStringLiteral("passwd"),
        QStringLiteral("secret"),        QStringLiteral("apikey"),
        QStringLiteral("xapikey"),       QStringLiteral("privatekey"),
        QStringLiteral("cookie"),        QStringLiteral("setcookie")};
    return exact.contains(n) || n.contains(u"secret") || n.contains(u"password");
}

// Members of data that spend policy, verification and `audit` need: never dropped, written
// before anything else spends the budget.
bool isVitalKey(const QString &key)
{
    static const QSet<QString> vital{QStringLiteral("request_sha256"),
                                     QStringLiteral("token_sha256"), QStringLiteral("change_type"),
                                     QStringLiteral("price"), QStringLiteral("outcome")};
    return vital.contains(key);
}

QString scrubString(const QString &s)
{
    if (!s.contains(u"chg-"))
        return s;
    static const QRegularExpression token(
        QStringLiteral("(?<![0-9A-Za-z_-])chg-[0-9a-f]{32}(?![0-9A-Za-z_-])"));
    QString out;
    qsizetype last = 0;
    QRegularExpressionMatchIterator it = token.globalMatch(s);
    while (it.hasNext()) {
        const QRegularExpressionMatch m = it.next();
        out += QStringView(s).mid(last, m.capturedStart() - last);
        out += QStringLiteral("sha256:") + tokenDigest(m.captured());
        last = m.capturedEnd();
    }
    out += QStringView(s).mid(last);
    return out;
}

// Where a value sits below data: rendered ("client.capabilities.x[3]") only for a note.
struct ValuePath {
    const ValuePath *parent = nullptr;
    const QString *key = nullptr; // a member key, or nullptr for an array element
    qsizetype index = 0;

    QString render() const
    {
        if (!parent)
            return {};
        QString out = parent->render();
        if (key) {
            const QString shown = key->size() > 32 ? key->left(32) + u'…' : *key;
            out += (out.isEmpty() ? QString() : QStringLiteral(".")) + shown;
        } else {
            out += u'[' + QString::number(index) + u']';
        }
        return out;
    }
};

// Scrubs (tokens hashed, secret members dropped) and bounds one value tree in one pass. Every
// cut is marked where it happened and noted (by path) for data.audit_truncated.
class Sanitizer {
public:
    Sanitizer(const AuditLog::Bounds &bounds, QStringList *notes, qint64 *noteCount)
        : m_bounds(bounds)
        , m_budget(bounds.totalBytes)
        , m_notes(notes)
        , m_noteCount(noteCount)
    {
    }

    qint64 used() const { return m_bounds.totalBytes - m_budget; }

    // level: the container level of v's parent (data itself is level 0).
    QJsonValue value(const QJsonValue &v, int level, const ValuePath &path)
    {
        switch (v.type()) {
        case QJsonValue::String:
            return string(v.toString(), m_bounds.stringChars, path);
        case QJsonValue::Object:
            if (level + 1 > m_bounds.depth)
                return tooDeep(path);
            return object(v.toObject(), level + 1, path);
        case QJsonValue::Array:
            if (level + 1 > m_bounds.depth)
                return tooDeep(path);
            return array(v.toArray(), level + 1, path);
        default:
            m_budget -= 8;
            return v;
        }
    }

    // level: the container level of o (data itself is level 0).
    QJsonObject object(const QJsonObject &o, int level, const ValuePath &path,
                       const AuditLog::Bounds *clientBounds = nullptr)
    {
        QJsonObject out;
        qsizetype kept = 0;
        qsizetype dropped = 0;
        // What policy and verification need is written first and never dropped (at data's own
        // level); then every scalar member; containers spend what budget is left.
        const bool top = path.parent == nullptr;
        QList<QJsonObject::const_iterator> order;
        order.reserve(o.size());
        for (int pass = 0; pass < 3; ++pass)
            for (auto it = o.constBegin(); it != o.constEnd(); ++it) {
                const bool vital = top && isVitalKey(it.key());
                const bool container = it->isObject() || it->isArray();
                if ((pass == 0 && vital) || (pass == 1 && !vital && !container) ||
                    (pass == 2 && !vital && container))
                    order.append(it);
            }
        for (const auto &it : std::as_const(order)) {
            const QString rawKey = it.key();
            if (isSecretKey(rawKey))
                continue;
            const bool vital = top && isVitalKey(rawKey);
            if (!vital && (kept >= m_bounds.members || m_budget <= 0)) {
                ++dropped;
                continue;
            }
            const ValuePath memberPath{&path, &rawKey};
            const QString key = string(rawKey, m_bounds.keyChars, memberPath); // scrubs too
            if (clientBounds && rawKey == u"client") {
                // Client-supplied (MCP clientInfo and capabilities): tighter bounds of its own.
                Sanitizer client(*clientBounds, m_notes, m_noteCount);
                out.insert(key, client.value(it.value(), 0, memberPath));
                m_budget -= client.used();
            } else {
                out.insert(key, value(it.value(), level, memberPath));
            }
            ++kept;
        }
        if (dropped > 0) {
            out.insert(QStringLiteral("[truncated]"),
                       QStringLiteral("%1 more member(s) left out").arg(dropped));
            note(path, QStringLiteral("%1 member(s) left out").arg(dropped));
        }
        return out;
    }

private:
    QJsonArray array(const QJsonArray &a, int level, const ValuePath &path)
    {
        QJsonArray out;
        qsizetype index = 0;
        for (const QJsonValue &e : a) {
            if (index >= m_bounds.elements || m_budget <= 0)
                break;
            out.append(value(e, level, ValuePath{&path, nullptr, index}));
            ++index;
        }
        if (index < a.size()) {
            const qsizetype dropped = a.size() - index;
            out.append(QStringLiteral("[truncated: %1 more element(s) left out]").arg(dropped));
            note(path, QStringLiteral("%1 element(s) left out").arg(dropped));
        }
        return out;
    }

    QString string(const QString &raw, qsizetype limit, const ValuePath &path)
    {
        const QString s = scrubString(raw);
        limit = qMin<qsizetype>(limit, qMax<qint64>(m_budget, 16));
        if (s.size() <= limit) {
            m_budget -= s.size() + 3;
            return s;
        }
        qsizetype cut = limit;
        if (cut > 0 && s.at(cut - 1).isHighSurrogate())
            --cut; // never split a surrogate pair
        QString out =
            s.left(cut) + QStringLiteral("…[truncated: %1 more character(s)]").arg(s.size() - cut);
        m_budget -= out.size() + 3;
        note(path, QStringLiteral("string of %1 character(s) cut").arg(s.size()));
        return out;
    }

    QJsonValue tooDeep(const ValuePath &path)
    {
        m_budget -= 48;
        note(path, QStringLiteral("nested deeper than %1 level(s)").arg(m_bounds.depth));
        return QStringLiteral("[truncated: nested deeper than %1 level(s)]").arg(m_bounds.depth);
    }

    void note(const ValuePath &path, const QString &what)
    {
        constexpr qsizetype MaxNotes = 8;
        ++*m_noteCount;
        if (m_notes->size() < MaxNotes) {
            const QString rendered = path.render();
            const QString shown = rendered.size() > 160 ? rendered.left(160) + u'…' : rendered;
            m_notes->append((shown.isEmpty() ? QStringLiteral("data") : shown) +
                            QStringLiteral(": ") + what);
        }
    }

    const AuditLog::Bounds &m_bounds;
    qint64 m_budget;
    QStringList *m_notes;
    qint64 *m_noteCount;
};

QJsonObject sanitizeData(const QJsonObject &data)
{
    QStringList notes;
    qint64 count = 0;
    Sanitizer top(AuditLog::DataBounds, &notes, &count);
    const ValuePath root;
    QJsonObject out = top.object(data, 0, root, &AuditLog::ClientBounds);
    if (count > 0) {
        QJsonArray where;
        for (const QString &n : std::as_const(notes))
            where.append(scrubString(n));
        if (count > notes.size())
            where.append(QStringLiteral("and %1 more").arg(count - notes.size()));
        out.insert(QStringLiteral("audit_truncated"), where);
    }
    return out;
}

} // namespace

QJsonObject AuditLog::scrub(const QJsonObject &data)
{
    return sanitizeData(data);
}

} // namespace fb
