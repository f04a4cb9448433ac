// Reading numbers from text for np.fromstring(..., sep=) and
// np.fromfile(..., sep=): NumPy's legacy fromstr/scanfunc slots.
#pragma once

#include <vector>

#include "numpy_api.h"

namespace minifloat {

void append_text_scanning_slots(std::vector<PyType_Slot>& slots);

}  // namespace minifloat
