# CPack pre/post build script (macOS).
#   pre-build  (CPACK_TEMPORARY_INSTALL_DIRECTORY): codesign the staged fabric-broker.app
#   post-build (CPACK_PACKAGE_FILES): codesign the .dmg, notarize it, staple the ticket
# Environment:
#   FB_CODESIGN_IDENTITY  "Developer ID Application: <Team> (<TEAMID>)"; unset = no signing
#   FB_NOTARY_PROFILE     keychain profile made once with
#                         xcrun notarytool store-credentials <profile> --apple-id ... --team-id ...
#                         unset = signed but not notarized
set(identity "$ENV{FB_CODESIGN_IDENTITY}")
if(NOT identity)
  message(STATUS "FB_CODESIGN_IDENTITY not set: the app and disk image are not signed")
  return()
endif()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
endfunction()

if(NOT DEFINED CPACK_PACKAGE_FILES)
  if(NOT CPACK_TEMPORARY_INSTALL_DIRECTORY)
    message(FATAL_ERROR "codesign.cmake runs from CPack (CPACK_PRE_BUILD_SCRIPTS/CPACK_POST_BUILD_SCRIPTS)")
  endif()
  # The staged bundles (not bundles nested inside them).
  file(GLOB_RECURSE apps LIST_DIRECTORIES true "${CPACK_TEMPORARY_INSTALL_DIRECTORY}/*.app")
  list(FILTER apps INCLUDE REGEX "\\.app$")
  list(FILTER apps EXCLUDE REGEX "\\.app/.*\\.app$")
  foreach(app IN LISTS apps)
    # Inside-out: frameworks and plugins macdeployqt copied, then the bundle itself.
    file(GLOB_RECURSE nested "${app}/Contents/Frameworks/*.dylib" "${app}/Contents/PlugIns/*.dylib")
    file(GLOB frameworks LIST_DIRECTORIES true "${app}/Contents/Frameworks/*.framework")
    foreach(item IN LISTS nested frameworks)
      run(codesign --force --timestamp --options runtime --sign "${identity}" "${item}")
    endforeach()
    run(codesign --force --timestamp --options runtime
      --entitlements "${CMAKE_CURRENT_LIST_DIR}/entitlements.plist" --sign "${identity}" "${app}")
    run(codesign --verify --deep --strict --verbose=2 "${app}")
  endforeach()
  return()
endif()

foreach(dmg IN LISTS CPACK_PACKAGE_FILES)
  run(codesign --force --timestamp --sign "${identity}" "${dmg}")
  if(DEFINED ENV{FB_NOTARY_PROFILE} AND NOT "$ENV{FB_NOTARY_PROFILE}" STREQUAL "")
    run(xcrun notarytool submit "${dmg}" --keychain-profile "$ENV{FB_NOTARY_PROFILE}" --wait)
    run(xcrun stapler staple "${dmg}")
  else()
    message(STATUS "FB_NOTARY_PROFILE not set: ${dmg} is signed but not notarized")
  endif()
endforeach()
