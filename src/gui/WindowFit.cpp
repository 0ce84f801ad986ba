#include "gui/WindowFit.h"

#include <QEvent>
#include <QPointer>
#include <QTimer>
#include <QWidget>

namespace fb {

namespace {

class TallEnough : public QObject {
public:
    explicit TallEnough(QWidget *window)
        : QObject(window)
        , m_window(window)
    {
        setObjectName(QStringLiteral("fbTallEnoughForText"));
        window->installEventFilter(this);
    }

    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (watched == m_window) {
            switch (event->type()) {
            case QEvent::Show:
            case QEvent::Resize:
            case QEvent::LayoutRequest:
                schedule(); // after the layout itself has handled the event
                break;
            default:
                break;
            }
        }
        return QObject::eventFilter(watched, event);
    }

private:
    void schedule()
    {
        if (m_scheduled)
            return;
        m_scheduled = true;
        QTimer::singleShot(0, this, [this] {
            m_scheduled = false;
            fit();
        });
    }

    void fit()
    {
        if (!m_window)
            return;
        const int needed = m_window->heightForWidth(m_window->width());
        if (needed <= 0)
            return;
        if (m_window->minimumHeight() != needed)
            m_window->setMinimumHeight(needed);
        if (m_window->height() < needed)
            m_window->resize(m_window->width(), needed);
    }

    QPointer<QWidget> m_window;
    bool m_scheduled = false;
};

} // namespace

void keepTallEnoughForText(QWidget *window)
{
    if (!window || window->findChild<TallEnough *>(QStringLiteral("fbTallEnoughForText"),
                                                   Qt::FindDirectChildrenOnly))
        return;
    new TallEnough(window);
}

} // namespace fb
