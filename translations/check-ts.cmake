# ctest translations_up_to_date: runs lupdate over the sources into a copy of the committed .ts
# and fails when the result differs (the fix: cmake --build <build> --target update_translations),
# or when the .ts files a string under a context no code looks it up in.
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

# Every context of the catalogue is one a lookup uses at run time: a class's (its tr(), a form's
# <class>), or one named in translate() / QT_TRANSLATE_NOOP() / Q_DECLARE_TR_FUNCTIONS(). lupdate
# files the strings of a free tr() helper under the enclosing namespace ("fb"), which no lookup
# uses: those strings could never be translated (PolicyLocks' were, until issue #40).
file(STRINGS ${LIST} sources)
set(code "")
foreach(source ${sources})
  if(EXISTS "${source}" AND NOT IS_DIRECTORY "${source}")
    file(READ "${source}" text)
    string(APPEND code "${text}\n")
  endif()
endforeach()
file(READ ${TS} ts)
string(REGEX MATCHALL "<name>[^<]+</name>" names "${ts}")
set(unused "")
foreach(n ${names})
  string(REGEX REPLACE "</?name>" "" context "${n}")
  string(REGEX REPLACE "^.*::" "" class "${context}")
  string(FIND "${code}" "translate(\"${context}\"" a)
  string(FIND "${code}" "QT_TRANSLATE_NOOP(\"${context}\"" b)
  string(FIND "${code}" "Q_DECLARE_TR_FUNCTIONS(${context})" c)
  string(REGEX MATCH "class ${class}[ \n:{]|<class>${class}</class>" d "${code}")
  if(a EQUAL -1 AND b EQUAL -1 AND c EQUAL -1 AND NOT d)
    list(APPEND unused "${context}")
  endif()
endforeach()
if(unused)
  message(FATAL_ERROR "${TS} holds strings under contexts no code looks them up in: ${unused}\n"
    "(a free tr() helper files its strings under the enclosing namespace: give the strings a "
    "class context, e.g. a struct with Q_DECLARE_TR_FUNCTIONS, and call Class::tr)")
endif()
message(STATUS "${name} is up to date:\n${out}")
