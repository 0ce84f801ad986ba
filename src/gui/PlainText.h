#pragma once
// PlainText: showing client and agent strings in widgets that would otherwise guess rich text.
// Labels get Qt::PlainText (in the .ui files or where they are made); tooltips have no such
// switch (QToolTip renders whatever Qt::mightBeRichText() accepts), so plainToolTip() makes
// the tooltip rich text whose content is the HTML-escaped string: "<b>x</b>" shows as typed.
#include "core/UntrustedText.h"

#include <QString>
#include <QStringList>

namespace fb::PlainText {

// Each line is escaped (UntrustedText::escapeInvisible, then HTML), lines stay lines.
inline QString toolTip(const QString &text)
{
    if (text.isEmpty())
        return {};
    QStringList lines = text.split(u'\n');
    for (QString &line : lines)
        line = UntrustedText::escapeInvisible(line).toHtmlEscaped();
    return QStringLiteral("<qt>") + lines.join(QStringLiteral("<br>")) + QStringLiteral("</qt>");
}

} // namespace fb::PlainText
