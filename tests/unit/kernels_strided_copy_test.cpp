// strided_copy against the reference reshape (a same-shape reshape is a
// strided copy): both start from the same destination buffer, so elements
// outside the destination's extent and the other elements of shared bytes
// (packed 4- and 2-bit types) must come out untouched as well.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_scheduler_observer.h>

#include "core/logical_tensor.hpp"
#include "core/status.hpp"
#include "kernels/strided_copy.hpp"
#include "layout/reference.hpp"

using namespace reshaper::impl;

namespace {

// A strided layout inside a buffer: strides, offset and the buffer's
// element count.
struct layout {
    dims_t strides;
    dim_t offset = 0;
    dim_t buffer_elements = 0;
};

// Dense in `order` (outermost first) over dims padded by `pads` and stepped
// by `steps`, starting at `offset`.
layout make_layout(const dims_t &dims, const std::vector<std::size_t> &order, const dims_t &steps,
                   const dims_t &pads, dim_t offset) {
    layout l;
    l.strides.resize(dims.size());
    dim_t running = 1;
    for (std::size_t k = order.size(); k-- > 0;) {
        const std::size_t d = order[k];
        l.strides[d] = running * steps[d];
        running *= std::max<dim_t>(dims[d], 1) * steps[d] + pads[d];
    }
    l.offset = offset;
    l.buffer_elements = offset + running;
    return l;
}

layout dense_layout(const dims_t &dims, dim_t offset = 0) {
    std::vector<std::size_t> order(dims.size());
    std::iota(order.begin(), order.end(), 0);
    return make_layout(dims, order, dims_t(dims.size(), 1), dims_t(dims.size(), 0), offset);
}

layout random_layout(const dims_t &dims, std::mt19937_64 &rng) {
    auto pick = [&](dim_t lo, dim_t hi) { return std::uniform_int_distribution<dim_t>(lo, hi)(rng); };
    std::vector<std::size_t> order(dims.size());
    std::iota(order.begin(), order.end(), 0);
    const dim_t kind = pick(0, 3); // dense, permuted, sliced, permuted and sliced
    if (kind % 2 == 1) std::shuffle(order.begin(), order.end(), rng);
    dims_t steps(dims.size(), 1), pads(dims.size(), 0);
    if (kind >= 2)
        for (std::size_t k = 0; k < dims.size(); ++k) {
            if (pick(0, 2) == 0) steps[k] = pick(2, 3);
            if (pick(0, 2) == 0) pads[k] = pick(1, 3);
        }
    return make_layout(dims, order, steps, pads, pick(0, 1) ? pick(0, 5) : 0);
}

logical_tensor descriptor(data_type t, const dims_t &dims, const layout &l) {
    logical_tensor lt;
    lt.dtype = t;
    lt.shape = dims;
    lt.strides = l.strides;
    return lt;
}

// A buffer of any dtype, filled with `seed`-dependent contents.
struct buffer {
    data_type type;
    std::vector<std::uint8_t> bytes;
    std::vector<std::string> strings;

    buffer(data_type t, dim_t elements, unsigned seed) : type(t) {
        if (t == data_type::string) {
            for (dim_t i = 0; i < elements; ++i) {
                std::string s = std::to_string(seed);
                s += '_';
                s += std::to_string(i);
                if (i % 3 == 0) s.append(40, 'x'); // too long for the small-string buffer
                strings.push_back(std::move(s));
            }
        } else {
            bytes.resize(dense_bytes(t, static_cast<std::size_t>(elements)));
            std::mt19937 gen(seed);
            for (auto &b : bytes) b = static_cast<std::uint8_t>(gen());
        }
    }
    void *data() { return type == data_type::string ? static_cast<void *>(strings.data()) : bytes.data(); }
    bool operator==(const buffer &o) const { return bytes == o.bytes && strings == o.strings; }
};

std::string case_text(data_type t, const dims_t &dims, const layout &src, const layout &dst) {
    return std::string(to_string(t)) + " dims " + dims_to_string(dims) + " src strides " +
           dims_to_string(src.strides) + " +" + std::to_string(src.offset) + " dst strides " +
           dims_to_string(dst.strides) + " +" + std::to_string(dst.offset);
}

// Runs strided_copy and the reference on equal destination buffers.
void expect_matches_reference(data_type t, const dims_t &dims, const layout &src_l,
                              const layout &dst_l) {
    buffer src(t, src_l.buffer_elements, 1);
    const buffer src_before = src;
    buffer expected(t, dst_l.buffer_elements, 2), actual = expected;
    reference_reshape(descriptor(t, dims, src_l), src.data(), src_l.offset,
                      descriptor(t, dims, dst_l), expected.data(), dst_l.offset);
    strided_copy(t, dims, {src.data(), src_l.offset, src_l.strides},
                 {actual.data(), dst_l.offset, dst_l.strides});
    EXPECT_TRUE(actual == expected) << case_text(t, dims, src_l, dst_l);
    EXPECT_TRUE(src == src_before) << "source modified: " << case_text(t, dims, src_l, dst_l);
}

// Counts the worker threads that join the arena while it runs.
class worker_counter : public oneapi::tbb::task_scheduler_observer {
public:
    explicit worker_counter(oneapi::tbb::task_arena &arena)
        : oneapi::tbb::task_scheduler_observer(arena) { observe(true); }
    ~worker_counter() override { observe(false); }
    void on_scheduler_entry(bool is_worker) override { workers += is_worker ? 1 : 0; }
    std::atomic<int> workers{0};
};

} // namespace

TEST(StridedCopy, EveryDtypeMatchesTheReferenceOnRandomLayouts) {
    std::mt19937_64 rng(7);
    for (data_type t : all_data_types()) {
        for (int iter = 0; iter < 250; ++iter) {
            const std::size_t rank = std::uniform_int_distribution<std::size_t>(0, 5)(rng);
            dims_t dims(rank);
            for (auto &d : dims) d = std::uniform_int_distribution<dim_t>(1, 5)(rng);
            if (rank > 0 && iter % 25 == 0) dims[iter % rank] = 0;
            const layout src = random_layout(dims, rng), dst = random_layout(dims, rng);
            expect_matches_reference(t, dims, src, dst);
            if (HasFailure()) return;
        }
    }
}

TEST(StridedCopy, DensePermutedAndSlicedLayoutsOfEveryDtype) {
    const dims_t dims{3, 4, 5};
    const layout dense = dense_layout(dims);
    const layout permuted = make_layout(dims, {2, 0, 1}, {1, 1, 1}, {0, 0, 0}, 0);
    const layout sliced = make_layout(dims, {0, 1, 2}, {1, 2, 1}, {0, 1, 3}, 3);
    for (data_type t : all_data_types())
        for (const auto *src : {&dense, &permuted, &sliced})
            for (const auto *dst : {&dense, &permuted, &sliced})
                expect_matches_reference(t, dims, *src, *dst);
}

TEST(StridedCopy, ZeroVolumeTouchesNothing) {
    std::vector<float> dst(4, 1.0f);
    strided_copy(data_type::f32, {3, 0, 2}, {nullptr, 0, {0, 2, 1}}, {dst.data(), 0, {0, 2, 1}});
    EXPECT_EQ(dst, std::vector<float>(4, 1.0f));
}

TEST(StridedCopy, ScalarsAndSizeOneDims) {
    for (data_type t : all_data_types()) {
        expect_matches_reference(t, {}, dense_layout({}, 1), dense_layout({}, 2));
        expect_matches_reference(t, {1, 1}, dense_layout({1, 1}), dense_layout({1, 1}, 3));
        // Size-1 dims with strides that mean nothing, between real dims.
        layout odd_ones{{7, 99, 1, 5}, 1, 20};
        expect_matches_reference(t, {2, 1, 5, 1}, odd_ones, dense_layout({2, 1, 5, 1}));
    }
}

TEST(StridedCopy, PackedTypesAtOddOffsetsAndLengths) {
    for (data_type t : {data_type::s4, data_type::u4, data_type::f4_e2m1, data_type::s2, data_type::u2}) {
        for (dim_t n : {1, 2, 3, 4, 5, 7, 8, 33, 64})
            for (dim_t src_off : {0, 1, 2, 3, 4, 5})
                for (dim_t dst_off : {0, 1, 2, 3, 4, 5}) // every place in a byte, same and not
                    expect_matches_reference(t, {n}, dense_layout({n}, src_off),
                                             dense_layout({n}, dst_off));
        // Odd rows packed densely: rows share bytes.
        expect_matches_reference(t, {3, 5}, make_layout({3, 5}, {1, 0}, {1, 1}, {0, 0}, 1),
                                 dense_layout({3, 5}, 1));
        // Odd destination strides.
        expect_matches_reference(t, {4, 3}, dense_layout({4, 3}, 1),
                                 make_layout({4, 3}, {0, 1}, {1, 3}, {1, 0}, 3));
    }
}

TEST(StridedCopy, IdenticalSourceAndDestinationIsANoOp) {
    std::vector<std::int64_t> buf{1, 2, 3, 4};
    strided_copy(data_type::s64, {2, 2}, {buf.data(), 0, {2, 1}}, {buf.data(), 0, {2, 1}});
    EXPECT_EQ(buf, (std::vector<std::int64_t>{1, 2, 3, 4}));
}

TEST(StridedCopy, BadArgumentsAreErrors) {
    std::vector<float> buf(8);
    try {
        strided_copy(data_type::undef, {2}, {buf.data(), 0, {1}}, {buf.data(), 4, {1}});
        FAIL() << "undef accepted";
    } catch (const error &e) {
        EXPECT_EQ(e.code(), status::invalid_data_type);
        EXPECT_NE(std::string(e.what()).find("undef"), std::string::npos);
    }
    try {
        strided_copy(data_type::f32, {2, 2}, {buf.data(), 0, {2, 1}}, {buf.data(), 4, {1}});
        FAIL() << "stride count mismatch accepted";
    } catch (const error &e) {
        EXPECT_EQ(e.code(), status::invalid_arguments);
        EXPECT_NE(std::string(e.what()).find("[2,2]"), std::string::npos);
    }
}

// Big enough to be split into many tasks; the arena has workers to take them.
TEST(StridedCopy, LargeCopiesRunInParallelAndStayExact) {
    oneapi::tbb::global_control allow(oneapi::tbb::global_control::max_allowed_parallelism, 4);
    // The arena and its observer live as long as the process: oneTBB frees
    // an observer's proxy lazily from the arena, and tearing either down
    // while a worker still held the proxy leaked it (LeakSanitizer, issue
    // 9, timing-dependent). Reachable from these statics, nothing leaks.
    static auto *const arena = new oneapi::tbb::task_arena(4);
    static auto *const counter = new worker_counter(*arena);
    const dims_t dims{64, 129, 67};
    struct big_case {
        data_type type;
        layout src, dst;
    };
    const std::vector<big_case> cases{
        {data_type::f32, make_layout(dims, {2, 0, 1}, {1, 1, 1}, {0, 0, 0}, 0), dense_layout(dims)},
        {data_type::s64, dense_layout(dims), make_layout(dims, {0, 1, 2}, {1, 1, 2}, {0, 3, 0}, 5)},
        // Odd rows and an odd offset: task cuts must fall between bytes.
        {data_type::s4, make_layout(dims, {1, 2, 0}, {1, 1, 1}, {0, 0, 0}, 0), dense_layout(dims, 1)},
        {data_type::u4, dense_layout(dims, 1), dense_layout(dims, 0)},
        {data_type::s2, make_layout(dims, {1, 2, 0}, {1, 1, 1}, {0, 0, 0}, 0), dense_layout(dims, 3)},
        {data_type::u2, dense_layout(dims, 2), dense_layout(dims, 1)},
        {data_type::u2, dense_layout(dims, 4), dense_layout(dims, 0)}, // whole bytes: the run copy
        {data_type::string, make_layout({32, 33, 7}, {2, 1, 0}, {1, 1, 1}, {0, 0, 0}, 0),
         dense_layout({32, 33, 7})},
    };
    arena->execute([&] {
        for (const auto &c : cases) {
            const dims_t &d = c.type == data_type::string ? dims_t{32, 33, 7} : dims;
            for (int repeat = 0; repeat < 3; ++repeat) expect_matches_reference(c.type, d, c.src, c.dst);
        }
        // Transposes walked tile by tile, with edge strips (sizes not whole
        // tiles), each past parallel_threshold_bytes so that threads share it.
        for (auto [type, d] : {std::pair{data_type::s16, dims_t{717, 563}},
                               std::pair{data_type::c128, dims_t{300, 301}},
                               std::pair{data_type::f8_e4m3, dims_t{4, 400, 333}},
                               std::pair{data_type::string, dims_t{100, 70}},
                               // Packed: tiled (even rows at even starts), and not.
                               std::pair{data_type::u4, dims_t{1200, 900}},
                               std::pair{data_type::s4, dims_t{1201, 901}},
                               std::pair{data_type::u2, dims_t{1200, 1800}},
                               std::pair{data_type::s2, dims_t{1202, 1803}}}) {
            std::vector<std::size_t> reversed(d.size());
            std::iota(reversed.rbegin(), reversed.rend(), 0);
            const dims_t ones(d.size(), 1), zeros(d.size(), 0);
            expect_matches_reference(type, d, make_layout(d, reversed, ones, zeros, 3),
                                     dense_layout(d, 0));
            expect_matches_reference(type, d, make_layout(d, reversed, ones, zeros, 3),
                                     dense_layout(d, 1));
            expect_matches_reference(type, d, dense_layout(d, 2),
                                     make_layout(d, reversed, ones, zeros, 0));
        }
    });
    EXPECT_GT(counter->workers.load(), 0) << "no worker thread took part";
}
