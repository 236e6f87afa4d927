# softgrad_set_warnings(target): warnings for the project's own targets only.
function(softgrad_set_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wno-unused-parameter>
    # GCC 12 reports false -Wrestrict positives inside std::string at -O3 (GCC bug 105329).
    $<$<COMPILE_LANG_AND_ID:CXX,GNU>:-Wno-restrict>)
  if(SOFTGRAD_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
  endif()
endfunction()
