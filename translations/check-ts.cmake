# ctest translations_up_to_date: runs lupdate over the sources into a copy of the committed .ts
# and fails when the result differs (the fix: cmake --build <build> --target update_translations).
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
get_filename_component(name ${TS} NAME)
file(COPY ${TS} DESTINATION ${WORK})
execute_process(COMMAND ${LUPDATE} ${OPTIONS} @${LIST} -ts ${WORK}/${name}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "lupdate failed (${rc}):\n${out}${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${TS} ${WORK}/${name} RESULT_VARIABLE diff)
if(NOT diff EQUAL 0)
  execute_process(COMMAND diff -u ${TS} ${WORK}/${name} OUTPUT_VARIABLE d)
  message(FATAL_ERROR "${TS} is out of date with the tr() strings in the sources; run\n"
    "  cmake --build --preset ci --target update_translations\nand commit the result.\n${d}")
endif()
message(STATUS "${name} is up to date:\n${out}")
