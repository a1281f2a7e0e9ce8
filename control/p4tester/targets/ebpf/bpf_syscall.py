"""The bpf(2) calls the eBPF driver needs, through ctypes: open a pinned map,
read, write and delete its elements, create an inner map for a map of maps.

No library between the controller and the kernel: libbpf's Python bindings are
in no registry this project installs from, and these few commands are stable
kernel ABI (include/uapi/linux/bpf.h)."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from dataclasses import dataclass

_SYS_BPF = 321  # x86_64
_BPF_MAP_CREATE = 0
_BPF_MAP_LOOKUP_ELEM = 1
_BPF_MAP_UPDATE_ELEM = 2
_BPF_MAP_DELETE_ELEM = 3
_BPF_MAP_GET_NEXT_KEY = 4
_BPF_OBJ_GET = 7
_BPF_OBJ_GET_INFO_BY_FD = 15
BPF_ANY = 0
BPF_MAP_TYPE_HASH = 1

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
_libc.syscall.restype = ctypes.c_long


class BpfError(OSError):
    """A bpf(2) command the kernel refused."""


class _MapElem(ctypes.Structure):
    _fields_ = [
        ("map_fd", ctypes.c_uint32),
        ("pad", ctypes.c_uint32),
        ("key", ctypes.c_uint64),
        ("value", ctypes.c_uint64),  # also next_key
        ("flags", ctypes.c_uint64),
    ]


class _ObjGet(ctypes.Structure):
    _fields_ = [("pathname", ctypes.c_uint64), ("bpf_fd", ctypes.c_uint32),
                ("file_flags", ctypes.c_uint32)]


class _MapCreate(ctypes.Structure):
    _fields_ = [
        ("map_type", ctypes.c_uint32),
        ("key_size", ctypes.c_uint32),
        ("value_size", ctypes.c_uint32),
        ("max_entries", ctypes.c_uint32),
        ("map_flags", ctypes.c_uint32),
        ("inner_map_fd", ctypes.c_uint32),
        ("numa_node", ctypes.c_uint32),
        ("map_name", ctypes.c_char * 16),
        ("pad", ctypes.c_uint8 * 64),
    ]


class _InfoByFd(ctypes.Structure):
    _fields_ = [("bpf_fd", ctypes.c_uint32), ("info_len", ctypes.c_uint32),
                ("info", ctypes.c_uint64)]


class _MapInfo(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_uint32),
        ("id", ctypes.c_uint32),
        ("key_size", ctypes.c_uint32),
        ("value_size", ctypes.c_uint32),
        ("max_entries", ctypes.c_uint32),
        ("map_flags", ctypes.c_uint32),
        ("name", ctypes.c_char * 16),
        ("pad", ctypes.c_uint8 * 64),
    ]


def _bpf(command: int, attr: ctypes.Structure, what: str) -> int:
    result = int(_libc.syscall(_SYS_BPF, command, ctypes.byref(attr), ctypes.sizeof(attr)))
    if result < 0:
        errno = ctypes.get_errno()
        raise BpfError(errno, f"{what}: {os.strerror(errno)}")
    return result


@dataclass(frozen=True, slots=True)
class MapInfo:
    map_type: int
    key_size: int
    value_size: int
    max_entries: int


class BpfMap:
    """One BPF map, opened from its pin (or created), as bytes in and out."""

    def __init__(self, fd: int, name: str) -> None:
        self.fd = fd
        self.name = name
        self.info = self._read_info()

    @classmethod
    def open_pinned(cls, path: str) -> BpfMap:
        raw = path.encode() + b"\0"
        buffer = ctypes.create_string_buffer(raw)
        attr = _ObjGet(pathname=ctypes.addressof(buffer))
        return cls(_bpf(_BPF_OBJ_GET, attr, f"open the pinned map {path}"), os.path.basename(path))

    @classmethod
    def create_hash(cls, name: str, key_size: int, value_size: int, max_entries: int) -> BpfMap:
        attr = _MapCreate(map_type=BPF_MAP_TYPE_HASH, key_size=key_size,
                          value_size=value_size, max_entries=max_entries,
                          map_name=name.encode()[:15])
        return cls(_bpf(_BPF_MAP_CREATE, attr, f"create the map {name}"), name)

    def _read_info(self) -> MapInfo:
        info = _MapInfo()
        attr = _InfoByFd(bpf_fd=self.fd, info_len=ctypes.sizeof(info),
                         info=ctypes.addressof(info))
        _bpf(_BPF_OBJ_GET_INFO_BY_FD, attr, f"describe the map {self.name}")
        return MapInfo(info.type, info.key_size, info.value_size, info.max_entries)

    def _key(self, key: bytes) -> ctypes.Array[ctypes.c_char]:
        if len(key) != self.info.key_size:
            raise ValueError(f"map {self.name}: key of {len(key)} bytes, "
                             f"the map takes {self.info.key_size}")
        return ctypes.create_string_buffer(key, len(key))

    def lookup(self, key: bytes) -> bytes | None:
        key_buffer = self._key(key)
        value = ctypes.create_string_buffer(self.info.value_size)
        attr = _MapElem(map_fd=self.fd, key=ctypes.addressof(key_buffer),
                        value=ctypes.addressof(value))
        result = int(_libc.syscall(_SYS_BPF, _BPF_MAP_LOOKUP_ELEM, ctypes.byref(attr),
                                   ctypes.sizeof(attr)))
        if result < 0:
            errno = ctypes.get_errno()
            if errno == 2:  # ENOENT: no such element
                return None
            raise BpfError(errno, f"read the map {self.name}: {os.strerror(errno)}")
        return value.raw

    def update(self, key: bytes, value: bytes) -> None:
        if len(value) != self.info.value_size:
            raise ValueError(f"map {self.name}: value of {len(value)} bytes, "
                             f"the map takes {self.info.value_size}")
        key_buffer = self._key(key)
        value_buffer = ctypes.create_string_buffer(value, len(value))
        attr = _MapElem(map_fd=self.fd, key=ctypes.addressof(key_buffer),
                        value=ctypes.addressof(value_buffer), flags=BPF_ANY)
        _bpf(_BPF_MAP_UPDATE_ELEM, attr, f"write the map {self.name}")

    def delete(self, key: bytes) -> bool:
        key_buffer = self._key(key)
        attr = _MapElem(map_fd=self.fd, key=ctypes.addressof(key_buffer))
        result = int(_libc.syscall(_SYS_BPF, _BPF_MAP_DELETE_ELEM, ctypes.byref(attr),
                                   ctypes.sizeof(attr)))
        if result < 0:
            errno = ctypes.get_errno()
            if errno == 2:
                return False
            raise BpfError(errno, f"delete from the map {self.name}: {os.strerror(errno)}")
        return True

    def all_keys(self) -> list[bytes]:
        """Every key of a hash map (an array map has all its indices)."""
        found: list[bytes] = []
        next_key = ctypes.create_string_buffer(self.info.key_size)
        attr = _MapElem(map_fd=self.fd, key=0, value=ctypes.addressof(next_key))
        for _ in range(self.info.max_entries + 1):
            result = int(_libc.syscall(_SYS_BPF, _BPF_MAP_GET_NEXT_KEY, ctypes.byref(attr),
                                       ctypes.sizeof(attr)))
            if result < 0:
                break
            found.append(next_key.raw)
            current = ctypes.create_string_buffer(next_key.raw, self.info.key_size)
            attr.key = ctypes.addressof(current)
            next_key = ctypes.create_string_buffer(self.info.key_size)
            attr.value = ctypes.addressof(next_key)
        return found

    def close(self) -> None:
        os.close(self.fd)
