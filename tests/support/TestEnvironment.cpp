#include "TestEnvironment.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTest>

using namespace Qt::StringLiterals;

namespace fbtest {

QString brokerBinary()
{
    return qEnvironmentVariable("FB_BROKER_BIN");
}

QString sharedFile(const QString &relative)
{
    const QString shared = qEnvironmentVariable("FB_SHARED_DIR");
    if (shared.isEmpty())
        return {};
    const QString path = QDir(shared).filePath(relative);
    return QFileInfo::exists(path) ? path : QString();
}

void failOnWarnings(const QStringList &expected)
{
    // Except the offscreen platform plugin's notes on what it cannot do (raise(),
    // propagateSizeHints()): a limit of the test platform, not a bug of the code under test.
    QString allowed = u"This plugin does not support "_s;
    for (const QString &e : expected)
        allowed += u"|(?:"_s + e + u')';
    const QRegularExpression bug(u"^(?!"_s + allowed + u')',
                                 QRegularExpression::DotMatchesEverythingOption);
    if (!bug.isValid())
        qFatal("failOnWarnings: %s", qUtf8Printable(bug.errorString()));
    QTest::failOnWarning(bug);
}

ScopedEnvironmentVariable::ScopedEnvironmentVariable(const char *name)
    : m_name(name)
    , m_wasSet(qEnvironmentVariableIsSet(name))
    , m_previous(qgetenv(name))
{
}

ScopedEnvironmentVariable::ScopedEnvironmentVariable(const char *name, const QByteArray &value)
    : ScopedEnvironmentVariable(name)
{
    if (value.isNull())
        qunsetenv(m_name);
    else
        qputenv(m_name, value);
}

ScopedEnvironmentVariable::~ScopedEnvironmentVariable()
{
    if (m_wasSet)
        qputenv(m_name, m_previous);
    else
        qunsetenv(m_name);
}

} // namespace fbtest
