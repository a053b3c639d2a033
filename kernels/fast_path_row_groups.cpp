// Split and joined rows: transposes with R rows on one side
// (has_row_groups) and groups of R elements back to back on the other:
// NHWC images of 3 or 4 channels seen as NCHW (split rows), NCHW ones seen
// as NHWC (joined rows), where tiles of T rows would be mostly empty. Each
// level moves the groups in one compiled loop (split_rows_fn), or two
// composed through an L1 buffer (plan_row_groups picks them), over pieces
// of columns of a task's worth.
#include <algorithm>

#include "kernels/movement_units.hpp"

namespace reshaper::impl {
namespace {

// The intermediate rows of two composed kernels: R1 rows of elements of
// R2 * e bytes, a chunk of columns at a time.
constexpr std::ptrdiff_t composed_chunk_bytes = std::ptrdiff_t{16} << 10;

// As split_rows_fn: `cols` groups of R elements, R rows `pitch` apart.
void move_groups(const row_groups_program &g, const byte *src, byte *dst, std::ptrdiff_t pitch, dim_t cols) {
    if (!g.inner_kernel) return g.outer_kernel(src, dst, pitch, cols);
    alignas(64) byte middle[composed_chunk_bytes];
    const std::ptrdiff_t group = g.inner_rows * g.e; // an intermediate element
    const dim_t chunk = std::max<dim_t>(1, composed_chunk_bytes / (g.outer_rows * group));
    const std::ptrdiff_t middle_pitch = chunk * group;
    for (dim_t c = 0; c < cols; c += chunk) {
        const dim_t m = std::min(chunk, cols - c);
        if (g.split) {
            g.outer_kernel(src + c * g.outer_rows * group, middle, middle_pitch, m);
            for (dim_t r = 0; r < g.outer_rows; ++r)
                g.inner_kernel(middle + r * middle_pitch, dst + r * g.inner_rows * pitch + c * g.e, pitch, m);
        } else {
            for (dim_t r = 0; r < g.outer_rows; ++r)
                g.inner_kernel(src + r * g.inner_rows * pitch + c * g.e, middle + r * middle_pitch, pitch, m);
            g.outer_kernel(middle, dst + c * g.outer_rows * group, middle_pitch, m);
        }
    }
}

} // namespace

void run_row_groups(const movement_program &p, const row_groups_program &g, const byte *src, byte *dst) {
    const auto pieces = static_cast<std::size_t>(g.pieces);
    for_units(p.split, p.stream, [&](std::size_t begin, std::size_t end) {
        for (std::size_t u = begin; u < end; ++u) {
            const dim_t col = static_cast<dim_t>(u % pieces) * g.piece_cols;
            const outer_walk at(g.outer, u / pieces);
            const dim_t n = std::min(g.piece_cols, g.cols - col);
            if (p.stream) { // a joined piece is one run: staged in L1, then streamed
                byte *staged = staging_buffer(static_cast<std::size_t>(g.stream_cols * g.group_bytes));
                for (dim_t c = 0; c < n; c += g.stream_cols) {
                    const dim_t m = std::min(g.stream_cols, n - c);
                    move_groups(g, src + at.src() + (col + c) * g.src_step, staged, g.pitch, m);
                    g.copy(dst + at.dst() + (col + c) * g.dst_step, staged, static_cast<std::size_t>(m * g.group_bytes),
                           true);
                }
                continue;
            }
            move_groups(g, src + at.src() + col * g.src_step, dst + at.dst() + col * g.dst_step, g.pitch, n);
        }
    });
}

} // namespace reshaper::impl
