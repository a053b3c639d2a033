// The ops of a large graph file read into the graph on a TBB worker while
// the JSON reader goes on through the text (io/graph_json.cpp decides when:
// texts of 1 MiB and more, when two threads may run, whose ops could not be
// parsed side by side: io/parallel_read.hpp). Internal to src/io.
//
// The reader copies each streamed op into a batch (its DOM is reused for
// the next op as soon as the call returns) and hands full batches over
// through a bounded queue (oneTBB's: the reader waits when it is full); one
// task of a tbb::task_group reads them into the graph builder in the order
// they came, so the graph and the first error are those of reading in
// turn. Measured on 100,000 single-op partitions (29 MiB), one thread:
// parsing took 160 ms of the read and building the ops 135 ms.
//
// The task has no thread of its own: it runs when a worker of the arena is
// free. Should none have taken it up when the queue is full (the workers
// busy elsewhere), the reader takes its place and reads the ops itself from
// then on, so it never waits for a task that has not started.
#pragma once

#include <atomic>
#include <cstddef>
#include <exception>
#include <memory>
#include <vector>

#include <tbb/concurrent_queue.h>
#include <tbb/task_group.h>

#include "io/json_dom.hpp"

namespace reshaper::impl::graph_io {

class graph_builder;

class op_reading_pipeline {
public:
    // Ops per batch; batches waiting at most before the reader waits (each
    // holds the DOM of its ops, some 2 KB an op: not the whole graph's).
    explicit op_reading_pipeline(graph_builder &builder, std::size_t batch_ops = 256, std::size_t max_waiting = 8);
    op_reading_pipeline(const op_reading_pipeline &) = delete;
    op_reading_pipeline &operator=(const op_reading_pipeline &) = delete;
    // Reading stopped (an error of the text): what waits is dropped.
    ~op_reading_pipeline();

    // The streamed array opens (again, for a repeated key): the ops read so
    // far are done with before the builder starts over.
    void start();
    void element(json_view op);
    // Every op handed over and read; rethrows what the task could not keep
    // as the builder's failure (memory for a batch).
    void finish();

private:
    struct batch {
        json_tree tree;
        std::vector<std::size_t> roots; // one per op, in order
        void clear() {
            tree.clear();
            roots.clear();
        }
    };
    // Who reads the batches: nobody yet (no stream open), the task once a
    // worker runs it, or the reader in its place.
    enum class reader : int { none, task_pending, task, taken_over };

    void hand_over();
    // Hands over what is left, ends the task and waits for it.
    void end_task();
    void run_task();
    void read(batch &b);
    // The reader in the task's place: reads what waits.
    void read_waiting();
    batch *fresh_batch();

    graph_builder &builder_;
    const std::size_t batch_ops_;
    std::vector<std::unique_ptr<batch>> batches_; // every batch made; the reader's
    batch *filling_ = nullptr;
    tbb::concurrent_bounded_queue<batch *> waiting_; // nullptr: the end
    tbb::concurrent_queue<batch *> spare_;            // read, for the reader to fill again
    tbb::task_group task_;
    std::atomic<reader> reader_{reader::none};
    std::atomic<bool> dropping_{false}; // the task failed, or reading stopped: what comes is dropped
    std::exception_ptr failure_;        // the task's; read once it has ended
};

} // namespace reshaper::impl::graph_io
