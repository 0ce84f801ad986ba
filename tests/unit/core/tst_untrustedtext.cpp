// UntrustedText (src/core/UntrustedText.h) on its own: which code points are forbidden,
// unshowable or markup (and where the first one is), how each is escaped for plain text and for
// a rendered message (idempotently), and bounding by code points. How ChangeSpec applies these
// rules to every spec string: tst_changespec_text.
#include "TestEnvironment.h"
#include "core/UntrustedText.h"

#include <QTest>

using namespace fb::UntrustedText;
using namespace Qt::StringLiterals;

class TestUntrustedText : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void forbiddenCodePoints_data()
    {
        QTest::addColumn<uint>("codePoint");
        QTest::addColumn<bool>("forbidden");
        for (uint c : {0x00u, 0x0Au, 0x1Fu, 0x7Fu, 0x80u, 0x9Fu, 0x2028u, 0x2029u, 0x200Eu, 0x200Fu,
                       0x061Cu, 0x202Au, 0x202Eu, 0x2066u, 0x2069u})
            QTest::addRow("U+%04X", c) << c << true;
        for (uint c : {0x20u, 0x41u, 0x7Eu, 0xA0u, 0x202Fu, 0x2065u, 0x206Au, 0x2027u, 0x1F600u})
            QTest::addRow("U+%04X", c) << c << false;
    }

    void forbiddenCodePoints()
    {
        QFETCH(uint, codePoint);
        QFETCH(bool, forbidden);
        QCOMPARE(isForbidden(char32_t(codePoint)), forbidden);
    }

    void firstFindingsHaveTheirIndex()
    {
        QVERIFY(!firstForbidden(u"plain text, ünïcode 😀").has_value());
        const auto f = firstForbidden(u"ab\u202Ecd\n");
        QVERIFY(f);
        QCOMPARE(f->index, 2);
        QCOMPARE(uint(f->codePoint), 0x202Eu);
        const auto m = firstMarkup(u"a > b < c");
        QVERIFY(m);
        QCOMPARE(m->index, 2);
        QCOMPARE(uint(m->codePoint), uint('>'));
        QVERIFY(!firstMarkup(u"a & [b] `c` *d*").has_value()); // only '<' and '>' in specs
    }

    void unshowable_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("index");
        QTest::addColumn<QString>("reason");
        QTest::newRow("zero width space") << u"ab\u200Bc"_s << 2 << "default-ignorable";
        QTest::newRow("variation selector") << u"x\uFE0F"_s << 1 << "default-ignorable";
        QTest::newRow("private use") << u"\uE000"_s << 0 << "private-use";
        QTest::newRow("noncharacter") << u"a\uFFFE"_s << 1 << "noncharacter";
        QTest::newRow("lone surrogate") << (u"a"_s + QChar(0xD800) + u"b"_s) << 1 << "surrogate";
        QTest::newRow("tag") << u"a\U000E0041"_s << 1 << "default-ignorable";
        QTest::newRow("five marks") << u"e\u0301\u0301\u0301\u0301\u0301"_s << 5 << "combining";
        QTest::newRow("four marks") << u"e\u0301\u0301\u0301\u0301"_s << -1 << QString();
        QTest::newRow("emoji pair") << u"ok 😀"_s << -1 << QString();
        QTest::newRow("forbidden is not unshowable") << u"a\nb"_s << -1 << QString();
    }

    void unshowable()
    {
        QFETCH(QString, text);
        QFETCH(int, index);
        QFETCH(QString, reason);
        const auto f = firstUnshowable(text);
        if (index < 0) {
            QVERIFY2(!f, f ? qPrintable(f->reason) : "");
            return;
        }
        QVERIFY(f);
        QCOMPARE(f->index, index);
        QVERIFY2(f->reason.contains(reason), qPrintable(f->reason));
    }

    void escapes_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("invisible");
        QTest::addColumn<QString>("message");
        QTest::newRow("plain") << u"name 1"_s << u"name 1"_s << u"name 1"_s;
        QTest::newRow("line breaks") << u"a\nb\r\tc"_s << u"a\\nb\\r\\tc"_s << u"a\\nb\\r\\tc"_s;
        QTest::newRow("bidi") << u"a\u202Eb"_s << u"a\\u202Eb"_s << u"a\\u202Eb"_s;
        QTest::newRow("format character") << u"\u0600x"_s << u"\\u0600x"_s << u"\\u0600x"_s;
        QTest::newRow("astral tag") << u"\U000E0041"_s << u"\\u{E0041}"_s << u"\\u{E0041}"_s;
        QTest::newRow("markup") << u"<b>[x](y) & `z` *w*"_s << u"<b>[x](y) & `z` *w*"_s
                                << u"\\u003Cb\\u003E\\u005Bx\\u005D(y) \\u0026 \\u0060z\\u0060 "
                                   u"\\u002Aw\\u002A"_s;
        QTest::newRow("fifth mark")
            << u"e\u0301\u0301\u0301\u0301\u0301"_s << u"e\u0301\u0301\u0301\u0301\\u0301"_s
            << u"e\u0301\u0301\u0301\u0301\\u0301"_s;
        QTest::newRow("emoji kept") << u"😀"_s << u"😀"_s << u"😀"_s;
    }

    void escapes()
    {
        QFETCH(QString, text);
        QFETCH(QString, invisible);
        QFETCH(QString, message);
        QCOMPARE(escapeInvisible(text), invisible);
        QCOMPARE(escapeForMessage(text), message);
        // Idempotent: escaping twice is escaping once.
        QCOMPARE(escapeInvisible(invisible), invisible);
        QCOMPARE(escapeForMessage(message), message);
        // Nothing escaped is left that the rules would refuse.
        QVERIFY(!firstForbidden(message));
        QVERIFY(!firstUnshowable(message));
        QVERIFY(!firstMarkup(message));
    }

    void boundedCountsCodePoints()
    {
        QCOMPARE(bounded(u"abcdef"_s, 6), "abcdef");
        QCOMPARE(bounded(u"abcdef"_s, 4), u"abcd\u2026"_s);
        QCOMPARE(bounded(u"😀😀😀"_s, 3), u"😀😀😀"_s); // three code points, six UTF-16 units
        QCOMPARE(bounded(u"😀😀😀"_s, 2), u"😀😀\u2026"_s);
        QCOMPARE(bounded(QString(), 0), QString());
    }
};

QTEST_APPLESS_MAIN(TestUntrustedText)
#include "tst_untrustedtext.moc"
