#include "backend/renamed_partition.hpp"

#include <algorithm>

#include "core/fail.hpp"

namespace reshaper::impl {

renamed_partition::renamed_partition(std::shared_ptr<const compiled_partition> shared,
                                     const std::vector<tensor_id> &from, const std::vector<tensor_id> &to,
                                     std::function<std::shared_ptr<const compiled_partition>()> compile_own)
    : shared_(std::move(shared)), compile_own_(std::move(compile_own)) {
    const auto rename = [&](tensor_id id) {
        const auto at = std::lower_bound(from.begin(), from.end(), id);
        if (at == from.end() || *at != id || from.size() != to.size())
            fail(rule::internal_invariant, "renamed partition: tensor " + std::to_string(id) +
                                               " is not one the shared partition touches");
        return to[static_cast<std::size_t>(at - from.begin())];
    };
    inputs_ = shared_->inputs();
    for (logical_tensor &lt : inputs_) lt.id = rename(lt.id);
    outputs_ = shared_->outputs();
    for (logical_tensor &lt : outputs_) lt.id = rename(lt.id);
    for (const auto &[in, out] : shared_->inplace_pairs()) inplace_.emplace_back(rename(in), rename(out));
    prepared_ = shared_->prepared();
    // A kernel called directly (no context) fails in no words; the shared
    // partition's own entry may (out of memory), naming that partition.
    if (prepared_.what == prepared_execute::form::call && prepared_.call.context) {
        shared_entry_ = prepared_.call;
        prepared_.call = {.entry = &run_shared_entry, .context = this};
    }
}

void renamed_partition::run_shared_entry(const kernel_call &call, const std::uint8_t *src, std::uint8_t *dst) {
    const auto &self = *static_cast<const renamed_partition *>(call.context);
    try {
        self.shared_entry_.entry(self.shared_entry_, src, dst);
    } catch (const error &) {
        // The same plan compiled as this partition: the same failure, in
        // its words.
        const prepared_execute &own = self.own().prepared();
        if (own.what != prepared_execute::form::call) throw;
        own.call.entry(own.call, src, dst);
    }
}

const compiled_partition &renamed_partition::own() const {
    std::call_once(compiled_own_, [this] { own_ = compile_own_(); });
    return *own_;
}

const compiled_partition &renamed_partition::words() const { return outputs_.size() > 1 ? own() : *shared_; }

std::string renamed_partition::lowering_details() const { return words().lowering_details(); }
std::string renamed_partition::why_not_alias() const { return words().why_not_alias(); }
std::string renamed_partition::kernel_programs() const { return words().kernel_programs(); }

void renamed_partition::execute_checked(std::span<const void *const> inputs, std::span<void *const> outputs) const {
    try {
        shared_->execute_checked(inputs, outputs);
    } catch (const error &) {
        // Checked before anything is written: the same failure, in this
        // partition's words.
        own().execute_checked(inputs, outputs);
    }
}

std::vector<logical_tensor> renamed_partition::execute_resolving(const std::vector<const void *> &inputs,
                                                                 const std::vector<void *> &outputs) const {
    try {
        std::vector<logical_tensor> resolved = shared_->execute_resolving(inputs, outputs);
        for (std::size_t k = 0; k < resolved.size() && k < outputs_.size(); ++k) resolved[k].id = outputs_[k].id;
        return resolved;
    } catch (const error &) {
        return own().execute_resolving(inputs, outputs);
    }
}

} // namespace reshaper::impl
