#include "core/Clock.h"

#include <QDateTime>

namespace fb {

qint64 SystemClock::nowMs() const
{
    return QDateTime::currentMSecsSinceEpoch();
}

Clock *Clock::system()
{
    static SystemClock clock;
    return &clock;
}

} // namespace fb
