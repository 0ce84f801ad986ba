#include "core/WindowModes.h"

#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace fb::windowmodes {

bool windowlessCommandLine(int argc, const char *const argv[])
{
    if (argc > 1) {
        for (const char *subcommand :
             {"audit", "client-config", "http-headers", "policy", "team"}) {
            if (std::strcmp(argv[1], subcommand) == 0)
                return true;
        }
    }
    for (int i = 1; i < argc; ++i) {
        for (const char *flag : {"--headless", "--sandbox-only", "--print-estate", "--help", "-h",
                                 "--help-all", "--version", "-v"}) {
            if (std::strcmp(argv[i], flag) == 0)
                return true;
        }
    }
    return false;
}

bool displayInEnvironment()
{
    const char *platform = std::getenv("QT_QPA_PLATFORM");
    if (platform &&
        (std::strncmp(platform, "offscreen", 9) == 0 || std::strncmp(platform, "minimal", 7) == 0))
        return false;
    return std::getenv("DISPLAY") || std::getenv("WAYLAND_DISPLAY") || (platform && *platform);
}

} // namespace fb::windowmodes
