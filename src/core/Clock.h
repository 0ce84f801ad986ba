#pragma once
// Clock: the one source of "now" for TTLs and countdowns. Injected everywhere so tests never sleep.
#include <QtGlobal>
#include <atomic>

namespace fb {

class Clock {
public:
    virtual ~Clock() = default;
    // Milliseconds since the Unix epoch (UTC).
    virtual qint64 nowMs() const = 0;
    // The process-wide real clock.
    static Clock *system();
};

class SystemClock final : public Clock {
public:
    qint64 nowMs() const override;
};

// A clock that only moves when told to: for tests and benchmarks.
class ManualClock final : public Clock {
public:
    explicit ManualClock(qint64 startMs = 1767225600000)
        : m_now(startMs)
    {
    } // 2026-01-01T00:00Z
    qint64 nowMs() const override { return m_now.load(); }
    void setNowMs(qint64 ms) { m_now.store(ms); }
    void advanceMs(qint64 ms) { m_now.fetch_add(ms); }

private:
    std::atomic<qint64> m_now;
};

} // namespace fb
