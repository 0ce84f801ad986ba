# CPack pre/post build script (Windows): Authenticode-signs the staged binaries (pre-build:
# CPACK_TEMPORARY_INSTALL_DIRECTORY) and the finished installers (post-build: CPACK_PACKAGE_FILES).
# Does nothing unless FB_SIGNTOOL_CERT_SHA1 is set:
#   FB_SIGNTOOL_CERT_SHA1   thumbprint of the code-signing certificate in the user's store (or
#                           an HSM/cloud-key certificate exposed through the store)
#   FB_SIGNTOOL_TIMESTAMP   RFC 3161 timestamp URL (default http://timestamp.digicert.com)
#   FB_SIGNTOOL             path of signtool.exe (default: found on PATH / Windows SDK)
if(NOT DEFINED ENV{FB_SIGNTOOL_CERT_SHA1} OR "$ENV{FB_SIGNTOOL_CERT_SHA1}" STREQUAL "")
  message(STATUS "FB_SIGNTOOL_CERT_SHA1 not set: not signing")
  return()
endif()
set(signtool "$ENV{FB_SIGNTOOL}")
if(NOT signtool)
  # Windows Kits\10\bin\<sdk version>\x64\signtool.exe: the newest SDK, else PATH.
  set(pf86 "ProgramFiles(x86)")
  file(TO_CMAKE_PATH "$ENV{${pf86}}" pf86_dir)
  if(pf86_dir)
    file(GLOB sdk_signtools "${pf86_dir}/Windows Kits/10/bin/*/x64/signtool.exe")
    list(SORT sdk_signtools COMPARE NATURAL ORDER DESCENDING)
  endif()
  if(sdk_signtools)
    list(GET sdk_signtools 0 signtool)
  else()
    find_program(FB_SIGNTOOL_EXE signtool.exe REQUIRED)
    set(signtool "${FB_SIGNTOOL_EXE}")
  endif()
endif()
set(timestamp "$ENV{FB_SIGNTOOL_TIMESTAMP}")
if(NOT timestamp)
  set(timestamp "http://timestamp.digicert.com")
endif()

if(DEFINED CPACK_PACKAGE_FILES)
  set(files ${CPACK_PACKAGE_FILES}) # post-build: the installers
elseif(CPACK_TEMPORARY_INSTALL_DIRECTORY)
  file(GLOB_RECURSE files "${CPACK_TEMPORARY_INSTALL_DIRECTORY}/*.exe"
    "${CPACK_TEMPORARY_INSTALL_DIRECTORY}/*.dll")
else()
  message(FATAL_ERROR "sign.cmake runs from CPack (CPACK_PRE_BUILD_SCRIPTS/CPACK_POST_BUILD_SCRIPTS)")
endif()
foreach(f IN LISTS files)
  execute_process(COMMAND "${signtool}" sign /sha1 "$ENV{FB_SIGNTOOL_CERT_SHA1}" /fd SHA256
      /tr "${timestamp}" /td SHA256 "${f}"
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "signtool failed for ${f}")
  endif()
endforeach()
