#pragma once
// LazyLibrary: the C libraries only some runs need, opened on first use instead of at start-up.
// libpq (team mode), libcrypto (signed team approvals) and libmicrohttpd (the HTTP transport and
// the embedded sandbox) with what they pull in (Kerberos, LDAP, GnuTLS, p11-kit…) were half of
// the relocations the dynamic loader did for every `fabric-broker --headless --stdio` an MCP
// client spawns (docs/performance.md). The binaries do not link them: src/lazy/ defines each
// function the code calls, with the library header's own signature (so the compiler checks it),
// and forwards to the real one, looked up in the library opened with dlopen on the first call.
// A library that cannot be opened is a broken installation (the package depends on all three):
// the entry points check available() and report it as an error; a forwarder called anyway ends
// the process with a message that names the library and the Debian package.
#include <atomic>
#include <mutex>
#include <string>

namespace fb::lazy {

class Library {
public:
    Library(const char *soname, const char *package, const char *purpose);
    Library(const Library &) = delete;
    Library &operator=(const Library &) = delete;

    // Opens the library (once); false with a sentence naming it, the package and why it is
    // needed when it cannot be opened.
    bool available(std::string *error = nullptr);
    // Whether this process has opened it (tests: start-up must not).
    bool opened() const;
    // The address of a function of the library; ends the process with a message when the library
    // or the function is missing.
    void *function(const char *name);
    const char *soname() const { return m_soname; }

private:
    void open();

    const char *m_soname;
    const char *m_package;
    const char *m_purpose;
    std::once_flag m_once;
    std::atomic<void *> m_handle{nullptr};
    std::string m_error;
};

Library &libpq();
Library &libcrypto();
Library &libmicrohttpd();

} // namespace fb::lazy
