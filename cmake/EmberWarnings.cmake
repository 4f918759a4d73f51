# -Wall -Wextra everywhere; -Werror when EMBER_WERROR is on (CI).
function(ember_set_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${EMBER_WERROR}>>:-Werror>)
endfunction()
