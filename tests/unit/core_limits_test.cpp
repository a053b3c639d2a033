// The limits' settings from the environment (issue 25): nesting is capped
// at what the stack can take, and a setting that cannot be used is said
// once on stderr instead of being ignored silently.
#include <gtest/gtest.h>

#include <string>

#include "core/limits.hpp"
#include "core/status.hpp"
#include "io/graph_json.hpp"
#include "scoped_env.hpp"

using namespace reshaper::impl;
using reshaper::impl::testing::scoped_env;

namespace {

std::string stderr_of(const auto &f) {
    ::testing::internal::CaptureStderr();
    f();
    return ::testing::internal::GetCapturedStderr();
}

std::string graph_with_extra(const std::string &extra) {
    return R"({"graph": [], "extra": )" + extra + "}";
}

} // namespace

TEST(LimitSettings, ARaisedDepthStopsAtTheCeilingSayingSoOnce) {
    const scoped_env depth("RESHAPER_MAX_JSON_DEPTH", "100000");
    resource_limits l;
    std::string err = stderr_of([&] { l = current_limits(); });
    EXPECT_EQ(l.max_json_depth, json_depth_ceiling);
    EXPECT_EQ(json_depth_ceiling, 1024u);
    EXPECT_EQ(err, "reshaper: warning: RESHAPER_MAX_JSON_DEPTH=100000 is above the deepest nesting the reader "
                   "allows; using 1024\n");
    EXPECT_EQ(stderr_of([&] { l = current_limits(); }), ""); // said once
    EXPECT_EQ(l.max_json_depth, json_depth_ceiling);

    // 100,000 levels are refused while reading; the ceiling itself reads,
    // converts and writes back (the extra field recurses to every level).
    const std::string deep = graph_with_extra(std::string(100000, '[') + std::string(100000, ']'));
    try {
        read_graph_json(deep);
        ADD_FAILURE() << "read";
    } catch (const error &e) {
        EXPECT_EQ(e.code(), status::invalid_graph);
        EXPECT_EQ(e.rule(), "json_syntax");
        EXPECT_NE(std::string(e.what()).find("nesting deeper than 1024 levels (RESHAPER_MAX_JSON_DEPTH, which cannot "
                                             "go above 1024)"),
                  std::string::npos)
            << e.what();
    }
    const std::string at_ceiling = graph_with_extra(std::string(1023, '[') + std::string(1023, ']'));
    const graph g = read_graph_json(at_ceiling);
    EXPECT_EQ(g.extra_fields.at("extra").size(), 2 * 1023u);
    EXPECT_EQ(read_graph_json(write_graph_json(g)), g);
}

TEST(LimitSettings, WithinTheCeilingADepthIsTakenAsGiven) {
    const scoped_env depth("RESHAPER_MAX_JSON_DEPTH", "1024");
    resource_limits l;
    EXPECT_EQ(stderr_of([&] { l = current_limits(); }), "");
    EXPECT_EQ(l.max_json_depth, 1024u);
}

TEST(LimitSettings, UnusableValuesAreSaidOnceEachAndTheDefaultHolds) {
    for (const char *value : {"lots", "0", "-5", "12abc", " 7", "1e6", "18446744073709551616"}) {
        const scoped_env ops("RESHAPER_MAX_OPS", value);
        resource_limits l;
        const std::string err = stderr_of([&] { l = current_limits(); });
        EXPECT_EQ(l.max_ops, resource_limits{}.max_ops) << value;
        EXPECT_NE(err.find(std::string("reshaper: warning: RESHAPER_MAX_OPS='") + value +
                           "' is not a positive integer"),
                  std::string::npos)
            << value << ": " << err;
        EXPECT_NE(err.find("; using the default 10000000\n"), std::string::npos) << err;
        EXPECT_EQ(stderr_of([&] { l = current_limits(); }), "") << value; // once per value
    }
    // A value set empty is as unset; a good value is silent.
    for (const char *value : {"", "5"}) {
        const scoped_env bytes("RESHAPER_MAX_GRAPH_BYTES", value);
        resource_limits l;
        EXPECT_EQ(stderr_of([&] { l = current_limits(); }), "") << value;
        EXPECT_EQ(l.max_graph_bytes, *value ? 5u : resource_limits{}.max_graph_bytes);
    }
}
