#include "layout/memory_layout.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

#include "core/fail.hpp"
#include "core/status.hpp"

namespace reshaper::impl {
namespace {

// oneDNN's named tags, each spelled as the abc tag it stands for (the same
// equivalences as oneDNN's format_tag enum).
struct tag_alias {
    std::string_view name;
    std::string_view abc;
};
constexpr tag_alias alias_table[] = {
    // activations
    {"x", "a"}, {"nc", "ab"}, {"cn", "ba"}, {"tn", "ab"}, {"nt", "ba"},
    {"ncw", "abc"}, {"nwc", "acb"}, {"tnc", "abc"}, {"ntc", "bac"},
    {"nchw", "abcd"}, {"nhwc", "acdb"}, {"chwn", "bcda"},
    {"ncdhw", "abcde"}, {"ndhwc", "acdeb"},
    {"nCw4c", "aBc4b"}, {"nCw8c", "aBc8b"}, {"nCw16c", "aBc16b"}, {"nCw32c", "aBc32b"},
    {"nChw4c", "aBcd4b"}, {"nChw8c", "aBcd8b"}, {"nChw16c", "aBcd16b"}, {"nChw32c", "aBcd32b"},
    {"nCdhw4c", "aBcde4b"}, {"nCdhw8c", "aBcde8b"}, {"nCdhw16c", "aBcde16b"},
    {"nCdhw32c", "aBcde32b"},
    {"NCw16n16c", "ABc16a16b"}, {"NChw16n16c", "ABcd16a16b"}, {"NCdhw16n16c", "ABcde16a16b"},
    // weights
    {"oi", "ab"}, {"io", "ba"},
    {"oiw", "abc"}, {"owi", "acb"}, {"wio", "cba"}, {"iwo", "bca"},
    {"oihw", "abcd"}, {"ohwi", "acdb"}, {"hwio", "cdba"}, {"ihwo", "bcda"}, {"iohw", "bacd"},
    {"oidhw", "abcde"}, {"odhwi", "acdeb"}, {"dhwio", "cdeba"}, {"idhwo", "bcdea"},
    {"goiw", "abcd"}, {"wigo", "dcab"}, {"goihw", "abcde"}, {"hwigo", "decab"},
    {"goidhw", "abcdef"}, {"dhwigo", "defcab"},
    {"OIw16i16o", "ABc16b16a"}, {"OIw16o16i", "ABc16a16b"}, {"Owi16o", "Acb16a"},
    {"OIhw4i4o", "ABcd4b4a"}, {"OIhw4o4i", "ABcd4a4b"}, {"OIhw8i8o", "ABcd8b8a"},
    {"OIhw8o8i", "ABcd8a8b"}, {"OIhw16i16o", "ABcd16b16a"}, {"OIhw16o16i", "ABcd16a16b"},
    {"OIhw4i16o4i", "ABcd4b16a4b"}, {"Oihw16o", "Abcd16a"}, {"Ohwi8o", "Acdb8a"},
    {"Ohwi16o", "Acdb16a"},
    {"OIdhw16i16o", "ABcde16b16a"}, {"OIdhw16o16i", "ABcde16a16b"}, {"Odhwi16o", "Acdeb16a"},
    {"gOIhw8i8o", "aBCde8c8b"}, {"gOIhw8o8i", "aBCde8b8c"}, {"gOIhw16i16o", "aBCde16c16b"},
    {"gOIhw16o16i", "aBCde16b16c"}, {"gOIdhw16i16o", "aBCdef16c16b"},
    // recurrent
    {"ldnc", "abcd"}, {"ldigo", "abcde"}, {"ldgoi", "abdec"}, {"ldgo", "abcd"},
    {"ldoi", "abdc"},
};

[[noreturn]] void bad_tag(const std::string &tag, std::size_t rank, const std::string &why) {
    fail(rule::format_tag, "format tag '" + tag + "' does not fit a tensor of rank " +
                               std::to_string(rank) + ": " + why);
}

std::string_view abc_spelling(const std::string &tag) {
    for (const auto &alias : alias_table)
        if (alias.name == tag) return alias.abc;
    return tag;
}

// A tag names each dim by a letter, so a parsed format has at most 26 dims:
// per-dim scratch fits in a fixed array (blocked_offset runs per element).
constexpr std::size_t max_tag_rank = 26;
using per_dim = std::array<dim_t, max_tag_rank>;

// Product of the inner blocks of each dim (1 for unblocked dims); parsing
// checked that these products fit.
per_dim block_products(const blocked_format &format) {
    per_dim product;
    product.fill(1);
    for (const auto &[dim, block] : format.inner_blocks) product[dim] *= block;
    return product;
}

void check_rank(const blocked_format &format, std::size_t rank, const char *what) {
    if (format.outer_order.size() != rank || rank > max_tag_rank)
        fail(rule::format_tag,
             std::string(what) + " of rank " + std::to_string(rank) + " does not fit format tag '" + format.tag +
                 "' of rank " + std::to_string(format.outer_order.size()));
}

dim_t checked_or_throw(std::optional<dim_t> v, const blocked_format &format, const dims_t &dims) {
    if (!v)
        fail(rule::overflow, "the buffer of a tensor of dims " + dims_to_string(dims) + " in format '" +
                                 format.tag + "' overflows int64");
    return *v;
}

// A dim rounded up to whole blocks.
dim_t padded_dim(dim_t dim, dim_t block, const blocked_format &format, const dims_t &dims) {
    return checked_or_throw(checked_mul(dim / block + (dim % block != 0 ? 1 : 0), block), format,
                            dims);
}

} // namespace

blocked_format parse_format_tag(const std::string &tag, std::size_t rank) {
    const std::string_view abc = abc_spelling(tag);
    blocked_format format{tag, {}, {}};

    // Outer part: one letter per dim; upper case marks a blocked dim.
    std::size_t pos = 0;
    if (rank > max_tag_rank) bad_tag(tag, rank, "a tag names at most 26 dims");
    if (tag.empty() && rank > 0)
        bad_tag(tag, rank,
                "an opaque layout needs a \"format\" (a oneDNN format tag such as nChw16c) "
                "naming its " + std::to_string(rank) + " dims, and none is given");
    std::vector<bool> seen(rank, false), blocked(rank, false);
    for (; pos < abc.size() && std::isalpha(static_cast<unsigned char>(abc[pos])); ++pos) {
        const char c = abc[pos];
        const int dim = std::tolower(static_cast<unsigned char>(c)) - 'a';
        if (dim < 0 || static_cast<std::size_t>(dim) >= rank)
            bad_tag(tag, rank, std::string("dim letter '") + c + "' is beyond the rank");
        if (seen[dim]) bad_tag(tag, rank, std::string("dim letter '") + c + "' appears twice");
        seen[dim] = true;
        blocked[dim] = std::isupper(static_cast<unsigned char>(c));
        format.outer_order.push_back(dim);
    }
    if (format.outer_order.size() != rank)
        bad_tag(tag, rank, "it describes " + std::to_string(format.outer_order.size()) + " dims");

    // Inner blocks: <size><lower-case dim letter>, outermost first.
    while (pos < abc.size()) {
        dim_t block = 0;
        const std::size_t digits = pos;
        for (; pos < abc.size() && std::isdigit(static_cast<unsigned char>(abc[pos])); ++pos) {
            auto next = checked_mul(block, 10);
            if (next) next = checked_add(*next, abc[pos] - '0');
            if (!next) bad_tag(tag, rank, "a block size overflows int64");
            block = *next;
        }
        if (pos == digits || pos == abc.size() || !std::islower(static_cast<unsigned char>(abc[pos])))
            bad_tag(tag, rank, "expected <block size><dim letter> at position " +
                                   std::to_string(digits));
        const int dim = abc[pos++] - 'a';
        if (block < 1) bad_tag(tag, rank, "block sizes must be at least 1");
        if (static_cast<std::size_t>(dim) >= rank || !blocked[dim])
            bad_tag(tag, rank,
                    std::string("block on dim '") + static_cast<char>('a' + dim) +
                        "', which the outer part does not mark as blocked (upper case)");
        format.inner_blocks.emplace_back(dim, block);
    }
    for (std::size_t d = 0; d < rank; ++d) {
        bool has_block = false;
        std::optional<dim_t> product = 1;
        for (const auto &[dim, block] : format.inner_blocks) {
            if (dim != static_cast<int>(d)) continue;
            has_block = true;
            if (product) product = checked_mul(*product, block);
        }
        if (!product) bad_tag(tag, rank, "the blocks of one dim multiply beyond int64");
        if (blocked[d] && !has_block)
            bad_tag(tag, rank, std::string("dim '") + static_cast<char>('A' + d) +
                                   "' is marked blocked (upper case) but has no block");
    }
    return format;
}

// Memory order: the outer dims (each counting whole blocks) in outer_order,
// then the inner blocks, outermost first. An index splits into its outer
// block number and one digit per inner block of its dim (innermost block =
// least significant digit).
dim_t blocked_offset(const blocked_format &format, const dims_t &dims, const dims_t &idx) {
    const std::size_t rank = dims.size();
    check_rank(format, rank, "dims");
    check_rank(format, idx.size(), "index");
    const per_dim blocks = block_products(format);

    dim_t offset = 0, stride = 1;
    per_dim remaining; // the part of each index the inner blocks have not consumed
    std::copy(idx.begin(), idx.end(), remaining.begin());
    for (std::size_t b = format.inner_blocks.size(); b-- > 0;) {
        const auto [dim, block] = format.inner_blocks[b];
        const dim_t next_stride = checked_or_throw(checked_mul(stride, block), format, dims);
        offset += (remaining[dim] % block) * stride; // < next_stride
        remaining[dim] /= block;
        stride = next_stride;
    }
    for (std::size_t k = rank; k-- > 0;) {
        const int dim = format.outer_order[k];
        const dim_t outer_blocks = padded_dim(dims[dim], blocks[dim], format, dims) / blocks[dim];
        const auto term = checked_mul(remaining[dim], stride);
        offset = checked_or_throw(term ? checked_add(offset, *term) : term, format, dims);
        stride = checked_or_throw(checked_mul(stride, outer_blocks), format, dims);
    }
    return offset;
}

element_addresses classify_addresses(const dims_t &dims, const dims_t &strides) {
    std::vector<std::size_t> order;
    for (std::size_t k = 0; k < dims.size(); ++k) {
        if (dims[k] == 0) return element_addresses::distinct; // nothing is written
        if (dims[k] > 1) order.push_back(k);
    }
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return strides[a] < strides[b]; });
    dim_t spanned = 1; // elements covered by the smaller dims, as an extent
    for (std::size_t k : order) {
        if (strides[k] < spanned) return element_addresses::shared;
        auto extent = checked_mul(dims[k] - 1, strides[k]);
        auto next = extent ? checked_add(*extent, spanned) : std::nullopt;
        if (!next) return element_addresses::overflow;
        spanned = *next;
    }
    return element_addresses::distinct;
}

dim_t blocked_size(const blocked_format &format, const dims_t &dims) {
    check_rank(format, dims.size(), "dims");
    if (has_unknown_dims(dims))
        fail(rule::buffer_size_known, "format '" + format.tag + "' needs known dims, got " + dims_to_string(dims));
    const per_dim blocks = block_products(format);
    dim_t size = 1;
    for (std::size_t d = 0; d < dims.size(); ++d) {
        const dim_t padded = padded_dim(dims[d], blocks[d], format, dims);
        size = checked_or_throw(checked_mul(size, padded), format, dims);
    }
    return size;
}

} // namespace reshaper::impl
