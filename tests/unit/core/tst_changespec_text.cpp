// The text rules of every spec string (core/UntrustedText.h applied by ChangeSpec::validate):
// each forbidden code point and '<'/'>' is refused at its JSON path in every kind of field, and
// every free-text field has its length limit in the published schema, refused one past it.
#include "TestEnvironment.h"
#include "changespec_fixtures.h"
#include "core/ChangeSpec.h"
#include "core/UntrustedText.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace fb;

namespace {

QJsonObject fixture(const char *json)
{
    return QJsonDocument::fromJson(QByteArray(json)).object();
}

// path like "zSide.accessPoint.sellerRegion" or "notifications.0.emails.0"
QJsonValue setAt(const QJsonValue &node, QStringList keys, const QJsonValue &value)
{
    if (keys.isEmpty())
        return value;
    const QString key = keys.takeFirst();
    bool isIndex = false;
    const int index = key.toInt(&isIndex);
    if (isIndex) {
        QJsonArray a = node.toArray();
        a[index] = setAt(a.at(index), keys, value);
        return a;
    }
    QJsonObject o = node.toObject();
    o.insert(key, setAt(o.value(key), keys, value));
    return o;
}

QString jsonPath(const QString &dotted)
{
    QString out = QStringLiteral("$");
    for (const QString &k : dotted.split(u'.')) {
        bool isIndex = false;
        k.toInt(&isIndex);
        out += isIndex ? QString(u'[' + k + u']') : u'.' + k;
    }
    return out;
}

struct Field {
    const char *changeType;
    const char *fixture;
    const char *path;
    int maxLength;      // the schema's limit
    const char *filler; // a valid value is filler repeated (e-mails get a domain)
};

const Field kFields[] = {
    {"connection_create", fixtures::kConnPortToAwsDot1q, "name", 24, "a"},
    {"connection_create", fixtures::kConnPortToAwsDot1q, "aSide.accessPoint.port.name", 100, "p"},
    {"connection_create", fixtures::kConnPortToAwsDot1q, "zSide.accessPoint.profile.name", 50, "s"},
    {"connection_create", fixtures::kConnPortToAwsDot1q, "zSide.accessPoint.sellerRegion", 64, "r"},
    {"connection_create", fixtures::kConnPortToAwsDot1q, "zSide.accessPoint.authenticationKey", 256,
     "k"},
    {"connection_create", fixtures::kConnPortToAwsDot1q, "order.purchaseOrderNumber", 50, "1"},
    {"connection_create", fixtures::kConnPortToAwsDot1q, "order.customerReferenceNumber", 50, "c"},
    {"connection_create", fixtures::kConnPortToAwsDot1q, "order.billingTier", 50, "b"},
    {"connection_create", fixtures::kConnPortToAwsDot1q, "project.projectId", 64, "f"},
    {"connection_create", fixtures::kConnPortToAwsDot1q, "notifications.0.sendInterval", 32, "i"},
    {"connection_create", fixtures::kConnPortToAwsDot1q, "notifications.0.emails.0", 254, "e"},
    {"network_create", fixtures::kNetEvplanGlobal, "name", 24, "n"},
    {"network_create", fixtures::kNetEvplanGlobal, "notifications.0.emails.0", 254, "e"},
    {"service_token_create", fixtures::kTokVcASideDot1q, "name", 50, "t"},
    {"service_token_create", fixtures::kTokVcASideDot1q, "description", 375, "d"},
};

QString valueOfLength(const Field &f, int length)
{
    if (QByteArray(f.path).endsWith("emails.0")) {
        const QString domain = QStringLiteral("@example.com");
        return QString(length - domain.size(), u'e') + domain;
    }
    return QString(length, QChar::fromLatin1(f.filler[0]));
}

bool hasViolationAt(const QList<SpecViolation> &violations, const QString &path,
                    const QString &needle)
{
    for (const SpecViolation &v : violations) {
        if (v.path == path && v.message.contains(needle))
            return true;
    }
    return false;
}

QString dump(const QList<SpecViolation> &violations)
{
    return formatViolations(violations);
}

const char32_t kForbidden[] = {0x0000, 0x0001, 0x0009, 0x000A, 0x000B, 0x000C, 0x000D,
                               0x001B, 0x001F, 0x007F, 0x0080, 0x0085, 0x009B, 0x009F,
                               0x2028, 0x2029, 0x200E, 0x200F, 0x061C, 0x202A, 0x202B,
                               0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069};

// Not forbidden, but never shown raw and refused in specs: default-ignorables (variation
// selectors, U+034F, the Hangul fillers, zero-width characters, tags), unassigned (Cn),
// private use (Co) and noncharacters.
const char32_t kUnshowable[] = {
    0x00AD,  0x034F,  0x115F,  0x1160,   0x17B4,  0x180B,   0x180E,  0x200B,  0x200C,
    0x200D,  0x2060,  0x2064,  0x2065,   0x206F,  0x3164,   0xFE00,  0xFE0F,  0xFEFF,
    0xFFA0,  0xFFF0,  0x1BCA0, 0x1D173,  0xE0000, 0xE0001,  0xE0041, 0xE007F, 0xE0100,
    0xE01EF, 0xE0FFF, 0x0378,  0x0530,   0x2FFFD, 0xE1000,  // unassigned
    0xE000,  0xF8FF,  0xF0000, 0x10FFFD,                    // private use
    0xFDD0,  0xFDEF,  0xFFFE,  0xFFFF,   0x1FFFE, 0x10FFFF, // noncharacters
};

QString withCodePoint(const QString &before, char32_t c, const QString &after)
{
    // Not QString::fromUcs4: its decoder drops a leading U+FEFF as a byte order mark.
    QString middle;
    if (c > 0xFFFF) {
        middle += QChar(QChar::highSurrogate(c));
        middle += QChar(QChar::lowSurrogate(c));
    } else {
        middle += QChar(char16_t(c));
    }
    return before + middle + after;
}

} // namespace

class TestChangeSpecText : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }
    void fixturesAreValid()
    {
        for (const Field &f : kFields) {
            const auto type = changeTypeFromName(QString::fromLatin1(f.changeType));
            QVERIFY(type);
            const auto v = ChangeSpec::validate(*type, fixture(f.fixture));
            QVERIFY2(v.isEmpty(), qPrintable(dump(v)));
        }
    }

    void forbiddenCodePointsAreRefusedByPath_data()
    {
        QTest::addColumn<int>("field");
        QTest::addColumn<uint>("codePoint");
        for (int i = 0; i < int(std::size(kFields)); ++i) {
            for (const char32_t c : kForbidden) {
                QTest::addRow("%s %s U+%04X", kFields[i].changeType, kFields[i].path, uint(c))
                    << i << uint(c);
            }
        }
    }
    void forbiddenCodePointsAreRefusedByPath()
    {
        QFETCH(int, field);
        QFETCH(uint, codePoint);
        const Field &f = kFields[field];
        const auto type = changeTypeFromName(QString::fromLatin1(f.changeType));
        const QString value =
            QStringLiteral("ab") + QChar(char16_t(codePoint)) + QStringLiteral("cd@example.com");
        const QJsonValue spec =
            setAt(fixture(f.fixture), QString::fromLatin1(f.path).split(u'.'), value);
        const auto v = ChangeSpec::validate(*type, spec);
        const QString escaped = UntrustedText::escapeCodePoint(codePoint);
        QVERIFY2(hasViolationAt(v, jsonPath(QString::fromLatin1(f.path)),
                                QStringLiteral("must not contain ") + escaped),
                 qPrintable(dump(v)));
        // The message itself never carries the raw character.
        for (const SpecViolation &sv : v)
            QVERIFY(!UntrustedText::firstForbidden(sv.message));
    }

    void markupIsRefusedByPath_data()
    {
        QTest::addColumn<int>("field");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("needle");
        for (int i = 0; i < int(std::size(kFields)); ++i) {
            QTest::addRow("%s %s <b>", kFields[i].changeType, kFields[i].path)
                << i << QStringLiteral("<b>x</b>") << QStringLiteral("'<'");
            QTest::addRow("%s %s >", kFields[i].changeType, kFields[i].path)
                << i << QStringLiteral("a>b") << QStringLiteral("'>'");
        }
    }
    void markupIsRefusedByPath()
    {
        QFETCH(int, field);
        QFETCH(QString, value);
        QFETCH(QString, needle);
        const Field &f = kFields[field];
        const auto type = changeTypeFromName(QString::fromLatin1(f.changeType));
        const QJsonValue spec =
            setAt(fixture(f.fixture), QString::fromLatin1(f.path).split(u'.'), value);
        const auto v = ChangeSpec::validate(*type, spec);
        QVERIFY2(hasViolationAt(v, jsonPath(QString::fromLatin1(f.path)), needle),
                 qPrintable(dump(v)));
    }

    void unshowableCodePointsAreRefusedByPath_data()
    {
        QTest::addColumn<int>("field");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("needle");
        for (int i = 0; i < int(std::size(kFields)); ++i) {
            for (const char32_t c : kUnshowable) {
                QTest::addRow("%s %s U+%04X", kFields[i].changeType, kFields[i].path, uint(c))
                    << i << withCodePoint(QStringLiteral("ab"), c, QStringLiteral("cd@example.com"))
                    << QStringLiteral("must not contain ") + UntrustedText::escapeCodePoint(c) +
                           QStringLiteral(" (");
            }
            QTest::addRow("%s %s 5 combining marks", kFields[i].changeType, kFields[i].path)
                << i << QStringLiteral("e\u0301\u0302\u0303\u0304\u0305x@example.com")
                << QStringLiteral("must not contain \\u0305 (more than 4 combining marks on one "
                                  "character, at position 5)");
        }
    }
    void unshowableCodePointsAreRefusedByPath()
    {
        QFETCH(int, field);
        QFETCH(QString, value);
        QFETCH(QString, needle);
        const Field &f = kFields[field];
        const auto type = changeTypeFromName(QString::fromLatin1(f.changeType));
        const QJsonValue spec =
            setAt(fixture(f.fixture), QString::fromLatin1(f.path).split(u'.'), value);
        const auto v = ChangeSpec::validate(*type, spec);
        QVERIFY2(hasViolationAt(v, jsonPath(QString::fromLatin1(f.path)), needle),
                 qPrintable(dump(v)));
        for (const SpecViolation &sv : v)
            QVERIFY(!UntrustedText::firstUnshowable(sv.message));
    }

    // Shown: every unshowable code point as an escape, and combining marks past the fourth on
    // one character; idempotent.
    void escapeInvisibleEscapesEveryUnshowable()
    {
        for (const char32_t c : kUnshowable) {
            const QString raw = withCodePoint(QStringLiteral("a"), c, QStringLiteral("b"));
            const QString shown = UntrustedText::escapeInvisible(raw);
            QCOMPARE(shown, QStringLiteral("a") + UntrustedText::escapeCodePoint(c) + u'b');
            QCOMPARE(UntrustedText::escapeForMessage(raw), shown);
            QCOMPARE(UntrustedText::escapeInvisible(shown), shown);
        }
        // Every range of the Default_Ignorable table, first and last code point.
        for (const UntrustedText::CodePointRange &r : UntrustedText::kDefaultIgnorable) {
            for (const char32_t c : {r.first, r.last}) {
                QVERIFY(UntrustedText::isDefaultIgnorable(c));
                QCOMPARE(UntrustedText::escapeInvisible(withCodePoint({}, c, {})),
                         UntrustedText::escapeCodePoint(c));
            }
        }
        QVERIFY(!UntrustedText::isDefaultIgnorable(u'a'));
        QVERIFY(!UntrustedText::isDefaultIgnorable(0xFFF9)); // interlinear annotation: excluded
        const QString marks = QStringLiteral("e\u0301\u0302\u0303\u0304\u0305\u0306 o\u0308");
        const QString shown = UntrustedText::escapeInvisible(marks);
        QCOMPARE(shown, QStringLiteral("e\u0301\u0302\u0303\u0304\\u0305\\u0306 o\u0308"));
        QCOMPARE(UntrustedText::escapeInvisible(shown), shown);
        // A mark that is escaped anyway (U+034F) still counts toward the cap.
        QCOMPARE(UntrustedText::escapeInvisible(QStringLiteral("e\u034F\u0301\u0302\u0303\u0304")),
                 QStringLiteral("e\\u034F\u0301\u0302\u0303\\u0304"));
        // What people write stays as written.
        for (const QString &ok :
             {QStringLiteral(
                  "caf\u00e9 Vi\u1EC7t \uC11C\uC6B8 \u0928\u092E\u0938\u094D\u0924\u0947"),
              QStringLiteral("x\U0001F600 \u6771\u4eac"),
              QStringLiteral("e\u0301\u0302\u0303\u0304")})
            QCOMPARE(UntrustedText::escapeInvisible(ok), ok);
    }

    void ordinaryUnicodeIsAccepted()
    {
        // Accents, Hangul and Devanagari, CJK, emoji (a surrogate pair) and four combining marks
        // on one character are neither forbidden nor unshowable.
        for (const QString &name :
             {QStringLiteral("caf\u00e9-M\u00fcnchen"), QStringLiteral("\u6771\u4eac-1"),
              QStringLiteral("x\U0001F600"), QStringLiteral("\uC11C\uC6B8 Vi\u1EC7t"),
              QStringLiteral("\u0928\u092E\u0938\u094D\u0924\u0947"),
              QStringLiteral("e\u0301\u0302\u0303\u0304"), QStringLiteral("R&D [lab] *1*")}) {
            QJsonObject spec = fixture(fixtures::kConnPortToAwsDot1q);
            spec.insert("name", name);
            const auto v = ChangeSpec::validate(ChangeType::ConnectionCreate, spec);
            QVERIFY2(v.isEmpty(), qPrintable(name + ": " + dump(v)));
        }
    }

    void lengthLimitsAreInThePublishedSchema_data()
    {
        QTest::addColumn<int>("field");
        for (int i = 0; i < int(std::size(kFields)); ++i)
            QTest::addRow("%s %s", kFields[i].changeType, kFields[i].path) << i;
    }
    void lengthLimitsAreInThePublishedSchema()
    {
        QFETCH(int, field);
        const Field &f = kFields[field];
        const auto type = changeTypeFromName(QString::fromLatin1(f.changeType));
        const QString path = jsonPath(QString::fromLatin1(f.path));
        const QStringList keys = QString::fromLatin1(f.path).split(u'.');

        const auto atLimit = ChangeSpec::validate(
            *type, setAt(fixture(f.fixture), keys, valueOfLength(f, f.maxLength)));
        QVERIFY2(atLimit.isEmpty(), qPrintable(dump(atLimit)));
        const auto beyond = ChangeSpec::validate(
            *type, setAt(fixture(f.fixture), keys, valueOfLength(f, f.maxLength + 1)));
        bool found = false;
        for (const SpecViolation &v : beyond)
            found = found || (v.path == path && (v.message.contains(QString::number(f.maxLength)) ||
                                                 v.message.contains(u"e-mail")));
        QVERIFY2(found, qPrintable(dump(beyond)));
    }

    // Every string property of every published schema is bounded: by maxLength, or because it
    // is an enum, a uuid, a date-time or a pattern with fixed length.
    void everyFreeTextFieldHasAMaxLength()
    {
        for (const QString &name : changeTypeNames()) {
            const QJsonObject schema = ChangeSpec::schema(*changeTypeFromName(name));
            QStringList unbounded;
            std::function<void(const QJsonValue &, const QString &)> walk =
                [&](const QJsonValue &node, const QString &where) {
                    if (node.isArray()) {
                        const QJsonArray a = node.toArray();
                        for (qsizetype i = 0; i < a.size(); ++i)
                            walk(a.at(i), where + QStringLiteral("[%1]").arg(i));
                        return;
                    }
                    if (!node.isObject())
                        return;
                    const QJsonObject o = node.toObject();
                    if (o.value("type") == QStringLiteral("string") && !o.contains("maxLength") &&
                        !o.contains("enum") && !o.contains("const") &&
                        o.value("format") != QStringLiteral("uuid") &&
                        o.value("format") != QStringLiteral("date-time") && !o.contains("pattern"))
                        unbounded << where;
                    for (auto it = o.begin(); it != o.end(); ++it)
                        walk(it.value(), where + u'/' + it.key());
                };
            walk(schema, name);
            QVERIFY2(unbounded.isEmpty(), qPrintable(unbounded.join(", ")));
        }
    }
};

QTEST_GUILESS_MAIN(TestChangeSpecText)
#include "tst_changespec_text.moc"
