// Blocked layouts against oneDNN itself: a reorder from a plain buffer
// holding each element's row-major number into oneDNN's layout for a tag
// must put element idx at blocked_offset(idx), and oneDNN's buffer size
// must be blocked_size. Every named tag of our table is checked, so the
// table's abc spellings are checked too. (In kernels_tests because this
// binary may link oneDNN; the layout_ glob would take it into layout_tests,
// which must not.)
#include <gtest/gtest.h>

#include <functional>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "layout/memory_layout.hpp"

using namespace reshaper::impl;

namespace {

using tag = dnnl::memory::format_tag;

struct named_tag {
    const char *name;
    tag dnnl_tag;
};

const std::vector<named_tag> &tags() {
    static const std::vector<named_tag> all{
    {"x", tag::x}, {"nc", tag::nc}, {"cn", tag::cn}, {"tn", tag::tn}, {"nt", tag::nt},
    {"ncw", tag::ncw}, {"nwc", tag::nwc}, {"tnc", tag::tnc}, {"ntc", tag::ntc},
    {"nchw", tag::nchw}, {"nhwc", tag::nhwc}, {"chwn", tag::chwn}, {"ncdhw", tag::ncdhw},
    {"ndhwc", tag::ndhwc}, {"nCw4c", tag::nCw4c}, {"nCw8c", tag::nCw8c}, {"nCw16c", tag::nCw16c},
    {"nCw32c", tag::nCw32c}, {"nChw4c", tag::nChw4c}, {"nChw8c", tag::nChw8c},
    {"nChw16c", tag::nChw16c}, {"nChw32c", tag::nChw32c}, {"nCdhw4c", tag::nCdhw4c},
    {"nCdhw8c", tag::nCdhw8c}, {"nCdhw16c", tag::nCdhw16c}, {"nCdhw32c", tag::nCdhw32c},
    {"NCw16n16c", tag::NCw16n16c}, {"NChw16n16c", tag::NChw16n16c},
    {"NCdhw16n16c", tag::NCdhw16n16c}, {"oi", tag::oi}, {"io", tag::io}, {"oiw", tag::oiw},
    {"owi", tag::owi}, {"wio", tag::wio}, {"iwo", tag::iwo}, {"oihw", tag::oihw},
    {"ohwi", tag::ohwi}, {"hwio", tag::hwio}, {"ihwo", tag::ihwo}, {"iohw", tag::iohw},
    {"oidhw", tag::oidhw}, {"odhwi", tag::odhwi}, {"dhwio", tag::dhwio}, {"idhwo", tag::idhwo},
    {"goiw", tag::goiw}, {"wigo", tag::wigo}, {"goihw", tag::goihw}, {"hwigo", tag::hwigo},
    {"goidhw", tag::goidhw}, {"dhwigo", tag::dhwigo}, {"OIw16i16o", tag::OIw16i16o},
    {"OIw16o16i", tag::OIw16o16i}, {"Owi16o", tag::Owi16o}, {"OIhw4i4o", tag::OIhw4i4o},
    {"OIhw4o4i", tag::OIhw4o4i}, {"OIhw8i8o", tag::OIhw8i8o}, {"OIhw8o8i", tag::OIhw8o8i},
    {"OIhw16i16o", tag::OIhw16i16o}, {"OIhw16o16i", tag::OIhw16o16i},
    {"OIhw4i16o4i", tag::OIhw4i16o4i}, {"Oihw16o", tag::Oihw16o}, {"Ohwi8o", tag::Ohwi8o},
    {"Ohwi16o", tag::Ohwi16o}, {"OIdhw16i16o", tag::OIdhw16i16o},
    {"OIdhw16o16i", tag::OIdhw16o16i}, {"Odhwi16o", tag::Odhwi16o}, {"gOIhw8i8o", tag::gOIhw8i8o},
    {"gOIhw8o8i", tag::gOIhw8o8i}, {"gOIhw16i16o", tag::gOIhw16i16o},
    {"gOIhw16o16i", tag::gOIhw16o16i}, {"gOIdhw16i16o", tag::gOIdhw16i16o}, {"ldnc", tag::ldnc},
    {"ldigo", tag::ldigo}, {"ldgoi", tag::ldgoi}, {"ldgo", tag::ldgo}, {"ldoi", tag::ldoi},
    {"abcd", tag::abcd}, {"acdb", tag::acdb}, {"aBcd16b", tag::aBcd16b},
    {"ABcd16a16b", tag::ABcd16a16b}, {"ABcd8b8a", tag::ABcd8b8a}, {"aBcde8b", tag::aBcde8b},
    {"Acdb16a", tag::Acdb16a}, {"ABcd4b16a4b", tag::ABcd4b16a4b},
    {"aBCde16c16b", tag::aBCde16c16b}, {"abdec", tag::abdec},
    };
    return all;
}

// Shapes of the given rank: dims that are not multiples of the blocks, and
// dims that are (with size-1 dims).
dims_t shape_of_rank(int rank, int variant = 0) {
    const dims_t dims = variant == 0 ? dims_t{17, 19, 3, 2, 3, 2} : dims_t{32, 16, 1, 5, 1, 2};
    return dims_t(dims.begin(), dims.begin() + rank);
}

tag plain_tag(int rank) {
    const tag plain[] = {tag::a, tag::ab, tag::abc, tag::abcd, tag::abcde, tag::abcdef};
    return plain[rank - 1];
}

void for_each_index(const dims_t &dims, const std::function<void(const dims_t &)> &visit) {
    dims_t idx(dims.size(), 0);
    while (true) {
        visit(idx);
        std::size_t k = dims.size();
        while (k > 0 && ++idx[k - 1] == dims[k - 1]) idx[--k] = 0;
        if (k == 0) return;
    }
}

} // namespace

TEST(MemoryLayoutVsOneDnn, EveryNamedTagPlacesElementsWhereOneDnnDoes) {
    dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    dnnl::stream stream(engine);
    for (const auto &t : tags()) {
        // The rank is the tag's: try ranks until oneDNN accepts the tag.
        int rank = 0;
        dnnl::memory::desc blocked_desc;
        for (int r = 1; r <= 6 && rank == 0; ++r) {
            try {
                blocked_desc = dnnl::memory::desc(shape_of_rank(r), dnnl::memory::data_type::f32,
                                                  t.dnnl_tag);
                rank = r;
            } catch (const dnnl::error &) {
            }
        }
        ASSERT_GT(rank, 0) << t.name;
        for (int variant : {0, 1}) {
            const dims_t dims = shape_of_rank(rank, variant);
            if (variant == 1)
                blocked_desc = dnnl::memory::desc(dims, dnnl::memory::data_type::f32, t.dnnl_tag);
            const dnnl::memory::desc plain_desc(dims, dnnl::memory::data_type::f32, plain_tag(rank));

            std::vector<float> plain(plain_desc.get_size() / sizeof(float));
            for (std::size_t i = 0; i < plain.size(); ++i) plain[i] = static_cast<float>(i);
            std::vector<float> blocked(blocked_desc.get_size() / sizeof(float), -1.0f);
            dnnl::memory plain_mem(plain_desc, engine, plain.data());
            dnnl::memory blocked_mem(blocked_desc, engine, blocked.data());
            dnnl::reorder(plain_mem, blocked_mem).execute(stream, plain_mem, blocked_mem);
            stream.wait();

            const auto format = parse_format_tag(t.name, dims.size());
            EXPECT_EQ(blocked_size(format, dims), static_cast<dim_t>(blocked.size())) << t.name;
            dim_t row_major = 0, wrong = 0;
            for_each_index(dims, [&](const dims_t &idx) {
                const dim_t off = blocked_offset(format, dims, idx);
                if (off >= static_cast<dim_t>(blocked.size()) ||
                    blocked[off] != static_cast<float>(row_major))
                    ++wrong;
                ++row_major;
            });
            EXPECT_EQ(wrong, 0) << t.name << " " << dims_to_string(dims);
        }
    }
}
