// MemoryDenyWriteExecute= in packaging/linux/fabric-broker.service: systemd installs a seccomp
// filter that refuses mmap with PROT_WRITE|PROT_EXEC, mprotect/pkey_mprotect with PROT_EXEC and
// shmat with SHM_EXEC. This test installs the same rule (EPERM) in a child before exec'ing the
// real fabric-broker, and runs an MCP session with a propose (dry run + price lookup over the
// loopback sandbox): Qt Core/Network must work without writable executable memory.
#include "TestEnvironment.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <cstddef>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

#if defined(__x86_64__)
constexpr quint32 kNativeArch = AUDIT_ARCH_X86_64;
#define FB_MDWE_SUPPORTED 1
#elif defined(__aarch64__)
constexpr quint32 kNativeArch = AUDIT_ARCH_AARCH64;
#define FB_MDWE_SUPPORTED 1
#endif

#ifdef FB_MDWE_SUPPORTED
// Returns false if the filter could not be installed. Async-signal-safe (runs after fork()).
bool installMdweFilter()
{
    constexpr quint32 arg2 = offsetof(struct seccomp_data, args) + 2 * sizeof(quint64);
    struct sock_filter filter[] = {
        /* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        /* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kNativeArch, 0, 15),
        /* 2 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        /* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mmap, 4, 0),
        /* 4 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mprotect, 6, 0),
        /* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_pkey_mprotect, 5, 0),
        /* 6 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_shmat, 7, 0),
        /* 7 */ BPF_JUMP(BPF_JMP | BPF_JA, 9, 0, 0),
        /* 8: mmap */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, arg2),
        /* 9 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, PROT_WRITE | PROT_EXEC),
        /* 10 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PROT_WRITE | PROT_EXEC, 7, 6),
        /* 11: mprotect */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, arg2),
        /* 12 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, PROT_EXEC),
        /* 13 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PROT_EXEC, 4, 3),
        /* 14: shmat */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, arg2),
        /* 15 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, SHM_EXEC),
        /* 16 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SHM_EXEC, 1, 0),
        /* 17 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        /* 18 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
    };
    struct sock_fprog prog = {static_cast<unsigned short>(sizeof(filter) / sizeof(filter[0])),
                              filter};
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return false;
    return ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
}
#endif

QByteArray frame(const QJsonObject &o)
{
    return QJsonDocument(o).toJson(QJsonDocument::Compact) + '\n';
}

} // namespace

class TestMdwe : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }
    // The filter does what it says: the test could fail.
    void filterRefusesWritableExecutableMemory()
    {
#ifndef FB_MDWE_SUPPORTED
        QSKIP("seccomp rule only written for x86_64 and aarch64");
#else
        const pid_t pid = ::fork();
        QVERIFY(pid >= 0);
        if (pid == 0) {
            if (!installMdweFilter())
                ::_exit(10);
            void *rw =
                ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (rw == MAP_FAILED)
                ::_exit(11);
            void *rwx = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (rwx != MAP_FAILED || errno != EPERM)
                ::_exit(12);
            if (::mprotect(rw, 4096, PROT_READ | PROT_EXEC) == 0 || errno != EPERM)
                ::_exit(13);
            ::_exit(0);
        }
        int status = 0;
        QCOMPARE(::waitpid(pid, &status, 0), pid);
        QVERIFY(WIFEXITED(status));
        QCOMPARE(WEXITSTATUS(status), 0);
#endif
    }

    void brokerWorksUnderMemoryDenyWriteExecute()
    {
#ifndef FB_MDWE_SUPPORTED
        QSKIP("seccomp rule only written for x86_64 and aarch64");
#else
        const QString bin = fbtest::brokerBinary();
        QVERIFY2(!bin.isEmpty(), "FB_BROKER_BIN is not set");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QDir(dir.path()).mkpath(QStringLiteral("run"));
        QFile::setPermissions(dir.filePath(QStringLiteral("run")), QFileDevice::ReadOwner |
                                                                       QFileDevice::WriteOwner |
                                                                       QFileDevice::ExeOwner);
        QProcessEnvironment env;
        env.insert(QStringLiteral("PATH"), qEnvironmentVariable("PATH"));
        env.insert(QStringLiteral("HOME"), dir.path());
        env.insert(QStringLiteral("XDG_RUNTIME_DIR"), dir.filePath(QStringLiteral("run")));
        env.insert(QStringLiteral("XDG_DATA_HOME"), dir.filePath(QStringLiteral("data")));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), dir.filePath(QStringLiteral("config")));
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        for (const char *keep : {"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"}) {
            if (qEnvironmentVariableIsSet(keep))
                env.insert(QString::fromLatin1(keep), qEnvironmentVariable(keep));
        }

        QProcess broker;
        broker.setProcessEnvironment(env);
        broker.setChildProcessModifier([] {
            if (!installMdweFilter())
                ::_exit(97);
        });
        broker.start(bin, {QStringLiteral("--headless"), QStringLiteral("--stdio"),
                           QStringLiteral("--sandbox"), QStringLiteral("--toolsets"),
                           QStringLiteral("read,mutate")});
        QVERIFY2(broker.waitForStarted(10000), qPrintable(broker.errorString()));

        QByteArray out;
        const auto waitFor = [&](const QString &id) -> QJsonObject {
            QElapsedTimer t;
            t.start();
            while (t.elapsed() < 30000) {
                for (const QByteArray &line : out.split('\n')) {
                    const QJsonObject o = QJsonDocument::fromJson(line).object();
                    if (o.value(QStringLiteral("id")).toString() == id)
                        return o;
                }
                if (broker.state() != QProcess::Running)
                    break;
                broker.waitForReadyRead(200);
                out += broker.readAllStandardOutput();
            }
            return {};
        };
        broker.write(frame(QJsonObject{
            {"jsonrpc", "2.0"},
            {"id", "init"},
            {"method", "initialize"},
            {"params",
             QJsonObject{{"protocolVersion", "2025-06-18"},
                         {"capabilities", QJsonObject{}},
                         {"clientInfo", QJsonObject{{"name", "mdwe"}, {"version", "1"}}}}}}));
        const QJsonObject init = waitFor(QStringLiteral("init"));
        QVERIFY2(init.contains(QStringLiteral("result")),
                 qPrintable(QString::fromUtf8(broker.readAllStandardError().right(2000))));
        broker.write(
            frame(QJsonObject{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}));

        const QJsonObject spec{
            {"type", "EVPL_VC"},
            {"name", "mdwe-conn"},
            {"bandwidth", 50},
            {"aSide",
             QJsonObject{{"accessPoint",
                          QJsonObject{{"type", "COLO"},
                                      {"port", QJsonObject{{"uuid", "50000000-0000-4000-8000-"
                                                                    "000000000001"}}},
                                      {"linkProtocol",
                                       QJsonObject{{"type", "DOT1Q"}, {"vlanTag", 3999}}}}}}},
            {"zSide",
             QJsonObject{{"accessPoint",
                          QJsonObject{{"type", "SP"},
                                      {"profile", QJsonObject{{"type", "L2_PROFILE"},
                                                              {"uuid", "5e000000-0000-4000-8000-"
                                                                       "000000000001"}}},
                                      {"location", QJsonObject{{"metroCode", "SV"}}},
                                      {"sellerRegion", "us-west-1"},
                                      {"authenticationKey", "123456789012"}}}}},
            {"notifications", QJsonArray{QJsonObject{
                                  {"type", "ALL"}, {"emails", QJsonArray{"netops@example.com"}}}}}};
        broker.write(frame(QJsonObject{
            {"jsonrpc", "2.0"},
            {"id", "p"},
            {"method", "tools/call"},
            {"params", QJsonObject{{"name", "fabric_propose_change"},
                                   {"arguments", QJsonObject{{"change_type", "connection_create"},
                                                             {"spec", spec}}}}}}));
        const QJsonObject proposed = waitFor(QStringLiteral("p"));
        const QJsonObject structured = proposed.value(QStringLiteral("result"))
                                           .toObject()
                                           .value(QStringLiteral("structuredContent"))
                                           .toObject();
        QVERIFY2(structured.value(QStringLiteral("confirm_token")).toString().startsWith("chg-"),
                 qPrintable(QString::fromUtf8(QJsonDocument(proposed).toJson()) +
                            QString::fromUtf8(broker.readAllStandardError().right(3000))));

        broker.closeWriteChannel(); // EOF: the process ends cleanly
        QVERIFY(broker.waitForFinished(15000));
        QCOMPARE(broker.exitStatus(), QProcess::NormalExit);
        QCOMPARE(broker.exitCode(), 0);
#endif
    }
};

QTEST_GUILESS_MAIN(TestMdwe)
#include "tst_mdwe.moc"
