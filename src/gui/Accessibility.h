#pragma once
// Accessibility: what assistive technology (a screen reader through AT-SPI) needs beyond the
// names and descriptions set in the .ui files: descriptions for standard dialog buttons, and an
// alert when a window asks for the person's attention.
class QComboBox;
class QDialogButtonBox;
class QWidget;

namespace fb::Accessibility {

// Every standard button of box gets a description of what it does (its name is its text).
void describeButtons(QDialogButtonBox *box);

// A combo box's popup list is a control of its own to a screen reader: it gets the box's name
// (set the box's accessible name first) and a description.
void nameChoices(QComboBox *box);

// Tells a listening screen reader that widget needs attention now (QAccessible::Alert), as a
// message box does. Nothing happens while no assistive technology is active.
void announce(QWidget *widget);

} // namespace fb::Accessibility
