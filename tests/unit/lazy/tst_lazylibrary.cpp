// LazyLibrary (src/lazy): libpq, libcrypto and libmicrohttpd are opened on first use. This suite
// links only fabricbroker_lazy, so its own process shows it: none of the three is mapped until a
// forwarder is called; each forwarder reaches the real function with its arguments (a connection
// URI parsed, an Ed25519 signature made and checked, a loopback HTTP daemon started with variadic
// options); a library that cannot be opened is reported by name, and a forwarder called anyway
// ends the process with that message. That the shipped binaries do not name the three as NEEDED:
// packaging/test-install.sh; that the headless server does not map them: tests/e2e/launcher.
#include "TestEnvironment.h"
#include "lazy/LazyLibrary.h"

#include <QFile>
#include <QTest>

#include <libpq-fe.h>
#include <microhttpd.h>
#include <openssl/evp.h>

#include <arpa/inet.h>
#include <csignal>
#include <netinet/in.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace fb::lazy;

namespace {

bool mapped(const char *soname)
{
    QFile maps(QStringLiteral("/proc/self/maps"));
    if (!maps.open(QIODevice::ReadOnly))
        qFatal("cannot read /proc/self/maps");
    return maps.readAll().contains(QByteArray(QByteArray("/") + soname));
}

} // namespace

class TestLazyLibrary : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    // First: nothing of the three is mapped before a forwarder or available() runs.
    void nothingIsOpenedAtStart()
    {
        for (Library *lib : {&libpq(), &libcrypto(), &libmicrohttpd()}) {
            QVERIFY2(!lib->opened(), lib->soname());
            QVERIFY2(!mapped(lib->soname()), lib->soname());
        }
    }

    void libpqForwardsItsArguments()
    {
        char *error = nullptr;
        PQconninfoOption *options =
            PQconninfoParse("postgresql://alice@db.example:6543/team?sslmode=require", &error);
        QVERIFY(libpq().opened());
        QVERIFY(mapped("libpq.so.5"));
        QVERIFY(options);
        QByteArray user, host, port, sslmode;
        for (PQconninfoOption *o = options; o->keyword; ++o) {
            const QByteArray keyword(o->keyword);
            const QByteArray value(o->val ? o->val : "");
            if (keyword == "user")
                user = value;
            else if (keyword == "host")
                host = value;
            else if (keyword == "port")
                port = value;
            else if (keyword == "sslmode")
                sslmode = value;
        }
        PQconninfoFree(options);
        QCOMPARE(user, QByteArray("alice"));
        QCOMPARE(host, QByteArray("db.example"));
        QCOMPARE(port, QByteArray("6543"));
        QCOMPARE(sslmode, QByteArray("require"));
        // The library's own error, through the forwarder's second argument.
        QVERIFY(!PQconninfoParse("postgresql://x/?nosuchoption=1", &error));
        QVERIFY(error);
        QVERIFY(QByteArray(error).contains("nosuchoption"));
        PQfreemem(error);
    }

    void libcryptoSignsAndVerifies()
    {
        EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nullptr);
        QVERIFY(ctx);
        QVERIFY(libcrypto().opened());
        EVP_PKEY *key = nullptr;
        QCOMPARE(EVP_PKEY_keygen_init(ctx), 1);
        QCOMPARE(EVP_PKEY_keygen(ctx, &key), 1);
        EVP_PKEY_CTX_free(ctx);
        unsigned char pub[32];
        size_t pubLen = sizeof pub;
        QCOMPARE(EVP_PKEY_get_raw_public_key(key, pub, &pubLen), 1);
        QCOMPARE(pubLen, size_t(32));

        const QByteArray message("the statement an approver signs");
        const auto *bytes = reinterpret_cast<const unsigned char *>(message.constData());
        unsigned char sig[64];
        size_t sigLen = sizeof sig;
        EVP_MD_CTX *md = EVP_MD_CTX_new();
        QCOMPARE(EVP_DigestSignInit(md, nullptr, nullptr, nullptr, key), 1);
        QCOMPARE(EVP_DigestSign(md, sig, &sigLen, bytes, size_t(message.size())), 1);
        EVP_MD_CTX_free(md);
        EVP_PKEY_free(key);
        QCOMPARE(sigLen, size_t(64));

        EVP_PKEY *verifier = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, pub, pubLen);
        QVERIFY(verifier);
        const auto verifies = [&](const QByteArray &text) {
            EVP_MD_CTX *v = EVP_MD_CTX_new();
            const bool ok =
                EVP_DigestVerifyInit(v, nullptr, nullptr, nullptr, verifier) == 1 &&
                EVP_DigestVerify(v, sig, sigLen,
                                 reinterpret_cast<const unsigned char *>(text.constData()),
                                 size_t(text.size())) == 1;
            EVP_MD_CTX_free(v);
            return ok;
        };
        QVERIFY(verifies(message));
        QVERIFY(!verifies(message + '.'));
        EVP_PKEY_free(verifier);
    }

    void libmicrohttpdStartsWithVariadicOptions()
    {
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = 0;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        MHD_Daemon *daemon = MHD_start_daemon(
            MHD_USE_EPOLL, 0, nullptr, nullptr,
            [](void *, MHD_Connection *, const char *, const char *, const char *, const char *,
               size_t *, void **) { return MHD_NO; },
            nullptr, MHD_OPTION_SOCK_ADDR, &address, MHD_OPTION_CONNECTION_LIMIT, 3u,
            MHD_OPTION_END);
        QVERIFY(libmicrohttpd().opened());
        QVERIFY(daemon);
        const MHD_DaemonInfo *port = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
        QVERIFY(port);
        QVERIFY(port->port != 0);
        const MHD_DaemonInfo *epoll = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
        QVERIFY(epoll && epoll->epoll_fd >= 0);
        MHD_stop_daemon(daemon);
    }

    void aMissingLibraryIsNamed()
    {
        Library missing("libfabric-broker-nothere.so.7", "fabric-broker-nothere", "this test");
        std::string error;
        QVERIFY(!missing.available(&error));
        QVERIFY(!missing.opened());
        const QString text = QString::fromStdString(error);
        QVERIFY2(text.contains(u"libfabric-broker-nothere.so.7 cannot be loaded"),
                 qPrintable(text));
        QVERIFY2(text.contains(u"this test needs it (Debian package fabric-broker-nothere)"),
                 qPrintable(text));
        QVERIFY(!missing.available()); // asked again: the same answer, no crash
    }

    // A forwarder called although its library is missing: the process ends (SIGABRT) and says
    // why, rather than calling through a null pointer.
    void aForwarderWithoutItsLibraryEndsTheProcess_data()
    {
        QTest::addColumn<QByteArray>("soname");
        QTest::addColumn<QByteArray>("expected");
        QTest::addRow("missing library")
            << QByteArray("libfabric-broker-nothere.so.7")
            << QByteArray("fabric-broker: libfabric-broker-nothere.so.7 cannot be loaded");
        QTest::addRow("missing function") << QByteArray("libpq.so.5")
                                          << QByteArray("fabric-broker: libpq.so.5 has no function "
                                                        "PQnoSuchFunction");
    }

    void aForwarderWithoutItsLibraryEndsTheProcess()
    {
        QFETCH(QByteArray, soname);
        QFETCH(QByteArray, expected);
        int fds[2];
        QCOMPARE(::pipe(fds), 0);
        const pid_t child = ::fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            ::dup2(fds[1], 2);
            ::close(fds[0]);
            std::signal(SIGABRT, SIG_DFL);
            Library lib(soname.constData(), "pkg", "the test");
            lib.function("PQnoSuchFunction");
            ::_exit(0); // not reached
        }
        ::close(fds[1]);
        QByteArray said;
        char buf[512];
        for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
            said.append(buf, n);
        ::close(fds[0]);
        int status = 0;
        QCOMPARE(::waitpid(child, &status, 0), child);
        QVERIFY2(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, said.constData());
        QVERIFY2(said.startsWith(expected), said.constData());
    }
};

QTEST_GUILESS_MAIN(TestLazyLibrary)
#include "tst_lazylibrary.moc"
