# fuzz_dict_test: fuzz/kedyn.dict equals the output of gen_dict (the key tables).
execute_process(COMMAND ${GEN} OUTPUT_VARIABLE generated RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gen_dict failed (${rc})")
endif()
file(READ ${DICT} stored)
if(NOT generated STREQUAL stored)
  message(FATAL_ERROR "fuzz/kedyn.dict is not the dictionary of the key tables: regenerate it with "
                      "build/fuzz/gen_dict > fuzz/kedyn.dict")
endif()
