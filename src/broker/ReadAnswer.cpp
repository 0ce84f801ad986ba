#include "broker/ReadAnswer.h"

#include "broker/ReadOperations.h"
#include "core/UntrustedText.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <optional>

namespace fb::readops {

namespace {

using namespace Qt::StringLiterals;

QString bounded(const QString &s, qsizetype maxChars, int *cut)
{
    QString out = UntrustedText::escapeInvisible(s);
    if (out.size() <= maxChars)
        return out;
    ++*cut;
    qsizetype keep = maxChars;
    if (keep > 0 && out.at(keep - 1).isHighSurrogate())
        --keep;
    const qsizetype left = out.size() - keep;
    out.truncate(keep);
    return out + u"\u2026 [%1 more characters]"_s.arg(left);
}

QJsonValue boundStrings(const QJsonValue &v, qsizetype maxChars, int *cut)
{
    if (v.isString())
        return bounded(v.toString(), maxChars, cut);
    if (v.isArray()) {
        QJsonArray out;
        for (const QJsonValue &e : v.toArray())
            out.append(boundStrings(e, maxChars, cut));
        return out;
    }
    if (v.isObject()) {
        QJsonObject out;
        const QJsonObject o = v.toObject();
        for (auto it = o.begin(); it != o.end(); ++it)
            out.insert(bounded(it.key(), 200, cut), boundStrings(it.value(), maxChars, cut));
        return out;
    }
    return v;
}

std::optional<QJsonValue> keep(const QJsonValue &v, const QStringList &tokens, qsizetype at)
{
    if (at == tokens.size())
        return v;
    const QString &token = tokens.at(at);
    if (v.isObject()) {
        const QJsonObject o = v.toObject();
        if (!o.contains(token))
            return std::nullopt;
        const auto sub = keep(o.value(token), tokens, at + 1);
        if (!sub)
            return std::nullopt;
        return QJsonObject{{token, *sub}};
    }
    if (!v.isArray())
        return std::nullopt;
    const QJsonArray a = v.toArray();
    if (token == u"*") {
        QJsonArray out;
        bool any = false;
        for (const QJsonValue &e : a) {
            const auto sub = keep(e, tokens, at + 1);
            any = any || sub.has_value();
            out.append(sub.value_or(QJsonValue()));
        }
        return any ? std::optional<QJsonValue>(out) : std::nullopt;
    }
    bool ok = false;
    const qsizetype index = token.toLongLong(&ok);
    if (!ok || index < 0 || index >= a.size() || (token.size() > 1 && token.startsWith(u'0')))
        return std::nullopt;
    const auto sub = keep(a.at(index), tokens, at + 1);
    if (!sub)
        return std::nullopt;
    QJsonArray out;
    for (qsizetype i = 0; i < index; ++i)
        out.append(QJsonValue());
    out.append(*sub);
    return out;
}

QJsonValue merge(const QJsonValue &a, const QJsonValue &b)
{
    if (a.isNull() || a.isUndefined())
        return b;
    if (b.isNull() || b.isUndefined())
        return a;
    if (a.isObject() && b.isObject()) {
        QJsonObject out = a.toObject();
        const QJsonObject bo = b.toObject();
        for (auto it = bo.begin(); it != bo.end(); ++it)
            out.insert(it.key(), merge(out.value(it.key()), it.value()));
        return out;
    }
    if (a.isArray() && b.isArray()) {
        const QJsonArray x = a.toArray();
        const QJsonArray y = b.toArray();
        QJsonArray out;
        for (qsizetype i = 0; i < qMax(x.size(), y.size()); ++i)
            out.append(merge(i < x.size() ? x.at(i) : QJsonValue(),
                             i < y.size() ? y.at(i) : QJsonValue()));
        return out;
    }
    return b;
}

QByteArray compact(const QJsonObject &o)
{
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

bool hasQuery(const ReadOperation &op, const QString &name)
{
    for (const QueryParam &q : op.queryParams)
        if (q.name == name)
            return true;
    return false;
}

bool bodyPages(const ReadOperation &op)
{
    return op.inputSchema.value(u"properties"_s)
        .toObject()
        .value(u"body"_s)
        .toObject()
        .value(u"properties"_s)
        .toObject()
        .contains(u"pagination"_s);
}

// How to ask for the elements after the first `returned` of this call's page.
QString howToPage(const ReadOperation &op, const QJsonObject &args, qsizetype returned)
{
    if (hasQuery(op, u"offset"_s)) {
        const qint64 offset = args.value(u"offset"_s).toInteger(0);
        return u"call %1 again with offset=%2 (and a smaller limit) for the rest"_s.arg(op.tool)
            .arg(offset + returned);
    }
    if (bodyPages(op)) {
        const qint64 offset = args.value(u"body"_s)
                                  .toObject()
                                  .value(u"pagination"_s)
                                  .toObject()
                                  .value(u"offset"_s)
                                  .toInteger(0);
        return u"call %1 again with body.pagination.offset=%2 (and a smaller "
               "body.pagination.limit) for the rest"_s.arg(op.tool)
                   .arg(offset + returned);
    }
    return u"ask for less with projection (JSON pointers of the parts to keep)"_s;
}

QString summaryOf(const ReadOperation &op, const QJsonObject &o)
{
    if (o.value(u"data"_s).isArray()) {
        const qsizetype n = o.value(u"data"_s).toArray().size();
        const QJsonValue total = o.value(u"pagination"_s).toObject().value(u"total"_s);
        return total.isDouble()
                   ? u"%1: %2 item(s) of %3."_s.arg(op.title).arg(n).arg(total.toInteger())
                   : u"%1: %2 item(s)."_s.arg(op.title).arg(n);
    }
    return op.title + u'.';
}

} // namespace

QJsonValue project(const QJsonValue &value, const QStringList &pointers, QStringList *unmatched)
{
    QJsonValue out = QJsonValue::Undefined;
    for (const QString &pointer : pointers) {
        QStringList tokens = pointer.split(u'/');
        tokens.removeFirst(); // the part before the first '/'
        for (QString &t : tokens)
            t.replace(u"~1"_s, u"/"_s).replace(u"~0"_s, u"~"_s);
        const auto kept = keep(value, tokens, 0);
        if (kept)
            out = merge(out, *kept);
        else if (unmatched)
            unmatched->append(pointer);
    }
    return out.isUndefined() ? QJsonValue(QJsonObject()) : out;
}

ShapedAnswer shapeAnswer(const ReadOperation &op, const QJsonValue &answer,
                         const QStringList &projection, const QJsonObject &args,
                         const AnswerLimits &limits)
{
    int cut = 0;
    QJsonValue value = boundStrings(answer, limits.maxStringChars, &cut);
    // "_broker" is this broker's note: one Fabric sends is kept under another name.
    if (QJsonObject o = value.toObject(); value.isObject() && o.contains(u"_broker"_s)) {
        o.insert(u"fabric__broker"_s, o.take(u"_broker"_s));
        value = o;
    }
    QJsonObject broker;
    if (!projection.isEmpty()) {
        QStringList unmatched;
        value = project(value, projection, &unmatched);
        if (!unmatched.isEmpty())
            broker.insert(u"unmatched_projection"_s, QJsonArray::fromStringList(unmatched));
    }
    QJsonObject out = value.isObject()  ? value.toObject()
                      : value.isArray() ? QJsonObject{{u"data"_s, value}}
                                        : QJsonObject{{u"value"_s, value}};
    if (cut > 0)
        broker.insert(u"strings_cut"_s, cut);
    ShapedAnswer shaped;
    shaped.summary = summaryOf(op, out);
    auto withNote = [&broker](QJsonObject o) {
        if (!broker.isEmpty())
            o.insert(u"_broker"_s, broker);
        return o;
    };
    QByteArray json = compact(withNote(out));
    if (json.size() > limits.maxBytes && out.value(u"data"_s).isArray()) {
        const QJsonArray data = out.value(u"data"_s).toArray();
        broker.insert(u"truncated"_s, true);
        broker.insert(u"of"_s, static_cast<qint64>(data.size()));
        broker.insert(u"max_bytes"_s, static_cast<qint64>(limits.maxBytes));
        auto page = [&](qsizetype n) {
            QJsonObject o = out;
            QJsonArray first;
            for (qsizetype i = 0; i < n; ++i)
                first.append(data.at(i));
            o.insert(u"data"_s, first);
            QJsonObject note = broker;
            note.insert(u"returned"_s, static_cast<qint64>(n));
            note.insert(u"how_to_page"_s, howToPage(op, args, n));
            o.insert(u"_broker"_s, note);
            return o;
        };
        qsizetype lo = 0; // the largest count known to fit (0 is tried below)
        qsizetype hi = data.size();
        while (lo < hi) {
            const qsizetype mid = (lo + hi + 1) / 2;
            if (compact(page(mid)).size() <= limits.maxBytes)
                lo = mid;
            else
                hi = mid - 1;
        }
        const QJsonObject o = page(lo);
        if (compact(o).size() <= limits.maxBytes) {
            shaped.structured = o;
            shaped.json = compact(o);
            shaped.truncated = true;
            shaped.summary = u"%1: %2 of %3 item(s) returned (the result is capped at %4 bytes); "
                             "%5."_s.arg(op.title)
                                 .arg(lo)
                                 .arg(data.size())
                                 .arg(limits.maxBytes)
                                 .arg(howToPage(op, args, lo));
            return shaped;
        }
    }
    if (json.size() > limits.maxBytes) {
        QJsonObject note{{u"truncated"_s, true},
                         {u"bytes"_s, static_cast<qint64>(json.size())},
                         {u"max_bytes"_s, static_cast<qint64>(limits.maxBytes)},
                         {u"how_to_page"_s, howToPage(op, args, 0)}};
        shaped.structured = QJsonObject{{u"_broker"_s, note}};
        shaped.json = compact(shaped.structured);
        shaped.truncated = true;
        shaped.summary = u"%1: the answer is %2 bytes, over the cap of %3 bytes, and was left "
                         "out; %4."_s.arg(op.title)
                             .arg(json.size())
                             .arg(limits.maxBytes)
                             .arg(howToPage(op, args, 0));
        return shaped;
    }
    shaped.structured = withNote(out);
    shaped.json = json;
    return shaped;
}

} // namespace fb::readops
