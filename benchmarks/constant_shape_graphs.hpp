// Graphs of 4 KiB f32 transposes whose shape comes as a constant input
// tensor (its values in the graph), as every Reshape graph of the driver's
// perf cases has one: api_bench runs them through the C API, backend_bench
// through the compiled partition (as the driver's perf mode does).
#pragma once

#include <cstdint>
#include <string>

namespace reshaper_bench {

// The driver's NHWC-as-NCHW case at 4 KiB (an ONNX Reshape of f32
// [1,16,8,8] stored NHWC to [1,1024]), or (`chain`) a StaticTranspose of
// f32 [32,32] then a DynamicReshape of it to [1024] (its shape s32). The
// data input is tensor 0; the shape input holds constant_shape_buffer(chain).
inline std::string constant_shape_json(bool chain) {
    const std::string head = R"({"version":"3.3.0","engine_kind":"cpu","fpmath_mode":"strict","graph":[)";
    if (!chain)
        return head + R"({"id":0,"name":"nhwc_as_nchw","kind":"Reshape","domain":"ai.onnx","version":21,
           "attrs":{"allowzero":{"type":"s64","value":0}},
           "inputs":[{"id":0,"dtype":"f32","shape":[1,16,8,8],"stride":[1024,1,128,16],"layout_type":"strided","property_type":"undef"},
                     {"id":2,"dtype":"s64","shape":[2],"stride":[1],"layout_type":"strided","property_type":"constant","values":[1,1024]}],
           "outputs":[{"id":1,"dtype":"f32","shape":[1,1024],"stride":[1024,1],"layout_type":"strided","property_type":"undef"}]}]})";
    return head + R"({"id":0,"name":"t","kind":"StaticTranspose","attrs":{"order":{"type":"s64[]","value":[1,0]}},
           "inputs":[{"id":0,"dtype":"f32","shape":[32,32],"stride":[32,1],"layout_type":"strided","property_type":"undef"}],
           "outputs":[{"id":1,"dtype":"f32","shape":[32,32],"layout_type":"strided","property_type":"undef"}]},
          {"id":1,"name":"r","kind":"DynamicReshape","attrs":{"special_zero":{"type":"bool","value":0}},
           "inputs":[{"id":1,"dtype":"f32","shape":[32,32],"layout_type":"strided","property_type":"undef"},
                     {"id":3,"dtype":"s32","shape":[1],"stride":[1],"layout_type":"strided","property_type":"constant","values":[1024]}],
           "outputs":[{"id":2,"dtype":"f32","shape":[1024],"stride":[1],"layout_type":"strided","property_type":"undef"}]}]})";
}

// A buffer of the shape input's values in the graph (a host passes them
// as they are).
inline const void *constant_shape_buffer(bool chain) {
    static const std::int64_t nhwc[] = {1, 1024};
    static const std::int32_t transposed[] = {1024};
    return chain ? static_cast<const void *>(transposed) : static_cast<const void *>(nhwc);
}

} // namespace reshaper_bench
