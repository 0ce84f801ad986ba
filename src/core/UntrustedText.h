#pragma once
// UntrustedText: the one definition of what an agent- or client-written string may contain and
// how such a string is shown to a person. Header-only and Qt Core only, so the MCP layer (which
// links no core library) uses the same rules for clientInfo as ChangeSpec uses for specs.
//
// - Forbidden (refused in every spec string, escaped in clientInfo): C0 controls U+0000-U+001F,
//   DEL U+007F, C1 controls U+0080-U+009F, the separators U+2028/U+2029 and the bidi controls
//   U+200E, U+200F, U+061C, U+202A-U+202E, U+2066-U+2069.
// - Markup (refused in spec strings): '<' and '>' (HTML tags and Markdown autolinks).
// - Shown: escapeInvisible() writes every forbidden code point, every other invisible format
//   character (Unicode category Cf, e.g. U+200B, U+FEFF) and every lone surrogate as an escape
//   ("\n", "\r", "\t", "\u202E", "\u{E0041}"), so no value can start a line or reorder text;
//   escapeForMessage() also writes the characters a Markdown or HTML renderer would act on
//   ('<', '>', '&', '[', ']', '`', '*') as "\u003C"-style escapes, so the text stays inert in a
//   client that renders the elicitation message. Both are idempotent: escaping twice is once.
#include <QChar>
#include <QString>
#include <QStringView>

#include <optional>

namespace fb::UntrustedText {

constexpr bool isForbidden(char32_t c)
{
    return c <= 0x1F || (c >= 0x7F && c <= 0x9F) || c == 0x2028 || c == 0x2029 || c == 0x200E ||
           c == 0x200F || c == 0x061C || (c >= 0x202A && c <= 0x202E) ||
           (c >= 0x2066 && c <= 0x2069);
}

constexpr bool isMarkup(char32_t c)
{
    return c == u'<' || c == u'>';
}

// Characters a Markdown/HTML renderer acts on inside a line (beyond isMarkup).
constexpr bool isMessageMarkup(char32_t c)
{
    return isMarkup(c) || c == u'&' || c == u'[' || c == u']' || c == u'`' || c == u'*';
}

struct Finding {
    qsizetype index = 0; // UTF-16 index
    char32_t codePoint = 0;
};

inline std::optional<Finding> firstForbidden(QStringView s)
{
    for (qsizetype i = 0; i < s.size(); ++i) {
        const char16_t u = s.at(i).unicode();
        if (isForbidden(u))
            return Finding{i, u};
    }
    return std::nullopt;
}

inline std::optional<Finding> firstMarkup(QStringView s)
{
    for (qsizetype i = 0; i < s.size(); ++i) {
        if (isMarkup(s.at(i).unicode()))
            return Finding{i, s.at(i).unicode()};
    }
    return std::nullopt;
}

// "\n", "\r", "\t", "\u202E", "\u{E0041}".
inline QString escapeCodePoint(char32_t c)
{
    switch (c) {
    case u'\n':
        return QStringLiteral("\\n");
    case u'\r':
        return QStringLiteral("\\r");
    case u'\t':
        return QStringLiteral("\\t");
    default:
        break;
    }
    if (c > 0xFFFF)
        return QStringLiteral("\\u{") + QString::number(static_cast<uint>(c), 16).toUpper() + u'}';
    return QStringLiteral("\\u") +
           QString::number(static_cast<uint>(c), 16).toUpper().rightJustified(4, u'0');
}

namespace detail {
inline QString escape(QStringView s, bool markup)
{
    QString out;
    out.reserve(s.size());
    for (qsizetype i = 0; i < s.size(); ++i) {
        const QChar ch = s.at(i);
        if (ch.isHighSurrogate() && i + 1 < s.size() && s.at(i + 1).isLowSurrogate()) {
            const char32_t c = QChar::surrogateToUcs4(ch, s.at(i + 1));
            if (QChar::category(c) == QChar::Other_Format) {
                out += escapeCodePoint(c);
            } else {
                out += ch;
                out += s.at(i + 1);
            }
            ++i;
            continue;
        }
        const char16_t u = ch.unicode();
        if (ch.isSurrogate() || isForbidden(u) || QChar::category(u) == QChar::Other_Format ||
            (markup && isMessageMarkup(u)))
            out += escapeCodePoint(u);
        else
            out += ch;
    }
    return out;
}
} // namespace detail

// For plain-text display (Qt::PlainText labels, tree cells, logs): invisible structure escaped.
inline QString escapeInvisible(QStringView s)
{
    return detail::escape(s, false);
}

// For text a client may render as Markdown or HTML (the elicitation message): also markup.
inline QString escapeForMessage(QStringView s)
{
    return detail::escape(s, true);
}

// At most maxCodePoints code points; a longer string is cut and ends in U+2026.
inline QString bounded(const QString &s, qsizetype maxCodePoints)
{
    qsizetype points = 0;
    for (qsizetype i = 0; i < s.size(); ++i) {
        if (points == maxCodePoints)
            return s.left(i) + QChar(0x2026);
        if (s.at(i).isHighSurrogate() && i + 1 < s.size() && s.at(i + 1).isLowSurrogate())
            ++i;
        ++points;
    }
    return s;
}

} // namespace fb::UntrustedText
