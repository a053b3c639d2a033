# cmake -P script: install libreshaper's components into a fresh prefix, then
# configure, build and run the consumer project twice - with
# find_package(reshaper CONFIG) and with pkg-config.
# Arguments: RESHAPER_BUILD_DIR RESHAPER_SOURCE_DIR WORK_DIR GENERATOR
cmake_minimum_required(VERSION 3.25)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "failed (${rc}): ${command}\n${out}")
  endif()
  message(STATUS "${out}")
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})

foreach(component reshaper_runtime reshaper_development)
  run(${CMAKE_COMMAND} --install ${RESHAPER_BUILD_DIR} --prefix ${prefix} --component ${component})
endforeach()

# Only the public headers are installed.
file(GLOB_RECURSE headers RELATIVE ${prefix}/include ${prefix}/include/*)
list(SORT headers)
if(NOT headers STREQUAL "reshaper/plugin.h;reshaper/reshaper.h;reshaper/reshaper.hpp")
  message(FATAL_ERROR "unexpected installed headers: ${headers}")
endif()

# The .pc file's directory depends on the platform's libdir (lib, lib64, ...).
file(GLOB_RECURSE pc_file ${prefix}/reshaper.pc)
if(NOT pc_file)
  message(FATAL_ERROR "reshaper.pc was not installed under ${prefix}")
endif()
get_filename_component(pc_dir ${pc_file} DIRECTORY)

set(graph ${RESHAPER_SOURCE_DIR}/examples/attention_reshapes.json)
# ONNX's node test of Transpose (libonnx-testdata).
set(onnx_model /usr/share/libonnx-testdata/data/node/test_transpose_default/model.onnx)
foreach(mode find_package pkg-config)
  set(build ${WORK_DIR}/consumer-${mode})
  # A clean environment: the consumer finds reshaper only through the prefix.
  run(${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pc_dir}
      ${CMAKE_COMMAND} -S ${RESHAPER_SOURCE_DIR}/tests/package -B ${build} -G ${GENERATOR}
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix} -DCONSUMER_MODE=${mode}
      -DRESHAPER_EXAMPLES_DIR=${RESHAPER_SOURCE_DIR}/examples)
  run(${CMAKE_COMMAND} --build ${build} -j 2)
  run(${build}/c_api_example)
  run(${build}/builder_example)
  if(mode STREQUAL "find_package")
    run(${build}/cpp_api_example)
    if(EXISTS ${onnx_model})
      run(${build}/onnx_model_example ${onnx_model})
    endif()
    # The plugin host does not link libreshaper: it dlopen()s the installed one.
    file(GLOB_RECURSE library ${prefix}/libreshaper.so.[0-9]*)
    list(GET library 0 library)
    run(${build}/plugin_host ${library} ${graph})
  endif()
endforeach()
