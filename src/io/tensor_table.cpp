#include "io/tensor_table.hpp"
#include "core/fail.hpp"

#include <algorithm>



namespace reshaper::impl::graph_io {

void tensor_table::add(logical_tensor lt, const context &place) {
    const bool is_output = place.text == "output";
    const port_place here{ops_->size(), is_output, static_cast<std::size_t>(place.number)};
    const std::size_t at = position(lt.id);
    if (at == none) {
        index(lt.id, met_.size());
        const tensor_id id = lt.id;
        met_.emplace_back(id, std::move(lt));
        places_.push_back(place_seen{here, is_output, {}});
        return;
    }
    logical_tensor &seen_lt = met_[at].second;
    place_seen &seen = places_[at];
    const auto seen_where = [&] { return where(seen.place, *place.blamed); };
    const auto disagree = [&](const std::string &what, const std::string &a, const std::string &b) {
        fail(rule::tensor_agreement,
                    "tensor " + std::to_string(lt.id) + " has " + what + " " + a + " at " + seen_where() +
                        " but " + b + " at " + place.where(),
                    place.blame());
    };
    if (seen_lt.dtype != lt.dtype)
        disagree("dtype", std::string(to_string(seen_lt.dtype)), std::string(to_string(lt.dtype)));
    // Contract section 1: only a shape may differ; a layout or property
    // conflict stays an error, as a dtype conflict does. Layout any or
    // undef and property undef state nothing, so they conflict with
    // nothing (the producer's description stands, below).
    const auto stated = [](layout_type l) { return l == layout_type::strided || l == layout_type::opaque; };
    if (stated(seen_lt.layout) && stated(lt.layout) && seen_lt.layout != lt.layout)
        disagree("layout_type", std::string(to_string(seen_lt.layout)), std::string(to_string(lt.layout)));
    if (seen_lt.property != property_type::undef && lt.property != property_type::undef &&
        seen_lt.property != lt.property)
        disagree("property_type", std::string(to_string(seen_lt.property)),
                 std::string(to_string(lt.property)));
    if (seen_lt.layout == layout_type::opaque && lt.layout == layout_type::opaque && seen_lt.format != lt.format)
        disagree("format", in_quotes(seen_lt.format.get()), in_quotes(lt.format.get()));
    if (auto merged = merge_known_dims(seen_lt.shape, lt.shape)) {
        // One shape, so one layout: the strides must address the same
        // memory (an empty list is dense row-major, comparable once
        // every dim is known; strides of size-1 dims address nothing).
        if (seen_lt.layout == layout_type::strided && lt.layout == layout_type::strided &&
            seen_lt.strides != lt.strides) {
            const auto dense = dense_strides(*merged);
            const dims_t a = seen_lt.strides.empty() && dense ? *dense : seen_lt.strides.get();
            const dims_t b = lt.strides.empty() && dense ? *dense : lt.strides.get();
            if (!a.empty() && !b.empty() && !same_strided_layout(*merged, a, b))
                disagree("stride", dims_to_string(a) + " for shape " + dims_to_string(*merged),
                         dims_to_string(b));
        }
        seen_lt.shape = std::move(*merged);
    } else {
        // Contract section 1: the producer's shape stands (benchdnn
        // re-infers consumers' shapes), with a warning; two consumers of
        // a graph input that disagree stay an error (see take()).
        const std::string note = "tensor " + std::to_string(lt.id) + " has shape " +
                                 dims_to_string(seen_lt.shape) + " at " + seen_where() + " but " +
                                 dims_to_string(lt.shape) + " at " + place.where();
        if (is_output && !seen.from_output) {
            if (seen_lt.values) disagree("shape", dims_to_string(seen_lt.shape), dims_to_string(lt.shape));
            seen_lt.shape = lt.shape;
            seen.place = here;
        }
        seen.conflicts.push_back(note);
    }
    if (seen_lt.values && lt.values && *seen_lt.values != *lt.values)
        // append, not "(" + to_string(..): GCC 12 warns falsely (-Wrestrict)
        // on the insert that operator+ makes of it.
        disagree("values", std::string("(").append(std::to_string(seen_lt.values->count)).append(" elements)"),
                 "other values");
    if (!seen_lt.values) seen_lt.values = std::move(lt.values);
    if (is_output && !seen.from_output) {
        seen_lt.layout = lt.layout;
        seen_lt.strides = std::move(lt.strides);
        seen_lt.format = std::move(lt.format);
        seen_lt.property = lt.property;
        seen.from_output = true;
    }
}


tensor_map tensor_table::take(std::vector<std::string> &warnings) {
    std::vector<std::size_t> order(met_.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    const auto by_id = [&](std::size_t a, std::size_t b) { return met_[a].first < met_[b].first; };
    if (!std::is_sorted(order.begin(), order.end(), by_id)) std::sort(order.begin(), order.end(), by_id);
    for (std::size_t i : order) {
        logical_tensor &lt = met_[i].second;
        const place_seen &e = places_[i];
        for (const std::string &note : e.conflicts) {
            if (!e.from_output)
                fail(rule::tensor_agreement, note + ", and no op produces it");
            warnings.push_back(with_rule_id(rule::tensor_agreement,
                                            note + "; the producer's shape " + dims_to_string(lt.shape) + " stands"));
        }
        // A dim filled in by another place can make given strides dense
        // (exactly: strides that differ in a size-1 dim are kept as
        // given, for what is handed on).
        if (!lt.strides.empty() && dense_strides(lt.shape) == lt.strides) lt.strides.clear();
    }
    return tensor_map::from_unsorted(std::move(met_));
}


std::string tensor_table::where(const port_place &p, const op &current) const {
    const context of_op = context::of_op(p.op_index < ops_->size() ? (*ops_)[p.op_index] : current);
    return of_op.port(p.output, p.position).where();
}


} // namespace reshaper::impl::graph_io
