#pragma once
// WarnThrottle: at most one log line per kind of refusal each interval (issue #34, item 9:
// another local user could fill the log with one warning per refused connection, 190,102 lines
// in 12 s). The line that is let through says how many were not logged since the last one, so
// nothing is hidden, only counted.
#include <QtGlobal>

namespace fb::transport {

class WarnThrottle {
public:
    static constexpr qint64 DefaultIntervalMs = 1000;
    explicit WarnThrottle(qint64 intervalMs = DefaultIntervalMs)
        : m_intervalMs(intervalMs)
    {
    }
    // Whether to log now (at nowMs); *suppressed is set to how many were not logged since the
    // last line that was.
    bool allow(qint64 nowMs, qint64 *suppressed)
    {
        if (m_lastMs >= 0 && nowMs - m_lastMs < m_intervalMs && nowMs >= m_lastMs) {
            ++m_suppressed;
            return false;
        }
        *suppressed = m_suppressed;
        m_suppressed = 0;
        m_lastMs = nowMs;
        return true;
    }

private:
    qint64 m_intervalMs;
    qint64 m_lastMs = -1;
    qint64 m_suppressed = 0;
};

} // namespace fb::transport
