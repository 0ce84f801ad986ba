// The libmicrohttpd functions of the HTTP transport (src/transport/http) and the embedded sandbox
// (src/sandbox/SandboxHttpServer), opened on first use (lazy/LazyLibrary.h).
#include "lazy/Forward.h"

#include <cstdarg>
#include <microhttpd.h>

// clang-format off
FB_FORWARD(libmicrohttpd, enum MHD_Result, MHD_add_response_header,
           (struct MHD_Response *response, const char *header, const char *content),
           (response, header, content))
FB_FORWARD(libmicrohttpd, struct MHD_Response *, MHD_create_response_from_buffer,
           (size_t size, void *buffer, enum MHD_ResponseMemoryMode mode), (size, buffer, mode))
FB_FORWARD(libmicrohttpd, struct MHD_Response *, MHD_create_response_from_callback,
           (uint64_t size, size_t block_size, MHD_ContentReaderCallback crc, void *crc_cls,
            MHD_ContentReaderFreeCallback crfc),
           (size, block_size, crc, crc_cls, crfc))
FB_FORWARD(libmicrohttpd, void, MHD_destroy_response, (struct MHD_Response *response),
           (response))
FB_FORWARD(libmicrohttpd, int, MHD_get_connection_values,
           (struct MHD_Connection *connection, enum MHD_ValueKind kind,
            MHD_KeyValueIterator iterator, void *iterator_cls),
           (connection, kind, iterator, iterator_cls))
FB_FORWARD(libmicrohttpd, enum MHD_Result, MHD_get_timeout,
           (struct MHD_Daemon *daemon, MHD_UNSIGNED_LONG_LONG *timeout), (daemon, timeout))
FB_FORWARD(libmicrohttpd, enum MHD_Result, MHD_queue_response,
           (struct MHD_Connection *connection, unsigned int status_code,
            struct MHD_Response *response),
           (connection, status_code, response))
FB_FORWARD(libmicrohttpd, void, MHD_resume_connection, (struct MHD_Connection *connection),
           (connection))
FB_FORWARD(libmicrohttpd, enum MHD_Result, MHD_run, (struct MHD_Daemon *daemon), (daemon))
FB_FORWARD(libmicrohttpd, void, MHD_stop_daemon, (struct MHD_Daemon *daemon), (daemon))
FB_FORWARD(libmicrohttpd, void, MHD_suspend_connection, (struct MHD_Connection *connection),
           (connection))
// clang-format on

// Variadic: the options after dh_cls go to the library's va_list form.
extern "C" struct MHD_Daemon *MHD_start_daemon(unsigned int flags, uint16_t port,
                                               MHD_AcceptPolicyCallback apc, void *apc_cls,
                                               MHD_AccessHandlerCallback dh, void *dh_cls, ...)
{
    static const auto real = reinterpret_cast<decltype(&MHD_start_daemon_va)>(
        fb::lazy::libmicrohttpd().function("MHD_start_daemon_va"));
    va_list options;
    va_start(options, dh_cls);
    struct MHD_Daemon *daemon = real(flags, port, apc, apc_cls, dh, dh_cls, options);
    va_end(options);
    return daemon;
}

// Variadic in the header; libmicrohttpd reads no argument after info_type for any type.
extern "C" const union MHD_ConnectionInfo *
MHD_get_connection_info(struct MHD_Connection *connection, enum MHD_ConnectionInfoType info_type,
                        ...)
{
    static const auto real = reinterpret_cast<decltype(&MHD_get_connection_info)>(
        fb::lazy::libmicrohttpd().function("MHD_get_connection_info"));
    return real(connection, info_type);
}

extern "C" const union MHD_DaemonInfo *MHD_get_daemon_info(struct MHD_Daemon *daemon,
                                                           enum MHD_DaemonInfoType info_type, ...)
{
    static const auto real = reinterpret_cast<decltype(&MHD_get_daemon_info)>(
        fb::lazy::libmicrohttpd().function("MHD_get_daemon_info"));
    return real(daemon, info_type);
}
