#include "io/parallel_read.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/thread_handover.hpp"
#include "io/graph_builder.hpp"
#include "io/json_dom.hpp"

namespace reshaper::impl::graph_io {
namespace {

// JSON's white space (RFC 8259), as RapidJSON skips it.
bool white(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

constexpr std::size_t npos = static_cast<std::size_t>(-1);

// The closing quote of the string whose text starts at `from`; `escapes`
// set when it holds a backslash.
std::size_t string_end(std::string_view text, std::size_t from, bool &escapes) {
    for (std::size_t j = from; j < text.size(); ++j) {
        if (text[j] == '\\') {
            escapes = true;
            ++j;
        } else if (text[j] == '"') {
            return j;
        }
    }
    return npos;
}

#if defined(__SSE2__)
// Bit i set from each opening quote up to its closing one: inside strings.
std::uint64_t prefix_xor(std::uint64_t x) {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}
#endif

} // namespace

std::optional<std::size_t> find_top_level_array(std::string_view text, std::string_view key) {
    const std::size_t n = text.size();
    std::size_t i = text.starts_with("\xEF\xBB\xBF") ? 3 : 0;
    const auto skip_white = [&] {
        while (i < n && white(text[i])) ++i;
    };
    skip_white();
    if (i >= n || text[i] != '{') return std::nullopt;
    ++i;
    for (;;) {
        skip_white();
        if (i >= n || text[i] != '"') return std::nullopt;
        bool escapes = false;
        std::size_t e = string_end(text, i + 1, escapes);
        if (e == npos || escapes) return std::nullopt; // an escaped key might read as `key`
        const std::string_view k = text.substr(i + 1, e - i - 1);
        i = e + 1;
        skip_white();
        if (i >= n || text[i] != ':') return std::nullopt;
        ++i;
        skip_white();
        if (i >= n) return std::nullopt;
        if (k == key) return text[i] == '[' ? std::optional<std::size_t>(i) : std::nullopt;
        // Past the value.
        if (text[i] == '"') {
            e = string_end(text, i + 1, escapes);
            if (e == npos) return std::nullopt;
            i = e + 1;
        } else if (text[i] == '{' || text[i] == '[') {
            std::size_t depth = 0;
            bool closed = false;
            for (; i < n && !closed; ++i) {
                const char c = text[i];
                if (c == '"') {
                    e = string_end(text, i + 1, escapes);
                    if (e == npos) return std::nullopt;
                    i = e;
                } else if (c == '{' || c == '[') {
                    ++depth;
                } else if (c == '}' || c == ']') {
                    closed = --depth == 0;
                }
            }
            if (!closed) return std::nullopt;
        } else {
            while (i < n && text[i] != ',' && text[i] != '}' && !white(text[i])) ++i;
        }
        skip_white();
        if (i >= n || text[i] != ',') return std::nullopt;
        ++i;
    }
}

bool array_elements_scan::element_ends(std::size_t at, std::vector<text_span> &out) {
    std::size_t b = element_, e = at;
    while (b < e && white(text_[b])) ++b;
    while (e > b && white(text_[e - 1])) --e;
    if (b == e) return !(failed_ = true); // [, or ,,
    out.push_back({b, e});
    element_ = at + 1;
    ++commas_;
    return true;
}

void array_elements_scan::closes(std::size_t at, std::vector<text_span> &out) {
    std::size_t b = element_, e = at;
    while (b < e && white(text_[b])) ++b;
    while (e > b && white(text_[e - 1])) --e;
    if (b < e) out.push_back({b, e});
    else if (commas_ > 0) failed_ = true; // a comma before the bracket
    closed_ = true;
    close_ = at;
}

bool array_elements_scan::bytes(std::size_t n, std::vector<text_span> &out) {
    for (const std::size_t end = at_ + n; at_ < end; ++at_) {
        const char c = text_[at_];
        if (c == '\0') return !(failed_ = true);
        if (in_string_) {
            if (escaped_) escaped_ = false;
            else if (c == '\\') escaped_ = true;
            else if (c == '"') in_string_ = false;
            continue;
        }
        switch (c) {
        case '"': in_string_ = true; break;
        case '{':
        case '[': ++depth_; break;
        case '}':
        case ']':
            if (depth_ == 0) {
                closes(at_, out);
                return !failed_;
            }
            --depth_;
            break;
        case ',':
            if (depth_ == 0 && !element_ends(at_, out)) return false;
            break;
        default: break;
        }
    }
    return true;
}

#if defined(__SSE2__)
bool array_elements_scan::block(const char *p, std::vector<text_span> &out) {
    // Bit i of each mask: byte i of the 64 is that character. '[' and '{'
    // (0x5B, 0x7B), ']' and '}' (0x5D, 0x7D) differ only in bit 5.
    std::uint64_t quote = 0, backslash = 0, open = 0, close = 0, comma = 0, nul = 0;
    const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), op = _mm_set1_epi8('{'), cl = _mm_set1_epi8('}'),
                  co = _mm_set1_epi8(','), zero = _mm_setzero_si128(), bit5 = _mm_set1_epi8(0x20);
    for (int k = 0; k < 4; ++k) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + 16 * k));
        const __m128i folded = _mm_or_si128(v, bit5);
        const auto mask = [&](__m128i eq) {
            return static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(eq))) << (16 * k);
        };
        quote |= mask(_mm_cmpeq_epi8(v, q));
        backslash |= mask(_mm_cmpeq_epi8(v, bs));
        open |= mask(_mm_cmpeq_epi8(folded, op));
        close |= mask(_mm_cmpeq_epi8(folded, cl));
        comma |= mask(_mm_cmpeq_epi8(v, co));
        nul |= mask(_mm_cmpeq_epi8(v, zero));
    }
    if (backslash) return false; // escapes: a byte at a time
    if (nul) {
        failed_ = true;
        return true;
    }
    std::uint64_t string = prefix_xor(quote);
    if (in_string_) string = ~string;
    in_string_ = (string >> 63) != 0;
    open &= ~string;
    comma &= ~string;
    std::uint64_t brackets = open | (close & ~string);
    const std::size_t base = at_;
    const auto separate = [&](std::uint64_t commas) {
        for (; commas; commas &= commas - 1)
            if (!element_ends(base + static_cast<std::size_t>(__builtin_ctzll(commas)), out)) return false;
        return true;
    };
    // Bracket by bracket in order; the commas before each count where the
    // depth is 0.
    while (brackets) {
        const std::uint64_t bit = brackets & (0 - brackets);
        const std::uint64_t before = comma & (bit - 1);
        comma ^= before;
        if (depth_ == 0 && !separate(before)) return true;
        if (open & bit) {
            ++depth_;
        } else if (depth_ == 0) {
            closes(base + static_cast<std::size_t>(__builtin_ctzll(bit)), out);
            return true;
        } else {
            --depth_;
        }
        brackets ^= bit;
    }
    if (depth_ == 0) separate(comma);
    at_ += 64;
    return true;
}
#endif

bool array_elements_scan::next(std::size_t count, std::vector<text_span> &out) {
    const std::size_t want = out.size() + count;
    while (!closed_ && !failed_ && out.size() < want) {
        const std::size_t left = text_.size() - at_;
        if (left == 0) return !(failed_ = true); // the text ends inside the array
#if defined(__SSE2__)
        if (left >= 64 && !escaped_ && block(text_.data() + at_, out)) continue;
#endif
        bytes(std::min<std::size_t>(left, 64), out);
    }
    return !failed_;
}

namespace {

// A task's ops: their text, then their DOM.
struct ops_task {
    explicit ops_task(std::uint64_t max_depth) : reader(max_depth) {}
    std::vector<text_span> ops;
    json_tree tree;
    std::vector<std::size_t> roots;
    json_value_reader reader;
};

// The pages of a text of our own that the ops built are done with go back
// to the system as the ops are built (as parse_json_tree_in_place lets
// them go as it reads): held to the end, the text was its size again at
// the peak of reading (chains of 4, 31.1 MiB: a peak of 70 -> 96 MiB).
class text_release {
public:
    // Only pages within [from, to) go: the text around the array is read last.
    text_release(char *text, std::size_t from, std::size_t to) : text_(text), released_(from), to_(to) {}
    // Every op up to `at` is built: whole pages before it go, 1 MiB at a time.
    void up_to(std::size_t at) {
        constexpr std::size_t step = std::size_t{1} << 20;
        at = std::min(at, to_);
        if (!text_ || at < released_ + step) return;
        static const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
        const auto base = reinterpret_cast<std::uintptr_t>(text_);
        const std::uintptr_t from = (base + released_ + page - 1) & ~(page - 1), end = (base + at) & ~(page - 1);
        if (end <= from) return;
        // Should the system refuse, the pages only stay.
        if (madvise(reinterpret_cast<void *>(from), end - from, MADV_DONTNEED) == 0) any_ = true;
        released_ = end - base;
    }
    // Whether any page went (the text reads as zeros there).
    bool any() const { return any_; }

private:
    char *text_;
    std::size_t released_, to_;
    bool any_ = false;
};

bool all_ascii(const char *p, std::size_t n) {
    unsigned char high = 0;
    for (std::size_t i = 0; i < n; ++i) high |= static_cast<unsigned char>(p[i]);
    return high < 0x80;
}

} // namespace

std::optional<graph> read_graph_side_by_side(std::string_view text, std::string *owned, std::uint64_t max_depth,
                                             std::size_t ops_per_task, bool *text_lost) {
    *text_lost = false;
    char *const writable = owned ? owned->data() : nullptr;
    if (max_depth < 2 || text.size() >= std::numeric_limits<std::uint32_t>::max()) return std::nullopt;
    // RapidJSON reads a NUL as the end: a text of our own has none (its
    // reader refuses one); any other is looked at first.
    if (!writable && std::memchr(text.data(), 0, text.size())) return std::nullopt;
    const std::optional<std::size_t> open = find_top_level_array(text, "graph");
    if (!open) return std::nullopt;
    const std::string key = "graph";

    array_elements_scan scan(text, *open + 1);
    graph_builder builder(text.size());
    builder.start();
    std::vector<std::unique_ptr<ops_task>> tasks; // made by the scan's stage only
    // Tasks the last stage is done with, for the first to fill again (a
    // lock once per task; a TBB concurrent_queue's pages come from libtbb's
    // allocator, whose reuse ThreadSanitizer cannot see).
    std::vector<ops_task *> spare;
    std::mutex spare_lock;
    std::atomic<bool> failed{false}, in_place{false};
    text_release release(writable, *open + 1, text.size());
    // The ops sit two levels deep: in the top-level object's array.
    const std::uint64_t op_depth = max_depth - 2;
    const std::size_t per_task = std::max<std::size_t>(1, ops_per_task);
    const auto live = static_cast<std::size_t>(std::max(2, 4 * tbb::this_task_arena::max_concurrency()));
    // libtbb orders the stages' calls, out of ThreadSanitizer's sight: the
    // hand-overs are marked (core/thread_handover.hpp). The scan's state
    // passes between the first stage's calls, the builder's between the
    // last's, and each task from stage to stage and back to the first.
    // The filters too, once made (their bodies' captures): a token of fixed
    // address, which each body takes over before it reads a capture.
    static const char filters_made = 0;
    mark_handed_over(&scan);
    mark_handed_over(&builder);
    try {
        const auto filters =
                tbb::make_filter<void, ops_task *>(tbb::filter_mode::serial_in_order,
                                                   [&](tbb::flow_control &fc) -> ops_task * {
                                                       mark_taken_over(&filters_made);
                                                       mark_taken_over(&scan);
                                                       if (failed || scan.closed()) {
                                                           fc.stop();
                                                           mark_handed_over(&scan);
                                                           return nullptr;
                                                       }
                                                       ops_task *t = nullptr;
                                                       {
                                                           const std::lock_guard<std::mutex> hold(spare_lock);
                                                           if (!spare.empty()) {
                                                               t = spare.back();
                                                               spare.pop_back();
                                                           }
                                                       }
                                                       if (t) mark_taken_over(t);
                                                       else t = tasks.emplace_back(std::make_unique<ops_task>(op_depth)).get();
                                                       t->ops.clear();
                                                       if (!scan.next(per_task, t->ops)) failed = true;
                                                       mark_handed_over(&scan);
                                                       mark_handed_over(t);
                                                       return t;
                                                   }) &
                        tbb::make_filter<ops_task *, ops_task *>(
                                tbb::filter_mode::parallel,
                                [&](ops_task *t) {
                                    mark_taken_over(&filters_made);
                                    mark_taken_over(t);
                                    t->tree.clear();
                                    t->roots.clear();
                                    for (const text_span &s : t->ops) {
                                        if (failed) break;
                                        const char *p = text.data() + s.begin;
                                        const std::size_t n = s.end - s.begin;
                                        const bool here = writable && !std::memchr(p, '\\', n);
                                        in_place = in_place || here;
                                        const std::optional<std::size_t> root = t->reader.read(
                                                here ? writable : const_cast<char *>(text.data()), s.begin, s.end,
                                                t->tree, here, all_ascii(p, n));
                                        if (!root) {
                                            failed = true;
                                            break;
                                        }
                                        t->roots.push_back(*root);
                                    }
                                    mark_handed_over(t);
                                    return t;
                                }) &
                        tbb::make_filter<ops_task *, void>(tbb::filter_mode::serial_in_order, [&](ops_task *t) {
                            mark_taken_over(&filters_made);
                            mark_taken_over(&builder);
                            mark_taken_over(t);
                            if (!failed) {
                                for (std::size_t root : t->roots) builder.add(json_view(t->tree, root));
                                if (!t->ops.empty()) release.up_to(t->ops.back().end);
                            }
                            mark_handed_over(&builder);
                            mark_handed_over(t);
                            const std::lock_guard<std::mutex> hold(spare_lock);
                            spare.push_back(t);
                        });
        mark_handed_over(&filters_made);
        tbb::parallel_pipeline(live, filters);
    } catch (...) {
        failed = true; // memory: the reading in turn meets it again, or not
    }
    { const std::lock_guard<std::mutex> hold(spare_lock); } // the last stage's pushes, before `spare` goes
    mark_taken_over(&scan);
    mark_taken_over(&builder);
    for (const auto &t : tasks) mark_taken_over(t.get());
    std::optional<json_tree> around;
    if (!failed) around = parse_json_tree_around(text, *open + 1, scan.close(), max_depth, key);
    if (!around) {
        // Strings read in place end in NULs where their quotes were; pages
        // let go of are gone (the caller reads the file again).
        *text_lost = release.any();
        if (in_place && !*text_lost) std::replace(writable, writable + text.size(), '\0', '"');
        return std::nullopt;
    }
    if (owned) std::string().swap(*owned); // before the graph's finish, as reading in turn does
    return builder.finish(around->root(), true);
}

} // namespace reshaper::impl::graph_io
