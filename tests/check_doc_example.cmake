# Fails unless DOC shows the file EXAMPLE verbatim in a ```cpp block, so that the code a
# document shows is the code the test suite compiles and runs.
#   cmake -DDOC=docs/api.md -DEXAMPLE=examples/api_operations.cpp -P tests/check_doc_example.cmake
file(READ "${DOC}" doc)
file(READ "${EXAMPLE}" example)
string(FIND "${doc}" "```cpp\n${example}```" position)
if(position EQUAL -1)
  message(FATAL_ERROR "${DOC} does not show ${EXAMPLE} verbatim in a ```cpp block: copy the file into it")
endif()
