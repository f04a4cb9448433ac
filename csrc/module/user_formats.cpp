#include "user_formats.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "dtype_class.h"
#include "format_types.h"
#include "scalar_type.h"
#include "ufuncs.h"

namespace py = pybind11;

namespace minifloat {

namespace {

// The parameters of mf.float_format as Python values, and back.
py::object infinities_value(Infinities i) {
    switch (i) {
        case Infinities::none: return py::bool_(false);
        case Infinities::ieee: return py::bool_(true);
        case Infinities::largest_codes: return py::str("max");
    }
    return py::none();
}

py::object nan_value(const FormatRow& row) {
    switch (row.nan) {
        case NanCodes::none: return py::bool_(false);
        case NanCodes::ieee: return py::bool_(true);
        case NanCodes::all_ones: return py::str("all_ones");
        case NanCodes::negative_zero: return py::str("negative_zero");
        case NanCodes::listed: {
            std::vector<int> codes(row.nan_list.codes, row.nan_list.codes + row.nan_list.count);
            std::sort(codes.begin(), codes.end());
            py::tuple listed(codes.size());
            for (size_t i = 0; i < codes.size(); i++) listed[i] = py::int_(codes[i]);
            return std::move(listed);
        }
    }
    return py::none();
}

const char* overflow_value(Overflow o) {
    switch (o) {
        case Overflow::to_infinity: return "inf";
        case Overflow::to_nan: return "nan";
        case Overflow::saturate: return "saturate";
    }
    return "";
}

Infinities infinities_of(const std::string& text) {
    if (text == "none") return Infinities::none;
    if (text == "ieee") return Infinities::ieee;
    if (text == "max") return Infinities::largest_codes;
    throw py::value_error("infinities: expected 'none', 'ieee' or 'max', not '" + text + "'");
}

// `nan` as a kind's name, or a sequence of codes (NanCodes::listed).
void set_nan(FormatRow& row, const py::handle nan) {
    if (py::isinstance<py::str>(nan)) {
        const std::string text = py::cast<std::string>(nan);
        if (text == "none") row.nan = NanCodes::none;
        else if (text == "ieee") row.nan = NanCodes::ieee;
        else if (text == "all_ones") row.nan = NanCodes::all_ones;
        else if (text == "negative_zero") row.nan = NanCodes::negative_zero;
        else throw py::value_error("nan: expected 'none', 'ieee', 'all_ones', 'negative_zero' or codes, not '" + text + "'");
        return;
    }
    if (!py::isinstance<py::sequence>(nan)) throw py::type_error("nan: a kind's name or a sequence of codes");
    const py::sequence codes = py::reinterpret_borrow<py::sequence>(nan);
    if (codes.size() < 1 || codes.size() > static_cast<size_t>(kMaxListedNans)) {
        throw py::value_error("nan: a list of 1 to " + std::to_string(kMaxListedNans) + " codes");
    }
    row.nan = NanCodes::listed;
    row.nan_list.count = static_cast<uint8_t>(codes.size());
    for (size_t i = 0; i < codes.size(); i++) {
        const py::object item = codes[i];
        if (!py::isinstance<py::int_>(item)) throw py::type_error("nan: listed codes are integers");
        const long long code = py::cast<long long>(item);
        if (code < 0 || code > 0xFFFF) throw py::value_error("nan: codes are 0..65535");
        row.nan_list.codes[i] = static_cast<uint16_t>(code);
    }
}

Overflow overflow_of(const std::string& text) {
    if (text == "inf") return Overflow::to_infinity;
    if (text == "nan") return Overflow::to_nan;
    if (text == "saturate") return Overflow::saturate;
    throw py::value_error("overflow: expected 'inf', 'nan' or 'saturate', not '" + text + "'");
}

py::dict describe(int index) {
    const FormatRuntime& rt = runtime(index);
    const Format& f = rt.format;
    py::dict d;
    d["name"] = rt.name;
    d["bits"] = f.bits;
    d["exponent_bits"] = f.exponent_bits;
    d["mantissa_bits"] = f.mantissa_bits;
    d["bias"] = f.bias;
    d["signed"] = f.is_signed;
    d["infinities"] = infinities_value(f.infinities);
    d["nan"] = nan_value(*f.row);
    d["negative_zero"] = f.has_negative_zero;
    d["subnormals"] = f.has_subnormals;
    d["overflow"] = overflow_value(f.overflow);
    d["has_inf"] = f.has_inf;
    d["has_nan"] = f.has_nan;
    d["has_negative_zero"] = f.has_negative_zero;
    d["has_zero"] = f.has_zero;
    d["is_signed"] = f.is_signed;
    d["itemsize"] = f.storage_bytes;
    d["builtin"] = index < kBuiltinFormatCount;
    return d;
}

// Makes a format from its description (checked and made canonical by
// mf.float_format, checked again here) and returns its dtype.
py::object make_user_format(int exponent_bits, int mantissa_bits, int bias, bool is_signed, const std::string& infinities,
                       py::object nan, bool negative_zero, bool subnormals, const std::string& overflow,
                       const std::string& name, const std::string& dtype_class_name, const std::string& repr_text,
                       py::object reduce_value) {
    if (exponent_bits < 0 || exponent_bits > 16 || mantissa_bits < 0 || mantissa_bits > 16 || bias < -32768 ||
        bias > 32767) {
        throw py::value_error("exponent_bits and mantissa_bits must be 0..16, bias a 16-bit integer");
    }
    if (format_index_of_name(name.c_str()) >= 0) {
        throw py::value_error("a minifloat format named '" + name + "' exists already");
    }
    FormatRow row{};
    row.bits = static_cast<uint8_t>((is_signed ? 1 : 0) + exponent_bits + mantissa_bits);
    row.exponent_bits = static_cast<uint8_t>(exponent_bits);
    row.mantissa_bits = static_cast<uint8_t>(mantissa_bits);
    row.bias = static_cast<int16_t>(bias);
    row.is_signed = is_signed;
    row.infinities = infinities_of(infinities);
    set_nan(row, nan);
    row.negative_zero = negative_zero;
    row.subnormals = subnormals;
    row.overflow = overflow_of(overflow);
    row.type_char = kUserFormatTypeChar;
    int index;
    try {
        index = add_format_runtime(row, name, dtype_class_name);
    } catch (const std::invalid_argument& problem) {
        throw py::value_error(std::string("not a format minifloat can hold: ") + problem.what());
    } catch (const std::length_error& full) {
        throw py::value_error(full.what());
    }
    FormatTypes& types = format_types(index);
    types.repr_text = repr_text;
    types.reduce_value = reduce_value.release().ptr();  // kept for the life of the process
    if (init_format_scalar_type(index) < 0 || init_format_dtype(index) < 0 || add_format_ufunc_loops(index) < 0) {
        throw py::error_already_set();
    }
    return py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(&types.descr->base));
}

}  // namespace

void register_user_format_bindings(py::module_& m) {
    m.def("format_info", [](const std::string& name) {
        const int index = format_index_of_name(name.c_str());
        if (index < 0) throw py::value_error("unknown minifloat format: " + name);
        return describe(index);
    });
    m.def("_make_format", &make_user_format, py::arg("exponent_bits"), py::arg("mantissa_bits"), py::arg("bias"),
          py::arg("signed"), py::arg("infinities"), py::arg("nan"), py::arg("negative_zero"), py::arg("subnormals"),
          py::arg("overflow"), py::arg("name"), py::arg("dtype_class_name"), py::arg("repr_text"),
          py::arg("reduce_value"),
          "Make a format from a canonical description (use minifloat.float_format).");
    m.def("_format_count", []() { return format_count(); });
    m.def(
        "_format_dtype",
        [](const std::string& name) -> py::object {
            const int index = format_index_of_name(name.c_str());
            if (index < 0) return py::none();
            return py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(&format_types(index).descr->base));
        },
        py::arg("name"), "The dtype of the format of this name (built-in or made so far), or None.");
}

}  // namespace minifloat
