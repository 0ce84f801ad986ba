#include "sandbox/SandboxSearch.h"

#include <QRegularExpression>
#include <QStringList>
#include <algorithm>
#include <functional>

namespace fb {

namespace {

void collect(const QJsonValue &node, const QStringList &parts, int index, QJsonArray *out)
{
    if (node.isArray()) {
        const QJsonArray array = node.toArray();
        for (const QJsonValue &element : array)
            collect(element, parts, index, out);
        return;
    }
    if (index == parts.size()) {
        if (!node.isUndefined() && !node.isNull())
            out->append(node);
        return;
    }
    if (!node.isObject())
        return;
    const QJsonValue child = node.toObject().value(parts.at(index));
    if (child.isUndefined())
        return;
    collect(child, parts, index + 1, out);
}

QString scalarText(const QJsonValue &v)
{
    if (v.isString())
        return v.toString();
    if (v.isBool())
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (v.isDouble()) {
        const double d = v.toDouble();
        if (d == static_cast<double>(static_cast<qint64>(d)))
            return QString::number(static_cast<qint64>(d));
        return QString::number(d);
    }
    return {};
}

// <0, 0, >0; numbers compare numerically when both sides are numbers.
int compareScalar(const QJsonValue &actual, const QString &expected)
{
    bool okA = false;
    bool okB = false;
    const double a = scalarText(actual).toDouble(&okA);
    const double b = expected.toDouble(&okB);
    if (okA && okB)
        return a < b ? -1 : (a > b ? 1 : 0);
    return QString::compare(scalarText(actual), expected, Qt::CaseSensitive);
}

bool likeMatch(const QString &text, const QString &pattern, Qt::CaseSensitivity cs)
{
    if (!pattern.contains(QLatin1Char('%')) && !pattern.contains(QLatin1Char('_')))
        return text.contains(pattern, cs);
    QString rx;
    for (const QChar c : pattern) {
        if (c == QLatin1Char('%'))
            rx += QStringLiteral(".*");
        else if (c == QLatin1Char('_'))
            rx += QLatin1Char('.');
        else
            rx += QRegularExpression::escape(QString(c));
    }
    QRegularExpression re(QRegularExpression::anchoredPattern(rx),
                          cs == Qt::CaseInsensitive ? QRegularExpression::CaseInsensitiveOption
                                                    : QRegularExpression::NoPatternOption);
    return re.match(text).hasMatch();
}

const QStringList &knownOperators()
{
    static const QStringList ops{
        QStringLiteral("="),       QStringLiteral("!="),         QStringLiteral(">"),
        QStringLiteral(">="),      QStringLiteral("<"),          QStringLiteral("<="),
        QStringLiteral("LIKE"),    QStringLiteral("NOT LIKE"),   QStringLiteral("ILIKE"),
        QStringLiteral("ILKE"),    QStringLiteral("NOT ILIKE"),  QStringLiteral("IN"),
        QStringLiteral("NOT IN"),  QStringLiteral("BETWEEN"),    QStringLiteral("NOT BETWEEN"),
        QStringLiteral("IS NULL"), QStringLiteral("IS NOT NULL")};
    return ops;
}

bool anyValue(const QJsonArray &actual, const std::function<bool(const QJsonValue &)> &pred)
{
    return std::any_of(actual.begin(), actual.end(), pred);
}

bool evalSimple(const QJsonObject &expr, const QJsonObject &item)
{
    const QString property = expr.value(QStringLiteral("property")).toString();
    const QString op = expr.value(QStringLiteral("operator")).toString().toUpper();
    QStringList values;
    const QJsonArray rawValues = expr.value(QStringLiteral("values")).toArray();
    for (const QJsonValue &v : rawValues)
        values.append(scalarText(v));
    const QJsonArray actual = SandboxSearch::valuesAt(item, property);

    if (op == QLatin1String("IS NULL"))
        return actual.isEmpty();
    if (op == QLatin1String("IS NOT NULL"))
        return !actual.isEmpty();
    if (op == QLatin1String("=") || op == QLatin1String("IN")) {
        return anyValue(actual, [&](const QJsonValue &a) {
            return std::any_of(values.begin(), values.end(),
                               [&](const QString &v) { return compareScalar(a, v) == 0; });
        });
    }
    if (op == QLatin1String("!=") || op == QLatin1String("NOT IN")) {
        return !anyValue(actual, [&](const QJsonValue &a) {
            return std::any_of(values.begin(), values.end(),
                               [&](const QString &v) { return compareScalar(a, v) == 0; });
        });
    }
    if (values.isEmpty())
        return false;
    if (op == QLatin1String(">"))
        return anyValue(actual,
                        [&](const QJsonValue &a) { return compareScalar(a, values[0]) > 0; });
    if (op == QLatin1String(">="))
        return anyValue(actual,
                        [&](const QJsonValue &a) { return compareScalar(a, values[0]) >= 0; });
    if (op == QLatin1String("<"))
        return anyValue(actual,
                        [&](const QJsonValue &a) { return compareScalar(a, values[0]) < 0; });
    if (op == QLatin1String("<="))
        return anyValue(actual,
                        [&](const QJsonValue &a) { return compareScalar(a, values[0]) <= 0; });
    if (op == QLatin1String("BETWEEN") || op == QLatin1String("NOT BETWEEN")) {
        if (values.size() < 2)
            return false;
        const bool in = anyValue(actual, [&](const QJsonValue &a) {
            return compareScalar(a, values[0]) >= 0 && compareScalar(a, values[1]) <= 0;
        });
        return op == QLatin1String("BETWEEN") ? in : !in;
    }
    const bool insensitive = op.contains(QLatin1String("ILIKE")) || op == QLatin1String("ILKE");
    const bool negated = op.startsWith(QLatin1String("NOT "));
    const bool hit = anyValue(actual, [&](const QJsonValue &a) {
        return std::any_of(values.begin(), values.end(), [&](const QString &v) {
            return likeMatch(scalarText(a), v,
                             insensitive ? Qt::CaseInsensitive : Qt::CaseSensitive);
        });
    });
    return negated ? !hit : hit;
}

} // namespace

QJsonArray SandboxSearch::valuesAt(const QJsonValue &root, const QString &property)
{
    QJsonArray out;
    const QStringList parts = property.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    collect(root, parts, 0, &out);
    return out;
}

QJsonValue SandboxSearch::valueAt(const QJsonValue &root, const QString &property)
{
    const QJsonArray all = valuesAt(root, property);
    return all.isEmpty() ? QJsonValue(QJsonValue::Undefined) : all.first();
}

QString SandboxSearch::validateFilter(const QJsonValue &filter, const QString &path)
{
    if (filter.isUndefined() || filter.isNull())
        return {};
    if (!filter.isObject())
        return path + QStringLiteral("|must be an object");
    const QJsonObject f = filter.toObject();
    for (const QString &key : {QStringLiteral("and"), QStringLiteral("or")}) {
        if (!f.contains(key))
            continue;
        if (!f.value(key).isArray())
            return path + QLatin1Char('.') + key + QStringLiteral("|must be an array");
        const QJsonArray list = f.value(key).toArray();
        for (qsizetype i = 0; i < list.size(); ++i) {
            const QString err =
                validateFilter(list.at(i), path + QLatin1Char('.') + key + QLatin1Char('[') +
                                               QString::number(i) + QLatin1Char(']'));
            if (!err.isEmpty())
                return err;
        }
    }
    if (f.contains(QStringLiteral("and")) || f.contains(QStringLiteral("or")))
        return {};
    if (f.isEmpty())
        return {};
    if (!f.value(QStringLiteral("property")).isString() ||
        !f.value(QStringLiteral("property")).toString().startsWith(QLatin1Char('/')))
        return path + QStringLiteral(".property|must be a string starting with '/'");
    const QString op = f.value(QStringLiteral("operator")).toString().toUpper();
    if (!knownOperators().contains(op))
        return path + QStringLiteral(".operator|unsupported operator");
    if (!op.startsWith(QLatin1String("IS ")) && !f.value(QStringLiteral("values")).isArray())
        return path + QStringLiteral(".values|must be an array");
    return {};
}

bool SandboxSearch::matches(const QJsonValue &filter, const QJsonObject &item, QString *error)
{
    if (filter.isUndefined() || filter.isNull())
        return true;
    const QString problem = validateFilter(filter, QStringLiteral("filter"));
    if (!problem.isEmpty()) {
        if (error)
            *error = problem;
        return false;
    }
    const QJsonObject f = filter.toObject();
    if (f.contains(QStringLiteral("and"))) {
        const QJsonArray list = f.value(QStringLiteral("and")).toArray();
        for (const QJsonValue &sub : list) {
            if (!matches(sub, item, error))
                return false;
        }
        return true;
    }
    if (f.contains(QStringLiteral("or"))) {
        const QJsonArray list = f.value(QStringLiteral("or")).toArray();
        for (const QJsonValue &sub : list) {
            if (matches(sub, item, error))
                return true;
        }
        return list.isEmpty();
    }
    if (f.isEmpty())
        return true;
    return evalSimple(f, item);
}

void SandboxSearch::sort(QJsonArray &items, const QJsonArray &criteria)
{
    if (criteria.isEmpty())
        return;
    QList<QJsonValue> list(items.begin(), items.end());
    std::stable_sort(list.begin(), list.end(), [&](const QJsonValue &a, const QJsonValue &b) {
        for (const QJsonValue &c : criteria) {
            const QJsonObject crit = c.toObject();
            const QString property = crit.value(QStringLiteral("property")).toString();
            const bool asc = crit.value(QStringLiteral("direction")).toString().toUpper() ==
                             QLatin1String("ASC");
            const QJsonValue va = valueAt(a, property);
            const QJsonValue vb = valueAt(b, property);
            const int cmp = compareScalar(va, scalarText(vb));
            if (cmp != 0)
                return asc ? cmp < 0 : cmp > 0;
        }
        return false;
    });
    QJsonArray out;
    for (const QJsonValue &v : list)
        out.append(v);
    items = out;
}

QString SandboxSearch::readPage(const QJsonObject &pagination, Page *page)
{
    if (pagination.contains(QStringLiteral("offset"))) {
        const QJsonValue v = pagination.value(QStringLiteral("offset"));
        if (!v.isDouble() || v.toDouble() < 0)
            return QStringLiteral("pagination.offset|must be greater than or equal to 0");
        page->offset = v.toInt();
    }
    if (pagination.contains(QStringLiteral("limit"))) {
        const QJsonValue v = pagination.value(QStringLiteral("limit"));
        if (!v.isDouble() || v.toDouble() < 1 || v.toDouble() > 100)
            return QStringLiteral("pagination.limit|must be between 1 and 100");
        page->limit = v.toInt();
    }
    return {};
}

QString SandboxSearch::readPage(const QUrlQuery &query, Page *page)
{
    bool ok = true;
    if (query.hasQueryItem(QStringLiteral("offset"))) {
        page->offset = query.queryItemValue(QStringLiteral("offset")).toInt(&ok);
        if (!ok || page->offset < 0)
            return QStringLiteral("offset|must be greater than or equal to 0");
    }
    if (query.hasQueryItem(QStringLiteral("limit"))) {
        page->limit = query.queryItemValue(QStringLiteral("limit")).toInt(&ok);
        if (!ok || page->limit < 1 || page->limit > 100)
            return QStringLiteral("limit|must be between 1 and 100");
    }
    return {};
}

QJsonObject SandboxSearch::pageOf(const QJsonArray &items, const Page &page,
                                  const QString &basePath)
{
    QJsonArray data;
    const qsizetype total = items.size();
    for (qsizetype i = page.offset; i < total && i < qsizetype(page.offset) + page.limit; ++i)
        data.append(items.at(i));
    QJsonObject pagination{{QStringLiteral("offset"), page.offset},
                           {QStringLiteral("limit"), page.limit},
                           {QStringLiteral("total"), static_cast<int>(total)}};
    const auto link = [&](int offset) -> QString {
        return basePath + QStringLiteral("?offset=") + QString::number(offset) +
               QStringLiteral("&limit=") + QString::number(page.limit);
    };
    if (qsizetype(page.offset) + page.limit < total)
        pagination.insert(QStringLiteral("next"), link(page.offset + page.limit));
    if (page.offset > 0)
        pagination.insert(QStringLiteral("previous"), link(std::max(0, page.offset - page.limit)));
    return QJsonObject{{QStringLiteral("pagination"), pagination}, {QStringLiteral("data"), data}};
}

} // namespace fb
