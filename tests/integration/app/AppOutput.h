#pragma once
// What a unit of src/app linked into a suite prints: stdout and stderr of this process caught
// in files for the lifetime of the object (the file descriptors themselves, so fwrite, printf
// and QTextStream(stdout) are all caught). Call nothing that logs while one is alive.
#include <QByteArray>
#include <QFile>
#include <QStringList>
#include <QTemporaryFile>

#include <cstdio>
#include <unistd.h>

namespace fbtest {

class AppOutput {
public:
    AppOutput()
    {
        m_outFile.open();
        m_errFile.open();
        std::fflush(stdout);
        std::fflush(stderr);
        m_savedOut = ::dup(STDOUT_FILENO);
        m_savedErr = ::dup(STDERR_FILENO);
        ::dup2(m_outFile.handle(), STDOUT_FILENO);
        ::dup2(m_errFile.handle(), STDERR_FILENO);
    }
    ~AppOutput() { restore(); }
    AppOutput(const AppOutput &) = delete;
    AppOutput &operator=(const AppOutput &) = delete;

    // Stops catching (idempotent); out() and err() then hold everything caught.
    void restore()
    {
        if (m_savedOut < 0)
            return;
        std::fflush(stdout);
        std::fflush(stderr);
        ::dup2(m_savedOut, STDOUT_FILENO);
        ::dup2(m_savedErr, STDERR_FILENO);
        ::close(m_savedOut);
        ::close(m_savedErr);
        m_savedOut = m_savedErr = -1;
        m_out = readAll(m_outFile);
        m_err = readAll(m_errFile);
    }
    QByteArray outBytes()
    {
        restore();
        return m_out;
    }
    QString out() { return QString::fromUtf8(outBytes()); }
    QString err()
    {
        restore();
        return QString::fromUtf8(m_err);
    }

private:
    static QByteArray readAll(QTemporaryFile &f)
    {
        QFile reader(f.fileName());
        return reader.open(QIODevice::ReadOnly) ? reader.readAll() : QByteArray();
    }
    QTemporaryFile m_outFile;
    QTemporaryFile m_errFile;
    int m_savedOut = -1;
    int m_savedErr = -1;
    QByteArray m_out;
    QByteArray m_err;
};

// One run of a command of the executable (runPolicyCommand, ...) in this process: its exit
// code and what it printed.
struct CommandRun {
    int exitCode = -1;
    QString out;
    QString err;
};

inline CommandRun runCommand(int (*command)(const QStringList &), const QStringList &args)
{
    AppOutput output;
    CommandRun r;
    r.exitCode = command(args);
    r.out = output.out();
    r.err = output.err();
    return r;
}

} // namespace fbtest
