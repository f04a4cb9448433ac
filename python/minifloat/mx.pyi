import os
from typing import IO, Any, Final, Literal, TypeAlias

import numpy as np
import numpy.typing as npt

Format: TypeAlias = Literal["mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4_e2m1", "mxint8", "nvfp4"]
ScaleMode: TypeAlias = Literal["floor", "ceil", "even", "rceil"]

FORMATS: Final[dict[str, tuple[Any, int, float, int, int]]]
SCALE_MODES: Final[tuple[str, ...]]

class MXArray:
    data: npt.NDArray[Any]
    scales: npt.NDArray[Any]
    format: str
    block_size: int
    axis: int
    tensor_scale: np.float32 | None
    def __init__(
        self,
        data: npt.NDArray[Any],
        scales: npt.NDArray[Any],
        format: str,
        block_size: int,
        axis: int,
        tensor_scale: np.float32 | None = ...,
    ) -> None: ...
    @property
    def shape(self) -> tuple[int, ...]: ...
    @property
    def ndim(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def nbytes(self) -> int: ...
    def dequantize(self, dtype: npt.DTypeLike = ...) -> npt.NDArray[Any]: ...
    def pack(self) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]]: ...
    def save(self, file: str | os.PathLike[str] | IO[bytes]) -> None: ...
    @classmethod
    def load(cls, file: str | os.PathLike[str] | IO[bytes]) -> MXArray: ...
    @classmethod
    def from_parts(
        cls,
        data: npt.ArrayLike,
        scales: npt.ArrayLike,
        fmt: Format,
        *,
        axis: int = -1,
        block_size: int | None = None,
        tensor_scale: float | npt.ArrayLike | None = None,
        packed: bool = False,
        shape: int | tuple[int, ...] | None = None,
    ) -> MXArray: ...

def quantize(
    x: npt.ArrayLike,
    fmt: Format,
    *,
    axis: int = -1,
    block_size: int | None = None,
    scale_mode: ScaleMode = "floor",
    tensor_scale: float | Literal["auto"] | None = None,
) -> MXArray: ...
def matmul(qa: MXArray, qb: MXArray) -> npt.NDArray[np.float32]: ...
def dot(qa: MXArray, qb: MXArray) -> np.float32: ...
