#pragma once
// UntrustedText: the one definition of what an agent- or client-written string may contain and
// how such a string is shown to a person. Header-only and Qt Core only, so the MCP layer (which
// links no core library) uses the same rules for clientInfo as ChangeSpec uses for specs.
//
// - Forbidden (refused in every spec string, escaped in clientInfo): C0 controls U+0000-U+001F,
//   DEL U+007F, C1 controls U+0080-U+009F, the separators U+2028/U+2029 and the bidi controls
//   U+200E, U+200F, U+061C, U+202A-U+202E, U+2066-U+2069.
// - Unshowable (also refused in every spec string, see firstUnshowable()): every other
//   Default_Ignorable_Code_Point (kDefaultIgnorable: zero-width characters, variation selectors
//   U+FE00-FE0F and U+E0100-E01EF, U+034F, the Hangul fillers U+115F, U+1160, U+3164, U+FFA0,
//   tags, ...), every unassigned (Cn, by Qt's Unicode tables) and private-use (Co) code point,
//   every noncharacter, and a combining mark beyond kMaxCombiningMarks on one character.
// - Markup (refused in spec strings): '<' and '>' (HTML tags and Markdown autolinks).
// - Shown: escapeInvisible() writes every forbidden and unshowable code point, every other
//   invisible format character (Unicode category Cf, e.g. U+0600) and every lone surrogate as an
//   escape ("\n", "\r", "\t", "\u202E", "\u{E0041}"), so no value can start a line, reorder
//   text, hide characters or pile marks over its neighbours; escapeForMessage() also writes the
//   characters a Markdown or HTML renderer would act on ('<', '>', '&', '[', ']', '`', '*') as
//   "\u003C"-style escapes, so the text stays inert in a client that renders the elicitation
//   message. Both are idempotent: escaping twice is once.
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

struct CodePointRange {
    char32_t first;
    char32_t last;
};

// Default_Ignorable_Code_Point, as derived in Unicode's DerivedCoreProperties.txt (Unicode 15.1
// and 16.0 list the same ranges): Other_Default_Ignorable_Code_Point + Cf + Variation_Selector
// - White_Space - FFF9..FFFB - 13430..1343F - Prepended_Concatenation_Mark. Reserved code points
// in these ranges are included, as the definition includes them.
inline constexpr CodePointRange kDefaultIgnorable[] = {
    {0x00AD, 0x00AD},   // SOFT HYPHEN
    {0x034F, 0x034F},   // COMBINING GRAPHEME JOINER
    {0x061C, 0x061C},   // ARABIC LETTER MARK
    {0x115F, 0x1160},   // HANGUL CHOSEONG FILLER..HANGUL JUNGSEONG FILLER
    {0x17B4, 0x17B5},   // KHMER VOWEL INHERENT AQ..AA
    {0x180B, 0x180F},   // MONGOLIAN FREE VARIATION SELECTORS, VOWEL SEPARATOR
    {0x200B, 0x200F},   // ZERO WIDTH SPACE..RIGHT-TO-LEFT MARK
    {0x202A, 0x202E},   // LEFT-TO-RIGHT EMBEDDING..RIGHT-TO-LEFT OVERRIDE
    {0x2060, 0x206F},   // WORD JOINER..NOMINAL DIGIT SHAPES (with reserved U+2065)
    {0x3164, 0x3164},   // HANGUL FILLER
    {0xFE00, 0xFE0F},   // VARIATION SELECTOR-1..16
    {0xFEFF, 0xFEFF},   // ZERO WIDTH NO-BREAK SPACE
    {0xFFA0, 0xFFA0},   // HALFWIDTH HANGUL FILLER
    {0xFFF0, 0xFFF8},   // reserved
    {0x1BCA0, 0x1BCA3}, // SHORTHAND FORMAT LETTER OVERLAP..UP STEP
    {0x1D173, 0x1D17A}, // MUSICAL SYMBOL BEGIN BEAM..END PHRASE
    {0xE0000, 0xE0FFF}, // LANGUAGE TAG, TAG characters, VARIATION SELECTOR-17..256, reserved
};

constexpr bool isDefaultIgnorable(char32_t c)
{
    for (const CodePointRange &r : kDefaultIgnorable) {
        if (c >= r.first && c <= r.last)
            return true;
    }
    return false;
}

// At most this many combining marks (Mn, Mc, Me) are shown on one character; more are escaped.
inline constexpr int kMaxCombiningMarks = 4;

inline bool isCombiningMark(char32_t c)
{
    const QChar::Category category = QChar::category(c);
    return category == QChar::Mark_NonSpacing || category == QChar::Mark_SpacingCombining ||
           category == QChar::Mark_Enclosing;
}

// Why a code point is never shown raw (beyond isForbidden): empty when it may be shown.
inline QString unshowableReason(char32_t c)
{
    if (c >= 0xD800 && c <= 0xDFFF)
        return QStringLiteral("a lone surrogate");
    if (QChar::isNonCharacter(c))
        return QStringLiteral("a noncharacter");
    if (isDefaultIgnorable(c))
        return QStringLiteral("a default-ignorable (invisible) code point");
    switch (QChar::category(c)) {
    case QChar::Other_NotAssigned:
        return QStringLiteral("an unassigned code point");
    case QChar::Other_PrivateUse:
        return QStringLiteral("a private-use code point");
    default:
        return {};
    }
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
    QString reason; // firstUnshowable(): what it is
};

namespace detail {
// Calls visit(index, codePoint) for each code point of s (a lone surrogate as itself) until it
// returns false.
template <typename Visit> void forEachCodePoint(QStringView s, Visit visit)
{
    for (qsizetype i = 0; i < s.size(); ++i) {
        const QChar ch = s.at(i);
        if (ch.isHighSurrogate() && i + 1 < s.size() && s.at(i + 1).isLowSurrogate()) {
            if (!visit(i, QChar::surrogateToUcs4(ch, s.at(i + 1))))
                return;
            ++i;
            continue;
        }
        if (!visit(i, char32_t(ch.unicode())))
            return;
    }
}
} // namespace detail

inline std::optional<Finding> firstForbidden(QStringView s)
{
    for (qsizetype i = 0; i < s.size(); ++i) {
        const char16_t u = s.at(i).unicode();
        if (isForbidden(u))
            return Finding{i, u, {}};
    }
    return std::nullopt;
}

inline std::optional<Finding> firstMarkup(QStringView s)
{
    for (qsizetype i = 0; i < s.size(); ++i) {
        if (isMarkup(s.at(i).unicode()))
            return Finding{i, s.at(i).unicode(), {}};
    }
    return std::nullopt;
}

// The first code point that is not forbidden but may not be shown either: default-ignorable,
// unassigned, private use, a noncharacter, a lone surrogate, or a combining mark beyond
// kMaxCombiningMarks on one character.
inline std::optional<Finding> firstUnshowable(QStringView s)
{
    std::optional<Finding> found;
    int marks = 0;
    detail::forEachCodePoint(s, [&](qsizetype i, char32_t c) {
        if (isForbidden(c)) {
            marks = 0;
            return true; // reported by firstForbidden()
        }
        // Every combining mark since the last other code point counts, shown or not.
        marks = isCombiningMark(c) ? marks + 1 : 0;
        QString reason = unshowableReason(c);
        if (reason.isEmpty() && marks > kMaxCombiningMarks)
            reason = QStringLiteral("more than %1 combining marks on one character")
                         .arg(kMaxCombiningMarks);
        if (reason.isEmpty())
            return true;
        found = Finding{i, c, reason};
        return false;
    });
    return found;
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
    // Every combining mark since the last other code point counts, shown or not; the ones past
    // kMaxCombiningMarks are escaped. (Idempotent: an escape is ASCII, so a second pass only
    // sees shorter runs.)
    int marks = 0;
    forEachCodePoint(s, [&](qsizetype i, char32_t c) {
        marks = isCombiningMark(c) ? marks + 1 : 0;
        const bool escaped = isForbidden(c) || QChar::category(c) == QChar::Other_Format ||
                             !unshowableReason(c).isEmpty() || marks > kMaxCombiningMarks ||
                             (markup && isMessageMarkup(c));
        if (escaped)
            out += escapeCodePoint(c);
        else
            out += s.mid(i, c > 0xFFFF ? 2 : 1);
        return true;
    });
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
