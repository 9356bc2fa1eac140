# cmake -DINPUT=<file> -DOUTPUT=<file.cc> -DFUNCTION=<qualified name>
#       -DHEADER=<header declaring it> -P embed_text.cmake
# Writes a .cc file whose function returns INPUT's text as a
# std::string_view, so data kept as a file in the repository (the seed
# figures) ships inside the program without a path to find at run time.
file(READ "${INPUT}" text)
string(FIND "${text}" ")signet_embed\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter")
endif()
string(REGEX MATCH "^(.*)::([^:]+)$" _ "${FUNCTION}")
set(namespace "${CMAKE_MATCH_1}")
set(name "${CMAKE_MATCH_2}")
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${INPUT} by embed_text.cmake: do not edit.\n"
  "#include \"${HEADER}\"\n\n"
  "#include <string_view>\n\n"
  "namespace ${namespace} {\n\n"
  "std::string_view ${name}() {\n"
  "  static constexpr char kText[] = R\"signet_embed(${text})signet_embed\";\n"
  "  return {kText, sizeof(kText) - 1};\n"
  "}\n\n"
  "}  // namespace ${namespace}\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
