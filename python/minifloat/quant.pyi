import os
from typing import IO, Any, Final, Literal, Protocol, TypeAlias

import numpy as np
import numpy.typing as npt

Granularity: TypeAlias = Literal["tensor", "channel", "block"]

GRANULARITIES: Final[tuple[str, ...]]

class Groups:
    data_shape: tuple[int, ...]
    granularity: Granularity
    axis: int | None
    block_size: tuple[int, ...] | None
    def __init__(
        self,
        shape: tuple[int, ...],
        granularity: Granularity,
        axis: int | None = ...,
        block_size: tuple[int, ...] | None = ...,
    ) -> None: ...
    @property
    def block_shape(self) -> tuple[int, ...] | None: ...  # deprecated: block_size
    @property
    def shape(self) -> tuple[int, ...]: ...
    def reduce(self, values: npt.ArrayLike, ufunc: np.ufunc, fill: Any) -> npt.NDArray[Any]: ...
    def expand(self, params: npt.ArrayLike) -> npt.NDArray[Any]: ...

class QuantizedArray:
    data: npt.NDArray[Any]
    scales: npt.NDArray[np.float32]
    zero_points: npt.NDArray[Any] | None
    granularity: Granularity
    axis: int | None
    block_size: tuple[int, ...] | None
    scheme: str
    options: dict[str, Any]
    def __init__(
        self,
        data: npt.NDArray[Any],
        scales: npt.NDArray[np.float32],
        granularity: Granularity,
        axis: int | None = ...,
        block_size: tuple[int, ...] | None = ...,
        *,
        zero_points: npt.NDArray[Any] | None = ...,
        scheme: str = ...,
        options: dict[str, Any] | None = ...,
    ) -> None: ...
    @property
    def dtype(self) -> np.dtype[Any]: ...
    @property
    def shape(self) -> tuple[int, ...]: ...
    @property
    def nbytes(self) -> int: ...
    @property
    def groups(self) -> Groups: ...
    @property
    def block_shape(self) -> tuple[int, ...] | None: ...  # deprecated: block_size
    def scale_per_element(self) -> npt.NDArray[np.float32]: ...
    def dequantize(self, dtype: npt.DTypeLike = ...) -> npt.NDArray[Any]: ...
    def save(self, file: str | os.PathLike[str] | IO[bytes]) -> None: ...
    @classmethod
    def load(cls, file: str | os.PathLike[str] | IO[bytes]) -> QuantizedArray: ...

class Scheme(Protocol):
    name: str
    def accepts(self, dtype: np.dtype[Any]) -> bool: ...
    def quantize(
        self, x32: npt.NDArray[np.float32], dtype: np.dtype[Any], groups: Groups, **options: Any
    ) -> tuple[npt.NDArray[Any], npt.NDArray[np.float32], npt.NDArray[Any] | None, dict[str, Any]]: ...
    def dequantize(self, q: QuantizedArray, dtype: np.dtype[Any]) -> npt.NDArray[Any]: ...

class ScaledScheme:
    name: str
    def accepts(self, dtype: np.dtype[Any]) -> bool: ...
    def quantize(
        self,
        x32: npt.NDArray[np.float32],
        dtype: np.dtype[Any],
        groups: Groups,
        *,
        margin: int = ...,
        pow2_scales: bool = ...,
    ) -> tuple[npt.NDArray[Any], npt.NDArray[np.float32], None, dict[str, Any]]: ...
    def dequantize(self, q: QuantizedArray, dtype: np.dtype[Any]) -> npt.NDArray[Any]: ...

def register_scheme(scheme: Scheme) -> Scheme: ...
def schemes() -> list[str]: ...
def unregister_scheme(name: str) -> Scheme: ...
def quantize(
    x: npt.ArrayLike,
    dtype: npt.DTypeLike,
    *,
    granularity: Granularity = "tensor",
    axis: int | None = 0,
    block_size: int | tuple[int, ...] = (128, 128),
    margin: int = ...,
    pow2_scales: bool = ...,
    **options: Any,
) -> QuantizedArray: ...

from ._affine import AffineQuantizedArray as AffineQuantizedArray, quantize_affine as quantize_affine
