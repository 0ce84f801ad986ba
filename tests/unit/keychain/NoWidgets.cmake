# cmake -DBINARY=<executable> -P NoWidgets.cmake: fails when the executable loads Qt Widgets or
# Qt Gui (ldd), or when ldd cannot tell.
execute_process(COMMAND ldd ${BINARY} OUTPUT_VARIABLE libs RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT libs MATCHES "libQt6Core")
  message(FATAL_ERROR "ldd ${BINARY} failed (${rc}): ${libs}")
endif()
if(NOT libs MATCHES "libqt6keychain")
  message(FATAL_ERROR "${BINARY} does not load QtKeychain: not the binary meant")
endif()
if(libs MATCHES "libQt6(Widgets|Gui)[.]")
  message(FATAL_ERROR "${BINARY} loads Qt Widgets or Gui:\n${libs}")
endif()
message(STATUS "${BINARY}: QtKeychain, no Qt Widgets or Gui")
