// Casts between the formats and NumPy's fixed-width str_ (UCS4) and bytes_
// types. Text out is the scalar repr (scalar_convert.h); text in
// is parsed exactly, which consults Python for the rare ties, so parsing
// loops hold the GIL.
#include <cstring>
#include <string>
#include <vector>

#include "cast_specs.h"
#include "decode_blocks.h"
#include "format_types.h"
#include "fp_status.h"
#include "scalar_convert.h"
#include "scalar_type.h"

namespace minifloat {

namespace {

constexpr npy_intp kTextCharacters = 32;  // like NumPy's float -> str casts

PyArray_Descr* native_copy(PyArray_Descr* given) {
    if (PyArray_ISNBO(given->byteorder)) {
        Py_INCREF(given);
        return given;
    }
    return PyArray_DescrNewByteorder(given, NPY_NATIVE);
}

template <int TypeNum>
NPY_CASTING format_to_text_resolve(PyArrayMethodObject*, PyArray_DTypeMeta* const*,
                                   PyArray_Descr* const given[], PyArray_Descr* loop[],
                                   npy_intp*) {
    const npy_intp unit = TypeNum == NPY_UNICODE ? 4 : 1;
    Py_INCREF(given[0]);
    loop[0] = given[0];
    if (given[1] == nullptr) {
        loop[1] = PyArray_DescrNewFromType(TypeNum);
        if (loop[1] == nullptr) {
            Py_DECREF(loop[0]);
            return static_cast<NPY_CASTING>(-1);
        }
        loop[1]->elsize = kTextCharacters * unit;
    } else {
        loop[1] = native_copy(given[1]);
        if (loop[1] == nullptr) {
            Py_DECREF(loop[0]);
            return static_cast<NPY_CASTING>(-1);
        }
    }
    return PyDataType_ELSIZE(loop[1]) >= kTextCharacters * unit ? NPY_SAFE_CASTING
                                                                : NPY_UNSAFE_CASTING;
}

NPY_CASTING text_to_format_resolve(PyArrayMethodObject*, PyArray_DTypeMeta* const dtypes[],
                                   PyArray_Descr* const given[], PyArray_Descr* loop[],
                                   npy_intp*) {
    loop[0] = native_copy(given[0]);
    if (loop[0] == nullptr) return static_cast<NPY_CASTING>(-1);
    const int index = format_index_of_dtype_class(dtypes[1]);
    loop[1] = &format_types(index).descr->base;
    Py_INCREF(loop[1]);
    return NPY_UNSAFE_CASTING;
}

template <int TypeNum>
int format_to_text_loop(PyArrayMethod_Context* context, char* const data[],
                        const npy_intp dimensions[], const npy_intp strides[], NpyAuxData*) {
    const FormatRuntime& rt = runtime_of(context->descriptors[0]);
    const npy_intp out_size = PyDataType_ELSIZE(context->descriptors[1]);
    const npy_intp unit = TypeNum == NPY_UNICODE ? 4 : 1;
    const npy_intp capacity = out_size / unit;
    const char* in = data[0];
    char* out = data[1];
    char text[64];
    for (npy_intp i = 0; i < dimensions[0]; i++, in += strides[0], out += strides[1]) {
        scalar_repr_text(rt, load_code(rt, in), text, sizeof text);
        const npy_intp length = static_cast<npy_intp>(std::strlen(text));
        std::memset(out, 0, static_cast<size_t>(out_size));
        for (npy_intp c = 0; c < length && c < capacity; c++) {
            if (TypeNum == NPY_UNICODE) {
                const uint32_t ch = static_cast<unsigned char>(text[c]);
                std::memcpy(out + 4 * c, &ch, 4);
            } else {
                out[c] = text[c];
            }
        }
    }
    return 0;
}

}  // namespace

PyObject* text_item_object(const char* item, npy_intp size, bool unicode) {
    if (unicode) {
        npy_intp length = size / 4;
        std::vector<Py_UCS4> chars(static_cast<size_t>(length));  // aligned: the item need not be
        if (length > 0) std::memcpy(chars.data(), item, static_cast<size_t>(length) * 4);
        while (length > 0 && chars[static_cast<size_t>(length) - 1] == 0) length--;
        return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, chars.data(), length);
    }
    npy_intp length = size;
    while (length > 0 && item[length - 1] == 0) length--;
    return PyBytes_FromStringAndSize(item, length);
}

namespace {

template <int TypeNum>
int text_to_format_loop(PyArrayMethod_Context* context, char* const data[],
                        const npy_intp dimensions[], const npy_intp strides[], NpyAuxData*) {
    const FormatRuntime& rt = runtime_of(context->descriptors[1]);
    const npy_intp in_size = PyDataType_ELSIZE(context->descriptors[0]);
    const char* in = data[0];
    char* out = data[1];
    uint32_t flags = 0;
    for (npy_intp i = 0; i < dimensions[0]; i++, in += strides[0], out += strides[1]) {
        PyObject* text = text_item_object(in, in_size, TypeNum == NPY_UNICODE);
        if (text == nullptr) return -1;
        uint32_t code = 0;
        const bool ok = code_from_text(rt, rt.default_specials, text, &code, &flags);
        Py_DECREF(text);
        if (!ok) return -1;
        store_code(rt, out, code);
    }
    return report_scalar_fp_flags("cast", flags) < 0 ? -1 : 0;
}

template <class Fn>
std::vector<PyType_Slot> slots_with(void* resolve, Fn* loop) {
    return {{NPY_METH_resolve_descriptors, resolve},
            {NPY_METH_strided_loop, reinterpret_cast<void*>(loop)},
            {NPY_METH_unaligned_strided_loop, reinterpret_cast<void*>(loop)}};
}

template <int TypeNum>
void append_pair(int index, PyArray_DTypeMeta* text_dtype, const char* text_name,
                 std::vector<PyArrayMethod_Spec*>& out) {
    const std::string name = runtime(index).name;
    out.push_back(make_method_spec(
        (name + "_to_" + text_name).c_str(), 1, 1, NPY_SAFE_CASTING,
        NPY_METH_SUPPORTS_UNALIGNED, {nullptr, text_dtype},
        slots_with(reinterpret_cast<void*>(format_to_text_resolve<TypeNum>),
                   format_to_text_loop<TypeNum>)));
    out.push_back(make_method_spec(
        (std::string(text_name) + "_to_" + name).c_str(), 1, 1, NPY_UNSAFE_CASTING,
        static_cast<NPY_ARRAYMETHOD_FLAGS>(NPY_METH_SUPPORTS_UNALIGNED | NPY_METH_REQUIRES_PYAPI),
        {text_dtype, nullptr},
        slots_with(reinterpret_cast<void*>(text_to_format_resolve), text_to_format_loop<TypeNum>)));
}

}  // namespace

void append_text_cast_specs(int index, std::vector<PyArrayMethod_Spec*>& out) {
    append_pair<NPY_UNICODE>(index, &PyArray_UnicodeDType, "str", out);
    append_pair<NPY_STRING>(index, &PyArray_BytesDType, "bytes", out);
}

}  // namespace minifloat
