from typing import Any, Final, Literal, TypeAlias

import numpy as np
import numpy.typing as npt

Granularity: TypeAlias = Literal["tensor", "channel", "block"]

GRANULARITIES: Final[tuple[str, ...]]

class QuantizedArray:
    data: npt.NDArray[Any]
    scales: npt.NDArray[np.float32]
    granularity: Granularity
    axis: int | None
    block_shape: tuple[int, ...] | None
    margin: int
    pow2_scales: bool
    def __init__(
        self,
        data: npt.NDArray[Any],
        scales: npt.NDArray[np.float32],
        granularity: Granularity,
        axis: int | None = ...,
        block_shape: tuple[int, ...] | None = ...,
        margin: int = ...,
        pow2_scales: bool = ...,
    ) -> None: ...
    @property
    def dtype(self) -> np.dtype[Any]: ...
    @property
    def shape(self) -> tuple[int, ...]: ...
    @property
    def nbytes(self) -> int: ...
    def scale_per_element(self) -> npt.NDArray[np.float32]: ...
    def dequantize(self, dtype: npt.DTypeLike = ...) -> npt.NDArray[Any]: ...

def quantize(
    x: npt.ArrayLike,
    dtype: npt.DTypeLike,
    *,
    granularity: Granularity = "tensor",
    axis: int = 0,
    block_shape: int | tuple[int, ...] = (128, 128),
    margin: int = 0,
    pow2_scales: bool = False,
) -> QuantizedArray: ...
