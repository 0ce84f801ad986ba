#pragma once
// WindowFit: a window whose word-wrapped texts need more height at its width than its layout's
// minimum size promises (a top-level's minimum ignores height-for-width) grows to fit them, and
// cannot be shrunk so far that they are clipped. Texts that change later (an error, a policy
// note) are followed too.
class QWidget;

namespace fb {

// Keeps window at least as tall as its layout needs for its current width (idempotent).
void keepTallEnoughForText(QWidget *window);

} // namespace fb
