# attn_sources(<dir> <file>... [OPTIONS <option>...]): adds <dir>/<file>...
# to the attn target, <dir> relative to the folder of the list file that
# calls it; with OPTIONS, those files compile with these options too (their
# COMPILE_OPTIONS, which bench/baremetal copies for its own build of the
# engine). A file that does not exist fails the generate step.
function(attn_sources dir)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "OPTIONS")
  list(TRANSFORM arg_UNPARSED_ARGUMENTS PREPEND "${CMAKE_CURRENT_LIST_DIR}/${dir}/"
    OUTPUT_VARIABLE files)
  target_sources(attn PRIVATE ${files})
  if(arg_OPTIONS)
    set_source_files_properties(${files} TARGET_DIRECTORY attn
      PROPERTIES COMPILE_OPTIONS "${arg_OPTIONS}")
  endif()
endfunction()
