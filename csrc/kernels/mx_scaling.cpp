#include "mx_scaling.h"

namespace minifloat {

int shared_exponent(uint32_t amax_bits, const MxElement& e, ScaleMode mode) {
    return shared_exponent_inline(amax_bits, e, mode);
}

}  // namespace minifloat
