// Dequantizing block-scaled arrays (mf.mx MXArray.dequantize): element codes
// times their block's scale, in one pass over the codes. Elements are laid
// out as (outer, count, inner) with blocks of `block` along `count`, the
// scales as (outer, ceil(count / block), inner): the block axis is the
// middle one (inner == 1 when it is the last axis).
#pragma once

#include <cstddef>
#include <cstdint>

#include "convert_kernels.h"
#include "mx_scaling.h"

namespace minifloat {

struct BlockLayout {
    size_t outer, count, inner, block;
    size_t blocks() const { return blocks_covering(count, block); }
    size_t size() const { return outer * count * inner; }
};

// How an element code becomes a value: a format's decoder, or (MXINT8)
// the code as an int8 (the 2^-6 unit is folded into the scale values).
struct ElementDecoding {
    const DecodePlan* plan;  // nullptr: int8
};

// out[i] = element(code[i]) * scale_of[its block's scale code], rounded once
// to float32 (the product of an element and a power of two or a
// float8_e4m3fn value; then times tensor_scale, when not 1, rounded again:
// the element times an FP8 scale is exact in float32, so this is the value
// rounded once). scale_of holds the 256 scale values (NaN for the NaN code).
void dequantize_f32(ElementDecoding element, const float* scale_of, float tensor_scale, const BlockLayout& layout,
                    const uint8_t* codes, const uint8_t* scale_codes, float* out);
// The same in float64, where every product is exact.
void dequantize_f64(ElementDecoding element, const double* scale_of, double tensor_scale, const BlockLayout& layout,
                    const uint8_t* codes, const uint8_t* scale_codes, double* out);

}  // namespace minifloat
