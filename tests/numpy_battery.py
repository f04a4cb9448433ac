"""The NumPy battery: the NumPy calls a user makes on float16-like arrays, run
on every minifloat format and on np.float16 (the baseline, twice: with
minifloat imported, and in a process that never imports it, since minifloat
guards two NumPy functions and --patched wraps more), each in its own subprocess so that a call which
crashes the interpreter is recorded, not fatal. A format's score counts the
calls that work on float16 (either run).

A case is one line of Python run in a fresh namespace holding

    a, b    1-D arrays of 8 values of the format (exact in every format; the
            float8_e8m0fnu ones are powers of two, that format has nothing else)
    x       a.copy(), for the calls that write into an array
    m       a 4x4 symmetric, diagonally dominant matrix (positive definite,
            well conditioned, exact in every format)
    s       a scalar of the format (a[3], 2.0); z the same as a 0-d array
    an      a with a NaN at index 2 (whatever NaN casts to where there is none)
    asort   the sorted values of a
    f32     a's values as float32; i8 = np.arange(8); idx = [0, 2, 5];
            mask = a boolean array of 8
    dt      the dtype; DT its class; st its scalar type; udt the unsigned
            integer dtype of the same width; fmt the format's name
    tmp     an empty temporary directory
    np, mf (minifloat), copy, pickle, io, os, sys, json, math, operator,
    ctypes, Fraction, Decimal

An expression's value is the case's result; a case made of statements leaves
its result in `r`. A case *works* when it raises nothing and its result (an
array, scalar or dtype, or a tuple/list/dict of them) has no raw void ('V')
dtype: an array silently turned into raw bytes is a failure. (Some cases
assert more, where float16 keeps its dtype: pickle, np.save, np.vectorize...)
The report also lists the working cases whose result types differ from
float16's (informational: some are promotions, some silent changes).

The catalogue must cover every public np.ndarray name, every ndarray dunder
that means something for an array, the float16 scalar's own names and every
ufunc in the numpy namespace (coverage_gaps()): a NumPy release that adds one
fails the test until it has a case.

    python tests/numpy_battery.py                 # the table, every format
    python tests/numpy_battery.py --json out.json # also every result, as JSON
    python tests/numpy_battery.py --formats float8_e4m3fn,bfloat16
    python tests/numpy_battery.py --patched       # with mf.patch_numpy()
    python tests/numpy_battery.py --print-known-failures   # the test's table
    python tests/numpy_battery.py --list          # the cases

Each format's cases run in one subprocess (faulthandler on, warnings
ignored) that prints one JSON line when a case starts and one when it ends;
when the subprocess dies (signal, non-zero exit) or a case runs longer than
CASE_TIMEOUT seconds, the case that started last is recorded as a crash (or a
hang) and a new subprocess goes on from the next case.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor

BASELINE = "float16"
# float16 in a process that never imports minifloat: what minifloat's import
# changes in NumPy (it wraps a few functions) must not break float16.
BASELINE_ALONE = "float16-without-minifloat"
CASE_TIMEOUT = 20.0

# The values of a and b: exact in every format (FP4 holds 0.5 1 1.5 2 3 4 6,
# float8_e3m4 reaches 15.5, float8_e4m3b11fnuz 30) except float8_e8m0fnu,
# which holds powers of two only and gets its own.
A_VALUES = [0.5, 1.0, 1.5, 2.0, 3.0, 1.0, 4.0, 6.0]
B_VALUES = [1.0, 2.0, 0.5, 4.0, 1.5, 2.0, 3.0, 1.0]
A_VALUES_POW2 = [0.5, 1.0, 0.25, 2.0, 8.0, 1.0, 4.0, 16.0]
B_VALUES_POW2 = [1.0, 2.0, 0.5, 4.0, 2.0, 2.0, 0.25, 1.0]
M_VALUES = [[4.0, 1.0, 0.5, 0.5],
            [1.0, 4.0, 1.0, 0.5],
            [0.5, 1.0, 4.0, 1.0],
            [0.5, 0.5, 1.0, 4.0]]
MASK = [True, False, True, False, True, True, False, False]

# NumPy types every format is cast to and from.
NUMPY_TYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32",
               "int64", "uint64", "float16", "float32", "float64", "longdouble",
               "complex64", "complex128", "clongdouble", "object", "U16", "S16"]

# ---------------------------------------------------------------------------
# The catalogue. One case per line: "call" (named by itself) or
# "name => call". "## title" starts a section.
# ---------------------------------------------------------------------------
_CATALOGUE = r"""
## ndarray attributes
a.T
m.T
a.base
a[1:].base
a.ctypes.data
a.ctypes.data_as(ctypes.c_void_p)
a.data.nbytes
a.device
a.dtype
a.flags.c_contiguous
m.T.flags.f_contiguous
a.flat[3]
a.flat[2:5]
list(a.flat)
x.flat = 2.0 => x.flat = 2.0; r = x
x.flat[[1, 3]] = s => x.flat[[1, 3]] = s; r = x
a.imag
a.real
x.real = 2.0 => x.real = 2.0; r = x
a.itemsize
m.mT
a.nbytes
a.ndim
a.shape
a.size
a.strides
x.shape = (2, 4) => x.shape = (2, 4); r = x
x.flags.writeable = False => x.flags.writeable = False; r = x

## ndarray methods
a.all()
m.all(axis=0)
a.any()
m.any(axis=1)
a.argmax()
m.argmax(axis=1)
an.argmax()
a.argmin()
m.argmin(axis=0)
a.argpartition(3)
a.argsort()
a.argsort(kind='stable')
m.argsort(axis=0)
an.argsort()
a.byteswap()
a.byteswap(inplace=True)
np.ndarray.byteswap(a)
m.byteswap()
mask.choose([a, b])
a.clip(1, 3)
a.clip(max=2)
a.clip(1.0, s)
a.clip(b[0], b[1])
a.compress(mask)
m.compress([True, False, True, True], axis=0)
a.conj()
a.conjugate()
a.copy()
m.copy(order='F')
a.cumprod()
a.cumsum()
m.cumsum(axis=0)
a.cumsum(dtype=np.float32)
m.diagonal()
m.diagonal(1)
a.dot(b)
m.dot(m)
m.dot(a[:4])
a.dump(path) => p = os.path.join(tmp, 'd.pkl'); a.dump(p); r = np.load(p, allow_pickle=True); assert r.dtype == dt
pickle.loads(a.dumps()) => r = pickle.loads(a.dumps()); assert r.dtype == dt
x.fill(2.0) => x.fill(2.0); r = x
x.fill(s) => x.fill(s); r = x
x.fill(np.float32(1)) => x.fill(np.float32(1)); r = x
x.fill(1) => x.fill(1); r = x
m.flatten()
m.flatten('F')
a.getfield(dt)
a.getfield(np.uint8)
a.item(2)
a[:1].item()
m.item(1, 2)
a.max()
m.max(axis=0)
a.max(initial=1.0)
a.max(where=mask, initial=0.5)
an.max()
a.mean()
m.mean(axis=0)
a.mean(dtype=np.float32)
m.mean(axis=1, keepdims=True)
a.min()
m.min(axis=1)
a.nonzero()
x.partition(3) => x.partition(3); r = x
a.prod()
m.prod(axis=0)
a.prod(dtype=np.float32)
x.put([0, 2], [5.0, 0.5]) => x.put([0, 2], [5.0, 0.5]); r = x
x.put(1, s) => x.put(1, s); r = x
x.put([1, 30], [2.0, 3.0], mode='clip') => x.put([1, 30], [2.0, 3.0], mode='clip'); r = x
m.ravel()
m.ravel('F')
a.repeat(2)
m.repeat(2, axis=0)
a.reshape(2, 4)
a.reshape(-1, 2, order='F')
x.resize(10, refcheck=False) => x.resize(10, refcheck=False); r = x
x.resize((2, 4)) => x.resize((2, 4)); r = x
a.round()
a.round(1)
m.round(2)
asort.searchsorted(2.0)
asort.searchsorted(b)
asort.searchsorted(s, side='right')
a.searchsorted(2.0, sorter=a.argsort())
x.setfield(2.0, dt) => x.setfield(2.0, dt); r = x
x.setflags(write=False) => x.setflags(write=False); r = x
x.sort() => x.sort(); r = x
x.sort(kind='stable') => x.sort(kind='stable'); r = x
m.sort(axis=0) => y = m.copy(); y.sort(axis=0); r = y
an.sort() => y = an.copy(); y.sort(); r = y
a.squeeze()
a.reshape(1, 8).squeeze()
a.std()
a.std(ddof=1)
m.std(axis=0)
a.sum()
m.sum(axis=0)
m.sum(axis=1, keepdims=True)
a.sum(dtype=np.float32)
a.sum(dtype=np.float64)
a.sum(initial=1.0)
a.sum(where=mask)
m.sum(axis=0, out=np.empty(4, dt))
m.swapaxes(0, 1)
a.take([1, 3])
a.take([1, 30], mode='clip')
m.take([0, 2], axis=1)
a.to_device('cpu')
a.tobytes()
np.frombuffer(a.tobytes(), dt) => r = np.frombuffer(a.tobytes(), dt); assert r.dtype == dt and r.tobytes() == a.tobytes()
a.tofile(path); np.fromfile(path, dt) => p = os.path.join(tmp, 'a.bin'); a.tofile(p); r = np.fromfile(p, dtype=dt); assert r.tobytes() == a.tobytes()
a.tofile(path, sep=',') => p = os.path.join(tmp, 'a.txt'); a.tofile(p, sep=','); r = np.fromfile(p, dtype=dt, sep=','); assert r.tobytes() == a.tobytes()
a.tolist()
m.tolist()
m.trace()
m.transpose()
m.transpose(1, 0)
a.var()
a.var(ddof=1)
m.var(axis=1)
a.view(np.uint8)
a.view(udt)
a.view(dt)
a.view(a.dtype.newbyteorder()) => r = a.view(a.dtype.newbyteorder()); assert r.dtype.itemsize == dt.itemsize
a.view(np.ndarray)
a.view(np.ma.MaskedArray)
a.view(type=np.matrix)

## ndarray protocols and operators
a + b
a - b
a * b
a / b
a // b
a % b
divmod(a, b)
a ** 2
a ** b
a @ b
m @ m
m @ a[:4]
a & b
a | b
a ^ b
a << 1
a >> 1
~a
-a
+a
abs(a)
a == b
a != b
a < b
a <= b
a > b
a >= b
a + 1
a + 1.5
1 + a
2.5 - a
2.0 / a
3 // a
5 % a
divmod(5, a)
2 ** a
1 & a
1 | a
1 ^ a
1 << a
1 >> a
b.tolist() @ a
a.__rmatmul__(b)
a * True
a + np.float16(1)
a + np.float32(1)
a + np.float64(1)
a + np.int8(1)
a + f32
a + i8
a + a.astype(np.float16)
a + [1.0] * 8
a + 1j
a > 1.0
a == 2
a < np.float32(2)
x += b => x += b; r = x
x -= 1 => x -= 1; r = x
x *= 2.0 => x *= 2.0; r = x
x /= b => x /= b; r = x
x //= 2 => x //= 2; r = x
x %= 2 => x %= 2; r = x
x **= 2 => x **= 2; r = x
x @= m => y = m.copy(); y @= m; r = y
x &= 1 => x &= 1; r = x
x |= 1 => x |= 1; r = x
x ^= 1 => x ^= 1; r = x
x <<= 1 => x <<= 1; r = x
x >>= 1 => x >>= 1; r = x
x += f32 => x += f32; r = x
x += i8 => x += i8; r = x
bool(z)
float(z)
int(z)
complex(z)
operator.index(z)
z.item()
z + 1
z[()]
z[...]
len(a)
2.0 in a
list(a)
[float(v) for v in a]
list(m)
a[2]
a[-1]
a[1:6:2]
a[::-1]
a[[0, 3]]
a[mask]
a[a > 1.5]
a[None]
a[...]
m[1]
m[:, 1]
m[1, 2]
m[[0, 1], [1, 2]]
m[m > 1]
x[0] = 3.0 => x[0] = 3.0; r = x
x[:] = 0.5 => x[:] = 0.5; r = x
x[mask] = s => x[mask] = s; r = x
x[[1, 2]] = [1.0, 2.0] => x[[1, 2]] = [1.0, 2.0]; r = x
x[0] = np.float32(1.5) => x[0] = np.float32(1.5); r = x
x[0] = np.float64(1.5) => x[0] = np.float64(1.5); r = x
x[0] = np.float16(1.5) => x[0] = np.float16(1.5); r = x
x[0] = 1 => x[0] = 1; r = x
x[0] = np.int64(2) => x[0] = np.int64(2); r = x
x[0] = True => x[0] = True; r = x
x[0] = '1.5' => x[0] = '1.5'; r = x
x[0] = b'1.5' => x[0] = b'1.5'; r = x
x[0] = Fraction(1, 2) => x[0] = Fraction(1, 2); r = x
x[0] = Decimal('1.5') => x[0] = Decimal('1.5'); r = x
x[0] = s => x[0] = s; r = x
x[:] = b => x[:] = b; r = x
x[:] = f32 => x[:] = f32; r = x
x[:] = i8 => x[:] = i8; r = x
x[:] = b.astype(object) => x[:] = b.astype(object); r = x
x[2:4] = a[:2] => x[2:4] = a[:2]; r = x
x[...] = 1.0 => x[...] = 1.0; r = x
del x[0] => del x[0]; r = x
copy.copy(a)
copy.deepcopy(a) => r = copy.deepcopy(a); assert r.dtype == dt
pickle round trip => r = pickle.loads(pickle.dumps(a)); assert r.dtype == dt and r.tobytes() == a.tobytes()
pickle round trip, protocol 5 => r = pickle.loads(pickle.dumps(a, protocol=5)); assert r.dtype == dt
pickle round trip of m.T => r = pickle.loads(pickle.dumps(m.T)); assert r.dtype == dt
a.__reduce__()
a.__reduce_ex__(5)
a.__getstate__()
x.__setstate__(b.__reduce__()[2]) => x.__setstate__(b.__reduce__()[2]); r = x
a.__array__()
a.__array__(np.float32)
a.__array_finalize__(b) => r = a.__array_finalize__(b)
a.__array_function__ => r = a.__array_function__(np.sum, (np.ndarray,), (a,), {})
a.__array_ufunc__ => r = a.__array_ufunc__(np.add, '__call__', a, b)
a.__array_wrap__(b)
a.__array_priority__
a.__array_namespace__().sum(a)
np.ndarray[tuple, np.dtype] => r = np.ndarray[tuple, np.dtype]
__array_interface__ round trip => W = type('W', (), {'__array_interface__': a.__array_interface__}); r = np.asarray(W()); assert r.dtype == dt
__array_struct__ round trip => W = type('W', (), {'__array_struct__': a.__array_struct__}); r = np.asarray(W()); assert r.dtype == dt
memoryview(a) => r = np.asarray(memoryview(a)); assert r.dtype == dt
np.from_dlpack(a) => r = np.from_dlpack(a); assert r.dtype == dt
a.__dlpack_device__()
format(a)
'{}'.format(a)
sys.getsizeof(a)
str(a)
repr(a)
str(m)
repr(m)
repr(an)
eval(repr(a)) => ns = {'array': np.array, 'float16': np.float16, 'nan': np.nan, 'inf': np.inf}; ns.update({n: getattr(mf, n) for n in mf.FORMAT_NAMES}); r = eval(repr(a), ns); assert r.dtype == dt and r.tobytes() == a.tobytes()
type(a)
np.ndarray((3,), dt)
np.ndarray((8,), dt, buffer=a.tobytes())
subclass view => Sub = type('Sub', (np.ndarray,), {}); r = a.view(Sub) + 1

## astype to NumPy types
{astype_numpy}

## astype to the formats
{astype_formats}

## casts from NumPy types
{cast_from_numpy}

## scalars
s.T
s.all()
s.any()
s.argmax()
s.argmin()
s.argsort()
s.as_integer_ratio()
s.astype(np.float32)
s.astype(dt)
s.base
s.byteswap()
s.choose([s, s])
s.clip(0.5, 1)
s.compress([True])
s.conj()
s.conjugate()
s.copy()
s.cumprod()
s.cumsum()
s.data
s.device
s.diagonal()
s.dtype
s.dump(path) => p = os.path.join(tmp, 's.pkl'); s.dump(p); r = np.load(p, allow_pickle=True)
s.dumps()
s.fill(1.0)
s.flags
s.flat
s.flatten()
s.getfield(dt)
s.imag
s.is_integer()
s.item()
s.itemsize
s.max()
s.mean()
s.min()
s.nbytes
s.ndim
s.nonzero()
s.prod()
s.put(0, 1.0)
s.ravel()
s.real
s.repeat(2)
s.reshape(1)
s.resize(1)
s.round()
s.round(1)
s.searchsorted(1.0)
s.setfield(1.0, dt)
s.setflags(write=False)
s.shape
s.size
s.sort()
s.squeeze()
s.std()
s.strides
s.sum()
s.swapaxes(0, 0)
s.take(0)
s.to_device('cpu')
s.tobytes()
s.tofile(path) => p = os.path.join(tmp, 's.bin'); s.tofile(p); r = np.fromfile(p, dtype=dt)
s.tolist()
s.trace()
s.transpose()
s.var()
s.view(dt)
s.view(udt)
s.__round__()
round(s)
round(s, 1)
s.__array__()
s.__reduce__()
s.__array_interface__
s.__array_struct__
s.__array_priority__
s.__array_wrap__(a[:1])
float(s)
int(s)
complex(s)
bool(s)
hash(s)
hash(s) == hash(2.0)
operator.index(s)
s + s
s + 1
1 + s
s + 1.5
s - 0.5
s * np.float32(2)
s * np.float64(2)
s * np.int32(2)
s / 2
s / s
s // 1.5
s % 1.5
divmod(s, 1.5)
s ** 2
2 ** s
-s
+s
abs(s)
s == 2
s != 2
s < 3
s <= s
s > 1.0
s >= np.float32(2)
s + a
s * m
math.floor(s)
math.ceil(s)
math.trunc(s)
math.isnan(s)
math.isclose(s, 2.0)
math.sqrt(s)
str(s)
repr(s)
format(s)
format(s, '.2f')
f'{s:g}'
f'{s:e}'
f'{s!r}'
'%s' % s
'%f' % s
'%.3g' % s
st(2.5)
st('1.5')
st(b'1.5')
st(np.float32(1))
st(np.float64(1))
st(np.int16(3))
st(True)
st(Fraction(1, 2))
st(Decimal('1.5'))
st()
st(a)
st([1.0, 2.0])
st.__name__
st.__module__
issubclass(st, np.floating)
isinstance(s, np.generic)
pickle round trip of a scalar => r = pickle.loads(pickle.dumps(s)); assert type(r) is type(s) and r == s
copy.deepcopy(s)
copy.copy(s)
np.array(s)
np.asarray([s, s]) => r = np.asarray([s, s]); assert r.dtype == dt
np.array([s, 1.0])
np.array([[s]])
s.tolist() is a Python float => r = s.tolist(); assert type(r) is float
json.dumps(float(s))
json.dumps(s.item())
json.dumps(a.tolist())
json.dumps(m.tolist())
np.float32(s)
np.float64(s)
np.float16(s)
np.int32(s)
a[0].view(udt)
np.sqrt(s)
np.add(s, s)
np.isnan(s)
np.maximum(s, 1.0)
np.nextafter(s, 10)

## dtype objects
dt.name
dt.char
dt.kind
dt.str
dt.descr
dt.itemsize
dt.alignment
dt.byteorder
dt.isnative
dt.names
dt.fields
dt.hasobject
dt.flags
dt.num
dt.metadata
dt.shape
dt.subdtype
dt.base
dt.isbuiltin
dt.type
dt.newbyteorder()
dt.newbyteorder('=')
str(dt)
repr(dt)
hash(dt)
np.dtype(dt.name) => r = np.dtype(dt.name); assert r == dt
np.dtype(str(dt)) => r = np.dtype(str(dt)); assert r == dt
np.dtype(dt.str) => r = np.dtype(dt.str); assert r == dt
np.dtype(dt.descr) => r = np.dtype(dt.descr); assert r == dt
np.dtype(dt.type) => r = np.dtype(dt.type); assert r == dt
np.dtype(dt.char) => r = np.dtype(dt.char); assert r == dt
dt == np.dtype(dt.name)
pickle round trip of the dtype => r = pickle.loads(pickle.dumps(dt)); assert r == dt
copy.deepcopy(dt)
np.dtype([('x', dt), ('y', 'i4')])
np.zeros(3, dtype=[('x', dt), ('y', 'i4')])['x']
np.array([(1.5, 2)], dtype=[('x', dt), ('y', 'i4')])
structured repr => r = repr(np.array([(1.5, 2)], dtype=[('x', dt), ('y', 'i4')]))
structured pickle => y = np.array([(1.5, 2)], dtype=[('x', dt), ('y', 'i4')]); r = pickle.loads(pickle.dumps(y)); assert r.dtype == y.dtype
np.zeros(2, (dt, (3,)))
np.dtype((dt, (2,)))
np.rec.fromarrays([a, b])
np.issubdtype(dt, np.floating)
np.issubdtype(dt, np.inexact)
np.issubdtype(dt, np.number)
np.isdtype(dt, 'real floating')
np.isdtype(dt, 'numeric')
np.finfo(dt)
np.finfo(st)
np.finfo(s)
np.finfo(a.dtype)
np.finfo(dt).eps
np.finfo(dt).max
np.finfo(dt).min
np.finfo(dt).tiny
np.finfo(dt).smallest_normal
np.finfo(dt).smallest_subnormal
np.finfo(dt).resolution
np.finfo(dt).epsneg
np.finfo(dt).bits
np.finfo(dt).precision
np.finfo(dt).nmant
np.finfo(dt).nexp
np.finfo(dt).maxexp
np.finfo(dt).minexp
np.finfo(dt).machep
np.finfo(dt).negep
np.finfo(dt).iexp
np.finfo(dt).dtype
str(np.finfo(dt))
repr(np.finfo(dt))
np.iinfo(dt)
np.result_type(a, 1.0)
np.result_type(a, 1)
np.result_type(dt, np.float32)
np.result_type(a, b)
np.result_type(a, np.int8)
np.promote_types(dt, np.float32)
np.promote_types(dt, np.float64)
np.promote_types(dt, np.int8)
np.promote_types(dt, np.uint8)
np.promote_types(dt, dt)
np.can_cast(dt, np.float32)
np.can_cast(np.float32, dt)
np.can_cast(dt, dt, 'same_kind')
np.can_cast(dt, np.int8, 'unsafe')
np.can_cast(s, np.float32)
np.min_scalar_type(s)
np.common_type(a)
np.common_type(a, f32)
np.obj2sctype(dt) => r = np.dtype(dt).type
np.typename(dt.char)
np.mintypecode([dt.char])

## array creation
np.zeros(8, dt)
np.zeros((2, 3), dtype=dt)
np.zeros((), dt)
np.ones(8, dt)
np.ones((2, 2), dt, order='F')
np.empty(8, dt)
np.empty((0,), dt)
np.full(8, 1.5, dt)
np.full(8, s)
np.full((2, 2), np.nan, dt)
np.full(3, np.float32(2), dt)
np.zeros_like(a)
np.ones_like(a)
np.empty_like(a)
np.full_like(a, 2)
np.full_like(a, 0.5, dtype=dt)
np.zeros_like(f32, dtype=dt)
np.ones_like(a, dtype=np.float32)
np.arange(8, dtype=dt)
np.arange(0.5, 4, 0.5, dtype=dt)
np.arange(1, 4, dtype=dt)
np.linspace(0.5, 4, 8, dtype=dt)
np.linspace(1, 2, 5, dtype=dt, endpoint=False)
np.linspace(a[:2], b[:2], 3)
np.logspace(0, 2, 3, base=2, dtype=dt)
np.geomspace(1, 4, 3, dtype=dt)
np.eye(3, dtype=dt)
np.eye(3, 4, k=1, dtype=dt)
np.identity(3, dtype=dt)
np.tri(3, dtype=dt)
np.array([1, 2.5, 3], dtype=dt)
np.array([[1, 2], [3, 4]], dtype=dt)
np.array(['1.5', '2'], dtype=dt)
np.array([b'1.5', b'2'], dtype=dt)
np.array([Fraction(1, 2), Decimal('1.5')], dtype=dt)
np.array([1, 2], dtype=object).astype(dt)
np.array([np.float32(1), 2], dtype=dt)
np.array(1.5, dtype=dt)
np.array([True, False], dtype=dt)
np.array([1 + 0j]).astype(dt)
np.array(range(4), dtype=dt)
np.array([a, b])
np.array([a, f32])
np.array(a, dtype=np.float32)
np.array(a, copy=True)
np.array(a, ndmin=2)
np.array(a.tolist(), dtype=dt)
np.array(dt.name) is not a dtype => r = np.zeros(2, dtype=dt.name)
np.zeros(2, dtype=fmt string) => r = np.zeros(2, dtype=str(dt)); assert r.dtype == dt
np.asarray(a)
np.asarray(a, dtype=np.float32)
np.asarray([1, 2], dtype=dt)
np.asarray(a, dtype=dt)
np.asanyarray(a)
np.ascontiguousarray(m.T)
np.asfortranarray(m)
np.require(a, requirements='F')
np.require(a, dtype=np.float32)
np.copy(a)
np.frombuffer(bytes(8 * dt.itemsize), dt)
np.frombuffer(a, dtype=dt) => r = np.frombuffer(bytearray(a.tobytes()), dtype=dt)
np.fromiter(iter([1.0, 2.0]), dtype=dt)
np.fromiter((v for v in a), dtype=dt, count=4)
np.fromfunction(lambda i: i + 1, (4,), dtype=dt)
np.fromstring('1 2', dtype=dt, sep=' ')
np.diag(a)
np.diagflat(a[:3])
np.vander(a[:3])
np.vander(a[:3], 4, increasing=True)
np.meshgrid(a[:3], b[:2])
np.meshgrid(a[:2], b[:2], indexing='ij')
np.broadcast_to(a, (2, 8))
np.broadcast_to(s, (3,))
np.broadcast_arrays(a[:4], m[:, :1])
np.tile(a, 2)
np.tile(m, (2, 1))
np.atleast_1d(s)
np.atleast_2d(a)
np.atleast_3d(a)
np.empty((2, 0), dt)
np.array([], dtype=dt)
np.random.default_rng(0).random(3, dtype=dt)

## manipulation
np.concatenate([a, b])
np.concatenate([a, f32])
np.concatenate([a, i8])
np.concatenate([a, b], dtype=np.float32)
np.concatenate([m, m], axis=1)
np.concatenate([a, b], axis=None)
np.stack([a, b])
np.stack([a, b], axis=1)
np.vstack([a, b])
np.hstack([a, b])
np.dstack([a, b])
np.column_stack([a, b])
np.block([[m, m]])
np.split(a, 2)
np.array_split(a, 3)
np.hsplit(a, 4)
np.vsplit(m, 2)
np.where(mask, a, b)
np.where(mask, a, 0.0)
np.where(mask, a, np.float32(0))
np.where(mask, a, s)
np.where(a > 1.5)
np.place => np.place(x, mask, [9.0]); r = x
np.put => np.put(x, [0], [2.0]); r = x
np.putmask => np.putmask(x, mask, b); r = x
np.putmask(x, mask, 1.0) => np.putmask(x, mask, 1.0); r = x
np.take(a, [0, 1])
np.take(m, [0, 3], axis=0)
np.take_along_axis(m, np.argsort(m, axis=1), axis=1)
np.put_along_axis => y = m.copy(); np.put_along_axis(y, np.array([[0], [1], [2], [3]]), 2.0, axis=1); r = y
np.choose([0, 1, 0, 1], [a[:4], b[:4]])
np.select([mask], [a], default=1.0)
np.select([mask, ~mask], [a, b])
np.pad(a, 2)
np.pad(a, 1, mode='edge')
np.pad(a, 2, mode='reflect')
np.pad(a, 1, mode='constant', constant_values=1.5)
np.pad(a, 2, mode='linear_ramp')
np.pad(a, 2, mode='mean')
np.pad(a, 2, mode='wrap')
np.pad(m, 1)
np.roll(a, 2)
np.roll(m, 1, axis=0)
np.flip(a)
np.fliplr(m)
np.flipud(m)
np.rot90(m)
np.repeat(a, 2)
np.repeat(a, i8 % 3)
np.insert(a, 1, 5.0)
np.insert(a, [1, 3], b[:2])
np.delete(a, [0, 1])
np.append(a, 1.0)
np.append(a, b)
np.append(a, f32)
np.resize(a, 10)
np.trim_zeros(a)
np.ediff1d(a)
np.extract(mask, a)
np.compress(mask, a)
np.expand_dims(a, 0)
np.squeeze(a[None])
np.moveaxis(m, 0, 1)
np.swapaxes(m, 0, 1)
np.rollaxis(m, 1)
np.transpose(m)
np.ravel(m)
np.reshape(a, (4, 2))
np.unique(a)
np.unique(a, return_counts=True)
np.unique(a, return_index=True)
np.unique(a, return_inverse=True)
np.unique(m, axis=0)
np.unique(an)
np.unique(an, equal_nan=False)
np.unique_values(a)
np.unique_counts(a)
np.unique_inverse(a)
np.unique_all(a)
np.sort(a)
np.sort(m, axis=None)
np.sort(a, kind='stable')
np.sort(a, kind='heapsort')
np.sort(an)
np.sort(m, axis=0)
np.argsort(a)
np.argsort(a, stable=True)
np.lexsort((a, b))
np.partition(a, 3)
np.partition(m, 1, axis=0)
np.argpartition(a, 3)
np.searchsorted(asort, b)
np.searchsorted(asort, 2.0, side='right')
np.nonzero(a)
np.flatnonzero(a)
np.argwhere(a)
np.count_nonzero(a)
np.count_nonzero(m, axis=0)
np.isin(a, b)
np.isin(a, [1.0, 2.0])
np.isin(a, b, kind='sort')
np.intersect1d(a, b)
np.intersect1d(a, b, return_indices=True)
np.union1d(a, b)
np.setdiff1d(a, b)
np.setxor1d(a, b)
np.clip(a, 1, 3)
np.clip(a, b, 4)
np.clip(a, 1, None)
np.clip(a, s, 4, out=x)
np.round(a, 1)
np.round(a)
np.around(a)
np.round(s, 1)
np.fix(a)
np.copyto => np.copyto(x, b); r = x
np.copyto(x, f32, casting='unsafe') => np.copyto(x, f32, casting='unsafe'); r = x
np.copyto(x, 1.0) => np.copyto(x, 1.0); r = x
np.copyto(x, b, where=mask) => np.copyto(x, b, where=mask); r = x
np.copyto(f32 copy, a) => y = f32.copy(); np.copyto(y, a); r = y
np.fill_diagonal => y = m.copy(); np.fill_diagonal(y, 2.0); r = y
np.diag(m)
np.diag(m, 1)
np.diagonal(m)
np.triu(m)
np.tril(m, -1)
np.trace(m)
np.trace(m, dtype=np.float32)
np.shape(a)
np.size(m)
np.ndim(s)
np.iterable(a)
np.real(a)
np.imag(a)
np.conj(a)
np.real_if_close(a)
np.isreal(a)
np.iscomplex(a)
np.isrealobj(a)
np.iscomplexobj(a)
np.isscalar(s)
np.may_share_memory(a, a[1:])
np.shares_memory(a, a[1:])
np.sort_complex(a)
[v for v in np.nditer(a)]
np.nditer(a, flags=['buffered'], op_dtypes=[np.float32]) => r = [float(v) for v in np.nditer(a, flags=['buffered'], op_dtypes=[np.float32], casting='safe')]
np.nditer(x, op_flags=['readwrite']) => it = np.nditer(x, op_flags=['readwrite'])
list(np.ndenumerate(a))
np.lib.stride_tricks.sliding_window_view(a, 3)
np.lib.stride_tricks.sliding_window_view(m, (2, 2))
np.lib.stride_tricks.as_strided(a, shape=(4,), strides=(2 * a.strides[0],))
np.random.default_rng(0).choice(a, 3)
np.random.default_rng(0).permutation(a)
rng.shuffle(x) => np.random.default_rng(0).shuffle(x); r = x
np.random.shuffle(x) => np.random.shuffle(x); r = x
np.random.choice(a, 3)

## ufuncs
{ufuncs}
np.add(a, b, out=x) => np.add(a, b, out=x); r = x
np.add(a, b, dtype=np.float32)
np.add(a, b, dtype=dt)
np.add(a, b, dtype=DT)
np.add(a, b, signature=(dt, dt, dt))
np.add(a, b, casting='no')
np.add(a, 1.0, where=mask, out=x) => np.add(a, 1.0, where=mask, out=x); r = x
np.multiply(a, f32)
np.multiply(a, 2, out=f32.copy())
np.sqrt(a, out=x) => np.sqrt(a, out=x); r = x
np.sqrt(a, dtype=np.float32)
np.sqrt(a[::2])
np.sqrt(a[::-1])
np.exp(m.T)
np.add(a[::2], b[::2])
np.add(m, a[:4])
np.add(m.T, m)
np.negative(a, out=f32.copy())
np.maximum(a, 0)
np.maximum(a, np.nan)
np.minimum(a, s)
np.isnan(an)
np.isfinite(an)
np.copysign(a, -1.0)
np.copysign(a, -b)
np.nextafter(a, 0)
np.ldexp(a, i8 % 3)
np.frexp(s)
np.power(a, 0.5)
np.heaviside(a, 0.5)
np.isposinf(a)
np.isneginf(a)

## ufunc methods
np.add.reduce(a)
np.add.reduce(m, axis=0)
np.add.reduce(a, dtype=np.float32)
np.add.reduce(a, initial=1.0)
np.add.reduce(a, where=mask)
np.add.reduce(m, axis=None)
np.add.accumulate(a)
np.add.accumulate(m, axis=1)
np.add.outer(a[:3], b[:3])
np.add.at => np.add.at(x, [0, 0, 1], 1.0); r = x
np.add.at(x, idx, b[:3]) => np.add.at(x, idx, b[:3]); r = x
np.add.reduceat(a, [0, 4])
np.multiply.reduce(a)
np.multiply.accumulate(a)
np.multiply.outer(a[:3], b[:3])
np.multiply.at => np.multiply.at(x, [1, 1], 2.0); r = x
np.multiply.reduceat(a, [0, 2, 6])
np.subtract.outer(a[:3], b[:3])
np.subtract.reduce(a)
np.subtract.accumulate(a)
np.divide.reduce(a)
np.maximum.reduce(a)
np.maximum.reduce(m, axis=1)
np.maximum.accumulate(a)
np.maximum.at => np.maximum.at(x, [0], 5.0); r = x
np.maximum.reduceat(a, [0, 4])
np.minimum.reduce(a)
np.minimum.accumulate(a)
np.minimum.at => np.minimum.at(x, [7], 0.5); r = x
np.fmax.reduce(an)
np.fmin.reduce(an)
np.negative.at => np.negative.at(x, [0]); r = x
np.sqrt.at => np.sqrt.at(x, [1, 3]); r = x
np.logaddexp.reduce(a)
np.hypot.reduce(a)
np.logical_and.reduce(a)
np.logical_or.accumulate(a)
np.equal.outer(a[:3], b[:3])
np.add.reduce(a, keepdims=True)
np.add.reduce(a, out=np.empty((), dt))

## reductions and statistics
np.sum(a)
np.sum(m, axis=0)
np.sum(m, axis=1, keepdims=True)
np.sum(a, dtype=np.float32)
np.sum(a, dtype=dt)
np.sum(a, initial=1.0)
np.sum(a, where=mask)
np.sum(m, axis=0, out=np.empty(4, dt))
np.sum(a > 1)
np.prod(a)
np.prod(m, axis=1)
np.mean(a)
np.mean(m, axis=0)
np.mean(a, dtype=np.float64)
np.mean(a, where=mask)
np.std(a)
np.std(a, ddof=1)
np.std(m, axis=0)
np.var(a)
np.var(m, axis=1)
np.min(a)
np.max(a)
np.amin(m, axis=0)
np.amax(m, axis=1)
np.argmin(a)
np.argmax(m, axis=0)
np.argmax(a, keepdims=True)
np.ptp(a)
np.ptp(m, axis=0)
np.median(a)
np.median(m, axis=0)
np.percentile(a, 50)
np.percentile(a, [25, 75])
np.percentile(a, 50, method='nearest')
np.percentile(a, 40, method='linear')
np.quantile(a, 0.5)
np.quantile(m, [0.25, 0.5], axis=0)
np.average(a)
np.average(a, weights=b)
np.average(a, weights=b, returned=True)
np.average(m, axis=0, weights=a[:4])
np.cumsum(a)
np.cumsum(m, axis=1)
np.cumprod(a)
np.cumulative_sum(a)
np.cumulative_sum(a, include_initial=True)
np.cumulative_prod(a)
np.nansum(an)
np.nanprod(an)
np.nanmean(an)
np.nanstd(an)
np.nanvar(an)
np.nanmin(an)
np.nanmax(an)
np.nanargmin(an)
np.nanargmax(an)
np.nanmedian(an)
np.nanpercentile(an, 50)
np.nanquantile(an, 0.5)
np.nancumsum(an)
np.nancumprod(an)
np.nansum(a)
np.nanmean(m, axis=0)
np.all(a)
np.any(a > 5)
np.all(m, axis=0)
np.cov(a, b)
np.cov(m)
np.corrcoef(a, b)
np.histogram(a)
np.histogram(a, bins=4, weights=b)
np.histogram(a, bins='auto')
np.histogram(a, bins=3, density=True)
np.histogram(a, bins=4, range=(0, 8))
np.histogram(f32, bins=a[:4] sorted) => r = np.histogram(f32, bins=np.sort(a[:4]))
np.histogram_bin_edges(a, bins=3)
np.histogram2d(a, b, bins=2)
np.histogramdd(np.stack([a, b], 1), bins=2)
np.bincount(i8 % 3, weights=a)
np.digitize(a, [1, 2, 4])
np.digitize(2.0, asort)
np.digitize(a, asort, right=True)

## comparisons and testing
np.allclose(a, b)
np.allclose(a, a)
np.allclose(a, f32)
np.isclose(a, b)
np.isclose(a, 1.0)
np.isclose(an, an, equal_nan=True)
np.array_equal(a, a)
np.array_equal(an, an, equal_nan=True)
np.array_equal(a, f32)
np.array_equiv(a, a)
np.array_equiv(m, m[0])
np.testing.assert_allclose(a, a)
np.testing.assert_allclose(a, f32)
np.testing.assert_allclose(a, a, rtol=0.1)
np.testing.assert_allclose(an, an)
np.testing.assert_array_equal(a, a)
np.testing.assert_array_equal(a, f32)
np.testing.assert_array_equal(an, an)
np.testing.assert_array_almost_equal(a, a)
np.testing.assert_array_almost_equal(a, f32, decimal=2)
np.testing.assert_almost_equal(s, 2.0)
np.testing.assert_approx_equal(s, 2.0)
np.testing.assert_equal(a, a)
np.testing.assert_equal(s, s)
np.testing.assert_array_less(a / 2, a)
np.testing.assert_array_max_ulp(a, a)
np.testing.assert_array_almost_equal_nulp(a, a)
np.testing.assert_array_equal(a, a, strict=True)
np.testing.assert_allclose fails clearly => try: np.testing.assert_allclose(a, b) ;; except AssertionError as e: r = str(e)

## linear algebra
np.dot(a, b)
np.dot(m, m)
np.dot(m, a[:4])
np.dot(a, f32)
np.dot(s, a)
np.dot(m, m, out=np.empty((4, 4), dt))
np.vdot(a, b)
np.inner(a, b)
np.inner(m, m)
np.outer(a, b)
np.outer(a[:3], f32[:3])
np.matmul(m, m, dtype=np.float32)
np.matmul(a, b)
np.matmul(m, f32[:4])
np.tensordot(m, m)
np.tensordot(m, m, axes=1)
np.einsum('ij,jk->ik', m, m)
np.einsum('i,i', a, b)
np.einsum('ii', m)
np.einsum('ij->ji', m)
np.einsum('ij,j->i', m, a[:4], optimize=True)
np.einsum('i,i->', a, b, dtype=np.float32)
np.einsum('i->', a)
np.kron(a[:2], b[:2])
np.cross(a[:3], b[:3])
np.linalg.norm(a)
np.linalg.norm(m)
np.linalg.norm(m, 'fro')
np.linalg.norm(m, 2)
np.linalg.norm(m, ord=1)
np.linalg.norm(a, np.inf)
np.linalg.norm(m, axis=0)
np.linalg.inv(m)
np.linalg.det(m)
np.linalg.solve(m, a[:4])
np.linalg.eig(m)
np.linalg.eigvals(m)
np.linalg.eigh(m)
np.linalg.eigvalsh(m)
np.linalg.svd(m)
np.linalg.svd(m, compute_uv=False)
np.linalg.svdvals(m)
np.linalg.qr(m)
np.linalg.cholesky(m)
np.linalg.pinv(m)
np.linalg.matrix_rank(m)
np.linalg.multi_dot([m, m, m])
np.linalg.slogdet(m)
np.linalg.lstsq(m, a[:4], rcond=None)
np.linalg.cond(m)
np.linalg.matrix_power(m, 2)
np.linalg.matrix_power(m, 0)
np.linalg.matrix_power(m, -1)
np.linalg.vecdot(a, b)
np.linalg.matrix_norm(m)
np.linalg.vector_norm(a)
np.linalg.trace(m)
np.linalg.diagonal(m)
np.linalg.outer(a[:3], b[:3])
np.linalg.cross(a[:3], b[:3])
np.linalg.matmul(m, m)
np.linalg.tensordot(m, m)
np.linalg.matrix_transpose(m)
np.linalg.tensorinv(m, ind=1)
np.linalg.tensorsolve(m, a[:4])

## fft
np.fft.fft(a)
np.fft.ifft(a)
np.fft.rfft(a)
np.fft.irfft(a)
np.fft.fft2(m)
np.fft.ifft2(m)
np.fft.fftn(m)
np.fft.rfftn(m)
np.fft.hfft(a)
np.fft.ihfft(a)
np.fft.fftshift(a)
np.fft.ifftshift(a)
np.fft.fftfreq(8, d=s)
np.fft.rfftfreq(8, d=s)

## numerical functions
np.convolve(a, b)
np.convolve(a, b, mode='same')
np.convolve(a, b[:3], mode='valid')
np.correlate(a, b)
np.correlate(a, b, mode='full')
np.interp(2.5, asort, b)
np.interp(a, asort, b)
np.interp(f32, asort, b)
np.polyfit(a, b, 1)
np.polyval([1, 2], a)
np.polyval(a[:3], 2.0)
np.poly1d(a[:3])(2.0)
np.roots(a[:3])
np.polyder(a[:3])
np.polyint(a[:3])
np.polyadd(a[:3], b[:3])
np.polymul(a[:3], b[:3])
np.polydiv(a[:3], b[:2])
np.polynomial.Polynomial(a[:3])(2.0)
np.polynomial.polynomial.polyval(a, [1, 2])
np.polynomial.Polynomial.fit(a, b, 1)
np.diff(a)
np.diff(a, n=2)
np.diff(m, axis=0)
np.diff(a, prepend=0.5)
np.gradient(a)
np.gradient(m)
np.gradient(a, 0.5)
np.trapezoid(a)
np.trapezoid(a, b)
np.vectorize(lambda v: v * 2)(a) => r = np.vectorize(lambda v: v * 2)(a); assert r.dtype == dt
np.vectorize(lambda v: v * 2, otypes=[dt])(a) => r = np.vectorize(lambda v: v * 2, otypes=[dt])(a); assert r.dtype == dt
np.vectorize(lambda v: float(v) + 1)(a)
np.frompyfunc(lambda v: v + 1, 1, 1)(a)
np.apply_along_axis(np.sum, 0, m)
np.apply_along_axis(lambda v: v * 2, 1, m)
np.apply_over_axes(np.sum, m, [0])
np.piecewise(a, [a < 2], [lambda v: v * 2, lambda v: v])
np.piecewise(a, [a < 2, a >= 2], [0.5, 1.0])
np.nan_to_num(a)
np.nan_to_num(an)
np.nan_to_num(an, nan=1.0)
np.i0(a)
np.sinc(a)
np.unwrap(a)
np.angle(a)
np.emath.sqrt(a)
np.emath.log(a)
np.emath.log2(a)
np.emath.power(a, 2)
np.exp(a).astype(np.float32)
np.ptp(a).item()
np.errstate(all='raise') a / b => with np.errstate(all='raise'): r = a / b
np.errstate(over='raise') overflow => r = None ;; try: ;;     with np.errstate(over='raise'): np.multiply(a, np.finfo(dt).max) ;; except FloatingPointError: ;;     r = 'raised'

## formatting
np.array2string(a)
np.array2string(a, precision=2)
np.array2string(a, separator=',')
np.array2string(a, formatter={'float_kind': lambda v: '%.1f' % v})
np.array2string(a, floatmode='unique')
np.array2string(m, max_line_width=20)
np.array_repr(a)
np.array_repr(m)
np.array_str(a)
np.array_str(a, precision=1)
np.format_float_positional(s)
np.format_float_positional(s, precision=2)
np.format_float_positional(s, unique=False, precision=3)
np.format_float_scientific(s)
np.format_float_scientific(s, exp_digits=3)
np.format_float_positional(a[1])
with np.printoptions(precision=2): repr(a) => with np.printoptions(precision=2): r = repr(a)
with np.printoptions(floatmode='fixed'): str(a) => with np.printoptions(floatmode='fixed'): r = str(a)
with np.printoptions(legacy='1.25'): repr(s) => with np.printoptions(legacy='1.25'): r = repr(s)
with np.printoptions(sign='+'): str(a) => with np.printoptions(sign='+'): r = str(a)
repr(np.zeros(0, dt))
repr(np.zeros((2, 0), dt))
repr(np.full(2000, 1.5, dt))
str(np.full(2000, 1.5, dt))
repr(np.finfo(dt).max * a[:1])
repr(a.reshape(2, 2, 2))
'%.2f' % a[1]
'{:.3f}'.format(a[1])
f'{a[1]:>10}'
str(a.tolist())

## files
np.save / np.load => p = os.path.join(tmp, 'a.npy'); np.save(p, a); r = np.load(p); assert r.dtype == dt and r.tobytes() == a.tobytes()
np.save / np.load, allow_pickle => p = os.path.join(tmp, 'a.npy'); np.save(p, a, allow_pickle=True); r = np.load(p, allow_pickle=True); assert r.dtype == dt
np.save / np.load of m.T => p = os.path.join(tmp, 'm.npy'); np.save(p, m.T); r = np.load(p); assert r.dtype == dt
np.save to BytesIO => f = io.BytesIO(); np.save(f, a); f.seek(0); r = np.load(f); assert r.dtype == dt
np.load(mmap_mode='r') => p = os.path.join(tmp, 'a.npy'); np.save(p, a); r = np.array(np.load(p, mmap_mode='r')); assert r.dtype == dt
np.savez => p = os.path.join(tmp, 'a.npz'); np.savez(p, a=a, m=m); r = np.load(p)['a']; assert r.dtype == dt
np.savez_compressed => p = os.path.join(tmp, 'a.npz'); np.savez_compressed(p, a=a); r = np.load(p)['a']; assert r.dtype == dt
np.savetxt / np.loadtxt(dtype=) => p = os.path.join(tmp, 'a.txt'); np.savetxt(p, a); r = np.loadtxt(p, dtype=dt); assert r.dtype == dt
np.savetxt(m, fmt='%.3f') => p = os.path.join(tmp, 'm.txt'); np.savetxt(p, m, fmt='%.3f'); r = np.loadtxt(p)
np.savetxt(fmt='%s') => p = os.path.join(tmp, 'a.txt'); np.savetxt(p, a, fmt='%s'); r = open(p).read()
np.loadtxt(StringIO, dtype=dt) => r = np.loadtxt(io.StringIO('0.5 1\n2 3'), dtype=dt)
np.genfromtxt(dtype=dt) => r = np.genfromtxt(io.StringIO('0.5,1\n2,3'), delimiter=',', dtype=dt)
np.memmap => p = os.path.join(tmp, 'mm.bin'); y = np.memmap(p, dtype=dt, mode='w+', shape=(8,)); y[:] = a; y.flush(); r = np.array(np.memmap(p, dtype=dt, mode='r'))
np.lib.format.open_memmap => p = os.path.join(tmp, 'om.npy'); y = np.lib.format.open_memmap(p, mode='w+', dtype=dt, shape=(4,)); y[:] = 1.5; del y; r = np.load(p)
np.fromfile(sep=' ') => p = os.path.join(tmp, 'b.txt'); open(p, 'w').write('0.5 1 2'); r = np.fromfile(p, dtype=dt, sep=' ')

## masked arrays
np.ma.masked_invalid(an)
np.ma.masked_invalid(a)
np.ma.array(a, mask=mask).mean()
np.ma.array(a, mask=mask).sum()
np.ma.array(a, mask=mask).std()
np.ma.array(a, mask=mask).max()
np.ma.array(a, mask=mask).filled()
np.ma.array(a, mask=mask).filled(1.0)
np.ma.array(a, mask=mask).compressed()
np.ma.array(a, mask=mask).astype(np.float32)
np.ma.array(a, mask=mask) + 1
np.ma.array(a, mask=mask) * b
repr(np.ma.array(a, mask=mask))
str(np.ma.array(a, mask=mask))
np.ma.masked_where(a > 2, a)
np.ma.masked_equal(a, 1.0)
np.ma.masked_greater(a, 2)
np.ma.masked_values(a, 1.0)
np.ma.fix_invalid(an)
np.ma.median(np.ma.array(a, mask=mask))
np.ma.concatenate([np.ma.array(a, mask=mask), b])
np.ma.sort(np.ma.array(a, mask=mask))
np.ma.default_fill_value(a)
np.ma.array(m, mask=m > 2).sum(axis=0)
"""


def _astype_numpy_lines():
    return "\n".join(f"a.astype(np.dtype('{t}'))" for t in NUMPY_TYPES)


def _cast_from_numpy_lines():
    lines = []
    for t in NUMPY_TYPES:
        values = "['1.5', '2']" if t in ("U16", "S16") else "[1, 2]"
        lines.append(f"np.array({values}, dtype=np.dtype('{t}')).astype(dt)")
    lines.append("np.arange(8).astype(dt)")
    lines.append("f32.astype(dt)")
    lines.append("np.array([1.5, 2]).astype(dt, casting='same_kind')")
    return "\n".join(lines)


def format_names():
    """minifloat.FORMAT_NAMES; in a worker, from the environment, so that
    the float16-without-minifloat worker never imports minifloat."""
    names = os.environ.get("NUMPY_BATTERY_FORMATS")
    if names is not None:
        return names.split(",")
    import minifloat
    return list(minifloat.FORMAT_NAMES)


def _astype_format_lines():
    lines = [f"a.astype(mf.{name})" for name in format_names()]
    lines += ["a.astype(dt.name)", "a.astype(dt, copy=False)",
              "a.astype(np.float32, casting='safe')", "a.astype(np.float64).astype(dt)",
              "a.astype(np.float32, order='F')"]
    return "\n".join(lines)


# The operands of the generated ufunc cases (one case per ufunc), by name;
# the others take (a,) or (a, b) by their number of inputs.
_UFUNC_OPERANDS = {
    "ldexp": "a, 2",
    "matmul": "m, m",
    "matvec": "m, a[:4]",
    "vecmat": "a[:4], m",
    "vecdot": "a, b",
}


def numpy_ufuncs():
    """Every ufunc in the numpy namespace, one per object, by its own name."""
    import numpy as np
    found = {}
    for name in dir(np):
        obj = getattr(np, name)
        if isinstance(obj, np.ufunc):
            found.setdefault(obj.__name__, obj)
    return found


def _ufunc_lines():
    lines = []
    for name, ufunc in sorted(numpy_ufuncs().items()):
        operands = _UFUNC_OPERANDS.get(name, "a" if ufunc.nin == 1 else "a, b")
        lines.append(f"np.{name}({operands})")
    return "\n".join(lines)


Case = collections.namedtuple("Case", "index name source section")


def load_cases():
    """The catalogue as a list of Case, in order."""
    text = _CATALOGUE
    for key, make in (("{astype_numpy}", _astype_numpy_lines),
                      ("{astype_formats}", _astype_format_lines),
                      ("{cast_from_numpy}", _cast_from_numpy_lines),
                      ("{ufuncs}", _ufunc_lines)):
        text = text.replace(key, make())
    cases, names, section = [], set(), ""
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith("## "):
            section = line[3:]
            continue
        if " => " in line:
            name, source = line.split(" => ", 1)
            source = re.sub(r" ;; ?", "\n", source)
        else:
            name = source = line
        if name in names:
            raise ValueError(f"duplicate case name {name!r}")
        names.add(name)
        cases.append(Case(len(cases), name, source, section))
    return cases


# ---------------------------------------------------------------------------
# Coverage: every public ndarray name, every ndarray dunder that means
# something for an array, every scalar-only name and every ufunc has a case,
# so a NumPy release that adds one is noticed.
# ---------------------------------------------------------------------------

# Python's object machinery, not array behaviour.
OBJECT_PROTOCOL = {
    "__class__", "__delattr__", "__dir__", "__doc__", "__getattribute__",
    "__init__", "__init_subclass__", "__new__", "__setattr__", "__subclasshook__",
    "__hash__",
}

# Dunders exercised by syntax: the case (by name) that calls each.
DUNDER_CASES = {
    "__abs__": "abs(a)", "__add__": "a + b", "__and__": "a & b",
    "__array__": "a.__array__()", "__array_finalize__": "a.__array_finalize__(b)",
    "__array_function__": "a.__array_function__",
    "__array_interface__": "__array_interface__ round trip",
    "__array_namespace__": "a.__array_namespace__().sum(a)",
    "__array_priority__": "a.__array_priority__",
    "__array_struct__": "__array_struct__ round trip",
    "__array_ufunc__": "a.__array_ufunc__", "__array_wrap__": "a.__array_wrap__(b)",
    "__bool__": "bool(z)", "__buffer__": "memoryview(a)",
    "__class_getitem__": "np.ndarray[tuple, np.dtype]",
    "__complex__": "complex(z)", "__contains__": "2.0 in a",
    "__copy__": "copy.copy(a)", "__deepcopy__": "copy.deepcopy(a)",
    "__delitem__": "del x[0]", "__divmod__": "divmod(a, b)",
    "__dlpack__": "np.from_dlpack(a)", "__dlpack_device__": "a.__dlpack_device__()",
    "__eq__": "a == b", "__float__": "float(z)", "__floordiv__": "a // b",
    "__format__": "format(a)", "__ge__": "a >= b", "__getitem__": "a[2]",
    "__getstate__": "a.__getstate__()", "__gt__": "a > b",
    "__iadd__": "x += b", "__iand__": "x &= 1", "__ifloordiv__": "x //= 2",
    "__ilshift__": "x <<= 1", "__imatmul__": "x @= m", "__imod__": "x %= 2",
    "__imul__": "x *= 2.0", "__index__": "operator.index(z)",
    "__int__": "int(z)", "__invert__": "~a", "__ior__": "x |= 1",
    "__ipow__": "x **= 2", "__irshift__": "x >>= 1", "__isub__": "x -= 1",
    "__iter__": "list(a)", "__itruediv__": "x /= b", "__ixor__": "x ^= 1",
    "__le__": "a <= b", "__len__": "len(a)", "__lshift__": "a << 1",
    "__lt__": "a < b", "__matmul__": "m @ m", "__mod__": "a % b",
    "__mul__": "a * b", "__ne__": "a != b", "__neg__": "-a", "__or__": "a | b",
    "__pos__": "+a", "__pow__": "a ** 2", "__radd__": "1 + a", "__rand__": "1 & a",
    "__rdivmod__": "divmod(5, a)", "__reduce__": "a.__reduce__()",
    "__reduce_ex__": "a.__reduce_ex__(5)", "__repr__": "repr(a)",
    "__rfloordiv__": "3 // a", "__rlshift__": "1 << a",
    "__rmatmul__": "b.tolist() @ a", "__rmod__": "5 % a", "__rmul__": "a * True",
    "__ror__": "1 | a", "__rpow__": "2 ** a", "__rrshift__": "1 >> a",
    "__rshift__": "a >> 1", "__rsub__": "2.5 - a", "__rtruediv__": "2.0 / a",
    "__rxor__": "1 ^ a", "__setitem__": "x[0] = 3.0",
    "__setstate__": "x.__setstate__(b.__reduce__()[2])",
    "__sizeof__": "sys.getsizeof(a)", "__str__": "str(a)", "__sub__": "a - b",
    "__truediv__": "a / b", "__xor__": "a ^ b",
    # scalar-only
    "__round__": "s.__round__()",
}

_ARRAY_ATTRIBUTE = re.compile(r"\b(?:a|b|m|x|y|an|asort|i8|f32|mask)\.(\w+)")
_SCALAR_ATTRIBUTE = re.compile(r"\bs\.(\w+)")


def coverage_gaps(cases=None):
    """Names of np.ndarray / the float16 scalar / ufuncs without a case:
    [] when the catalogue covers this NumPy."""
    import numpy as np
    cases = load_cases() if cases is None else cases
    names = {c.name for c in cases}
    array_attrs, scalar_attrs = set(), set()
    for c in cases:
        array_attrs.update(_ARRAY_ATTRIBUTE.findall(c.source))
        scalar_attrs.update(_SCALAR_ATTRIBUTE.findall(c.source))
    gaps = []
    for name in dir(np.ndarray):
        if name in OBJECT_PROTOCOL or (name.startswith("_") and not name.startswith("__")):
            continue  # (single-underscore names are NumPy's private helpers: 2.5's _set_dtype)
        if name.startswith("_"):
            if DUNDER_CASES.get(name) not in names:
                gaps.append(f"np.ndarray.{name}")
        elif name not in array_attrs:
            gaps.append(f"np.ndarray.{name}")
    for name in dir(np.float16):
        if name in OBJECT_PROTOCOL or name.startswith("__") and name in dir(np.ndarray):
            continue
        if name.startswith("_"):
            if name.startswith("__") and DUNDER_CASES.get(name) not in names:
                gaps.append(f"np.float16.{name}")
        elif name not in scalar_attrs:
            gaps.append(f"np.float16.{name}")
    for name in numpy_ufuncs():
        if f"np.{name}(" not in "".join(c.source for c in cases):
            gaps.append(f"np.{name}")
    return gaps


# ---------------------------------------------------------------------------
# The worker: runs cases in this process, one JSON line per event.
# ---------------------------------------------------------------------------

def _dtype_has_raw_void(dtype):
    if dtype.fields is not None:
        return any(_dtype_has_raw_void(field[0]) for field in dtype.fields.values())
    if dtype.subdtype is not None:
        return _dtype_has_raw_void(dtype.subdtype[0])
    return dtype.kind == "V"


def find_raw_void(value, depth=0):
    """The description of a raw void dtype in `value`, or None."""
    import numpy as np
    if depth > 4:
        return None
    if isinstance(value, np.dtype):
        return f"dtype {value!r}" if _dtype_has_raw_void(value) else None
    if isinstance(value, (np.ndarray, np.generic)):
        return f"result dtype {value.dtype!r}" if _dtype_has_raw_void(value.dtype) else None
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (tuple, list)):
        for item in value[:64]:
            found = find_raw_void(item, depth + 1)
            if found:
                return found
    return None


def result_signature(value, dtype, depth=0):
    """The types in a result, the case's own dtype spelled <fmt>: float16's
    and a format's results compare equal when they have the same shape."""
    import numpy as np

    def name(d):
        if d.fields is not None:
            return "{" + ", ".join(f"{k}: {name(d.fields[k][0])}" for k in d.names) + "}"
        if d.subdtype is not None:
            return f"({name(d.subdtype[0])}, {d.subdtype[1]})"
        if d == dtype:
            return "<fmt>"
        if d == np.dtype(f"u{dtype.itemsize}"):
            return "<uint of the same width>"
        return str(d)

    if depth > 3:
        return "..."
    if isinstance(value, np.dtype):
        return f"dtype {name(value)}"
    if isinstance(value, np.ndarray):
        return f"{type(value).__name__}[{name(value.dtype)}]"
    if isinstance(value, np.generic):
        return f"scalar[{name(value.dtype)}]"
    if isinstance(value, tuple):
        return "(" + ", ".join(result_signature(v, dtype, depth + 1) for v in value[:8]) + ")"
    if isinstance(value, list):
        kinds = sorted({result_signature(v, dtype, depth + 1) for v in value[:16]})
        return "list[" + " | ".join(kinds) + "]"
    return type(value).__name__


def dtype_for(name):
    import numpy as np
    if name in (BASELINE, BASELINE_ALONE):
        return np.dtype(np.float16)
    import minifloat
    if name not in minifloat.FORMAT_NAMES:
        raise SystemExit(f"unknown format {name!r}: one of {BASELINE}, {BASELINE_ALONE}, "
                         + ", ".join(minifloat.FORMAT_NAMES))
    return np.dtype(getattr(minifloat, name))


def sample_values(dt):
    """The a and b samples the format holds: powers of two for formats
    without a mantissa bit (float8_e8m0fnu, binary8p1*), halved until the
    largest fits (binary8p7* stop below 4)."""
    import numpy as np
    if dt == np.dtype(np.float16):
        return A_VALUES, B_VALUES
    import minifloat
    pow2 = minifloat._core.format_info(dt.name)["mantissa_bits"] == 0
    avals, bvals = (A_VALUES_POW2, B_VALUES_POW2) if pow2 else (A_VALUES, B_VALUES)
    largest = float(np.finfo(dt).max)
    while max(avals + bvals) > largest:
        avals, bvals = [v / 2 for v in avals], [v / 2 for v in bvals]
    return avals, bvals


def make_namespace(fmt, tmp):
    import copy
    import ctypes
    import io
    import math
    import operator
    import pickle
    from decimal import Decimal
    from fractions import Fraction

    import numpy as np
    if fmt == BASELINE_ALONE:
        mf = None
    else:
        import minifloat as mf

    dt = dtype_for(fmt)
    avals, bvals = sample_values(dt)
    a = np.array(avals, dtype=dt)
    an_values = list(avals)
    an_values[2] = float("nan")
    return {
        "np": np, "mf": mf, "copy": copy, "ctypes": ctypes, "io": io, "json": json,
        "math": math, "operator": operator, "os": os, "pickle": pickle, "sys": sys,
        "Decimal": Decimal, "Fraction": Fraction,
        "fmt": fmt, "dt": dt, "DT": type(dt), "st": dt.type,
        "udt": np.dtype(f"u{dt.itemsize}"),
        "a": a, "b": np.array(bvals, dtype=dt), "x": a.copy(),
        "m": np.array(M_VALUES, dtype=dt), "s": a[3], "z": a[3:4].reshape(()),
        "an": np.array(an_values, dtype=dt),
        "asort": np.array(sorted(avals), dtype=dt),
        "f32": np.array(avals, dtype=np.float32), "i8": np.arange(8),
        "idx": np.array([0, 2, 5]), "mask": np.array(MASK),
        "tmp": tmp,
    }


def run_case(case, fmt, tmp):
    """Run one case here: {"status": "ok"} or {"status": "error", ...}."""
    namespace = make_namespace(fmt, tmp)
    try:
        try:
            code = compile(case.source, f"<case {case.index}>", "eval")
        except SyntaxError:
            code = compile(case.source, f"<case {case.index}>", "exec")
            exec(code, namespace)
            result = namespace.get("r")
        else:
            result = eval(code, namespace)
        void = find_raw_void(result)
        if void:
            return {"status": "error", "type": "VoidResult",
                    "message": f"raw bytes: {void}"}
        return {"status": "ok", "result": result_signature(result, namespace["dt"])}
    except Exception as exc:  # noqa: BLE001 - recording every failure is the point
        message = str(exc).strip().splitlines()
        message = message[0] if message else ""
        if isinstance(exc, AssertionError) and not message:
            message = "assert " + " / ".join(_asserted(case.source))
        if len(message) > 300:
            message = message[:297] + "..."
        return {"status": "error", "type": type(exc).__name__, "message": message}


def _asserted(source):
    """The conditions of the case's assert statements (a bare assert says
    nothing when it fails)."""
    import ast
    return [ast.unparse(node.test) for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Assert)]


def worker_main(fmt, start, tmp_root):
    import faulthandler
    import warnings

    faulthandler.enable()
    warnings.simplefilter("ignore")
    # The protocol goes to the original stdout; anything a case prints (at
    # Python or C level) goes to stderr instead, out of the protocol's way.
    protocol = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    import numpy  # noqa: F401
    if fmt != BASELINE_ALONE:
        import minifloat  # noqa: F401
        # the cases spell formats by name too (np.dtype(dt.name)): minifloat's
        # here, also where ml_dtypes holds the names
        minifloat.claim_dtype_names()
        if os.environ.get("NUMPY_BATTERY_PATCHED"):
            minifloat.patch_numpy()  # before any NumPy call: ndarray.mean caches its implementation
    cases = load_cases()
    for case in cases[start:]:
        protocol.write(json.dumps({"i": case.index, "event": "start"}) + "\n")
        protocol.flush()
        tmp = os.path.join(tmp_root, str(case.index))
        os.makedirs(tmp, exist_ok=True)
        outcome = run_case(case, fmt, tmp)
        outcome.update(i=case.index, event="end")
        protocol.write(json.dumps(outcome) + "\n")
        protocol.flush()
    if fmt == BASELINE_ALONE and "minifloat" in sys.modules:
        raise SystemExit("a case imported minifloat in the float16-without-minifloat run")
    protocol.write(json.dumps({"event": "done"}) + "\n")
    protocol.flush()


# ---------------------------------------------------------------------------
# The runner: one subprocess per format, restarted after a crash.
# ---------------------------------------------------------------------------

def _crash_summary(stderr_text, returncode):
    """One line out of faulthandler's report (or the exit status)."""
    for line in stderr_text.splitlines():
        if line.startswith("Fatal Python error"):
            return line.strip()
    if returncode is not None and returncode < 0:
        import signal
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    tail = [line for line in stderr_text.splitlines() if line.strip()]
    return f"exit status {returncode}" + (f": {tail[-1].strip()}" if tail else "")


def _crash_frames(stderr_text, limit=6):
    """The first frames of faulthandler's traceback (where the case died)."""
    frames = [line.strip() for line in stderr_text.splitlines()
              if line.strip().startswith("File ")]
    return frames[:limit]


def run_format(fmt, timeout=CASE_TIMEOUT, python=sys.executable, patched=False):
    """All cases on one format: {case index: outcome dict}. Outcomes have
    "status" ok / error / crash / hang. `patched`: the worker calls
    mf.patch_numpy() after importing minifloat."""
    cases = load_cases()
    env = dict(os.environ, NUMPY_BATTERY_FORMATS=",".join(format_names()),
               NUMPY_BATTERY_PATCHED="1" if patched else "")
    results = {}
    tmp_root = tempfile.mkdtemp(prefix=f"numpy_battery_{fmt}_")
    start = 0
    try:
        while start < len(cases):
            stderr_file = tempfile.TemporaryFile(mode="w+")
            proc = subprocess.Popen(
                [python, "-X", "faulthandler", os.path.abspath(__file__),
                 "--worker", fmt, "--start", str(start), "--tmp", tmp_root],
                stdout=subprocess.PIPE, stderr=stderr_file, stdin=subprocess.DEVNULL,
                env=env)
            running, buffer, done, hung = None, b"", False, False
            started_at = time.monotonic()
            fd = proc.stdout.fileno()
            while True:
                wait = timeout - (time.monotonic() - started_at)
                if wait <= 0:
                    hung = True
                    break
                ready, _, _ = select.select([fd], [], [], wait)
                if not ready:
                    continue
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                buffer += chunk
                *lines, buffer = buffer.split(b"\n")
                for line in lines:
                    event = json.loads(line)
                    if event["event"] == "start":
                        running = event["i"]
                        started_at = time.monotonic()
                    elif event["event"] == "end":
                        index = event.pop("i")
                        del event["event"]
                        results[index] = event
                        running = None
                        started_at = time.monotonic()
                    elif event["event"] == "done":
                        done = True
            if hung:
                proc.kill()
            proc.wait()
            proc.stdout.close()
            stderr_file.seek(0)
            stderr_text = stderr_file.read()
            stderr_file.close()
            if done:
                break
            if running is None and not any(i >= start for i in results):
                # died before its first case (the import failed): every case
                # would do the same, one subprocess each
                why = _crash_summary(stderr_text, proc.returncode)
                for c in cases[start:]:
                    results[c.index] = {"status": CRASH, "type": "Crash",
                                        "message": f"the worker died before its first case: {why}"}
                break
            if running is None:  # died between two cases
                running = max(results) + 1
                if running >= len(cases):
                    break
            if hung:
                results[running] = {"status": "hang", "type": "Hang",
                                    "message": f"no result after {timeout:g} s"}
            else:
                results[running] = {"status": "crash", "type": "Crash",
                                    "message": _crash_summary(stderr_text, proc.returncode),
                                    "frames": _crash_frames(stderr_text)}
            start = running + 1
    finally:
        shutil.rmtree(tmp_root, ignore_errors=True)
    return results


def run_battery(formats=None, jobs=2, timeout=CASE_TIMEOUT, patched=False):
    """{name: {case index: outcome}} for the two float16 baselines and
    `formats` (all by default), `jobs` subprocesses at a time; `patched`: with
    mf.patch_numpy() (the float16 baseline without minifloat stays without)."""
    formats = format_names() if formats is None else list(formats)
    formats = [BASELINE, BASELINE_ALONE] + [f for f in formats
                                            if f not in (BASELINE, BASELINE_ALONE)]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        runs = dict(zip(formats, pool.map(lambda f: run_format(f, timeout, patched=patched), formats)))
    return runs


# ---------------------------------------------------------------------------
# Reading the results
# ---------------------------------------------------------------------------

ERROR, CRASH, HANG = "error", "crash", "hang"


def float16_working(runs, cases):
    """Names of the cases that work on float16, with minifloat imported or
    without (a call that minifloat's import breaks still counts)."""
    return {c.name for c in cases
            if any(runs[b].get(c.index, {}).get("status") == "ok"
                   for b in (BASELINE, BASELINE_ALONE) if b in runs)}


def failures(runs, cases, fmt):
    """{case name: (kind, cause)} of what fails on `fmt` and counts: every
    crash and hang, and the errors of cases that work on float16."""
    baseline = float16_working(runs, cases)
    if fmt == BASELINE_ALONE:  # its own errors (cases that use mf) do not count
        baseline = set()
    found = {}
    for c in cases:
        outcome = runs[fmt].get(c.index, {"status": "error", "type": "Missing",
                                         "message": "no result"})
        status = outcome["status"]
        if status in (CRASH, HANG) or (status == ERROR and c.name in baseline):
            found[c.name] = (status, cause(outcome, fmt))
    return found


def score(runs, cases, fmt):
    """(works, float16-working, crashes, hangs) for one format."""
    baseline = float16_working(runs, cases)
    failing = failures(runs, cases, fmt)
    kinds = collections.Counter(kind for kind, _ in failing.values())
    works = len(baseline) - sum(1 for name in failing if name in baseline)
    return works, len(baseline), kinds[CRASH], kinds[HANG]


def score_line(runs, cases, fmt):
    works, n, crashes, hangs = score(runs, cases, fmt)
    return (f"{fmt}: {works} of {n} float16-working calls work ({100.0 * works / n:.1f}%), "
            f"{crashes} crash, {hangs} hang")


def cause(outcome, fmt):
    """The failure's cause with the format's own names taken out, so that
    one cause groups across formats."""
    if outcome["status"] in (CRASH, HANG):
        return f"{outcome['status'].upper()}: {outcome['message']}"
    message = outcome.get("message", "")
    if fmt not in (BASELINE, BASELINE_ALONE):
        dtype = dtype_for(fmt)
        message = message.replace(type(dtype).__name__, "<DType>")
        message = re.sub(rf"\b{re.escape(fmt)}\b", "<fmt>", message)
        message = message.replace(f"data type '{dtype.char}' not", "data type '<char>' not")
    message = re.sub(r"0x[0-9a-f]+", "0x...", message)
    return f"{outcome.get('type', '?')}: {message}"


def grouped_failures(runs, cases):
    """{cause: {(case name, kind): [formats]}}, every format but float16
    (and float16's own crashes and hangs)."""
    groups = collections.defaultdict(lambda: collections.defaultdict(list))
    for fmt in runs:
        for name, (kind, why) in failures(runs, cases, fmt).items():
            groups[why][(name, kind)].append(fmt)
    return groups


def _cause_order(groups):
    return sorted(groups, key=lambda k: (not k.startswith(("CRASH", "HANG")),
                                         -sum(len(v) for v in groups[k].values()), k))


def report(runs, cases, out=sys.stdout):
    minifloats = [f for f in runs if f not in (BASELINE, BASELINE_ALONE)]
    sources = {c.name: c.source for c in cases}
    baseline = float16_working(runs, cases)
    print(f"NumPy battery: {len(cases)} cases, {len(baseline)} work on float16", file=out)
    print(file=out)
    width = max(len(f) for f in runs)
    for fmt in runs:
        if fmt == BASELINE_ALONE:
            _, _, crashes, hangs = score(runs, cases, fmt)
            broken = sorted(name for name, (kind, _) in failures(runs, cases, BASELINE).items())
            print(f"  {fmt:<{width}}  {crashes} crash, {hangs} hang; importing minifloat breaks "
                  f"{len(broken)} float16 calls" + (f": {', '.join(broken)}" if broken else ""),
                  file=out)
            continue
        works, n, crashes, hangs = score(runs, cases, fmt)
        extra = sum(1 for c in cases if c.name not in baseline
                    and runs[fmt].get(c.index, {}).get("status") == "ok")
        print(f"  {fmt:<{width}}  {works:4d} of {n} float16-working calls work"
              f" ({100.0 * works / n:5.1f}%), {crashes} crash, {hangs} hang"
              + (f"; {extra} more that fail on float16" if extra else ""), file=out)
    groups = grouped_failures(runs, cases)
    print(file=out)
    print(f"Failures by cause ({len(groups)} causes; crashes first):", file=out)
    for why in _cause_order(groups):
        print(file=out)
        print(f"* {why}", file=out)
        for (name, kind), fmts in sorted(groups[why].items()):
            where = ("all formats" if set(fmts) == set(minifloats) and len(minifloats) > 1
                     else ", ".join(fmts))
            call = sources[name].replace("\n", "; ")
            shown = name if call == name else f"{name}  =>  {call}"
            print(f"    {shown}   [{where}]", file=out)
    differences = type_differences(runs, cases)
    print(file=out)
    print(f"Working cases whose result types differ from float16's ({len(differences)}; "
          "<fmt> is the case's own dtype):", file=out)
    for name, (base, differ) in differences.items():
        print(f"    {name}: float16 gives {base}", file=out)
        for sig, fmts in differ.items():
            where = ("all formats" if set(fmts) == set(minifloats) and len(minifloats) > 1
                     else ", ".join(fmts))
            print(f"        {sig}   [{where}]", file=out)
    return groups


def _loose(signature, fmt):
    signature = (signature or "").replace("<fmt>", fmt)
    return re.sub(r"<uint of the same width>|uint8|uint16", "uint", signature)


def type_differences(runs, cases):
    """{case name: (float16's result types, {a format's types: [formats]})}
    for the cases that work on both but give other types than float16
    (spelling the case's own dtype <fmt>): informational, some are right
    (a + np.float16(1) promotes), some are silent changes of type."""
    found = {}
    for c in cases:
        base = runs[BASELINE].get(c.index, {})
        if base.get("status") != "ok":
            continue
        differ = collections.defaultdict(list)
        for fmt in runs:
            if fmt == BASELINE_ALONE:
                continue
            o = runs[fmt].get(c.index, {})
            if o.get("status") != "ok" or o.get("result") == base.get("result"):
                continue
            # the same named type on both sides (a.astype(mf.X) on X, np.float16(s)),
            # or unsigned integers of the format's own width (a.view(udt))
            if _loose(o.get("result"), fmt) == _loose(base.get("result"), BASELINE):
                continue
            differ[o.get("result")].append(fmt)
        if differ:
            found[c.name] = (base.get("result"), dict(differ))
    return found


def known_failures_source(runs, cases, previous=()):
    """The Python source of tests/test_numpy_battery.py's KNOWN_FAILURES for
    these runs, one entry per case and cause, grouped by cause; reasons are
    kept from `previous` (the current table) where the case and kind match."""
    names = format_names()
    reasons = {}
    for name, kind, formats, reason in previous:
        for fmt in (names if formats == "ALL" else formats):
            reasons[(name, kind, fmt)] = reason
    groups = grouped_failures(runs, cases)
    lines = ["KNOWN_FAILURES = ["]
    for why in _cause_order(groups):
        lines.append(f"    # {why[:160]}")
        for (name, kind), fmts in sorted(groups[why].items()):
            old = [reasons[(name, kind, f)] for f in fmts if (name, kind, f) in reasons]
            reason = old[0] if old else "minifloat: to fix"
            where = ("ALL" if set(fmts) == set(names) else
                     "(" + ", ".join(repr(f) for f in fmts) + ("," if len(fmts) == 1 else "") + ")")
            lines.append(f"    ({name!r}, {kind!r}, {where},")
            chunks = textwrap.wrap(reason, 84, drop_whitespace=False)
            lines.append("     " + "\n      ".join(repr(c) for c in chunks) + "),")
    lines.append("]")
    return "\n".join(lines)



def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--tmp", help=argparse.SUPPRESS)
    parser.add_argument("--formats", help="comma-separated format names (default: all)")
    parser.add_argument("--jobs", type=int, default=2, help="subprocesses at a time")
    parser.add_argument("--timeout", type=float, default=CASE_TIMEOUT,
                        help="seconds before a case counts as hung")
    parser.add_argument("--json", metavar="FILE", help="write every outcome as JSON")
    parser.add_argument("--print-known-failures", action="store_true",
                        help="print the KNOWN_FAILURES table of tests/test_numpy_battery.py")
    parser.add_argument("--list", action="store_true", help="list the cases")
    parser.add_argument("--patched", action="store_true", help="with mf.patch_numpy() (default: a plain import)")
    args = parser.parse_args(argv)
    if args.worker:
        worker_main(args.worker, args.start, args.tmp)
        return 0
    cases = load_cases()
    if args.list:
        for c in cases:
            print(f"{c.index:4d} [{c.section}] {c.name}"
                  + ("" if c.source == c.name else f"  =>  {c.source!r}"))
        return 0
    gaps = coverage_gaps(cases)
    if gaps:
        print("The catalogue has no case for: " + ", ".join(gaps), file=sys.stderr)
        return 2
    formats = args.formats.split(",") if args.formats else None
    started = time.monotonic()
    runs = run_battery(formats, jobs=args.jobs, timeout=args.timeout, patched=args.patched)
    elapsed = time.monotonic() - started
    if args.print_known_failures:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        try:
            from test_numpy_battery import KNOWN_FAILURES as previous
        except ImportError:
            previous = []
        print(known_failures_source(runs, cases, previous))
    else:
        report(runs, cases)
        print(f"\n{len(runs)} formats in {elapsed:.1f} s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cases": [c._asdict() for c in cases],
                       "results": {fmt: {cases[i].name: o for i, o in sorted(r.items())}
                                   for fmt, r in runs.items()}}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
