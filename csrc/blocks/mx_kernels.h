// The row kernels of block quantization: per block, the largest magnitude,
// the shared scale, and the elements rounded once (see python/minifloat/mx.py
// for the rules). Pure computation on contiguous float32 rows; the Python
// binding lives in mx_quantize.cpp.
#pragma once

#include <cstddef>
#include <cstdint>

#include "convert_kernels.h"
#include "mx_scaling.h"
#include "registry.h"

namespace minifloat {

// One row of `cols` values, blocks of `block` along it: writes the element
// codes (int8 values for MXINT8) and one float8_e8m0fnu scale code per block.
void mx_quantize_row(const float* row, size_t cols, size_t block, const MxElement& e, ScaleMode mode,
                     uint8_t* elements, uint8_t* scales);

// NVFP4: float8_e4m3fn scale s = amax / (6 t) per block, float4_e2m1fn
// elements V / (s t), both rounded once with saturation.
// `scale` is float8_e4m3fn's runtime.
struct Nvfp4Scales {
    double tensor_scale;
    // s t for each scale code (0 for NaN: a block with nothing to keep),
    // made once per call: the elements' boundaries m s t are exact (s t has
    // at most 4 + 24 significant bits, a double holds the products, and
    // without a tensor scale float32 does)
    double block_scale_of[256];
    // a block whose amax / (6 t) exceeds this clips: the quotients that
    // round to nearest even beyond the scale format's largest value (as
    // an astype of them would overflow)
    double overflow_above;
    // float32 bits of amax: from clips_from a block clips, below
    // vanishes_below a nonzero block's scale is 0 (NumPy's flags)
    uint32_t clips_from, vanishes_below;
};
Nvfp4Scales nvfp4_scales(const FormatRuntime& scale, double tensor_scale);
// Returns kFlagOverflow where a block's scale amax / (6 t) is beyond the
// scale format (its values clip) and kFlagUnderflow where a block with a
// nonzero value gets the scale 0 (it reads as zeros); NaN/inf blocks raise
// neither (their scale is NaN by design).
uint32_t nvfp4_quantize_row(const float* row, size_t cols, size_t block, const Nvfp4Scales& scaling,
                            const FormatRuntime& scale, uint8_t* elements, uint8_t* scales);

}  // namespace minifloat
