#pragma once
// FB_FORWARD: defines a C library's function with the signature its header declares; the body
// looks the real function up once (lazy/LazyLibrary.h) and calls it with the same arguments.
#include "lazy/LazyLibrary.h"

#define FB_FORWARD(library, ret, name, params, args)                                               \
    extern "C" ret name params                                                                     \
    {                                                                                              \
        static const auto real =                                                                   \
            reinterpret_cast<decltype(&name)>(fb::lazy::library().function(#name));                \
        return real args;                                                                          \
    }
