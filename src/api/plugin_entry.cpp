// The plugin entry point: the C API as one table of function pointers.
#include "reshaper/plugin.h"

namespace {

// Designated initializers: the compiler checks the order of the members.
constexpr reshaper_plugin_api api_v1 = {
    .abi_version = RESHAPER_PLUGIN_ABI_VERSION,
    .name = "reshaper",
    .version = RESHAPER_VERSION_STRING,
    .get_handled_op_kinds = reshaper_get_handled_op_kinds,
    .get_last_error = reshaper_get_last_error,
    .status_name = reshaper_status_name,
    .graph_create_from_json = reshaper_graph_create_from_json,
    .graph_create_from_file = reshaper_graph_create_from_file,
    .graph_destroy = reshaper_graph_destroy,
    .graph_infer_shapes = reshaper_graph_infer_shapes,
    .graph_to_json = reshaper_graph_to_json,
    .graph_get_tensor = reshaper_graph_get_tensor,
    .graph_get_tensor_values = reshaper_graph_get_tensor_values,
    .graph_get_partitions = reshaper_graph_get_partitions,
    .partition_list_destroy = reshaper_partition_list_destroy,
    .partition_list_get_count = reshaper_partition_list_get_count,
    .partition_list_get = reshaper_partition_list_get,
    .partition_get_id = reshaper_partition_get_id,
    .partition_is_supported = reshaper_partition_is_supported,
    .partition_get_op_ids = reshaper_partition_get_op_ids,
    .partition_get_inputs = reshaper_partition_get_inputs,
    .partition_get_outputs = reshaper_partition_get_outputs,
    .partition_get_reason = reshaper_partition_get_reason,
    .engine_create = reshaper_engine_create,
    .engine_destroy = reshaper_engine_destroy,
    .partition_compile = reshaper_partition_compile,
    .compiled_partition_destroy = reshaper_compiled_partition_destroy,
    .compiled_partition_get_inputs = reshaper_compiled_partition_get_inputs,
    .compiled_partition_get_outputs = reshaper_compiled_partition_get_outputs,
    .compiled_partition_get_lowering = reshaper_compiled_partition_get_lowering,
    .compiled_partition_get_lowering_details = reshaper_compiled_partition_get_lowering_details,
    .compiled_partition_get_inplace_pairs = reshaper_compiled_partition_get_inplace_pairs,
    .logical_tensor_get_mem_size = reshaper_logical_tensor_get_mem_size,
    .compiled_partition_execute = reshaper_compiled_partition_execute,
    .get_last_error_rule = reshaper_get_last_error_rule,
    .compiled_partition_get_why_not_alias = reshaper_compiled_partition_get_why_not_alias,
    .graph_create = reshaper_graph_create,
    .op_create = reshaper_op_create,
    .op_destroy = reshaper_op_destroy,
    .op_set_domain = reshaper_op_set_domain,
    .op_add_input = reshaper_op_add_input,
    .op_add_output = reshaper_op_add_output,
    .op_set_attr_s64 = reshaper_op_set_attr_s64,
    .op_set_attr_s64s = reshaper_op_set_attr_s64s,
    .op_set_attr_f32 = reshaper_op_set_attr_f32,
    .op_set_attr_f32s = reshaper_op_set_attr_f32s,
    .op_set_attr_bool = reshaper_op_set_attr_bool,
    .op_set_attr_str = reshaper_op_set_attr_str,
    .graph_add_op = reshaper_graph_add_op,
    .graph_set_tensor_values = reshaper_graph_set_tensor_values,
    .graph_finalize = reshaper_graph_finalize,
    .compiled_partition_get_output_mem_size = reshaper_compiled_partition_get_output_mem_size,
    .compiled_partition_execute_dynamic = reshaper_compiled_partition_execute_dynamic,
    .graph_create_from_onnx = reshaper_graph_create_from_onnx,
    .graph_create_from_onnx_bytes = reshaper_graph_create_from_onnx_bytes,
};

} // namespace

extern "C" RESHAPER_API const reshaper_plugin_api *reshaper_plugin_entry(uint32_t abi_version) {
    return abi_version == RESHAPER_PLUGIN_ABI_VERSION ? &api_v1 : nullptr;
}
