#!/usr/bin/env python3
"""The weights files of ci/bench --weights, and what a run of the check costs in memory and reads
of them (the standard library, and torch and safetensors for `make` only).

  bench_weights.py make FOLDER MIB
      writes one state_dict of float32 tensors of MIB MiB in all (weights of 4096 columns, each
      with its bias) to FOLDER/big.pt with torch.save and to FOLDER/big.safetensors with
      safetensors.torch.save_file, both flushed to the disk. Prints its tensors and their bytes.
      Run by an interpreter with torch, safetensors and numpy (safetensors' torch writer uses it).
  bench_weights.py evict FILE...
      drops each file's pages from the page cache (posix_fadvise DONTNEED after fdatasync), so
      that the next run that needs its data reads it from the disk. Exit 1 when more than
      KEPT_AT_MOST bytes of one stay cached (a tmpfs keeps them all), saying how much.
  bench_weights.py cached FILE...
      how much of each file the page cache holds, one line each.
  bench_weights.py run [--cached FILE]... LOG -- COMMAND...
      runs COMMAND, then appends one JSON line to LOG: its exit status, the peak resident memory
      of its processes (ru_maxrss of this one's children: the largest of the command and every
      descendant it waited for, KiB) and, for each --cached FILE, [bytes in the page cache, size].
      Exits as COMMAND did.
  bench_weights.py verify REPORT FORMAT TENSORS BYTES
      the check's report lists one weights file, verified, of FORMAT with TENSORS tensors of
      BYTES bytes. Exit 0, or 1 saying what differs.

Exit 2 on a usage error, or a file that cannot be read or written.
"""
import ctypes
import json
import os
import resource
import subprocess
import sys

COLUMNS = 4096  # of each weight: a row is 16 KiB of float32
ROWS = 4096  # of a whole weight: 64 MiB
KEPT_AT_MOST = 1 << 20
FLOAT32 = 4
LOW_BIT = bytes(value & 1 for value in range(256))  # mincore's bit for a page in the cache


def plan(mib):
    """[(name, shape)] of a state_dict of float32 weights of `mib` MiB in all (the last one cut
    to what is left), each followed by its bias."""
    rows = mib * (1 << 20) // (COLUMNS * FLOAT32)
    shapes, layer = [], 0
    while rows > 0:
        take = min(rows, ROWS)
        shapes += [(f"layers.{layer}.weight", (take, COLUMNS)), (f"layers.{layer}.bias", (take,))]
        rows -= take
        layer += 1
    return shapes


def size_of(shapes):
    """(tensors, bytes) of float32 tensors of these shapes."""
    total = 0
    for _, shape in shapes:
        count = 1
        for dimension in shape:
            count *= dimension
        total += count * FLOAT32
    return len(shapes), total


def flushed(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def make(folder, mib):
    """Writes big.pt and big.safetensors of the same state_dict into `folder`."""
    import torch
    from safetensors.torch import save_file
    generator = torch.Generator().manual_seed(0)
    shapes = plan(mib)
    state = {name: torch.randn(shape, generator=generator) for name, shape in shapes}
    pt, safetensors = os.path.join(folder, "big.pt"), os.path.join(folder, "big.safetensors")
    torch.save(state, pt)
    save_file(state, safetensors)
    for path in (pt, safetensors):
        flushed(path)
    return size_of(shapes)


def resident(path):
    """(bytes of `path` in the page cache, its size): mincore(2) over a mapping never touched."""
    size = os.stat(path).st_size
    if size == 0:
        return 0, 0
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long)
    libc.mincore.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p)
    libc.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
    page = os.sysconf("SC_PAGE_SIZE")
    fd = os.open(path, os.O_RDONLY)
    try:
        address = libc.mmap(None, size, 0x1, 0x1, fd, 0)  # PROT_READ, MAP_SHARED
        if address in (None, ctypes.c_void_p(-1).value):
            raise OSError(ctypes.get_errno(), "mmap failed", path)
        try:
            pages = ctypes.create_string_buffer((size + page - 1) // page)
            if libc.mincore(address, size, pages) != 0:
                raise OSError(ctypes.get_errno(), "mincore failed", path)
            cached = pages.raw.translate(LOW_BIT).count(1)
        finally:
            libc.munmap(address, size)
    finally:
        os.close(fd)
    return min(cached * page, size), size


def evict(path):
    """Drops `path`'s pages from the page cache; the bytes that stay."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fdatasync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
    return resident(path)[0]


def shown(count):
    """A number of bytes as the figures print it."""
    return f"{count / 1024:.0f} KiB" if count < 1 << 20 else f"{count / (1 << 20):.1f} MiB"


def run(log, watched, command):
    """Runs `command`; appends its exit status, peak RSS and the page cache's share of each
    watched file to `log`. Its exit status, as a shell gives it."""
    try:
        status = subprocess.run(command).returncode
    except OSError as error:
        print(f"bench_weights: {command[0]}: {error.strerror}", file=sys.stderr)
        status = 127
    sample = {"exit": status,
              "maxrss_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
              "cached": {os.path.basename(path): list(resident(path)) for path in watched}}
    with open(log, "a", encoding="utf-8") as f:
        f.write(json.dumps(sample, sort_keys=True) + "\n")
    return 128 - status if status < 0 else status


def verify(report, kind, tensors, count):
    """What differs between the report's weights and one verified file of `kind`, or None."""
    weights = (report.get("application") or {}).get("weights") or []
    if len(weights) != 1:
        return f"the report lists {len(weights)} weights files, not 1"
    found = weights[0]
    want = {"format": kind, "tensors": tensors, "bytes": count, "verified": True}
    wrong = [f"{key} {found.get(key)!r} (not {value!r})" for key, value in want.items()
             if found.get(key) != value]
    return f"{found.get('file')}: " + ", ".join(wrong) if wrong else None


def main(argv):
    command = argv[1] if len(argv) > 1 else ""
    args = argv[2:]
    try:
        if command == "make" and len(args) == 2 and args[1].isdigit() and int(args[1]) > 0:
            print(*make(args[0], int(args[1])))
            return 0
        if command == "evict" and args:
            kept = [(path, evict(path)) for path in args]
            stayed = [f"{path}: {shown(count)} stayed" for path, count in kept
                      if count > KEPT_AT_MOST]
            if stayed:
                print("bench_weights: the page cache keeps them: " + "; ".join(stayed),
                      file=sys.stderr)
                return 1
            return 0
        if command == "cached" and args:
            for path in args:
                cached, size = resident(path)
                print(f"{os.path.basename(path)}: {shown(cached)} of {shown(size)} in the page"
                      " cache")
            return 0
        if command == "run" and "--" in args:
            split = args.index("--")
            options, program = args[:split], args[split + 1:]
            watched = options[1:-1:2]
            if (program and len(options) % 2 == 1 and
                    all(flag == "--cached" for flag in options[:-1:2])):
                return run(options[-1], watched, program)
        if command == "verify" and len(args) == 4 and args[2].isdigit() and args[3].isdigit():
            with open(args[0], encoding="utf-8") as f:
                report = json.load(f)
            problem = verify(report, args[1], int(args[2]), int(args[3]))
            if problem:
                print(f"bench_weights: {problem}", file=sys.stderr)
                return 1
            return 0
    except (OSError, ValueError, AttributeError) as error:
        print(f"bench_weights: {error}", file=sys.stderr)
        return 2
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
