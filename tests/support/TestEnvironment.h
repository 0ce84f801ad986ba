#pragma once
// What ctest hands a suite (tests/CMakeLists.txt): the broker binary, the shared folder next to
// the repository, the source tree; and the rule that an unexpected warning is a failure.
#include <QByteArray>
#include <QString>
#include <QStringList>

namespace fbtest {

// $FB_BROKER_BIN, the fabric-broker executable under test; empty outside ctest.
QString brokerBinary();

// $FB_SHARED_DIR/<relative> when that file exists (the spec seeds and the Fabric v4 OpenAPI
// document live in ../shared, never in the repository); empty otherwise.
QString sharedFile(const QString &relative);

// Call from a suite's init(): every qWarning in the test function that follows (from the code
// under test or the test) fails it, unless the test announced it with QTest::ignoreMessage or it
// begins with one of expected (regular expressions): the warnings that test provokes on purpose
// (a session it ends, a password it withholds), allowed any number of times, none included.
// The offscreen platform plugin's "This plugin does not support ..." notes do not count.
void failOnWarnings(const QStringList &expected = {});

// Restores one environment variable, set or unset, as it was when the object was made; the second
// form also sets it to value (a null value unsets it) for the object's lifetime.
class ScopedEnvironmentVariable {
public:
    explicit ScopedEnvironmentVariable(const char *name);
    ScopedEnvironmentVariable(const char *name, const QByteArray &value);
    ~ScopedEnvironmentVariable();
    ScopedEnvironmentVariable(const ScopedEnvironmentVariable &) = delete;
    ScopedEnvironmentVariable &operator=(const ScopedEnvironmentVariable &) = delete;

private:
    const char *m_name;
    bool m_wasSet;
    QByteArray m_previous;
};

} // namespace fbtest
