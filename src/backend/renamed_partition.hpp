// A compiled partition under another partition's ids. Partitions of one
// form (partition_form_key: the same ops, attributes and tensors but for
// their ids) compile to one plan; a graph of 100,000 alike partitions need
// not plan 100,000 times (the driver compiles each form once: compiling
// was a third of checking 100,000 single transposes). Only the
// ids differ: the tensors, the in-place pairs and the words that name an
// output (several outputs) are this partition's; the plan, the movers, the
// prepared execute and the reference steps are the shared partition's.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "backend/compiled_partition.hpp"

namespace reshaper::impl {

class renamed_partition final : public compiled_partition {
public:
    // `from` and `to`: the ids the shared partition's ops touch and this
    // partition's, both sorted (partition_form_key's `touched`): from[k]
    // is to[k]. `compile_own` compiles this partition itself: an execute
    // that fails runs again on it, so that its error names this
    // partition and its tensors (the shared one's would name another).
    renamed_partition(std::shared_ptr<const compiled_partition> shared, const std::vector<tensor_id> &from,
                      const std::vector<tensor_id> &to,
                      std::function<std::shared_ptr<const compiled_partition>()> compile_own);

    const std::vector<logical_tensor> &inputs() const override { return inputs_; }
    const std::vector<logical_tensor> &outputs() const override { return outputs_; }
    std::size_t data_input_position() const override { return shared_->data_input_position(); }
    lowering_kind lowering() const override { return shared_->lowering(); }
    std::string lowering_details() const override;
    std::string why_not_alias() const override;
    std::string kernel_programs() const override;
    const std::vector<std::vector<chain_step>> &output_steps() const override { return shared_->output_steps(); }
    const std::vector<std::pair<tensor_id, tensor_id>> &inplace_pairs() const override { return inplace_; }
    const engine &target_engine() const override { return shared_->target_engine(); }
    void execute_checked(std::span<const void *const> inputs, std::span<void *const> outputs) const override;
    const prepared_execute &prepared() const override { return prepared_; }
    std::vector<logical_tensor> execute_resolving(const std::vector<const void *> &inputs,
                                                  const std::vector<void *> &outputs) const override;
    std::vector<std::size_t> output_buffer_bytes() const override { return shared_->output_buffer_bytes(); }

private:
    // The shared partition's prepared call where it is the shared
    // partition's own entry (whose errors would name that partition), run
    // so that a failure is said in this partition's words (prepared_).
    static void run_shared_entry(const kernel_call &call, const std::uint8_t *src, std::uint8_t *dst);

    // The words of several outputs name them by id: this partition's own
    // compile says them (one output's words name no id).
    const compiled_partition &words() const;
    const compiled_partition &own() const;

    std::shared_ptr<const compiled_partition> shared_;
    std::vector<logical_tensor> inputs_, outputs_;
    std::vector<std::pair<tensor_id, tensor_id>> inplace_;
    // The shared partition's prepared execute (the plan is the same), its
    // own entry wrapped (run_shared_entry, which calls shared_entry_).
    prepared_execute prepared_;
    kernel_call shared_entry_;
    std::function<std::shared_ptr<const compiled_partition>()> compile_own_;
    mutable std::once_flag compiled_own_;
    mutable std::shared_ptr<const compiled_partition> own_;
};

} // namespace reshaper::impl
