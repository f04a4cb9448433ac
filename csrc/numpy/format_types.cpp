#include "format_types.h"

#include "per_format.h"

namespace minifloat {

namespace {
PerFormat<FormatTypes> g_format_types;
}  // namespace

FormatTypes& format_types(int index) { return g_format_types[index]; }

int format_index_of_descr(const PyArray_Descr* descr) {
    if (descr == nullptr) return -1;
    return format_index_of_dtype_class(reinterpret_cast<const PyArray_DTypeMeta*>(Py_TYPE(descr)));
}

int format_index_of_dtype_class(const PyArray_DTypeMeta* cls) {
    if (cls == nullptr) return -1;
    // every format's DType class subclasses the abstract one directly (and
    // cannot be subclassed)
    if (reinterpret_cast<const PyTypeObject*>(cls)->tp_base != reinterpret_cast<PyTypeObject*>(&g_abstract_dtype)) {
        return -1;
    }
    return static_cast<const FormatDTypeClass*>(cls)->format_index;
}

int format_index_of_scalar_type(const PyTypeObject* type) {
    if (type == nullptr || type->tp_base != &g_abstract_scalar_type) return -1;
    return static_cast<const FormatScalarType*>(type)->format_index;
}

}  // namespace minifloat
