// Engines: where partitions compile and execute. CPU always (oneDNN's CPU
// engine); Intel GPU through oneDNN's GPU engine when a device exists.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <dnnl.hpp>

#include "core/engine_kind.hpp"

namespace reshaper::impl {

// "cpu" / "gpu"; throws error(invalid_arguments) for anything else.
engine_kind engine_kind_from_string(std::string_view s);

class engine {
public:
    // Throws error(unavailable) with a message saying no device was found.
    static std::shared_ptr<engine> create(engine_kind kind, std::size_t index = 0);

    engine_kind kind() const { return kind_; }
    std::size_t index() const { return index_; }
    const dnnl::engine &dnnl_engine() const { return dnnl_engine_; }

private:
    engine(engine_kind kind, std::size_t index, dnnl::engine e)
        : kind_(kind), index_(index), dnnl_engine_(std::move(e)) {}
    engine_kind kind_;
    std::size_t index_;
    dnnl::engine dnnl_engine_;
};

} // namespace reshaper::impl
