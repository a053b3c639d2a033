#include "io/decimal_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace reshaper::impl {
namespace {

// A non-negative integer, 32-bit limbs, least significant first.
class big_uint {
public:
    explicit big_uint(std::uint64_t v = 0) {
        for (; v != 0; v >>= 32) limbs_.push_back(static_cast<std::uint32_t>(v));
    }

    void mul_add(std::uint32_t m, std::uint32_t add = 0) {
        std::uint64_t carry = add;
        for (auto &l : limbs_) {
            const std::uint64_t p = std::uint64_t{l} * m + carry;
            l = static_cast<std::uint32_t>(p);
            carry = p >> 32;
        }
        if (carry != 0) limbs_.push_back(static_cast<std::uint32_t>(carry));
    }

    void mul_pow10(int n) {
        for (; n >= 9; n -= 9) mul_add(1'000'000'000);
        static constexpr std::uint32_t small[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
        if (n > 0) mul_add(small[n]);
    }

    void shift_left(int bits) {
        if (limbs_.empty()) return;
        limbs_.insert(limbs_.begin(), static_cast<std::size_t>(bits / 32), 0);
        const int rest = bits % 32;
        if (rest == 0) return;
        std::uint32_t carry = 0;
        for (auto &l : limbs_) {
            const std::uint32_t next = l >> (32 - rest);
            l = (l << rest) | carry;
            carry = next;
        }
        if (carry != 0) limbs_.push_back(carry);
    }

    friend int compare(const big_uint &a, const big_uint &b) {
        if (a.limbs_.size() != b.limbs_.size()) return a.limbs_.size() < b.limbs_.size() ? -1 : 1;
        for (std::size_t i = a.limbs_.size(); i-- > 0;)
            if (a.limbs_[i] != b.limbs_[i]) return a.limbs_[i] < b.limbs_[i] ? -1 : 1;
        return 0;
    }

private:
    std::vector<std::uint32_t> limbs_; // no leading zero limbs
};

// Significant digits kept: a double's exact decimal has at most 767, and a
// tie of a narrower format far fewer, so the dropped digits only matter as
// "some non-zero digit was dropped".
constexpr std::size_t kept_digits = 800;

struct decimal {
    bool negative = false;
    std::string digits; // no leading or trailing zeros; empty for zero
    std::int64_t exponent = 0; // value = digits * 10^exponent
    bool sticky = false;       // non-zero digits were dropped after `digits`
};

decimal parse_decimal(std::string_view text) {
    decimal d;
    std::size_t i = 0;
    if (i < text.size() && text[i] == '-') d.negative = true, ++i;
    std::string all;
    std::int64_t frac_digits = 0;
    bool in_fraction = false;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '.') { in_fraction = true; continue; }
        if (c < '0' || c > '9') break;
        all.push_back(c);
        if (in_fraction) ++frac_digits;
    }
    std::int64_t exp = 0;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        bool exp_negative = false;
        if (i < text.size() && (text[i] == '+' || text[i] == '-')) exp_negative = text[i++] == '-';
        for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i)
            exp = std::min<std::int64_t>(exp * 10 + (text[i] - '0'), 1'000'000'000); // far beyond any double
        if (exp_negative) exp = -exp;
    }
    const auto first = all.find_first_not_of('0');
    if (first == std::string::npos) return d; // zero
    const auto last = all.find_last_not_of('0');
    d.exponent = exp - frac_digits + static_cast<std::int64_t>(all.size() - 1 - last);
    d.digits = all.substr(first, last + 1 - first);
    if (d.digits.size() > kept_digits) {
        d.exponent += static_cast<std::int64_t>(d.digits.size() - kept_digits);
        d.digits.resize(kept_digits);
        d.sticky = true; // the last digit is non-zero, so a dropped one was
    }
    return d;
}

// |x| against |d| for a non-zero x and a finite non-zero d.
int compare_magnitude(const decimal &x, double d) {
    int e2 = 0;
    const double m = std::frexp(std::fabs(d), &e2); // |d| = m * 2^e2, m in [0.5, 1)
    // Decimal exponent of x's leading digit, against d's binary one: far
    // apart means no arithmetic is needed (and keeps the numbers small).
    const std::int64_t lead10 = x.exponent + static_cast<std::int64_t>(x.digits.size()) - 1;
    if (lead10 > 400) return 1;
    if (lead10 < -400) return -1;

    auto mantissa = static_cast<std::uint64_t>(std::ldexp(m, 53));
    int k = e2 - 53; // |d| = mantissa * 2^k
    big_uint left, right(mantissa);
    for (std::size_t i = 0; i < x.digits.size(); i += 9) {
        const std::size_t n = std::min<std::size_t>(9, x.digits.size() - i);
        left.mul_pow10(static_cast<int>(n));
        left.mul_add(1, static_cast<std::uint32_t>(std::stoul(x.digits.substr(i, n))));
    }
    if (x.exponent >= 0) left.mul_pow10(static_cast<int>(x.exponent));
    else right.mul_pow10(static_cast<int>(-x.exponent));
    if (k >= 0) right.shift_left(k);
    else left.shift_left(-k);
    const int c = compare(left, right);
    // With digits dropped: equal kept digits mean x is above; kept digits
    // below d stay below, as d is a multiple of the last kept digit's unit.
    if (c == 0 && x.sticky) return 1;
    return c;
}

} // namespace

int compare_decimal(std::string_view text, double d) {
    const decimal x = parse_decimal(text);
    if (x.digits.empty()) return d == 0 ? 0 : (d > 0 ? -1 : 1);
    if (d == 0) return x.negative ? -1 : 1;
    if (x.negative != std::signbit(d)) return x.negative ? -1 : 1;
    const int c = compare_magnitude(x, d);
    return x.negative ? -c : c;
}

bool may_be_narrow_tie(double d) {
    if (d == 0 || !std::isfinite(d)) return d == 0;
    int e2 = 0;
    const double m = std::frexp(std::fabs(d), &e2);
    const auto mantissa = static_cast<std::uint64_t>(std::ldexp(m, 53));
    return (mantissa & ((std::uint64_t{1} << 28) - 1)) == 0; // at most 25 of 53 bits set
}

} // namespace reshaper::impl
