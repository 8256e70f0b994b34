# The sample custom modules used by tests/control (AddCustomModuleRequest), and the
# symbol export that custom modules need: a module resolves obi::register_element and
# the Element base class from the executable that loads it.
# Included from obi/CMakeLists.txt after the test and benchmark targets are defined.
add_library(obi_sample_module MODULE ${CMAKE_CURRENT_LIST_DIR}/sample_module/sample_module.cc)
target_include_directories(obi_sample_module PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src
                           ${OPENBOX_ROOT}/protocol/cpp ${OBI_GENERATED_INCLUDE})
target_link_libraries(obi_sample_module PRIVATE nlohmann_json::nlohmann_json)
set_target_properties(obi_sample_module PROPERTIES PREFIX "" OUTPUT_NAME sample_module)
add_library(obi_stale_module MODULE ${CMAKE_CURRENT_LIST_DIR}/sample_module/stale_module.cc)
target_include_directories(obi_stale_module PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src
                           ${OPENBOX_ROOT}/protocol/cpp ${OBI_GENERATED_INCLUDE})
target_link_libraries(obi_stale_module PRIVATE nlohmann_json::nlohmann_json)
set_target_properties(obi_stale_module PROPERTIES PREFIX "" OUTPUT_NAME stale_module)
# The marker module's constructor writes a file: proof that a refused module was never loaded.
add_library(obi_marker_module MODULE ${CMAKE_CURRENT_LIST_DIR}/sample_module/marker_module.cc)
target_include_directories(obi_marker_module PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src
                           ${OPENBOX_ROOT}/protocol/cpp ${OBI_GENERATED_INCLUDE})
target_link_libraries(obi_marker_module PRIVATE nlohmann_json::nlohmann_json)
set_target_properties(obi_marker_module PROPERTIES PREFIX "" OUTPUT_NAME marker_module)
if(TARGET test_control)
  set_target_properties(test_control PROPERTIES ENABLE_EXPORTS ON)
  add_dependencies(test_control obi_sample_module obi_stale_module obi_marker_module)
  target_compile_definitions(test_control PRIVATE OBI_SAMPLE_MODULE="$<TARGET_FILE:obi_sample_module>"
                             OBI_STALE_MODULE="$<TARGET_FILE:obi_stale_module>"
                             OBI_MARKER_MODULE="$<TARGET_FILE:obi_marker_module>")
endif()
if(TARGET obi)
  set_target_properties(obi PROPERTIES ENABLE_EXPORTS ON)
endif()
# The control-plane benchmark (bench/control_bench.cc) talks HTTP or HTTPS like the tests
# and sends the sample module in AddCustomModuleRequest, signed with a key of its own.
if(TARGET control_bench)
  target_link_libraries(control_bench PRIVATE obi_control OpenSSL::Crypto)   # TLS credentials (--pki), signing
  add_dependencies(control_bench obi_sample_module)
  target_compile_definitions(control_bench PRIVATE OBI_SAMPLE_MODULE="$<TARGET_FILE:obi_sample_module>")
endif()
