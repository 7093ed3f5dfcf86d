# Embed a text file (a kernel prelude) in libember as a C string constant.
#
#   cmake -DIN=file[+file...] -DOUT=header.h -DNAME=symbol -P cmake/embed_text.cmake
#
# Leading lines that start with "//" (the file's own description) and the
# blank line after them are dropped, so the string is exactly the text a
# kernel is compiled with.  The header is rewritten only when its content
# changes, so an unchanged prelude does not rebuild what includes it.
# IN may name several files joined by "+": their texts are concatenated in
# that order (a prelude and the shared text appended to it), each without its
# own leading comment.
string(REPLACE "+" ";" ins "${IN}")
set(text "")
foreach(in_file ${ins})
  file(READ "${in_file}" part)
  string(REGEX REPLACE "^(//[^\n]*\n)+\n?" "" part "${part}")
  string(APPEND text "${part}")
endforeach()
string(REPLACE "\\" "\\\\" text "${text}")
string(REPLACE "\"" "\\\"" text "${text}")
string(REPLACE "\n" "\\n\"\n\"" text "${text}")
set(src_name "")
foreach(in_file ${ins})
  get_filename_component(one "${in_file}" NAME)
  string(APPEND src_name "${src_name_sep}${one}")
  set(src_name_sep " + ")
endforeach()
set(body "/* Generated from ${src_name} by cmake/embed_text.cmake: do not edit. */\n")
string(APPEND body "static const char ${NAME}[] =\n\"${text}\";\n")
file(WRITE "${OUT}.tmp" "${body}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.tmp" "${OUT}")
file(REMOVE "${OUT}.tmp")
