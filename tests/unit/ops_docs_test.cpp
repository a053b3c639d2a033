// docs/ops.md is generated from the registry; this fails when it is stale.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "ops/registry.hpp"
#include "file_text_support.hpp"

namespace reshaper::impl {
namespace {

std::string checked_in_docs() { return reshaper::test::file_text(std::string(RESHAPER_SOURCE_DIR) + "/docs/ops.md"); }

TEST(OpsDocs, CheckedInDocsMatchTheRegistry) {
    EXPECT_TRUE(generate_ops_markdown(op_registry::instance()) == checked_in_docs())
        << "docs/ops.md is stale: run build/bin/reshaper-gen-ops-doc > docs/ops.md";
}

// The section of one schema: from its heading to the next.
std::string section(const std::string &docs, const std::string &versioned_name) {
    const auto start = docs.find("\n## " + versioned_name + "\n");
    if (start == std::string::npos) return "";
    const auto end = docs.find("\n## ", start + 1);
    return docs.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

TEST(OpsDocs, EverySchemaIsDocumentedWithItsOwnData) {
    const std::string docs = generate_ops_markdown(op_registry::instance());
    for (const op_schema &s : op_registry::instance().schemas()) {
        const std::string text = section(docs, s.versioned_name());
        ASSERT_FALSE(text.empty()) << s.versioned_name();
        EXPECT_NE(text.find(s.doc), std::string::npos) << s.versioned_name();
        for (const attribute_spec &a : s.attributes)
            EXPECT_NE(text.find("| " + a.name + " | " + std::string(to_string(a.kind))),
                      std::string::npos)
                << s.versioned_name() << " " << a.name;
    }
    EXPECT_NE(section(docs, "ai.onnx.Reshape-14").find("| allowzero | s64 | no | 0 | 0..1 |"),
              std::string::npos);
    EXPECT_EQ(section(docs, "ai.onnx.Reshape-13").find("allowzero"), std::string::npos);
    // Shape values are the reshape rule's to check (value_range), not a schema range.
    EXPECT_NE(section(docs, "StaticReshape-1").find("| shape | s64[] | yes |  |  |"),
              std::string::npos);
    EXPECT_NE(section(docs, "ai.onnx.Reshape-24").find("f8_e8m0"), std::string::npos);
    EXPECT_EQ(section(docs, "ai.onnx.Reshape-23").find("f8_e8m0"), std::string::npos);
}

} // namespace
} // namespace reshaper::impl
