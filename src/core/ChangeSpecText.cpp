// ChangeSpec::validateText: the text rules every string of every spec obeys (see
// core/UntrustedText.h), applied by ChangeSpec::validate after the schema and the cross-field
// rules. Kept apart from those so each rule set reads on its own.
#include "core/ChangeSpec.h"
#include "core/JsonSchema.h"
#include "core/UntrustedText.h"

#include <QJsonArray>

namespace fb::ChangeSpec {

namespace {

QString codePointName(char32_t c)
{
    if (c <= 0x1F || c == 0x7F)
        return QStringLiteral("a control character");
    if (c >= 0x80 && c <= 0x9F)
        return QStringLiteral("a C1 control character");
    if (c == 0x2028 || c == 0x2029)
        return QStringLiteral("a line/paragraph separator");
    return QStringLiteral("a bidirectional control");
}

void walk(const QJsonValue &value, const QString &path, int depth, QList<SpecViolation> &out)
{
    if (depth > JsonSchema::kDefaultMaxDepth)
        return; // the schema reports the nesting
    if (value.isString()) {
        const QString s = value.toString();
        if (const auto f = UntrustedText::firstForbidden(s)) {
            out.append({path, QStringLiteral("must not contain %1 (%2 at position %3); control "
                                             "characters, U+2028/U+2029 and bidi controls are "
                                             "refused in every field")
                                  .arg(UntrustedText::escapeCodePoint(f->codePoint),
                                       codePointName(f->codePoint))
                                  .arg(f->index)});
        }
        if (const auto f = UntrustedText::firstUnshowable(s)) {
            out.append({path, QStringLiteral("must not contain %1 (%2, at position %3); "
                                             "invisible, unassigned and private-use code points, "
                                             "noncharacters and more than %4 combining marks on "
                                             "one character are refused in every field")
                                  .arg(UntrustedText::escapeCodePoint(f->codePoint), f->reason)
                                  .arg(f->index)
                                  .arg(UntrustedText::kMaxCombiningMarks)});
        }
        if (const auto f = UntrustedText::firstMarkup(s)) {
            out.append({path, QStringLiteral("must not contain '%1' (markup, at position %2); "
                                             "'<' and '>' are refused in every field")
                                  .arg(QChar(static_cast<char16_t>(f->codePoint)))
                                  .arg(f->index)});
        }
    } else if (value.isObject()) {
        const QJsonObject o = value.toObject();
        for (auto it = o.begin(); it != o.end(); ++it)
            walk(it.value(), JsonSchema::childPath(path, UntrustedText::escapeInvisible(it.key())),
                 depth + 1, out);
    } else if (value.isArray()) {
        const QJsonArray a = value.toArray();
        for (qsizetype i = 0; i < a.size(); ++i)
            walk(a.at(i), JsonSchema::indexPath(path, i), depth + 1, out);
    }
}

} // namespace

QList<SpecViolation> validateText(const QJsonValue &spec)
{
    QList<SpecViolation> out;
    walk(spec, QStringLiteral("$"), 0, out);
    return out;
}

} // namespace fb::ChangeSpec
