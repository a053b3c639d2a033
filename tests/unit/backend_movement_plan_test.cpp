// The plan against brute force: over thousands of random shapes, strides
// (dense, permuted, stepped, padded) and target shapes, the plan aliases
// exactly when a strided view exists - found by comparing element
// addresses - with that view's strides; and every random plan executes
// bit-exactly against the reference for dtypes of every lowering.
#include "backend_test_support.hpp"

#include <algorithm>
#include <numeric>

#include "backend/movement_plan.hpp"

namespace reshaper::impl::testing {
namespace {

struct random_case {
    dims_t in_dims, in_strides, out_dims;
};

// Non-overlapping strides over a random physical order, each dim possibly
// stepped (slicing) and padded (a larger enclosing tensor).
dims_t random_strides(const dims_t &dims, std::mt19937 &rng) {
    std::vector<std::size_t> order(dims.size());
    std::iota(order.begin(), order.end(), 0);
    if (rng() % 3 != 0) std::shuffle(order.begin(), order.end(), rng); // else row-major
    dims_t strides(dims.size());
    dim_t running = rng() % 4 == 0 ? 2 : 1;
    for (std::size_t k = order.size(); k-- > 0;) {
        const std::size_t d = order[k];
        strides[d] = running;
        running *= std::max<dim_t>(dims[d], 1) + (rng() % 4 == 0 ? 1 : 0);
    }
    return strides;
}

dims_t random_dims(std::mt19937 &rng, bool allow_zero) {
    dims_t dims(rng() % 5);
    for (dim_t &d : dims) d = allow_zero && rng() % 25 == 0 ? 0 : 1 + rng() % 4;
    return dims;
}

// A random shape of volume `volume` (prime factors dealt out, 1s inserted).
dims_t random_target(dim_t volume, std::mt19937 &rng) {
    dims_t out(1 + rng() % 4, 1);
    if (volume == 0) {
        for (dim_t &d : out) d = rng() % 3;
        out[rng() % out.size()] = 0;
        return out;
    }
    dim_t rest = volume;
    for (dim_t p = 2; rest > 1; ++p)
        while (rest % p == 0) {
            out[rng() % out.size()] *= p;
            rest /= p;
        }
    if (rng() % 5 == 0 && volume == 1) out.clear(); // a scalar
    return out;
}

dim_t address(const dims_t &dims, const dims_t &strides, dim_t linear) {
    dim_t a = 0;
    for (std::size_t k = dims.size(); k-- > 0;) {
        a += (linear % dims[k]) * strides[k];
        linear /= dims[k];
    }
    return a;
}

// Brute force: the only candidate strides are the addresses of the unit
// steps along each output dim; a view exists when they address every
// element where the input has it.
std::optional<dims_t> brute_force_view(const random_case &c) {
    const dim_t volume = *checked_volume(c.in_dims);
    if (volume == 0) return dense_strides(c.out_dims);
    dims_t strides(c.out_dims.size(), 0);
    dim_t unit = 1;
    for (std::size_t k = c.out_dims.size(); k-- > 0;) {
        if (c.out_dims[k] > 1) strides[k] = address(c.in_dims, c.in_strides, unit);
        unit *= c.out_dims[k];
    }
    for (dim_t e = 0; e < volume; ++e)
        if (address(c.out_dims, strides, e) != address(c.in_dims, c.in_strides, e)) return std::nullopt;
    return strides;
}

bool equal_where_size_above_one(const dims_t &dims, const dims_t &a, const dims_t &b) {
    for (std::size_t k = 0; k < dims.size(); ++k)
        if (dims[k] > 1 && a[k] != b[k]) return false;
    return true;
}

random_case make_case(std::mt19937 &rng) {
    random_case c;
    c.in_dims = random_dims(rng, true);
    c.in_strides = random_strides(c.in_dims, rng);
    c.out_dims = random_target(*checked_volume(c.in_dims), rng);
    return c;
}

TEST(backend_movement_plan, alias_exactly_when_a_view_exists_any_output) {
    std::mt19937 rng(2024);
    int aliases = 0, moves = 0;
    for (int n = 0; n < 5000; ++n) {
        const random_case c = make_case(rng);
        SCOPED_TRACE(dims_to_string(c.in_dims) + " strides " + dims_to_string(c.in_strides) + " -> " +
                     dims_to_string(c.out_dims));
        const auto oracle = brute_force_view(c);
        const movement_plan plan = plan_movement(strided_lt(0, data_type::f32, c.in_dims, c.in_strides),
                                                 any_lt(1, data_type::f32, c.out_dims));
        ASSERT_EQ(plan.alias, oracle.has_value());
        ASSERT_EQ(plan.output.layout, layout_type::strided);
        if (oracle) {
            ++aliases;
            ASSERT_TRUE(plan.steps.empty());
            ASSERT_TRUE(equal_where_size_above_one(c.out_dims, plan.output.strides, *oracle))
                << dims_to_string(plan.output.strides) << " vs " << dims_to_string(*oracle);
        } else {
            ++moves;
            ASSERT_EQ(plan.output.strides, *dense_strides(c.out_dims));
            ASSERT_GE(plan.steps.size(), 1u);
            ASSERT_LE(plan.steps.size(), 2u);
        }
    }
    // Both outcomes are well represented.
    EXPECT_GT(aliases, 1000);
    EXPECT_GT(moves, 1000);
}

TEST(backend_movement_plan, alias_exactly_when_given_output_strides_are_the_view) {
    std::mt19937 rng(77);
    for (int n = 0; n < 5000; ++n) {
        const random_case c = make_case(rng);
        // Half the time the view's own strides (when one exists), else random.
        const auto oracle = brute_force_view(c);
        const dims_t out_strides = oracle && rng() % 2 ? *oracle : random_strides(c.out_dims, rng);
        SCOPED_TRACE(dims_to_string(c.in_dims) + " strides " + dims_to_string(c.in_strides) + " -> " +
                     dims_to_string(c.out_dims) + " strides " + dims_to_string(out_strides));
        const movement_plan plan = plan_movement(strided_lt(0, data_type::f32, c.in_dims, c.in_strides),
                                                 strided_lt(1, data_type::f32, c.out_dims, out_strides));
        const bool expected = *checked_volume(c.in_dims) == 0 ||
                              (oracle && equal_where_size_above_one(c.out_dims, out_strides, *oracle));
        ASSERT_EQ(plan.alias, expected);
        ASSERT_EQ(plan.output.strides, out_strides);
    }
}

TEST(backend_movement_plan, random_plans_execute_bit_exactly) {
    std::mt19937 rng(99);
    for (int n = 0; n < 300; ++n) {
        const random_case c = make_case(rng);
        const bool strided_out = rng() % 2 == 0;
        const dims_t out_strides = random_strides(c.out_dims, rng);
        for (data_type t : {data_type::f32, data_type::f16, data_type::s16, data_type::u4, data_type::string}) {
            SCOPED_TRACE(std::string(to_string(t)) + " " + dims_to_string(c.in_dims) + " strides " +
                         dims_to_string(c.in_strides) + " -> " + dims_to_string(c.out_dims) +
                         (strided_out ? " strides " + dims_to_string(out_strides) : " any"));
            const logical_tensor in = strided_lt(0, t, c.in_dims, c.in_strides);
            const graph g = static_chain(in, {c.out_dims});
            const logical_tensor out = strided_out ? strided_lt(1, t, c.out_dims, out_strides)
                                                   : any_lt(1, t, c.out_dims);
            const auto cp = compile_whole(g, in, out);
            expect_matches_reference(*cp, static_cast<std::uint32_t>(n));
            if (::testing::Test::HasFailure()) return;
        }
    }
}

TEST(backend_movement_plan, steps_are_coalesced) {
    // The source is contiguous throughout, the destination nowhere: only
    // the size-1 dim goes.
    movement_step step{{2, 1, 3, 4}, step_side{{12, 99, 4, 1}, {}, false}, step_side{{1, 5, 2, 6}, {}, false}};
    coalesce_step(step);
    EXPECT_EQ(step.dims, (dims_t{2, 3, 4}));
    EXPECT_EQ(step.dst.strides, (dims_t{1, 2, 6}));
    // The last two dims are contiguous in both.
    movement_step merge{{2, 3, 4}, step_side{{12, 4, 1}, {}, false}, step_side{{24, 4, 1}, {}, false}};
    coalesce_step(merge);
    EXPECT_EQ(merge.dims, (dims_t{2, 12}));
    EXPECT_EQ(merge.src.strides, (dims_t{12, 1}));
    EXPECT_EQ(merge.dst.strides, (dims_t{24, 1}));
}

} // namespace
} // namespace reshaper::impl::testing
