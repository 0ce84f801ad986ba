#include "gui/Accessibility.h"

#include <QAbstractItemView>
#include <QAccessible>
#include <QComboBox>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QPushButton>

namespace fb::Accessibility {

void describeButtons(QDialogButtonBox *box)
{
    static constexpr struct {
        QDialogButtonBox::StandardButton button;
        const char *description;
    } descriptions[] = {
        {QDialogButtonBox::Save, QT_TRANSLATE_NOOP("fb::Accessibility", "Saves these settings.")},
        {QDialogButtonBox::Cancel,
         QT_TRANSLATE_NOOP("fb::Accessibility", "Closes this dialog without saving anything.")},
        {QDialogButtonBox::Close, QT_TRANSLATE_NOOP("fb::Accessibility", "Closes this window.")},
        {QDialogButtonBox::Ok,
         QT_TRANSLATE_NOOP("fb::Accessibility", "Accepts and closes this dialog.")},
    };
    for (const auto &d : descriptions) {
        if (QPushButton *b = box->button(d.button))
            b->setAccessibleDescription(
                QCoreApplication::translate("fb::Accessibility", d.description));
    }
}

void nameChoices(QComboBox *box)
{
    QAbstractItemView *list = box->view();
    list->setAccessibleName(box->accessibleName());
    list->setAccessibleDescription(
        QCoreApplication::translate("fb::Accessibility", "The choices for %1.")
            .arg(box->accessibleName()));
}

void announce(QWidget *widget)
{
    if (!widget || !QAccessible::isActive())
        return;
    QAccessibleEvent event(widget, QAccessible::Alert);
    QAccessible::updateAccessibility(&event);
}

} // namespace fb::Accessibility
