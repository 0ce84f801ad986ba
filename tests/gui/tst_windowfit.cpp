// WindowFit: a window with word-wrapped text grows to the height its layout needs at its width
// (a top-level's minimum size ignores height-for-width), cannot be shrunk below it, and follows
// a text that gets longer later. Asking twice installs it once.
#include "TestEnvironment.h"
#include "gui/WindowFit.h"

#include <QLabel>
#include <QTest>
#include <QVBoxLayout>
#include <QWidget>

namespace {

struct Window {
    QWidget widget;
    QLabel *label;
    explicit Window(const QString &text)
        : label(new QLabel(text))
    {
        label->setWordWrap(true);
        auto *layout = new QVBoxLayout(&widget);
        layout->addWidget(label);
        widget.resize(160, 20);
    }
    int needed() const { return widget.heightForWidth(widget.width()); }
};

QString words(int count)
{
    QStringList out;
    for (int i = 0; i < count; ++i)
        out << QStringLiteral("word%1").arg(i);
    return out.join(u' ');
}

} // namespace

class TestWindowFit : public QObject {
    Q_OBJECT

private slots:
    void init() { fbtest::failOnWarnings(); }

    void growsToFitTheText()
    {
        Window w(words(60));
        fb::keepTallEnoughForText(&w.widget);
        w.widget.show();
        QVERIFY(w.needed() > 100); // at 160 pixels the text needs many lines
        QTRY_COMPARE(w.widget.minimumHeight(), w.needed());
        QVERIFY(w.widget.height() >= w.needed());
        // Cannot be shrunk so far that the text is clipped.
        w.widget.resize(w.widget.width(), 10);
        QTRY_VERIFY(w.widget.height() >= w.needed());
    }

    void followsALongerText()
    {
        Window w(words(5));
        fb::keepTallEnoughForText(&w.widget);
        w.widget.show();
        QTRY_COMPARE(w.widget.minimumHeight(), w.needed());
        const int before = w.widget.height();
        w.label->setText(words(80));
        QTRY_VERIFY(w.widget.height() >= w.needed());
        QVERIFY(w.widget.height() > before);
    }

    void installedOnce()
    {
        Window w(words(3));
        fb::keepTallEnoughForText(&w.widget);
        fb::keepTallEnoughForText(&w.widget);
        fb::keepTallEnoughForText(nullptr);
        QCOMPARE(w.widget
                     .findChildren<QObject *>(QStringLiteral("fbTallEnoughForText"),
                                              Qt::FindDirectChildrenOnly)
                     .size(),
                 1);
    }
};

QTEST_MAIN(TestWindowFit)
#include "tst_windowfit.moc"
