"""``mf.zarr``: the module ``import minifloat.zarr`` and ``from minifloat.zarr
import to_zarr`` load (needs zarr). Its functions and data types live in
``minifloat._zarr``, the name zarr's entry points and dask's workers use."""
from . import _zarr
from ._zarr import *  # noqa: F401,F403 (the module's API is _zarr's)
from ._zarr import __all__  # noqa: F401

__doc__ = _zarr.__doc__


def __dir__():
    """The module's API: its imports are not part of it."""
    return sorted(__all__)
