"""Compares the Python wrapper's ctypes struct with attnrt_attention_args.

Usage: check-ctypes-abi.py LAYOUT_FILE PYTHON_DIR, where LAYOUT_FILE is the
output of abi-layout.c (field name, offset, size; then "sizeof N"). Imports
attnc from PYTHON_DIR (without torch) and checks every field's name, order,
offset and size and the struct's size. Exits 1 naming the first difference.
"""
import sys

sys.path.insert(0, sys.argv[2])
import attnc  # noqa: E402

c_fields, c_size = [], None
for line in open(sys.argv[1]):
    name, *rest = line.split()
    if name == "sizeof":
        c_size = int(rest[0])
    else:
        c_fields.append((name, int(rest[0]), int(rest[1])))

py = attnc._Args
py_fields = [(n, getattr(py, n).offset, getattr(py, n).size) for n, _ in py._fields_]
for i, (c, p) in enumerate(zip(c_fields, py_fields)):
    if c != p:
        print(f"field {i}: C has {c} (name, offset, size), ctypes has {p}")
        sys.exit(1)
if len(c_fields) != len(py_fields):
    print(f"C has {len(c_fields)} fields, ctypes has {len(py_fields)}")
    sys.exit(1)
import ctypes  # noqa: E402
if ctypes.sizeof(py) != c_size:
    print(f"C struct is {c_size} bytes, ctypes struct is {ctypes.sizeof(py)}")
    sys.exit(1)
print(f"ctypes _Args matches attnrt_attention_args: {len(c_fields)} fields, {c_size} bytes")
