// The registry's self-check (check_schema_table) on broken copies of real
// rows, and what the whole table promises: every version of every kind,
// each ai.onnx opset 1..28 selecting one, and each version's own types.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <stdexcept>

#include "ops/registry.hpp"
#include "ops_test_support.hpp"

namespace reshaper::impl::testing {
namespace {

const op_registry &reg() { return op_registry::instance(); }

const op_schema &row(const std::string &domain, const std::string &kind, int version) {
    const op_schema *s = reg().find(domain, kind, version);
    if (!s || s->since_version != version) throw std::logic_error("no row " + kind);
    return *s;
}

// check_schema_table on the row after `change`, expecting a std::logic_error
// whose message holds `problem`.
void expect_rejected(const op_schema &original, const std::function<void(op_schema &)> &change,
                     const std::string &problem) {
    op_schema s = original;
    change(s);
    try {
        check_schema_table({s});
        ADD_FAILURE() << "accepted a row that " << problem;
    } catch (const std::logic_error &e) {
        EXPECT_NE(std::string(e.what()).find(problem), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("op schema table: " + s.versioned_name() + " "), std::string::npos)
            << e.what();
    }
}

TEST(SchemaCheck, TheRegistrysOwnTablePasses) {
    EXPECT_NO_THROW(check_schema_table(reg().schemas()));
    EXPECT_NO_THROW(check_schema_table({}));
}

TEST(SchemaCheck, IdentityProblems) {
    const op_schema &t = row("ai.onnx", "Transpose", 13);
    expect_rejected(t, [](op_schema &s) { s.kind.clear(); }, "has no kind");
    expect_rejected(t, [](op_schema &s) { s.domain = "com.example"; }, "has domain 'com.example'");
    expect_rejected(t, [](op_schema &s) { s.since_version = 0; }, "version below 1");
    expect_rejected(t, [](op_schema &s) { s.since_version = newest_onnx_opset + 1; },
                    "newer than newest_onnx_opset (28)");
    expect_rejected(t, [](op_schema &s) { s.doc.clear(); }, "has no doc");
    try {
        check_schema_table({t, row("ai.onnx", "Squeeze", 13), t});
        ADD_FAILURE() << "a duplicate (domain, kind, version) passed";
    } catch (const std::logic_error &e) {
        EXPECT_EQ(std::string(e.what()), "op schema table: ai.onnx.Transpose-13 is defined twice");
    }
}

TEST(SchemaCheck, PortAndTypeProblems) {
    const op_schema &sq = row("ai.onnx", "Squeeze", 13);
    expect_rejected(sq, [](op_schema &s) { s.inputs[1].type_var = "T_NONE"; },
                    "input 1 'axes' uses type variable T_NONE, which no type constraint defines");
    expect_rejected(sq, [](op_schema &s) { s.type_constraints.push_back(s.type_constraints[0]); },
                    "several type constraints define");
    expect_rejected(sq, [](op_schema &s) { s.type_constraints[1].allowed.clear(); },
                    "type constraint T_AXES allows no type");
    expect_rejected(sq, [](op_schema &s) { s.type_constraints[0].allowed.push_back(data_type::f32); },
                    "type constraint T lists a type twice");
    expect_rejected(sq, [](op_schema &s) { s.type_constraints.push_back({"T_UNUSED", {data_type::s8}, "x"}); },
                    "type constraint T_UNUSED is used by no port");
    expect_rejected(sq, [](op_schema &s) { s.inputs.push_back({"extra", "T", true, "x"}); },
                    "input 2 'extra' is required after an optional one");
    expect_rejected(sq, [](op_schema &s) { s.outputs.clear(); }, "has no output");
    expect_rejected(sq, [](op_schema &s) { s.inputs[1].name = "data"; }, "names input 'data' twice");
}

TEST(SchemaCheck, AttributeProblems) {
    const op_schema &r = row("ai.onnx", "Reshape", 14);
    expect_rejected(r, [](op_schema &s) { s.attributes[0].default_value = true; },
                    "attribute 'allowzero' of kind s64 has a default of kind bool");
    expect_rejected(r, [](op_schema &s) { s.attributes[0].required = true; }, "is required yet has a default");
    expect_rejected(r, [](op_schema &s) { s.attributes[0].min_value = 2; }, "bounds 2..1 that no value meets");
    expect_rejected(r, [](op_schema &s) { s.attributes.push_back(s.attributes[0]); },
                    "defines attribute 'allowzero' twice");
    expect_rejected(r, [](op_schema &s) { s.attributes[0].kind = static_cast<attr_kind>(42); },
                    "has no valid kind");
    expect_rejected(r, [](op_schema &s) { s.attributes[0].kind = attr_kind::f32; s.attributes[0].default_value.reset(); },
                    "of kind f32 has integer bounds");
}

TEST(SchemaCheck, FormAndInferenceProblems) {
    const op_schema &t = row("", "StaticTranspose", 1);
    expect_rejected(t, [](op_schema &s) { s.infer_shapes = nullptr; }, "has no infer_shapes function");
    expect_rejected(t, [](op_schema &s) { s.movement.reset(); }, "exactly one of reshape and movement");
    expect_rejected(t, [](op_schema &s) { s.reshape = reshape_form{.target_input = 1}; },
                    "exactly one of reshape and movement");
    expect_rejected(t, [](op_schema &s) { s.movement->values_attribute = "perm"; },
                    "reads attribute 'perm', which it does not define");
    expect_rejected(t, [](op_schema &s) { s.movement->values_input = 1; },
                    "reads input 1, which is not one of its inputs after the data");
    const op_schema &f = row("ai.onnx", "Flatten", 13);
    expect_rejected(f, [](op_schema &s) { s.attributes[0].default_value.reset(); }, "needs a default");
    expect_rejected(f, [](op_schema &s) { s.movement->kind = movement_kind::permute_axes; },
                    "reads attribute 'axis' of kind s64, which it cannot");
    const op_schema &r5 = row("ai.onnx", "Reshape", 5);
    expect_rejected(r5, [](op_schema &s) { s.reshape->target_input = 2; }, "reads input 2");
    const op_schema &r14 = row("ai.onnx", "Reshape", 14);
    expect_rejected(r14, [](op_schema &s) { s.reshape->zeros.copy_when = true; },
                    "compares attribute 'allowzero' with a value of another kind");
}

// Every version of each kind, and every ai.onnx opset 1..28 selecting the
// newest of them not newer than it; 0 and 29 select nothing.
TEST(RegistryTable, EveryVersionAndEveryOpset) {
    const std::map<std::string, std::vector<int>> versions{
        {"Reshape", {1, 5, 13, 14, 19, 21, 23, 24, 25}},
        {"Transpose", {1, 13, 21, 23, 24, 25}},
        {"Squeeze", {1, 11, 13, 21, 23, 24, 25}},
        {"Unsqueeze", {1, 11, 13, 21, 23, 24, 25}},
        {"Flatten", {1, 9, 11, 13, 21, 23, 24, 25}},
    };
    std::map<std::string, std::vector<int>> found;
    for (const op_schema &s : reg().schemas())
        if (s.domain == "ai.onnx") found[s.kind].push_back(s.since_version);
    EXPECT_EQ(found, versions);
    for (const auto &[kind, list] : versions) {
        for (std::int64_t opset = 1; opset <= newest_onnx_opset; ++opset) {
            int want = 0;
            for (int v : list)
                if (v <= opset) want = v;
            const op_schema *s = reg().find("ai.onnx", kind, opset);
            ASSERT_NE(s, nullptr) << kind << " opset " << opset;
            EXPECT_EQ(s->since_version, want) << kind << " opset " << opset;
        }
        for (std::int64_t opset : {std::int64_t{0}, std::int64_t{-1}, newest_onnx_opset + 1}) {
            EXPECT_EQ(reg().find("ai.onnx", kind, opset), nullptr) << kind << " " << opset;
            op o;
            o.id = 1;
            o.name = "x";
            o.kind = kind;
            o.domain = "ai.onnx";
            o.version = opset;
            expect_error([&] { reg().resolve(o); }, status::invalid_graph_op,
                         "opset " + std::to_string(opset) + " is outside 1..28");
        }
        EXPECT_EQ(reg().find("ai.onnx", kind)->since_version, 25) << kind;
    }
    EXPECT_EQ(newest_onnx_opset, 28);
}

// The version in which each newer type joins each ai.onnx kind: accepted
// there, rejected in the version before (the sheets' type tables).
TEST(RegistryTable, EachTypeJoinsInItsVersion) {
    using enum data_type;
    struct arrival {
        data_type type;
        std::map<std::string, std::pair<int, int>> before_and_since; // kind -> (version before, since)
    };
    const std::vector<arrival> arrivals{
        {s32, {{"Flatten", {1, 9}}}},
        {bf16, {{"Reshape", {5, 13}}, {"Transpose", {1, 13}}, {"Squeeze", {11, 13}},
                {"Unsqueeze", {11, 13}}, {"Flatten", {11, 13}}}},
        {f8_e4m3, {{"Reshape", {14, 19}}, {"Transpose", {13, 21}}, {"Squeeze", {13, 21}},
                   {"Unsqueeze", {13, 21}}, {"Flatten", {13, 21}}}},
        {s4, {{"Reshape", {19, 21}}, {"Transpose", {13, 21}}, {"Squeeze", {13, 21}},
              {"Unsqueeze", {13, 21}}, {"Flatten", {13, 21}}}},
        {f4_e2m1, {{"Reshape", {21, 23}}, {"Transpose", {21, 23}}, {"Squeeze", {21, 23}},
                   {"Unsqueeze", {21, 23}}, {"Flatten", {21, 23}}}},
        {f8_e8m0, {{"Reshape", {23, 24}}, {"Transpose", {23, 24}}, {"Squeeze", {23, 24}},
                   {"Unsqueeze", {23, 24}}, {"Flatten", {23, 24}}}},
        {s2, {{"Reshape", {24, 25}}, {"Transpose", {24, 25}}, {"Squeeze", {24, 25}},
              {"Unsqueeze", {24, 25}}, {"Flatten", {24, 25}}}},
        {u2, {{"Reshape", {24, 25}}, {"Transpose", {24, 25}}, {"Squeeze", {24, 25}},
              {"Unsqueeze", {24, 25}}, {"Flatten", {24, 25}}}},
    };
    auto allows = [](const op_schema &s, data_type t) {
        const auto &allowed = s.type_constraints.at(0).allowed;
        return std::find(allowed.begin(), allowed.end(), t) != allowed.end();
    };
    for (const arrival &a : arrivals)
        for (const auto &[kind, versions] : a.before_and_since) {
            EXPECT_FALSE(allows(row("ai.onnx", kind, versions.first), a.type))
                << kind << "-" << versions.first << " " << to_string(a.type);
            EXPECT_TRUE(allows(row("ai.onnx", kind, versions.second), a.type))
                << kind << "-" << versions.second << " " << to_string(a.type);
        }
    // The 2-bit types are listed in version 25 only (not yet in all_data_types()).
    EXPECT_TRUE(allows(row("ai.onnx", "Transpose", 25), s2));
    EXPECT_EQ(row("ai.onnx", "Transpose", 25).type_constraints[0].allowed.size(), 26u);
    EXPECT_EQ(row("", "StaticTranspose", 1).type_constraints[0].allowed,
              (std::vector<data_type>{f32, bf16, f16}));
}

} // namespace
} // namespace reshaper::impl::testing
