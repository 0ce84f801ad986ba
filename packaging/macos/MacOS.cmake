# macOS app bundle and disk image (DragNDrop), included from packaging/CMakeLists.txt only
# if(APPLE). Not built in CI (no macOS runner); the maintainer steps are in packaging/README.md.
# Note: src/ does not build on macOS yet (SO_PEERCRED, fdatasync: see packaging/README.md).
#
#   cmake -S . -B build/mac -G Ninja -DCMAKE_BUILD_TYPE=Release \
#         -DCMAKE_PREFIX_PATH="$HOME/Qt/6.5.3/macos;/opt/homebrew" -DCMAKE_OSX_DEPLOYMENT_TARGET=12.0
#   cmake --build build/mac
#   cd build/mac && FB_CODESIGN_IDENTITY="Developer ID Application: ..." \
#                   FB_NOTARY_PROFILE=fabric-broker cpack -G DragNDrop

# fabric-broker.app: the one executable, as a bundle. MCP clients spawn
#   "/Applications/fabric-broker.app/Contents/MacOS/fabric-broker" --stdio
set_target_properties(fabric-broker PROPERTIES
  MACOSX_BUNDLE ON
  MACOSX_BUNDLE_INFO_PLIST ${CMAKE_CURRENT_LIST_DIR}/Info.plist.in
  MACOSX_BUNDLE_GUI_IDENTIFIER ${FB_APP_ID}
  MACOSX_BUNDLE_BUNDLE_NAME "Fabric Broker"
  MACOSX_BUNDLE_BUNDLE_VERSION ${PROJECT_VERSION}
  MACOSX_BUNDLE_SHORT_VERSION_STRING ${PROJECT_VERSION}
  MACOSX_BUNDLE_COPYRIGHT "Copyright 2026 ${FB_VENDOR}. MIT License."
  MACOSX_BUNDLE_ICON_FILE fabric-broker.icns)
# Icon: packaging/macos/fabric-broker.icns, made with make-icns.sh (optional).
if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/fabric-broker.icns)
  target_sources(fabric-broker PRIVATE ${CMAKE_CURRENT_LIST_DIR}/fabric-broker.icns)
  set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/fabric-broker.icns PROPERTIES
    MACOSX_PACKAGE_LOCATION Resources)
endif()
# src/app installs the executable with RUNTIME DESTINATION only; a bundle needs a BUNDLE
# destination (the disk image holds the .app at its root, next to an /Applications link).
install(TARGETS fabric-broker BUNDLE DESTINATION .)

# Qt frameworks and plugins into the bundle: Qt's deployment API runs macdeployqt (which also
# copies non-Qt dylibs such as QtKeychain's, and rewrites their install names).
if(Qt6_VERSION VERSION_GREATER_EQUAL 6.5)
  qt_generate_deploy_app_script(TARGET fabric-broker OUTPUT_SCRIPT fb_deploy_script
    NO_UNSUPPORTED_PLATFORM_ERROR)
else()
  qt_generate_deploy_app_script(TARGET fabric-broker FILENAME_VARIABLE fb_deploy_script
    NO_UNSUPPORTED_PLATFORM_ERROR)
endif()
install(SCRIPT ${fb_deploy_script})

set(CPACK_GENERATOR DragNDrop)
set(CPACK_PACKAGE_FILE_NAME "${FB_PACKAGE_NAME}-${PROJECT_VERSION}-macos-${CMAKE_SYSTEM_PROCESSOR}")
set(CPACK_DMG_VOLUME_NAME "Fabric Broker ${PROJECT_VERSION}")
set(CPACK_DMG_FORMAT UDZO)

# Code signing and notarization hooks (optional, see codesign.cmake):
#   pre-build:  sign the staged .app (hardened runtime, timestamp) when FB_CODESIGN_IDENTITY is set
#   post-build: sign the .dmg, notarize it with FB_NOTARY_PROFILE and staple the ticket
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_CURRENT_LIST_DIR}/codesign.cmake)
set(CPACK_POST_BUILD_SCRIPTS ${CMAKE_CURRENT_LIST_DIR}/codesign.cmake)
