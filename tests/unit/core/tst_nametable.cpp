// NameTable (src/core/NameTable.h): an enum's names as one table, looked up both ways. Unknown
// values and names give nothing, names match exactly, and the first row wins for a repeat.
#include "TestEnvironment.h"
#include "core/NameTable.h"

#include <QTest>

using namespace fb;

namespace {
enum class Colour { Red, Green, Blue, Unlisted };

struct ColourRow {
    Colour value;
    QStringView name;
    int wavelength;
};

constexpr ColourRow kColours[] = {
    {Colour::Red, u"red", 700},
    {Colour::Green, u"green", 530},
    {Colour::Blue, u"blue", 470},
    {Colour::Red, u"crimson", 650}, // a second name for red: lookups by value find the first
};

constexpr EnumName<Colour> kPlain[] = {{Colour::Green, u"g"}};
} // namespace

class TestNameTable : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void findRowByValue()
    {
        const ColourRow *blue = findRow(kColours, Colour::Blue);
        QVERIFY(blue);
        QCOMPARE(blue->wavelength, 470);
        QCOMPARE(findRow(kColours, Colour::Red)->name.toString(), "red");
        QVERIFY(!findRow(kColours, Colour::Unlisted));
        static_assert(findRow(kColours, Colour::Green)->wavelength == 530);
    }

    void nameOfValue()
    {
        QCOMPARE(nameOf(kColours, Colour::Green), "green");
        QCOMPARE(nameOf(kColours, Colour::Red), "red");
        QVERIFY(nameOf(kColours, Colour::Unlisted).isEmpty());
        QCOMPARE(nameOf(kPlain, Colour::Green), "g");
        QVERIFY(nameOf(kPlain, Colour::Red).isEmpty());
    }

    void valueOfName()
    {
        QCOMPARE(valueOf(kColours, u"blue"), std::optional<Colour>(Colour::Blue));
        QCOMPARE(valueOf(kColours, u"crimson"), std::optional<Colour>(Colour::Red));
        QVERIFY(!valueOf(kColours, u"Blue").has_value());
        QVERIFY(!valueOf(kColours, u"blue ").has_value());
        QVERIFY(!valueOf(kColours, u"").has_value());
        QVERIFY(!valueOf(kPlain, u"green").has_value());
    }

    void namesInTableOrder()
    {
        QCOMPARE(namesOf(kColours), QStringList({"red", "green", "blue", "crimson"}));
        QCOMPARE(namesOf(kPlain), QStringList({"g"}));
    }
};

QTEST_APPLESS_MAIN(TestNameTable)
#include "tst_nametable.moc"
