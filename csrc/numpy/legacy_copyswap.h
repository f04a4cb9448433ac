// NumPy's legacy copyswap/copyswapn array functions for minifloat's DTypes.
#pragma once

#include "numpy_api.h"

namespace minifloat {

// Fills the descriptor's legacy copyswap and copyswapn entries. NumPy 2.4's
// DType API has no slot for them (they are commented out in dtype_api.h) and
// leaves them NULL for new-style DTypes, yet `ndarray.byteswap`, `np.place`,
// scalar `.byteswap()` and a few other paths still call them: without this
// they jump to address 0. A swap reverses each part of `part_bytes` (the
// element itself, or each part of a complex one).
int install_copyswap(PyArray_Descr* descr, int storage_bytes, int part_bytes);

}  // namespace minifloat
