#include "driver/level_scheduler.hpp"

#include <algorithm>
#include <exception>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace reshaper::driver {

using impl::logical_tensor;
using impl::tensor_id;

void gather(graph_run &run, std::vector<partition_result> &results, std::size_t count) {
    for (std::size_t i = 0; i < count && i < results.size(); ++i) {
        if (results[i].passed) (*results[i].passed ? run.checks_passed : run.checks_failed) += 1;
        for (output_values &v : results[i].values) run.outputs.push_back(std::move(v));
    }
}

void run_in_levels(graph_run &run, const std::function<bool(const partition_run &)> &runs,
                   const std::function<void(std::size_t, partition_result &)> &run_one) {
    const std::size_t n = run.partitions.size();
    std::vector<std::size_t> level(n, 0);
    // The partition producing each tensor (n: none), by the tensor's place
    // in the graph's table: not a hash node per tensor (100,000 of them).
    const auto place = [&run](tensor_id id) {
        return static_cast<std::size_t>(run.graph.tensors.find(id) - run.graph.tensors.begin());
    };
    std::vector<std::size_t> producer(run.graph.tensors.size(), n);
    std::vector<std::vector<std::size_t>> levels;
    for (std::size_t i = 0; i < n; ++i) {
        const impl::partition &p = run.partitions[i].part;
        if (!p.supported) continue;
        for (tensor_id id : p.inputs)
            if (const std::size_t t = place(id); t < producer.size() && producer[t] != n)
                level[i] = std::max(level[i], level[producer[t]] + 1);
        for (tensor_id id : p.outputs)
            if (const std::size_t t = place(id); t < producer.size()) producer[t] = i;
        if (level[i] >= levels.size()) levels.resize(level[i] + 1);
        levels[level[i]].push_back(i);
    }
    // The lowest partition of each level and the levels after it: a
    // partition's undo record is needed only while a lower one may still fail.
    std::vector<std::size_t> lowest_from(levels.size() + 1, n);
    for (std::size_t l = levels.size(); l-- > 0;)
        lowest_from[l] = std::min(lowest_from[l + 1], levels[l].empty() ? n : levels[l].front());
    std::vector<partition_result> results(n);
    std::vector<std::exception_ptr> failures(n);
    std::vector<char> ran(n, 0); // bytes, not vector<bool>'s shared bits: threads set them
    std::size_t first_failure = n;
    // A level in blocks of partitions, in order, so that undo records are
    // dropped as they stop being needed (they are a tensor description per
    // output: 18 MB for 100,000 partitions).
    constexpr std::size_t block = 4096;
    for (std::size_t l = 0; l < levels.size(); ++l) {
        std::vector<std::size_t> &members = levels[l];
        for (std::size_t from = 0; from < members.size(); from += block) {
            const std::size_t to = std::min(members.size(), from + block);
            tbb::parallel_for(tbb::blocked_range<std::size_t>(from, to, 8),
                              [&](const tbb::blocked_range<std::size_t> &r) {
                                  for (std::size_t k = r.begin(); k != r.end(); ++k) {
                                      const std::size_t i = members[k];
                                      // After a failure, only the partitions before it (as one at a time).
                                      if (i > first_failure || !runs(run.partitions[i])) continue;
                                      ran[i] = 1;
                                      try {
                                          run_one(i, results[i]);
                                      } catch (...) {
                                          failures[i] = std::current_exception();
                                      }
                                  }
                              });
            for (std::size_t k = from; k < to; ++k)
                if (failures[members[k]]) first_failure = std::min(first_failure, members[k]);
            // Below every partition still to run (and the first failure), none can be undone.
            const std::size_t undo_above = std::min({first_failure, to < members.size() ? members[to] : n,
                                                      lowest_from[l + 1]});
            for (std::size_t k = from; k < to; ++k)
                if (members[k] < undo_above) std::vector<logical_tensor>().swap(results[members[k]].replaced);
        }
    }
    if (first_failure == n) return gather(run, results, n);
    for (std::size_t i = n; i-- > first_failure + 1;) {
        if (!ran[i]) continue;
        for (logical_tensor &lt : results[i].replaced) run.graph.tensor(lt.id) = std::move(lt);
        partition_run &pr = run.partitions[i];
        pr.compiled.reset();
        pr.check_passed.reset();
        pr.check_detail.reset();
    }
    gather(run, results, first_failure + 1);
    std::rethrow_exception(failures[first_failure]);
}

} // namespace reshaper::driver
