# Fails unless DOC shows the file EXAMPLE verbatim in a ```cpp block, so that the code a
# document shows is the code the test suite compiles and runs.
#   cmake -DDOC=docs/api.md -DEXAMPLE=examples/api_operations.cpp -P tests/check_doc_example.cmake
# A document that shows a fragment (statements, no main) names itself in two marker lines of the
# example, indented four spaces as the body of main is:
#       // docs/dna.md begins
#       ...what the document shows, indented four spaces...
#       // docs/dna.md ends
# Then the lines between the markers, four spaces of indentation off, are what DOC must show
# (DOC_NAME, the document's path in the repository, names the markers).
# With MAX_LINES > 0 the example may have at most that many lines (the README's 15-line promise).
file(READ "${DOC}" doc)
file(READ "${EXAMPLE}" example)
set(shown "${example}")
if(DEFINED DOC_NAME)
  set(begins "    // ${DOC_NAME} begins\n")
  set(ends "    // ${DOC_NAME} ends\n")
  string(FIND "${example}" "${begins}" first)
  string(FIND "${example}" "${ends}" last)
  if(NOT first EQUAL -1 AND last GREATER first)
    string(LENGTH "${begins}" skip)
    math(EXPR first "${first} + ${skip}")
    math(EXPR length "${last} - ${first}")
    string(SUBSTRING "${example}" ${first} ${length} shown)
    string(REGEX REPLACE "(^|\n)    " "\\1" shown "${shown}")
  endif()
endif()
string(FIND "${doc}" "```cpp\n${shown}```" position)
if(position EQUAL -1)
  message(FATAL_ERROR "${DOC} does not show ${EXAMPLE} verbatim in a ```cpp block (or the lines between its "
                      "'// ${DOC_NAME} begins' and 'ends' markers, indentation off): make them the same")
endif()
if(MAX_LINES GREATER 0)
  string(REGEX MATCHALL "\n" newlines "${example}")
  list(LENGTH newlines count)
  if(count GREATER MAX_LINES)
    message(FATAL_ERROR "${EXAMPLE} has ${count} lines; ${DOC} promises at most ${MAX_LINES}")
  endif()
endif()
