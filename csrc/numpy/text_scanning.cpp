#include "text_scanning.h"

#include <cctype>
#include <cstdio>
#include <string>

#include "decode_blocks.h"
#include "format_types.h"
#include "scalar_convert.h"

namespace minifloat {

namespace {

// The longest token kept; longer digit strings still parse exactly because
// the text goes to the exact decimal parser, but a number this long in a
// text file is junk.
constexpr size_t kMaxTokenLength = 4096;

// Pulls characters through `next()`/`push_back()` while they continue a
// number in C's strtod syntax ([+-] digits [. digits] [e [+-] digits], or
// nan / inf / infinity in any case). Returns the token, "" if none starts
// here (after leading white space).
template <class Next, class PushBack>
std::string scan_number(Next next, PushBack push_back) {
    int c = next();
    while (c != EOF && std::isspace(c)) c = next();
    std::string token;
    auto take = [&]() {
        token.push_back(static_cast<char>(c));
        c = next();
    };
    if (c == '+' || c == '-') take();
    if (c != EOF && std::isalpha(c)) {
        while (c != EOF && std::isalpha(c) && token.size() < 9) take();
        push_back(c);
        std::string word;
        for (char ch : token) {
            if (ch != '+' && ch != '-') word.push_back(static_cast<char>(std::tolower(ch)));
        }
        return (word == "nan" || word == "inf" || word == "infinity") ? token : std::string();
    }
    bool digits = false;
    while (c != EOF && std::isdigit(c) && token.size() < kMaxTokenLength) { take(); digits = true; }
    if (c == '.') {
        take();
        while (c != EOF && std::isdigit(c) && token.size() < kMaxTokenLength) { take(); digits = true; }
    }
    if (digits && (c == 'e' || c == 'E')) {
        take();
        if (c == '+' || c == '-') take();
        bool exponent_digits = false;
        while (c != EOF && std::isdigit(c) && token.size() < kMaxTokenLength) { take(); exponent_digits = true; }
        if (!exponent_digits) {  // "1e" is the number 1 followed by text
            while (!token.empty() && (token.back() == '+' || token.back() == '-' ||
                                      token.back() == 'e' || token.back() == 'E')) {
                token.pop_back();
            }
        }
    }
    push_back(c);
    return digits ? token : std::string();
}

// Rounds the token once into the format (the exact parser of the str casts).
// Floating-point warnings are not raised here: NumPy's text readers have no
// way to report them, and they do not for float16 either.
// NumPy calls these slots with the GIL released (np.fromstring and
// np.fromfile read in a threads-allowed section): take it for the parser.
bool store_token(const std::string& token, void* destination, PyArray_Descr* descr) {
    const FormatRuntime& rt = runtime_of(descr);
    const PyGILState_STATE gil = PyGILState_Ensure();
    PyObject* text = PyUnicode_FromStringAndSize(token.data(), static_cast<Py_ssize_t>(token.size()));
    uint32_t code = 0, flags = 0;
    const bool ok = text != nullptr && code_from_text(rt, rt.default_specials, text, &code, &flags);
    Py_XDECREF(text);
    if (!ok) PyErr_Clear();
    PyGILState_Release(gil);
    if (ok) store_code(rt, static_cast<char*>(destination), code);
    return ok;
}

int from_string(char* text, void* destination, char** end, PyArray_Descr* descr) {
    char* cursor = text;
    const std::string token = scan_number(
        [&cursor]() { return *cursor == '\0' ? EOF : static_cast<unsigned char>(*cursor++); },
        [&cursor](int c) { if (c != EOF) cursor--; });
    if (token.empty() || !store_token(token, destination, descr)) {
        *end = text;  // nothing consumed: NumPy stops reading here
        return -1;
    }
    *end = cursor;
    return 0;
}

int scan_file(FILE* file, void* destination, char*, PyArray_Descr* descr) {
    const std::string token = scan_number([file]() { return std::getc(file); },
                                          [file](int c) { if (c != EOF) std::ungetc(c, file); });
    if (token.empty()) return std::feof(file) ? EOF : 0;
    return store_token(token, destination, descr) ? 1 : 0;
}

}  // namespace

void append_text_scanning_slots(std::vector<PyType_Slot>& slots) {
    slots.push_back({NPY_DT_PyArray_ArrFuncs_fromstr, reinterpret_cast<void*>(from_string)});
    slots.push_back({NPY_DT_PyArray_ArrFuncs_scanfunc, reinterpret_cast<void*>(scan_file)});
}

}  // namespace minifloat
