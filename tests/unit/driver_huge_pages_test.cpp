// When reshaper-run runs itself again with glibc's malloc asking for
// transparent huge pages (driver/huge_pages.hpp).
#include <gtest/gtest.h>

#include "driver/huge_pages.hpp"

using reshaper::driver::huge_page_graph_bytes;
using reshaper::driver::huge_page_tunables;

namespace {
constexpr const char *madvise_mode = "always [madvise] never\n";
}

TEST(DriverHugePages, ALargeGraphWhereHugePagesAreGivenOnAskingRunsAgainWithTheTunable) {
    EXPECT_EQ(huge_page_tunables(madvise_mode, nullptr, huge_page_graph_bytes), "glibc.malloc.hugetlb=1");
    EXPECT_EQ(huge_page_tunables(madvise_mode, "", huge_page_graph_bytes * 40), "glibc.malloc.hugetlb=1");
}

TEST(DriverHugePages, TheUsersOtherTunablesAreKept) {
    EXPECT_EQ(huge_page_tunables(madvise_mode, "glibc.malloc.arena_max=2", huge_page_graph_bytes),
              "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1");
}

TEST(DriverHugePages, ASmallGraphIsNotWorthASecondStart) {
    EXPECT_FALSE(huge_page_tunables(madvise_mode, nullptr, huge_page_graph_bytes - 1));
    EXPECT_FALSE(huge_page_tunables(madvise_mode, nullptr, 0));
}

TEST(DriverHugePages, NothingChangesWhereTheSystemGivesThemAlwaysOrNeverOrCannotSay) {
    EXPECT_FALSE(huge_page_tunables("[always] madvise never\n", nullptr, huge_page_graph_bytes));
    EXPECT_FALSE(huge_page_tunables("always madvise [never]\n", nullptr, huge_page_graph_bytes));
    EXPECT_FALSE(huge_page_tunables("", nullptr, huge_page_graph_bytes)); // no such file
}

TEST(DriverHugePages, ATunableSetAlreadyIsNeverSetAgain) {
    // The user's choice, either way; and the run after the first has it:
    // no second run again.
    EXPECT_FALSE(huge_page_tunables(madvise_mode, "glibc.malloc.hugetlb=0", huge_page_graph_bytes));
    EXPECT_FALSE(huge_page_tunables(madvise_mode, "glibc.malloc.hugetlb=1", huge_page_graph_bytes));
    const auto once = huge_page_tunables(madvise_mode, "glibc.malloc.arena_max=2", huge_page_graph_bytes);
    ASSERT_TRUE(once);
    EXPECT_FALSE(huge_page_tunables(madvise_mode, once->c_str(), huge_page_graph_bytes));
}
