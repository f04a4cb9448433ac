import os
import contextlib
from collections.abc import Iterator, Mapping, Sequence
from typing import IO, Any, Final, Literal, TypeAlias, overload

import numpy as np
import numpy.typing as npt

from . import mx as mx
from . import quant as quant

from . import dtypes as dtypes
from .dtypes import (
    MinifloatDType as MinifloatDType,
    bfloat16 as bfloat16,
    float4_e2m1fn as float4_e2m1fn,
    float6_e2m3fn as float6_e2m3fn,
    float6_e3m2fn as float6_e3m2fn,
    float8_e3m4 as float8_e3m4,
    float8_e4m3 as float8_e4m3,
    float8_e4m3b11fnuz as float8_e4m3b11fnuz,
    float8_e4m3fn as float8_e4m3fn,
    float8_e4m3fnuz as float8_e4m3fnuz,
    float8_e5m2 as float8_e5m2,
    float8_e5m2fnuz as float8_e5m2fnuz,
    float8_e8m0fnu as float8_e8m0fnu,
    floating as floating,
    int1 as int1,
    int2 as int2,
    int4 as int4,
    uint1 as uint1,
    uint2 as uint2,
    uint4 as uint4,
)
from .quant import AffineQuantizedArray as AffineQuantizedArray, quantize_affine as quantize_affine

__version__: Final[str]
FORMAT_NAMES: Final[tuple[str, ...]]
INT_FORMAT_NAMES: Final[tuple[str, ...]]

# The P3109 scalar types (binary8p...), mf.zarr (where zarr is installed) and
# the DType classes under the name NumPy prints (mf.Float8E4M3FNDType; they
# are minifloat.dtypes').

from .dtypes import bcomplex32 as bcomplex32, complex32 as complex32, complexfloating as complexfloating

COMPLEX_FORMAT_NAMES: Final[tuple[str, ...]]

def real(x: npt.ArrayLike) -> npt.NDArray[Any]: ...
def imag(x: npt.ArrayLike) -> npt.NDArray[Any]: ...
def __getattr__(name: str) -> Any: ...

Rounding: TypeAlias = Literal["nearest_even", "nearest_away", "toward_zero", "up", "down", "stochastic", "nearest"]

def cast(
    x: npt.ArrayLike,
    dtype: npt.DTypeLike,
    *,
    saturate: bool = False,
    rounding: Rounding = "nearest_even",
    rng: np.random.Generator | int | None = None,
    packed: bool = False,
) -> Any: ...
def pack(arr: npt.NDArray[Any]) -> npt.NDArray[np.uint8]: ...
def get_num_threads() -> int: ...
def set_num_threads(n: int) -> None: ...
def num_threads(n: int) -> contextlib.AbstractContextManager[int]: ...
def unpack(buf: npt.ArrayLike, dtype: npt.DTypeLike, shape: int | tuple[int, ...]) -> npt.NDArray[Any]: ...
def from_dlpack(obj: Any) -> npt.NDArray[Any]: ...
def to_dlpack(arr: npt.NDArray[Any]) -> Any: ...
@overload
def to_ml_dtypes(x: npt.NDArray[Any]) -> npt.NDArray[Any]: ...
@overload
def to_ml_dtypes(x: floating) -> np.generic: ...
@overload
def from_ml_dtypes(x: np.generic) -> floating: ...
@overload
def from_ml_dtypes(x: npt.ArrayLike) -> npt.NDArray[Any]: ...
def claim_dtype_names() -> None: ...
def claim_int_dtype_names() -> None: ...
def patch_numpy() -> None: ...
def unpatch_numpy() -> None: ...
def float_format(
    *,
    exponent_bits: int,
    mantissa_bits: int,
    bias: int | None = None,
    signed: bool = True,
    infinities: bool | Literal["max"] = True,
    nan: bool | Literal["all_ones", "negative_zero"] | Sequence[int] = True,
    negative_zero: bool | None = None,
    subnormals: bool = True,
    overflow: Literal["inf", "nan", "saturate"] | None = None,
    name: str | None = None,
) -> np.dtype[Any]: ...
def finfo(dtype: npt.DTypeLike | npt.NDArray[Any] | np.generic) -> np.finfo[Any]: ...
def iinfo(int_type: npt.DTypeLike | npt.NDArray[Any] | np.generic) -> np.iinfo[Any]: ...
def format_info(dtype: npt.DTypeLike) -> dict[str, Any]: ...

_File: TypeAlias = str | os.PathLike[str] | IO[bytes]

class NpzArchive(Mapping[str, Any]):
    """The arrays of an .npz archive, read when looked up, minifloat dtypes restored."""
    files: list[str]
    def __getitem__(self, key: str) -> Any: ...
    def __iter__(self) -> Iterator[str]: ...
    def __len__(self) -> int: ...
    def close(self) -> None: ...
    def __enter__(self) -> NpzArchive: ...
    def __exit__(self, *exc: object) -> None: ...

def save(file: _File, arr: npt.NDArray[Any] | np.generic) -> None: ...
def load(
    file: _File,
    mmap_mode: Literal["r", "r+", "c"] | None = None,
    *,
    dtype: npt.DTypeLike | Mapping[str, npt.DTypeLike] | None = None,
) -> npt.NDArray[Any] | NpzArchive: ...
def savez(file: _File, *args: npt.NDArray[Any] | np.generic, **kwds: npt.NDArray[Any] | np.generic) -> None: ...
def savez_compressed(file: _File, *args: npt.NDArray[Any] | np.generic, **kwds: npt.NDArray[Any] | np.generic) -> None: ...
def save_safetensors(
    file: _File, tensors: Mapping[str, npt.NDArray[Any] | np.generic], metadata: Mapping[str, str] | None = None
) -> None: ...
def load_safetensors(file: _File, *, return_metadata: bool = False) -> Any: ...
