# Embed a text file (a kernel prelude) in libember as a C string constant.
#
#   cmake -DIN=file -DOUT=header.h -DNAME=symbol -P cmake/embed_text.cmake
#
# Leading lines that start with "//" (the file's own description) and the
# blank line after them are dropped, so the string is exactly the text a
# kernel is compiled with.  The header is rewritten only when its content
# changes, so an unchanged prelude does not rebuild what includes it.
file(READ "${IN}" text)
string(REGEX REPLACE "^(//[^\n]*\n)+\n?" "" text "${text}")
string(REPLACE "\\" "\\\\" text "${text}")
string(REPLACE "\"" "\\\"" text "${text}")
string(REPLACE "\n" "\\n\"\n\"" text "${text}")
get_filename_component(src_name "${IN}" NAME)
set(body "/* Generated from ${src_name} by cmake/embed_text.cmake: do not edit. */\n")
string(APPEND body "static const char ${NAME}[] =\n\"${text}\";\n")
file(WRITE "${OUT}.tmp" "${body}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.tmp" "${OUT}")
file(REMOVE "${OUT}.tmp")
