# Windows installer (NSIS), included from packaging/CMakeLists.txt only if(WIN32).
# Not built in CI (there is no Windows runner); the maintainer steps are in packaging/README.md.
# Note: src/ is POSIX-only today (see "Platform-specific code" in packaging/README.md), so this
# configuration is ready for the day the sources build on Windows.
#
#   cmake -S . -B build\win -G "Visual Studio 17 2022" -DCMAKE_PREFIX_PATH=C:\Qt\6.5.3\msvc2019_64;C:\qtkeychain
#   cmake --build build\win --config Release
#   cd build\win && cpack -G NSIS -C Release            (or -G WIX)

# Qt next to fabric-broker.exe: Qt's deployment API runs windeployqt on the installed exe
# (platform plugin qwindows, styles, image formats, TLS backends, and the VC++ runtime).
if(Qt6_VERSION VERSION_GREATER_EQUAL 6.5)
  qt_generate_deploy_app_script(TARGET fabric-broker OUTPUT_SCRIPT fb_deploy_script
    NO_UNSUPPORTED_PLATFORM_ERROR)
else()
  qt_generate_deploy_app_script(TARGET fabric-broker FILENAME_VARIABLE fb_deploy_script
    NO_UNSUPPORTED_PLATFORM_ERROR)
endif()
install(SCRIPT ${fb_deploy_script})

# windeployqt only deploys Qt's own DLLs: QtKeychain (Windows Credential Manager backend) is
# installed explicitly, and the MSVC runtime by CMake's module.
if(TARGET qt6keychain)
  install(IMPORTED_RUNTIME_ARTIFACTS qt6keychain RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
set(CMAKE_INSTALL_SYSTEM_RUNTIME_DESTINATION ${CMAKE_INSTALL_BINDIR})
include(InstallRequiredSystemLibraries)

install(FILES ${PROJECT_SOURCE_DIR}/LICENSE RENAME LICENSE.txt DESTINATION .)

set(CPACK_GENERATOR NSIS)
set(CPACK_PACKAGE_FILE_NAME "${FB_PACKAGE_NAME}-${PROJECT_VERSION}-windows-x64")
set(CPACK_NSIS_PACKAGE_NAME "Fabric Broker")
set(CPACK_NSIS_DISPLAY_NAME "Fabric Broker ${PROJECT_VERSION}")
set(CPACK_NSIS_URL_INFO_ABOUT ${PROJECT_HOMEPAGE_URL})
set(CPACK_NSIS_HELP_LINK ${PROJECT_HOMEPAGE_URL})
set(CPACK_NSIS_CONTACT ${FB_MAINTAINER})
set(CPACK_NSIS_INSTALLED_ICON_NAME "bin\\fabric-broker.exe")
set(CPACK_NSIS_EXECUTABLES_DIRECTORY bin)
set(CPACK_NSIS_ENABLE_UNINSTALL_BEFORE_INSTALL ON)
set(CPACK_NSIS_MANIFEST_DPI_AWARE ON)
# Puts bin\ on PATH (the installer asks), so MCP clients can spawn "fabric-broker --stdio".
set(CPACK_NSIS_MODIFY_PATH ON)
set(CPACK_NSIS_INSTALL_ROOT "$PROGRAMFILES64")
set(CPACK_PACKAGE_INSTALL_REGISTRY_KEY "FabricBroker")
# Installer icon: packaging/windows/fabric-broker.ico (make it with make-ico.py; optional).
if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/fabric-broker.ico)
  set(CPACK_NSIS_MUI_ICON ${CMAKE_CURRENT_LIST_DIR}/fabric-broker.ico)
  set(CPACK_NSIS_MUI_UNIICON ${CMAKE_CURRENT_LIST_DIR}/fabric-broker.ico)
endif()

# WiX alternative (cpack -G WIX): an MSI for Intune/GPO rollouts. The upgrade GUID must never
# change, or MSI upgrades turn into side-by-side installs.
set(CPACK_WIX_UPGRADE_GUID "6E1D9F1C-3B7A-4C52-9A0E-5F2B8D4C7A31")
set(CPACK_WIX_PRODUCT_ICON ${CMAKE_CURRENT_LIST_DIR}/fabric-broker.ico)
if(NOT EXISTS ${CPACK_WIX_PRODUCT_ICON})
  unset(CPACK_WIX_PRODUCT_ICON)
endif()
set(CPACK_WIX_PROGRAM_MENU_FOLDER "Fabric Broker")

# Code signing (optional): sign.cmake signs every .exe/.dll before NSIS packs them, then the
# installer itself. Enabled when FB_SIGNTOOL_CERT_SHA1 is set in the environment of cpack.
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_CURRENT_LIST_DIR}/sign.cmake)
set(CPACK_POST_BUILD_SCRIPTS ${CMAKE_CURRENT_LIST_DIR}/sign.cmake)
