#pragma once
// What the AuditLog suites share (tst_auditlog, tst_auditlog_verify, tst_auditlog_file): file
// helpers, and per test function a log path in a fresh temporary folder and a manual clock.
#include "TestEnvironment.h"
#include "core/AuditLog.h"
#include "core/CanonicalJson.h"
#include "core/Clock.h"
#include "core/ProposalStore.h"
#include "core/TokenDigest.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>

#include <cerrno>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fbtest::auditlog {

inline QByteArray sha(const QByteArray &bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex();
}

inline QByteArray readAll(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

inline void writeAll(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(f.write(bytes), bytes.size());
}

// Lines without their newline; a final newline does not make an extra empty line.
inline QList<QByteArray> lines(const QString &path)
{
    QByteArray all = readAll(path);
    if (all.endsWith('\n'))
        all.chop(1);
    return all.isEmpty() ? QList<QByteArray>{} : all.split('\n');
}

inline QByteArray joinLines(const QList<QByteArray> &ls)
{
    return ls.join('\n') + '\n';
}

inline QJsonObject parse(const QByteArray &line)
{
    return QJsonDocument::fromJson(line).object();
}

inline int mode(const QString &path)
{
    struct stat st {};
    if (::stat(QFile::encodeName(path).constData(), &st) != 0)
        return -1;
    return static_cast<int>(st.st_mode & 0777);
}

inline qint64 canonicalSize(const QJsonObject &o)
{
    return fb::canonicalJson(o).size();
}

inline const QString kToken = QStringLiteral("chg-0123456789abcdef0123456789abcdef");

// Each suite's init() calls setUp() and its cleanup() tearDown().
class Fixture {
protected:
    void setUp()
    {
        m_tmp = new QTemporaryDir;
        QVERIFY(m_tmp->isValid());
        m_path = m_tmp->filePath(QStringLiteral("audit.jsonl"));
        m_clock.setNowMs(1767225600000); // 2026-01-01T00:00:00.000Z
    }
    void tearDown()
    {
        delete m_tmp;
        m_tmp = nullptr;
    }

    QTemporaryDir *m_tmp = nullptr;
    fb::ManualClock m_clock;
    QString m_path;

    // Writes n records "step" 1..n to m_path with a fresh writer.
    void writeRecords(int n, int firstIndex = 1)
    {
        fb::AuditLog log(&m_clock);
        QString error;
        QVERIFY2(log.open(m_path, &error), qPrintable(error));
        for (int i = 0; i < n; ++i) {
            m_clock.advanceMs(1500);
            QVERIFY(log.recordForTesting(
                QStringLiteral("step"),
                {{QStringLiteral("index"), firstIndex + i},
                 {QStringLiteral("target"), QStringLiteral("port A to port B")}}));
        }
    }
};

} // namespace fbtest::auditlog
