// Memory safety of execute (issue 9): each output ends exactly at a page
// boundary followed by a PROT_NONE page, and each input sits in read-only
// pages likewise followed by one, so a write past an output, a read past an
// input or any write to an input is a fault that kills the test, not a
// silent corruption. Every lowering (alias run into a separate buffer and in
// place, oneDNN reorder, our kernel), every dtype but string (packed ones
// with odd element counts: the last byte half used), dense, permuted,
// padded, broadcast and blocked layouts. The kernel's fast paths (tiled
// transposes of 1-, 2-, 4-, 8- and 16-byte and packed 4- and 2-bit
// elements, whole and tail tiles; run copies) at every SIMD level up to the
// active one, each buffer once ending at a guard page and once starting
// right after one, also reached through a chain with a transpose.
#include "backend_test_support.hpp"

#include "backend/dnnl_mapping.hpp"
#include "kernels/cpu_isa.hpp"
#include "ops/graph_inference.hpp"

#include <set>
#include <stdexcept>

#include <sys/mman.h>
#include <unistd.h>

namespace reshaper::impl::testing {
namespace {

// Where a buffer sits in its pages: ending exactly at the guard page after
// it (a read or write past its end faults), or starting right after the
// guard page before it (one before its start faults).
enum class placement { ends_at_guard, starts_after_guard };

// `bytes` of memory placed against an inaccessible page (and with one on
// the other side too, a page or less away).
class guarded_region {
public:
    guarded_region(std::size_t bytes, placement where) : bytes_(bytes) {
        const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
        data_pages_ = (bytes + page - 1) / page;
        if (data_pages_ == 0) data_pages_ = 1;
        length_ = (data_pages_ + 2) * page;
        void *p = mmap(nullptr, length_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) throw std::runtime_error("mmap failed");
        base_ = static_cast<std::uint8_t *>(p);
        if (mprotect(base_ + page, data_pages_ * page, PROT_READ | PROT_WRITE) != 0)
            throw std::runtime_error("mprotect failed");
        data_ = where == placement::ends_at_guard ? base_ + page + data_pages_ * page - bytes : base_ + page;
        page_ = page;
    }
    ~guarded_region() { munmap(base_, length_); }
    guarded_region(const guarded_region &) = delete;
    guarded_region &operator=(const guarded_region &) = delete;

    std::uint8_t *data() { return data_; }
    std::size_t size() const { return bytes_; }
    void make_read_only() { ASSERT_EQ(mprotect(base_ + page_, data_pages_ * page_, PROT_READ), 0); }

private:
    std::size_t bytes_;
    std::size_t data_pages_ = 0, length_ = 0, page_ = 0;
    std::uint8_t *base_ = nullptr;
    std::uint8_t *data_ = nullptr;
};

// Runs `cp` with the input read-only and the output (and, for an alias, an
// in-place buffer) against guard pages, the input at `in_at`, the output at
// the other side; compares with the reference, which reads the input as
// `read_as` (the compiled input, or a transposed view of it).
void run_guarded_at(const compiled_partition &cp, const logical_tensor &read_as, std::uint32_t seed,
                    placement in_at) {
    const placement out_at =
        in_at == placement::ends_at_guard ? placement::starts_after_guard : placement::ends_at_guard;
    const logical_tensor &in = cp.inputs().at(0);
    const logical_tensor &out = cp.outputs().at(0);
    const std::size_t in_bytes = buffer_bytes(in).value(), out_bytes = buffer_bytes(out).value();
    guarded_region src(in_bytes, in_at), dst(out_bytes, out_at);
    std::mt19937 rng(seed);
    for (std::size_t i = 0; i < in_bytes; ++i) src.data()[i] = static_cast<std::uint8_t>(rng());
    const std::vector<std::uint8_t> pristine(src.data(), src.data() + in_bytes);
    std::vector<std::uint8_t> expected(out_bytes, output_sentinel(out));
    std::memset(dst.data(), output_sentinel(out), out_bytes);
    reference_reshape(read_as, src.data(), out, expected.data());
    src.make_read_only();

    cp.execute({src.data()}, {dst.data()});
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(), dst.data()))
        << to_string(cp.lowering()) << ": " << cp.lowering_details();
    EXPECT_TRUE(std::equal(pristine.begin(), pristine.end(), src.data()));

    if (cp.lowering() == lowering_kind::alias && in_bytes == out_bytes) {
        guarded_region shared(in_bytes, in_at);
        std::memcpy(shared.data(), pristine.data(), in_bytes);
        cp.execute({shared.data()}, {shared.data()});
        EXPECT_TRUE(std::equal(pristine.begin(), pristine.end(), shared.data())) << "in place";
    }
}

void run_guarded(const compiled_partition &cp, std::uint32_t seed, const logical_tensor *read_as = nullptr) {
    for (placement in_at : {placement::ends_at_guard, placement::starts_after_guard}) {
        SCOPED_TRACE(in_at == placement::ends_at_guard ? "input ends at a guard page, output starts after one"
                                                       : "input starts after a guard page, output ends at one");
        run_guarded_at(cp, read_as ? *read_as : cp.inputs().at(0), seed, in_at);
    }
}

// The SIMD levels up to the active one (RESHAPER_MAX_CPU_ISA caps it: ctest
// also runs this binary at avx2 and scalar), each forced in turn.
std::vector<cpu_isa> levels_up_to_active() {
    std::vector<cpu_isa> levels;
    for (cpu_isa l : {cpu_isa::scalar, cpu_isa::avx2, cpu_isa::avx512})
        if (l <= active_cpu_isa()) levels.push_back(l);
    return levels;
}

struct forced_isa {
    explicit forced_isa(cpu_isa level) {
        override_cpu_isa_for_testing(level);
        EXPECT_EQ(active_cpu_isa(), level);
    }
    ~forced_isa() { override_cpu_isa_for_testing(std::nullopt); }
};

struct layout_case {
    const char *name;
    logical_tensor in;
    logical_tensor out;
};

// [3,5,7] (odd volume: a packed type's last byte is half used) reshaped to
// [7,15] or [105], over layouts that pick every lowering.
std::vector<layout_case> cases_for(data_type t) {
    const dims_t dims{3, 5, 7};
    std::vector<layout_case> cases{
        {"dense_alias", strided_lt(0, t, dims), any_lt(1, t, {105})},
        {"dense_into_permuted", strided_lt(0, t, dims), strided_lt(1, t, {7, 15}, {1, 7})},
        {"permuted_input", strided_lt(0, t, dims, {1, 3, 15}), any_lt(1, t, {105})},
        {"padded_input", strided_lt(0, t, dims, {48, 8, 1}), any_lt(1, t, {7, 15})},
        {"padded_input_sliced_view", strided_lt(0, t, dims, {40, 8, 1}), any_lt(1, t, {15, 7})},
        {"broadcast_input", strided_lt(0, t, dims, {0, 7, 1}), any_lt(1, t, {105})},
        // Every other element, rows apart: no contiguous source dim,
        // oneDNN's reorder where it takes the dtype.
        {"every_other_input", strided_lt(0, t, dims, {72, 14, 2}), any_lt(1, t, {105})},
        {"padded_output", strided_lt(0, t, dims), strided_lt(1, t, {7, 15}, {17, 1})},
    };
    // Blocked: a oneDNN format tag on the input or the output, with and
    // without padded channels (oneDNN's reorder or our element walk).
    cases.push_back({"blocked_input", opaque_lt(0, t, {2, 32, 3, 1}, "nChw16c"), any_lt(1, t, {192})});
    cases.push_back({"blocked_output", strided_lt(0, t, {2, 16, 3}), opaque_lt(1, t, {2, 16, 3, 1}, "nChw8c")});
    cases.push_back({"padded_blocked_input", opaque_lt(0, t, {2, 20, 3, 1}, "nChw16c"), any_lt(1, t, {120})});
    cases.push_back(
        {"padded_blocked_output", strided_lt(0, t, {2, 20, 3}), opaque_lt(1, t, {2, 20, 3, 1}, "nChw8c")});
    cases.push_back({"padded_2d_input", opaque_lt(0, t, {20, 3}, "Ab8a"), strided_lt(1, t, {3, 20})});
    cases.push_back({"padded_2d_output", strided_lt(0, t, {60}), opaque_lt(1, t, {20, 3}, "Ab8a")});
    return cases;
}

// Element types of every size the kernel's fast paths take: 1, 2, 4, 8 and
// 16 bytes, packed 4 and 2 bits.
constexpr data_type sized_types[] = {data_type::s8,  data_type::bf16, data_type::f32, data_type::f64,
                                     data_type::c128, data_type::u4,  data_type::s2};

struct kernel_case {
    const char *name;
    dims_t dims;
    dims_t in_strides;  // the input's layout (empty: dense)
    dims_t out_strides; // the output's, over the same dims (empty: dense)
    const char *path;   // the fast path it must take
    bool byte_rows;     // every row whole bytes also for 2-bit elements (packed types take only these)
};

// Reshapes to the same dims whose layouts make the kernel transpose or copy
// runs: whole tiles (64 bytes a side), tails in both dims, the smallest
// transpose, a batch dim, padded rows.
const kernel_case kernel_cases[] = {
    {"transpose_whole_tiles", {64, 64}, {1, 64}, {}, "transpose", true},
    {"transpose_tails", {68, 44}, {1, 68}, {}, "transpose", true},
    {"transpose_odd_tails", {67, 45}, {1, 67}, {}, "transpose", false},
    {"transpose_smallest", {4, 4}, {1, 4}, {}, "transpose", true},
    {"transpose_small_odd", {5, 7}, {1, 5}, {}, "transpose", false},
    {"transpose_batched_tails", {3, 36, 20}, {720, 1, 36}, {}, "transpose", true},
    {"transpose_batched_odd_tails", {3, 37, 19}, {703, 1, 37}, {}, "transpose", false},
    {"transpose_into_padded_rows", {32, 72}, {1, 32}, {76, 1}, "transpose", true},
    {"split_rows", {3, 100}, {1, 3}, {}, "split rows", false},
    {"split_rows_into_padded_rows", {5, 67}, {1, 5}, {70, 1}, "split rows", false},
    {"split_rows_of_seven_over_chunks", {7, 2100}, {1, 7}, {2110, 1}, "split rows", false},
    {"joined_rows", {100, 3}, {1, 100}, {}, "joined rows", false},
    {"joined_rows_from_padded_rows", {67, 5}, {1, 70}, {}, "joined rows", false},
    {"run_copy_padded_input", {36, 44}, {48, 1}, {}, "run copy", true},
    {"run_copy_odd_padded_input", {37, 45}, {48, 1}, {}, "run copy", false},
    {"run_copy_padded_output", {28, 132}, {}, {136, 1}, "run copy", true},
};

} // namespace

TEST(backend_guard_pages, kernel_fast_paths_of_every_element_size_at_every_isa_level) {
    int checked = 0;
    for (cpu_isa level : levels_up_to_active()) {
        const forced_isa forced(level);
        for (data_type t : sized_types) {
            for (const kernel_case &c : kernel_cases) {
                if (is_packed(t) && !c.byte_rows) continue;
                SCOPED_TRACE(std::string(to_string(level)) + " " + std::string(to_string(t)) + " " + c.name);
                const logical_tensor in = strided_lt(0, t, c.dims, c.in_strides);
                const logical_tensor out = strided_lt(1, t, c.dims, c.out_strides);
                const auto cp = compile_whole(static_chain(in, {c.dims}), in, out);
                ASSERT_EQ(cp->lowering(), lowering_kind::kernel) << cp->lowering_details();
                EXPECT_NE(cp->lowering_details().find(c.path), std::string::npos) << cp->lowering_details();
                run_guarded(*cp, static_cast<std::uint32_t>(t) * 31 + 7);
                ++checked;
            }
        }
    }
    EXPECT_GE(checked, 60);
}

// A transpose reached through a chain partition: Transpose (StaticTranspose
// for the types oneDNN's opset gives it, ONNX Transpose-25 for the others)
// then Flatten, built and inferred as a user's graph, dense in, `any` out.
// The expected output reads the input through its axes permuted.
TEST(backend_guard_pages, a_transpose_in_a_chain_partition_at_every_isa_level) {
    // Odd sides (tails) for whole-byte elements; multiples of 4 for packed
    // ones, whose tiled transposes take rows of whole bytes only.
    for (cpu_isa level : levels_up_to_active()) {
        const forced_isa forced(level);
        for (data_type t : sized_types) {
            SCOPED_TRACE(std::string(to_string(level)) + " " + std::string(to_string(t)));
            const dim_t rows = is_packed(t) ? 36 : 37, cols = is_packed(t) ? 20 : 19;
            const dims_t dims{3, rows, cols};
            const bool onednn = t == data_type::f32 || t == data_type::bf16;
            graph g;
            g.tensors[0] = strided_lt(0, t, dims);
            g.tensors[1] = strided_lt(1, t, dims_t(3, unknown_dim));
            g.tensors[2] = strided_lt(2, t, dims_t(2, unknown_dim));
            op transpose;
            transpose.id = 0;
            transpose.name = "transpose";
            transpose.kind = onednn ? "StaticTranspose" : "Transpose";
            if (!onednn) {
                transpose.domain = "ai.onnx";
                transpose.version = 25;
            }
            transpose.attrs[onednn ? "order" : "perm"] = std::vector<std::int64_t>{0, 2, 1};
            transpose.inputs = {0};
            transpose.outputs = {1};
            op flatten;
            flatten.id = 1;
            flatten.name = "flatten";
            flatten.kind = "Flatten";
            flatten.domain = "ai.onnx";
            flatten.version = 25;
            flatten.attrs["axis"] = std::int64_t{1};
            flatten.inputs = {1};
            flatten.outputs = {2};
            g.ops = {transpose, flatten};
            infer_graph_shapes(g);
            ASSERT_EQ(g.tensor(2).shape, (dims_t{3, cols * rows}));
            const auto parts = get_partitions(g, partition_policy::fusion, backend_claims(engine_kind::cpu));
            ASSERT_EQ(parts.size(), 1u);
            ASSERT_TRUE(parts[0].supported) << parts[0].reason;
            const auto cp = compile(g, parts[0], {g.tensor(0)}, {any_lt(2, t, {3, cols * rows})}, cpu_engine());
            ASSERT_EQ(cp->lowering(), lowering_kind::kernel) << cp->lowering_details();
            EXPECT_NE(cp->lowering_details().find("transpose"), std::string::npos) << cp->lowering_details();
            // Element (b, j, i) of the transposed tensor is input (b, i, j).
            const logical_tensor transposed = strided_lt(0, t, {3, cols, rows}, {rows * cols, 1, cols});
            run_guarded(*cp, static_cast<std::uint32_t>(t) + 11, &transposed);
        }
    }
}

TEST(backend_guard_pages, no_lowering_reads_or_writes_outside_its_buffers_or_writes_an_input) {
    std::set<lowering_kind> seen;
    for (data_type t : all_data_types()) {
        if (t == data_type::undef || t == data_type::string) continue;
        for (const layout_case &c : cases_for(t)) {
            SCOPED_TRACE(std::string(to_string(t)) + " " + c.name);
            graph g = static_chain(c.in, {c.out.shape});
            std::shared_ptr<const compiled_partition> cp;
            try {
                cp = compile_whole(g, c.in, c.out);
            } catch (const error &e) {
                ADD_FAILURE() << "compile refused: " << e.what();
                continue;
            }
            seen.insert(cp->lowering());
            run_guarded(*cp, static_cast<std::uint32_t>(t) + 1);
        }
    }
    EXPECT_EQ(seen.size(), 3u) << "every lowering: alias, reorder and kernel";
}

} // namespace reshaper::impl::testing
