// Memory safety of execute (issue 9): each output ends exactly at a page
// boundary followed by a PROT_NONE page, and each input sits in read-only
// pages likewise followed by one, so a write past an output, a read past an
// input or any write to an input is a fault that kills the test, not a
// silent corruption. Every lowering (alias run into a separate buffer and in
// place, oneDNN reorder, our kernel), every dtype but string (packed ones
// with odd element counts: the last byte half used), dense, permuted,
// padded, broadcast and blocked layouts.
#include "backend_test_support.hpp"

#include "backend/dnnl_mapping.hpp"

#include <set>
#include <stdexcept>

#include <sys/mman.h>
#include <unistd.h>

namespace reshaper::impl::testing {
namespace {

// `bytes` of memory ending at a page boundary, followed by an inaccessible
// page (and preceded by one).
class guarded_region {
public:
    explicit guarded_region(std::size_t bytes) : bytes_(bytes) {
        const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
        data_pages_ = (bytes + page - 1) / page;
        if (data_pages_ == 0) data_pages_ = 1;
        length_ = (data_pages_ + 2) * page;
        void *p = mmap(nullptr, length_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) throw std::runtime_error("mmap failed");
        base_ = static_cast<std::uint8_t *>(p);
        if (mprotect(base_ + page, data_pages_ * page, PROT_READ | PROT_WRITE) != 0)
            throw std::runtime_error("mprotect failed");
        data_ = base_ + page + data_pages_ * page - bytes; // ends at the guard page
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
// in-place buffer) against guard pages; compares with the reference.
void run_guarded(const compiled_partition &cp, std::uint32_t seed) {
    const logical_tensor &in = cp.inputs().at(0);
    const logical_tensor &out = cp.outputs().at(0);
    const std::size_t in_bytes = buffer_bytes(in).value(), out_bytes = buffer_bytes(out).value();
    guarded_region src(in_bytes), dst(out_bytes);
    std::mt19937 rng(seed);
    for (std::size_t i = 0; i < in_bytes; ++i) src.data()[i] = static_cast<std::uint8_t>(rng());
    const std::vector<std::uint8_t> pristine(src.data(), src.data() + in_bytes);
    std::vector<std::uint8_t> expected(out_bytes, output_sentinel(out));
    std::memset(dst.data(), output_sentinel(out), out_bytes);
    reference_reshape(in, src.data(), out, expected.data());
    src.make_read_only();

    cp.execute({src.data()}, {dst.data()});
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(), dst.data()))
        << to_string(cp.lowering()) << ": " << cp.lowering_details();
    EXPECT_TRUE(std::equal(pristine.begin(), pristine.end(), src.data()));

    if (cp.lowering() == lowering_kind::alias && in_bytes == out_bytes) {
        guarded_region shared(in_bytes);
        std::memcpy(shared.data(), pristine.data(), in_bytes);
        cp.execute({shared.data()}, {shared.data()});
        EXPECT_TRUE(std::equal(pristine.begin(), pristine.end(), shared.data())) << "in place";
    }
}

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
        {"padded_output", strided_lt(0, t, dims), strided_lt(1, t, {7, 15}, {17, 1})},
    };
    // Blocked: a oneDNN format tag on the input or the output; with padded
    // channels only where oneDNN's reorder takes the dtype (nothing else
    // moves padded layouts: compile says so).
    cases.push_back({"blocked_input", opaque_lt(0, t, {2, 32, 3, 1}, "nChw16c"), any_lt(1, t, {192})});
    cases.push_back({"blocked_output", strided_lt(0, t, {2, 16, 3}), opaque_lt(1, t, {2, 16, 3, 1}, "nChw8c")});
    if (dnnl_reorder_type(t)) {
        cases.push_back({"padded_blocked_input", opaque_lt(0, t, {2, 20, 3, 1}, "nChw16c"), any_lt(1, t, {120})});
        cases.push_back(
            {"padded_blocked_output", strided_lt(0, t, {2, 20, 3}), opaque_lt(1, t, {2, 20, 3, 1}, "nChw8c")});
    }
    return cases;
}

} // namespace

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
