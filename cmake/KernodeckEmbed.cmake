# A file of the calling folder built into a program, byte for byte: <name>.cpp in the build tree,
# made at configure time from cmake/embedded.cpp.in, defines std::string_view <namespace>::<name>()
# (changing the file configures again), so that nothing is read at run time. The report
# writer's schema and stylesheet, the check's python probe.
#
#   kd_embed(page_style page.css kd::junit)   # then add ${CMAKE_CURRENT_BINARY_DIR}/page_style.cpp
set(KD_EMBED_TEMPLATE ${CMAKE_CURRENT_LIST_DIR}/embedded.cpp.in)
function(kd_embed name file namespace)
  set(path ${file})
  if(NOT IS_ABSOLUTE "${path}")
    set(path ${CMAKE_CURRENT_SOURCE_DIR}/${file})
  endif()
  file(READ ${path} KD_EMBED_TEXT)
  string(FIND "${KD_EMBED_TEXT}" ")kd_embedded\"" delimiter)
  if(NOT delimiter EQUAL -1)
    message(FATAL_ERROR "${file} holds the delimiter of embedded.cpp.in's raw string")
  endif()
  set(KD_EMBED_NAME ${name})
  set(KD_EMBED_FILE ${file})
  set(KD_EMBED_NAMESPACE ${namespace})
  configure_file(${KD_EMBED_TEMPLATE} ${CMAKE_CURRENT_BINARY_DIR}/${name}.cpp @ONLY)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${path})
endfunction()
