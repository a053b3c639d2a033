#include "ops/onnx_types.hpp"

#include <initializer_list>

namespace reshaper::impl {
namespace {

std::vector<data_type> plus(std::vector<data_type> base, std::initializer_list<data_type> added) {
    base.insert(base.end(), added);
    return base;
}

} // namespace

const onnx_type_sets &onnx_types() {
    static const onnx_type_sets sets = [] {
        using enum data_type;
        onnx_type_sets t;
        t.floats = {f16, f32, f64};
        t.all = plus(t.floats, {boolean, c64, c128, s8, s16, s32, s64, u8, u16, u32, u64, string});
        t.ir4 = plus(t.all, {bf16});
        t.ir9 = plus(t.ir4, {f8_e4m3, f8_e4m3fnuz, f8_e5m2, f8_e5m2fnuz});
        t.ir10 = plus(t.ir9, {s4, u4});
        t.ir11 = plus(t.ir10, {f4_e2m1});
        t.ir12 = plus(t.ir11, {f8_e8m0});
        t.ir13 = plus(t.ir12, {s2, u2});
        return t;
    }();
    return sets;
}

} // namespace reshaper::impl
