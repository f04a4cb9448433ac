// DLPack capsules in and out (DLPack 1.x versioned and the legacy form).
// The structs below are the DLPack ABI, declared here rather than taken
// from a dlpack.h so the build needs no extra dependency.
#include "dlpack_interop.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "complex_types.h"
#include "numpy_api.h"

#include "format_types.h"

namespace py = pybind11;

namespace minifloat {

namespace {

struct DLDevice {
    int32_t device_type;
    int32_t device_id;
};
struct DLDataType {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
};
struct DLTensor {
    void* data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t* shape;
    int64_t* strides;  // in elements; NULL means C-contiguous
    uint64_t byte_offset;
};
struct DLManagedTensor {
    DLTensor dl_tensor;
    void* manager_ctx;
    void (*deleter)(DLManagedTensor*);
};
struct DLPackVersion {
    uint32_t major;
    uint32_t minor;
};
struct DLManagedTensorVersioned {
    DLPackVersion version;
    void* manager_ctx;
    void (*deleter)(DLManagedTensorVersioned*);
    uint64_t flags;
    DLTensor dl_tensor;
};

constexpr int32_t kDLCPU = 1;
constexpr uint8_t kDLBfloat = 4;
// complex32 (two float16, real part first) is DLPack's kDLComplex with 32
// bits, torch.complex32's code; DLPack has no complex type of bfloat16 parts.
constexpr uint8_t kDLComplex = 5;
constexpr uint8_t kComplex32Bits = 32;
constexpr uint64_t kReadOnly = 1;
constexpr const char* kVersionedName = "dltensor_versioned";
constexpr const char* kLegacyName = "dltensor";
constexpr const char* kUsedVersionedName = "used_dltensor_versioned";
constexpr const char* kUsedLegacyName = "used_dltensor";

// The floating-point type codes DLPack 1.1 defines, each with the format
// description it denotes (DLPack names them after ml_dtypes' spellings;
// these are those formats' facts). A format exports under a code when its
// fields match, whatever its name: a format made at run time with
// float8_e4m3fn's codes is float8_e4m3fn to DLPack. Overflow (a cast
// policy, not part of the values) is not compared.
struct TypeCode {
    FormatRow layout;
    uint8_t code;
    uint8_t bits;  // as DLPack states them (packed sub-byte types: their width)
};

constexpr FormatRow layout(uint8_t exponent_bits, uint8_t mantissa_bits, int16_t bias, bool is_signed,
                           Infinities infinities, NanCodes nan, bool negative_zero, bool subnormals) {
    return {nullptr,
            nullptr,
            static_cast<uint8_t>((is_signed ? 1 : 0) + exponent_bits + mantissa_bits),
            exponent_bits,
            mantissa_bits,
            bias,
            is_signed,
            infinities,
            nan,
            negative_zero,
            subnormals,
            Overflow::saturate,
            0};
}

using namespace row_fields;
constexpr TypeCode kTypeCodes[] = {
    {layout(8, 7, 127, kSigned, Infinities::ieee, NanCodes::ieee, kNegativeZero, kSubnormals), kDLBfloat, 16},
    {layout(3, 4, 3, kSigned, Infinities::ieee, NanCodes::ieee, kNegativeZero, kSubnormals), 7, 8},   // e3m4
    {layout(4, 3, 7, kSigned, Infinities::ieee, NanCodes::ieee, kNegativeZero, kSubnormals), 8, 8},   // e4m3
    {layout(4, 3, 11, kSigned, Infinities::none, NanCodes::negative_zero, kNoNegativeZero, kSubnormals), 9, 8},
    {layout(4, 3, 7, kSigned, Infinities::none, NanCodes::all_ones, kNegativeZero, kSubnormals), 10, 8},  // e4m3fn
    {layout(4, 3, 8, kSigned, Infinities::none, NanCodes::negative_zero, kNoNegativeZero, kSubnormals), 11, 8},
    {layout(5, 2, 15, kSigned, Infinities::ieee, NanCodes::ieee, kNegativeZero, kSubnormals), 12, 8},  // e5m2
    {layout(5, 2, 16, kSigned, Infinities::none, NanCodes::negative_zero, kNoNegativeZero, kSubnormals), 13, 8},
    {layout(8, 0, 127, kUnsigned, Infinities::none, NanCodes::all_ones, kNoNegativeZero, kNoZero), 14, 8},  // e8m0fnu
    {layout(2, 3, 1, kSigned, Infinities::none, NanCodes::none, kNegativeZero, kSubnormals), 15, 6},   // e2m3fn
    {layout(3, 2, 3, kSigned, Infinities::none, NanCodes::none, kNegativeZero, kSubnormals), 16, 6},   // e3m2fn
    {layout(2, 1, 1, kSigned, Infinities::none, NanCodes::none, kNegativeZero, kSubnormals), 17, 4},   // e2m1fn
};

bool same_values(const FormatRow& a, const FormatRow& b) {
    return a.bits == b.bits && a.exponent_bits == b.exponent_bits && a.mantissa_bits == b.mantissa_bits &&
           a.bias == b.bias && a.is_signed == b.is_signed && a.infinities == b.infinities && a.nan == b.nan &&
           a.negative_zero == b.negative_zero && a.subnormals == b.subnormals;
}

// nullptr when DLPack has no type code for the format's values.
const TypeCode* type_code_of_format(const FormatRow& row) {
    for (const TypeCode& t : kTypeCodes) {
        if (same_values(t.layout, row)) return &t;
    }
    return nullptr;
}

const TypeCode* type_code_of_code(uint8_t code) {
    for (const TypeCode& t : kTypeCodes) {
        if (t.code == code) return &t;
    }
    return nullptr;
}

// The first format (built-ins come first) with the values of `t`, or -1.
int format_of_type_code(const TypeCode& t) {
    const int count = format_count();
    for (int i = 0; i < count; i++) {
        if (same_values(runtime(i).row, t.layout)) return i;
    }
    return -1;
}

// ---- import ---------------------------------------------------------------

// Keeps the producer's tensor alive while a NumPy array views it.
struct ImportedTensor {
    DLManagedTensor* legacy = nullptr;
    DLManagedTensorVersioned* versioned = nullptr;

    void release() {
        if (versioned && versioned->deleter) versioned->deleter(versioned);
        if (legacy && legacy->deleter) legacy->deleter(legacy);
        versioned = nullptr;
        legacy = nullptr;
    }
};

// Capsule destructors run whenever the capsule dies, often while an error
// is being raised (a consumer that refused the tensor): they must leave
// the caller's error indicator as they found it.
struct PreserveErrorIndicator {
    PyObject *type, *value, *traceback;
    PreserveErrorIndicator() { PyErr_Fetch(&type, &value, &traceback); }
    ~PreserveErrorIndicator() { PyErr_Restore(type, value, traceback); }
};

void owner_destructor(PyObject* capsule) {
    PreserveErrorIndicator preserve;
    auto* imported = static_cast<ImportedTensor*>(PyCapsule_GetPointer(capsule, "minifloat.dlpack_owner"));
    if (imported == nullptr) {
        PyErr_Clear();
        return;
    }
    imported->release();
    delete imported;
}

// Imports a capsule: a zero-copy array for 8/16-bit formats, or, for packed
// FP4/FP6, a tuple (raw bytes copy, format name, shape of values) for the
// Python side to unpack.
py::object import_capsule(py::handle capsule) {
    if (!PyCapsule_CheckExact(capsule.ptr())) throw py::type_error("expected a DLPack capsule");
    const char* name = PyCapsule_GetName(capsule.ptr());
    if (name == nullptr) {
        // A nameless capsule gives NULL without an exception.
        if (PyErr_Occurred()) throw py::error_already_set();
        throw py::value_error("not a DLPack capsule (the capsule has no name)");
    }
    auto* imported = new ImportedTensor();
    DLTensor* tensor;
    bool read_only = false;
    if (std::strcmp(name, kVersionedName) == 0) {
        imported->versioned = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule.ptr(), name));
        if (imported->versioned == nullptr) {
            delete imported;
            throw py::error_already_set();
        }
        if (imported->versioned->version.major != 1) {
            const auto major = imported->versioned->version.major;  // read before the delete
            delete imported;
            throw py::value_error("unsupported DLPack major version " + std::to_string(major));
        }
        tensor = &imported->versioned->dl_tensor;
        read_only = (imported->versioned->flags & kReadOnly) != 0;
    } else if (std::strcmp(name, kLegacyName) == 0) {
        imported->legacy = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), name));
        if (imported->legacy == nullptr) {
            delete imported;
            throw py::error_already_set();
        }
        tensor = &imported->legacy->dl_tensor;
    } else {
        delete imported;
        throw py::value_error(std::string("not an unused DLPack capsule (name '") + name + "')");
    }
    // From here on the tensor is ours: the capsule must not free it again.
    PyCapsule_SetName(capsule.ptr(), imported->versioned ? kUsedVersionedName : kUsedLegacyName);

    auto fail = [&](auto error) {
        imported->release();
        delete imported;
        throw error;
    };
    if (tensor->device.device_type != kDLCPU) fail(py::value_error("only CPU tensors can be imported"));
    const bool is_complex32 = tensor->dtype.code == kDLComplex && tensor->dtype.bits == kComplex32Bits;
    static const TypeCode complex32_type{FormatRow{}, kDLComplex, kComplex32Bits};
    const TypeCode* type = is_complex32 ? &complex32_type : type_code_of_code(tensor->dtype.code);
    if (type == nullptr || tensor->dtype.bits != type->bits) {
        fail(py::type_error("DLPack type (code " + std::to_string(tensor->dtype.code) + ", bits " +
                            std::to_string(tensor->dtype.bits) + ") is not a minifloat format"));
    }
    const int index = is_complex32 ? -1 : format_of_type_code(*type);
    if (index < 0 && !is_complex32) fail(py::type_error("no minifloat format has the values of DLPack type code " +
                                       std::to_string(tensor->dtype.code)));
    const int ndim = tensor->ndim;
    if (ndim < 0 || ndim > NPY_MAXDIMS) {
        fail(py::value_error("DLPack tensor has " + std::to_string(ndim) + " dimensions (0.." +
                             std::to_string(NPY_MAXDIMS) + " supported)"));
    }
    if (ndim > 0 && tensor->shape == nullptr) fail(py::value_error("DLPack tensor has no shape"));
    if (tensor->dtype.lanes == 0) fail(py::type_error("DLPack type with 0 lanes"));
    std::vector<npy_intp> shape(static_cast<size_t>(ndim));
    npy_intp count = 1;
    for (int d = 0; d < ndim; d++) {
        const int64_t length = tensor->shape[d];
        if (length < 0) fail(py::value_error("DLPack tensor has a negative dimension"));
        shape[static_cast<size_t>(d)] = static_cast<npy_intp>(length);
        if (length != 0 && count > NPY_MAX_INTP / 16 / length) {
            fail(py::value_error("DLPack tensor is too large"));
        }
        count *= shape[static_cast<size_t>(d)];
    }
    if (count > 0 && tensor->data == nullptr) fail(py::value_error("DLPack tensor has no data"));
    char* data = static_cast<char*>(tensor->data) + tensor->byte_offset;
    const bool packed = type->bits < 8;
    if (packed) {
        // Packed sub-byte values: bytes of each element (lanes values) are
        // copied in C order, and the tensor is released right away.
        const int lanes = tensor->dtype.lanes;
        const npy_intp element_bytes = (static_cast<npy_intp>(type->bits) * lanes + 7) / 8;
        if (lanes != 1 && type->bits * lanes % 8 != 0) fail(py::type_error("unsupported packed lane layout"));
        std::vector<npy_intp> element_strides(static_cast<size_t>(ndim));
        npy_intp running = 1;
        for (int d = ndim - 1; d >= 0; d--) {
            element_strides[static_cast<size_t>(d)] = tensor->strides ? static_cast<npy_intp>(tensor->strides[d]) : running;
            running *= shape[static_cast<size_t>(d)];
        }
        const bool contiguous = [&] {
            npy_intp expect = 1;
            for (int d = ndim - 1; d >= 0; d--) {
                if (shape[static_cast<size_t>(d)] != 1 && element_strides[static_cast<size_t>(d)] != expect) return false;
                expect *= shape[static_cast<size_t>(d)];
            }
            return true;
        }();
        if (!contiguous && lanes == 1) fail(py::value_error("strided packed FP6/FP4 tensors are not supported"));
        std::vector<uint8_t> bytes(static_cast<size_t>(count * element_bytes));
        if (lanes == 1) {
            const size_t packed_bytes = (static_cast<size_t>(count) * type->bits + 7) / 8;
            if (packed_bytes > 0) std::memcpy(bytes.data(), data, packed_bytes);  // empty: both may be NULL
            bytes.resize(packed_bytes);
        } else {
            std::vector<npy_intp> position(static_cast<size_t>(ndim), 0);
            for (npy_intp i = 0; i < count; i++) {
                npy_intp offset = 0;
                for (int d = 0; d < ndim; d++) offset += position[static_cast<size_t>(d)] * element_strides[static_cast<size_t>(d)];
                std::memcpy(bytes.data() + i * element_bytes, data + offset * element_bytes, static_cast<size_t>(element_bytes));
                for (int d = ndim - 1; d >= 0; d--) {
                    if (++position[static_cast<size_t>(d)] < shape[static_cast<size_t>(d)]) break;
                    position[static_cast<size_t>(d)] = 0;
                }
            }
        }
        imported->release();
        delete imported;
        py::list value_shape;
        for (int d = 0; d < ndim; d++) {
            value_shape.append(d == ndim - 1 ? shape[static_cast<size_t>(d)] * lanes : shape[static_cast<size_t>(d)]);
        }
        if (ndim == 0) value_shape.append(lanes);
        py::bytes raw(reinterpret_cast<const char*>(bytes.data()), bytes.size());
        return py::make_tuple(raw, runtime(index).name, py::tuple(value_shape));
    }
    if (tensor->dtype.lanes != 1) fail(py::type_error("vector lanes are not supported"));
    const npy_intp itemsize = is_complex32 ? 4 : runtime(index).format.storage_bytes;
    std::vector<npy_intp> strides(static_cast<size_t>(ndim));
    npy_intp running = itemsize;
    for (int d = ndim - 1; d >= 0; d--) {
        strides[static_cast<size_t>(d)] = tensor->strides ? static_cast<npy_intp>(tensor->strides[d]) * itemsize : running;
        running *= shape[static_cast<size_t>(d)];
    }
    PyArray_Descr* descr = is_complex32 ? complex_runtime(kComplex32).descr : &format_types(index).descr->base;
    Py_INCREF(descr);
    const int flags = read_only ? 0 : NPY_ARRAY_WRITEABLE;
    PyObject* array = PyArray_NewFromDescr(&PyArray_Type, descr, ndim, shape.data(), strides.data(), data,
                                           flags, nullptr);
    if (array == nullptr) {
        imported->release();
        delete imported;
        throw py::error_already_set();
    }
    PyObject* owner = PyCapsule_New(imported, "minifloat.dlpack_owner", owner_destructor);
    if (owner == nullptr) {
        Py_DECREF(array);
        imported->release();
        delete imported;
        throw py::error_already_set();
    }
    if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(array), owner) < 0) {  // steals owner
        Py_DECREF(array);
        throw py::error_already_set();
    }
    return py::reinterpret_steal<py::object>(array);
}

// ---- export ---------------------------------------------------------------

struct ExportedTensor {
    DLManagedTensorVersioned versioned{};
    DLManagedTensor legacy{};
    std::vector<int64_t> shape, strides;
    PyObject* array = nullptr;  // kept alive until the consumer is done
};

void release_export(ExportedTensor* exported) {
    if (exported == nullptr) return;
    PyGILState_STATE state = PyGILState_Ensure();
    Py_XDECREF(exported->array);
    PyGILState_Release(state);
    delete exported;
}

void versioned_deleter(DLManagedTensorVersioned* self) {
    release_export(static_cast<ExportedTensor*>(self->manager_ctx));
}
void legacy_deleter(DLManagedTensor* self) { release_export(static_cast<ExportedTensor*>(self->manager_ctx)); }

void export_capsule_destructor(PyObject* capsule) {
    PreserveErrorIndicator preserve;
    // A capsule nobody consumed still owns its tensor.
    if (PyCapsule_IsValid(capsule, kVersionedName)) {
        auto* t = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, kVersionedName));
        if (t && t->deleter) t->deleter(t);
    } else if (PyCapsule_IsValid(capsule, kLegacyName)) {
        auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kLegacyName));
        if (t && t->deleter) t->deleter(t);
    }
    PyErr_Clear();
}

// `array` must have a minifloat dtype (or be the uint8 packing of an FP4
// array, with `packed_fp4_pairs`), element strides whole numbers of items.
py::object export_capsule(py::handle array_obj, bool versioned, bool packed_fp4_pairs) {
    if (!PyArray_Check(array_obj.ptr())) throw py::type_error("expected a NumPy array");
    PyArrayObject* array = reinterpret_cast<PyArrayObject*>(array_obj.ptr());
    DLDataType dtype{};
    npy_intp itemsize;
    if (packed_fp4_pairs) {
        if (PyArray_TYPE(array) != NPY_UINT8) throw py::type_error("packed FP4 export expects uint8 bytes");
        dtype = {17, 4, 2};
        itemsize = 1;
    } else if (const int kind = complex_kind_of_descr(PyArray_DESCR(array)); kind >= 0) {
        if (kind != kComplex32) {
            throw py::buffer_error(std::string(complex_runtime(kind).name) +
                                   " has no DLPack type code (DLPack 1.1's complex type kDLComplex has IEEE "
                                   "parts only; no complex type of bfloat16 parts exists); copy it into one, e.g. "
                                   "arr.astype(np.complex64), or share its part codes as "
                                   "arr[..., None].view(np.uint16)");
        }
        dtype = {kDLComplex, kComplex32Bits, 1};
        itemsize = 4;
    } else {
        const int index = format_index_of_descr(PyArray_DESCR(array));
        if (index < 0) throw py::type_error("mf.to_dlpack needs a minifloat array");
        const TypeCode* type = type_code_of_format(runtime(index).row);
        if (type == nullptr) {
            throw py::buffer_error(runtime(index).name +
                                   " has no DLPack type code (DLPack 1.1 defines bfloat16 and the OCP/ml_dtypes "
                                   "float8, float6 and float4 formats); copy it into a standard type, e.g. "
                                   "arr.astype(np.float32), or share its codes as arr.view(np." +
                                   std::string(runtime(index).format.storage_bytes == 1 ? "uint8" : "uint16") + ")");
        }
        if (type->bits < 8) {
            throw py::type_error(runtime(index).name + " has no unpacked DLPack type; use mf.pack for its bytes");
        }
        dtype = {type->code, type->bits, 1};
        itemsize = runtime(index).format.storage_bytes;
    }
    if (!versioned && !PyArray_ISWRITEABLE(array)) {
        // only DLPack 1.x capsules can say read-only; a consumer could write
        throw py::buffer_error("a read-only array exports only as a DLPack 1.x capsule (max_version=(1, 0) or "
                               "later); copy it first for older consumers");
    }
    auto* exported = new ExportedTensor();
    const int ndim = PyArray_NDIM(array);
    exported->shape.resize(static_cast<size_t>(ndim));
    exported->strides.resize(static_cast<size_t>(ndim));
    for (int d = 0; d < ndim; d++) {
        const npy_intp stride = PyArray_STRIDE(array, d);
        if (stride % itemsize != 0) {
            delete exported;
            throw py::value_error("strides must be whole numbers of elements (copy the array first)");
        }
        if (stride < 0 && PyArray_DIM(array, d) > 1) {
            // DLPack consumers assume non-negative strides (torch aborts)
            delete exported;
            throw py::buffer_error("negative strides do not export through DLPack (copy the array first)");
        }
        exported->shape[static_cast<size_t>(d)] = PyArray_DIM(array, d);
        exported->strides[static_cast<size_t>(d)] = stride < 0 ? 0 : stride / itemsize;  // length <= 1: unused
    }
    DLTensor tensor{};
    tensor.data = PyArray_DATA(array);
    tensor.device = {kDLCPU, 0};
    tensor.ndim = ndim;
    tensor.dtype = dtype;
    tensor.shape = exported->shape.data();
    tensor.strides = exported->strides.data();
    tensor.byte_offset = 0;
    Py_INCREF(array_obj.ptr());
    exported->array = array_obj.ptr();
    PyObject* capsule;
    if (versioned) {
        exported->versioned.version = {1, 1};
        exported->versioned.manager_ctx = exported;
        exported->versioned.deleter = versioned_deleter;
        exported->versioned.flags = PyArray_ISWRITEABLE(array) ? 0 : kReadOnly;
        exported->versioned.dl_tensor = tensor;
        capsule = PyCapsule_New(&exported->versioned, kVersionedName, export_capsule_destructor);
    } else {
        exported->legacy.manager_ctx = exported;
        exported->legacy.deleter = legacy_deleter;
        exported->legacy.dl_tensor = tensor;
        capsule = PyCapsule_New(&exported->legacy, kLegacyName, export_capsule_destructor);
    }
    if (capsule == nullptr) {
        Py_DECREF(array_obj.ptr());
        delete exported;
        throw py::error_already_set();
    }
    return py::reinterpret_steal<py::object>(capsule);
}

}  // namespace

void register_dlpack_bindings(py::module_& m) {
    m.def("dlpack_import", &import_capsule, py::arg("capsule"),
          "Import a DLPack capsule of a minifloat type (zero-copy for 8/16-bit formats).");
    m.def("dlpack_export", &export_capsule, py::arg("array"), py::arg("versioned"),
          py::arg("packed_fp4_pairs") = false, "Export a minifloat array as a DLPack capsule (zero-copy).");
    m.def(
        "dlpack_type_code",
        [](const std::string& name) -> py::object {
            const int index = format_index_of_name(name.c_str());
            if (index < 0) throw py::value_error("unknown minifloat format: " + name);
            const TypeCode* type = type_code_of_format(runtime(index).row);
            if (type == nullptr) return py::none();
            return py::make_tuple(type->code, type->bits);
        },
        py::arg("name"), "DLPack 1.1's (type code, bits) of a format's values, or None.");
}

}  // namespace minifloat
