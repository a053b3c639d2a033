#include "io/op_pipeline.hpp"

#include <algorithm>
#include <utility>

#include "core/thread_handover.hpp"
#include "io/graph_builder.hpp"

namespace reshaper::impl::graph_io {

op_reading_pipeline::op_reading_pipeline(graph_builder &builder, std::size_t batch_ops, std::size_t max_waiting)
    : builder_(builder), batch_ops_(std::max<std::size_t>(1, batch_ops)) {
    waiting_.set_capacity(static_cast<std::ptrdiff_t>(std::max<std::size_t>(1, max_waiting)));
}

op_reading_pipeline::~op_reading_pipeline() {
    dropping_ = true;
    try {
        end_task();
    } catch (...) {
        // Only the reader's own hand-over can throw here (memory), and the
        // error that stopped the reading is the one that goes on.
    }
}

op_reading_pipeline::batch *op_reading_pipeline::fresh_batch() {
    batch *b = nullptr;
    if (spare_.try_pop(b)) {
        mark_taken_over(b);
        return b;
    }
    return batches_.emplace_back(std::make_unique<batch>()).get();
}

void op_reading_pipeline::start() {
    end_task();
    builder_.start();
    dropping_ = false;
    failure_ = nullptr;
    if (!filling_) filling_ = fresh_batch();
    reader_ = reader::task_pending;
    try {
        mark_handed_over(this);
        task_.run([this] { run_task(); });
    } catch (...) {
        reader_ = reader::taken_over; // no task to be had: the ops are read in turn
    }
}

void op_reading_pipeline::element(json_view op) {
    if (reader_ == reader::taken_over) return builder_.add(op);
    filling_->roots.push_back(filling_->tree.append_copy(op));
    if (filling_->roots.size() >= batch_ops_) hand_over();
}

void op_reading_pipeline::finish() {
    end_task();
    if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
}

void op_reading_pipeline::hand_over() {
    if (!filling_ || filling_->roots.empty()) return;
    if (dropping_) {
        filling_->clear();
        return;
    }
    mark_handed_over(filling_);
    if (!waiting_.try_push(filling_)) {
        reader expected = reader::task_pending;
        if (reader_.compare_exchange_strong(expected, reader::taken_over)) {
            // No worker has taken the task up: the reader reads what waits
            // and this batch, and each op as it comes from now on.
            read_waiting();
            read(*filling_);
            filling_->clear();
            return;
        }
        waiting_.push(filling_); // the task runs: it makes room
    }
    filling_ = fresh_batch();
}

void op_reading_pipeline::end_task() {
    if (reader_ == reader::none) return;
    std::exception_ptr handing_over;
    try {
        hand_over();
    } catch (...) {
        handing_over = std::current_exception();
        dropping_ = true;
    }
    reader expected = reader::task_pending;
    if (reader_.compare_exchange_strong(expected, reader::taken_over)) {
        try {
            read_waiting();
        } catch (...) {
            if (!handing_over) handing_over = std::current_exception();
        }
    } else if (expected == reader::task) {
        waiting_.push(nullptr);
    }
    task_.wait();
    mark_taken_over(this); // what the task wrote: failure_, the builder
    reader_ = reader::none;
    if (!failure_) failure_ = handing_over;
}

void op_reading_pipeline::run_task() {
    mark_taken_over(this);
    struct on_return {
        const op_reading_pipeline *pipeline;
        ~on_return() { mark_handed_over(pipeline); }
    } const mark{this};
    reader expected = reader::task_pending;
    if (!reader_.compare_exchange_strong(expected, reader::task)) return; // the reader took its place
    for (;;) {
        batch *b = nullptr;
        waiting_.pop(b);
        if (!b) return;
        mark_taken_over(b);
        if (!dropping_) {
            try {
                read(*b);
            } catch (...) {
                // Kept for finish(); the rest is only taken off the queue,
                // so that the reader never waits for room.
                failure_ = std::current_exception();
                dropping_ = true;
            }
        }
        b->clear();
        mark_handed_over(b);
        spare_.push(b);
    }
}

void op_reading_pipeline::read(batch &b) {
    for (std::size_t root : b.roots) builder_.add(json_view(b.tree, root));
}

void op_reading_pipeline::read_waiting() {
    batch *b = nullptr;
    while (waiting_.try_pop(b)) {
        if (!b) continue;
        if (!dropping_) read(*b);
        b->clear();
        mark_handed_over(b);
        spare_.push(b);
    }
}

} // namespace reshaper::impl::graph_io
