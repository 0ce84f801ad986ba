#include "lazy/LazyLibrary.h"

#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>

namespace fb::lazy {

Library::Library(const char *soname, const char *package, const char *purpose)
    : m_soname(soname)
    , m_package(package)
    , m_purpose(purpose)
{
}

void Library::open()
{
    std::call_once(m_once, [this] {
        // RTLD_LOCAL: its symbols serve only the lookups below, never another library's.
        m_handle = ::dlopen(m_soname, RTLD_NOW | RTLD_LOCAL);
        if (!m_handle.load()) {
            const char *why = ::dlerror();
            m_error = std::string(m_soname) + " cannot be loaded (" + (why ? why : "unknown") +
                      "); " + m_purpose + " needs it (Debian package " + m_package + ")";
        }
    });
}

bool Library::available(std::string *error)
{
    open();
    if (!m_handle && error)
        *error = m_error;
    return m_handle.load() != nullptr;
}

bool Library::opened() const
{
    return m_handle.load() != nullptr;
}

void *Library::function(const char *name)
{
    open();
    void *handle = m_handle.load();
    void *address = handle ? ::dlsym(handle, name) : nullptr;
    if (!address) {
        std::fprintf(stderr, "fabric-broker: %s\n",
                     handle ? (std::string(m_soname) + " has no function " + name).c_str()
                            : m_error.c_str());
        std::abort();
    }
    return address;
}

Library &libpq()
{
    static Library library("libpq.so.5", "libpq5", "team mode (the team database)");
    return library;
}

Library &libcrypto()
{
    static Library library("libcrypto.so.3", "libssl3", "signed team approvals (Ed25519)");
    return library;
}

Library &libmicrohttpd()
{
    static Library library("libmicrohttpd.so.12", "libmicrohttpd12",
                           "the HTTP transport and the embedded Fabric sandbox");
    return library;
}

} // namespace fb::lazy
