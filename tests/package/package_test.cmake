# Included from tests/CMakeLists.txt: what the api tests need beyond
# reshaper_test_binary, and the installed-package test.

# api_tests dlopen()s libreshaper.so and runs nm on it.
target_link_libraries(api_tests PRIVATE ${CMAKE_DL_LIBS})
target_compile_definitions(api_tests PRIVATE RESHAPER_LIBRARY_PATH="$<TARGET_FILE:reshaper>")

# Installs the reshaper components into a temporary prefix, then builds and
# runs the consumer project (tests/package, which builds examples/) once with
# find_package(reshaper CONFIG) and once with pkg-config.
add_test(NAME api.package_install_and_consume
  COMMAND ${CMAKE_COMMAND}
    -DRESHAPER_BUILD_DIR=${PROJECT_BINARY_DIR}
    -DRESHAPER_SOURCE_DIR=${PROJECT_SOURCE_DIR}
    -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/package
    -DGENERATOR=${CMAKE_GENERATOR}
    -P ${CMAKE_CURRENT_SOURCE_DIR}/package/run_package_test.cmake)
set_tests_properties(api.package_install_and_consume PROPERTIES TIMEOUT 300)
