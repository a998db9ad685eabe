# ---- the application layer: the weights files asked (--weights), opened as an application does ----

LFS_POINTER = b"version https://git-lfs.github.com/spec/v1"
# torch.save's legacy format begins with its pickled magic number (0x1950a86a20f9469cfc6c).
LEGACY_MAGIC = b"\x80\x02\x8a\x0al\xfc\x9cF\xf9 j\xa8P\x19."
# safetensors' dtypes, and torch's name for each (those this torch lacks it cannot read).
SAFETENSORS_DTYPES = {
    "BOOL": ("bool", 1), "U8": ("uint8", 1), "I8": ("int8", 1), "I16": ("int16", 2),
    "U16": ("uint16", 2), "F16": ("float16", 2), "BF16": ("bfloat16", 2), "I32": ("int32", 4),
    "U32": ("uint32", 4), "F32": ("float32", 4), "F64": ("float64", 8), "I64": ("int64", 8),
    "U64": ("uint64", 8), "C64": ("complex64", 8), "F8_E5M2": ("float8_e5m2", 1),
    "F8_E4M3": ("float8_e4m3fn", 1), "F8_E8M0": ("float8_e8m0fnu", 1),
}


def sniff(head, size):
    """The format a file's first bytes show: a weights format, or what else it is."""
    if size == 0:
        return "empty"
    if head.startswith(LFS_POINTER):
        return "git_lfs_pointer"
    if head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        return "zip"
    if head.startswith(LEGACY_MAGIC):
        return "torch_legacy"
    if len(head) >= 9 and head[8:9] == b"{":
        # A header's length, then its JSON (a cut file may end inside it).
        if 2 <= struct.unpack_from("<Q", head)[0] < 1 << 28:
            return "safetensors"
    stripped = head.lstrip().lower()
    if stripped.startswith((b"<!doctype html", b"<html", b"<head", b"<?xml")):
        return "html"
    for magic, kind in ((b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"),
                        (b"\x7fELF", "elf"), (b"GGUF", "gguf"), (b"\x93NUMPY", "numpy"),
                        (b"\x89HDF\r\n\x1a\n", "hdf5"), (b"7z\xbc\xaf\x27\x1c", "7z")):
        if head.startswith(magic):
            return kind
    if len(head) > 262 and head[257:262] == b"ustar":
        return "tar"
    if head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        return "pickle"
    try:
        text = head.decode("utf-8")
        if all(c.isprintable() or c in "\r\n\t" for c in text):
            return "text"
    except UnicodeDecodeError:
        pass
    return "unknown"


def lfs_size(head):
    """The size a Git LFS pointer promises for the object it stands for."""
    match = re.search(rb"^size (\d+)\s*$", head, re.M)
    return int(match.group(1)) if match else None


def zip_extent(f, size):
    """How far a zip archive's local entries reach (each header's sizes, walked from the start):
    where a cut archive needs more bytes than it has."""
    offset = 0
    while offset + 30 <= size:
        f.seek(offset)
        header = f.read(30)
        if header[:4] != b"PK\x03\x04":
            return offset
        flags, = struct.unpack_from("<H", header, 6)
        compressed, = struct.unpack_from("<I", header, 18)
        name_length, extra_length = struct.unpack_from("<HH", header, 26)
        if flags & 8 and compressed == 0:
            return None  # sizes after the data (a data descriptor): not walkable
        offset += 30 + name_length + extra_length + compressed
    return offset


def safetensors_facts(f, size, torch, facts):
    """The header of a safetensors file checked against the file: every tensor's dtype, shape
    and offsets, the data's end equal to the file's size. Its tensors, bytes and dtypes."""
    length = struct.unpack("<Q", f.read(8))[0]
    if length > size - 8:
        facts["cut"], facts["promised_size"] = True, 8 + length
        return None
    try:
        header = json.loads(f.read(length).decode("utf-8"))
    except ValueError as error:
        facts["damage"] = "header: " + first_line(error)
        return None
    if not isinstance(header, dict):
        facts["damage"] = "header: not an object"
        return None
    header.pop("__metadata__", None)
    spans, dtypes, total = [], set(), 0
    for name, entry in header.items():
        try:
            dtype, shape, (begin, end) = entry["dtype"], entry["shape"], entry["data_offsets"]
        except (KeyError, TypeError, ValueError):
            facts["damage"] = "tensor %s: no dtype, shape or data_offsets" % name[:60]
            return None
        if dtype not in SAFETENSORS_DTYPES:
            facts["damage"] = "tensor %s: dtype %s" % (name[:60], str(dtype)[:16])
            return None
        torch_name, width = SAFETENSORS_DTYPES[dtype]
        if not hasattr(torch, torch_name):
            facts.setdefault("unsupported_dtypes", []).append(dtype)
        count = 1
        for dimension in shape:
            count *= int(dimension)
        if end - begin != count * width or begin < 0:
            facts["damage"] = "tensor %s: its offsets do not hold its shape" % name[:60]
            return None
        spans.append((begin, end))
        dtypes.add(torch_name)
        total += end - begin
    spans.sort()
    reach = 0
    for begin, end in spans:
        if begin != reach:
            facts["damage"] = "tensors overlap or leave a gap"
            return None
        reach = end
    if 8 + length + reach > size:
        facts["cut"], facts["promised_size"] = True, 8 + length + reach
        return None
    if 8 + length + reach != size:
        facts["damage"] = "%d bytes after the last tensor" % (size - 8 - length - reach)
        return None
    return {"tensors": len(spans), "bytes": total, "dtypes": sorted(dtypes)}


def safetensors_opens(path, facts):
    """Where the environment has the safetensors package, the file opened with it as an
    application does (its header parsed by it, the data mapped, never read)."""
    try:
        from safetensors import safe_open
    except Exception:
        return True
    try:
        with safe_open(path, framework="pt") as opened:
            list(opened.keys())
        facts["safetensors_package"] = True
        return True
    except Exception as error:
        facts["damage"] = "safetensors: " + first_line(error)
        return False


def tensors_in(value, found, depth=0):
    """The tensors a loaded checkpoint holds (a state_dict, nested dicts and lists)."""
    if depth > 32:
        return
    if hasattr(value, "element_size") and hasattr(value, "numel") and hasattr(value, "dtype"):
        found.append(value)
    elif isinstance(value, dict):
        for item in value.values():
            tensors_in(item, found, depth + 1)
    elif isinstance(value, (list, tuple)):
        for item in value:
            tensors_in(item, found, depth + 1)


def refused_globals(torch, path):
    """The globals a checkpoint names that weights_only refuses, read without unpickling."""
    serialization = torch.serialization
    if hasattr(serialization, "get_unsafe_globals_in_checkpoint"):
        try:
            return list(serialization.get_unsafe_globals_in_checkpoint(path))
        except Exception:
            pass
    return []


def torch_load_facts(torch, path, kind, facts):
    """torch.load as an application loads weights, never running code from the file: on the
    CPU, weights_only, the data mapped where this torch can (mmap) rather than read."""
    import inspect
    parameters = inspect.signature(torch.load).parameters
    arguments = {"map_location": "cpu"}
    if "weights_only" not in parameters and "weights_only" not in str(parameters):
        facts["no_weights_only"] = True
        return None
    arguments["weights_only"] = True
    if kind == "torch_zip" and "mmap" in parameters:
        arguments["mmap"] = True
    try:
        loaded = torch.load(path, **arguments)
    except Exception as error:
        facts["exception"] = type(error).__name__
        facts["words"] = first_line(error)
        if type(error).__name__ == "UnpicklingError":
            facts["refused_globals"] = refused_globals(torch, path)[:8]
        return None
    found = []
    tensors_in(loaded, found)
    dtypes = sorted({str(t.dtype).replace("torch.", "") for t in found})
    return {"tensors": len(found), "bytes": sum(t.numel() * t.element_size() for t in found),
            "dtypes": dtypes}


def check_weights(torch, path, name):
    """One weights file asked (--weights), opened as an application does: its answer's fields,
    the file named by its base name as the check computed it."""
    import zipfile
    answer = {"file": name, "ok": False, "format": "",
              "tensors": None, "bytes": None, "dtypes": [], "facts": {}}
    facts = answer["facts"]
    start = time.monotonic()
    try:
        info = os.stat(path)
        facts["size"] = info.st_size
        facts["mode"] = "%04o" % (info.st_mode & 0o7777)
        facts["owner_other"] = info.st_uid != os.geteuid()
        if os.path.isdir(path):
            answer["format"] = "folder"
            return answer
        with open(path, "rb") as f:
            head = f.read(512)
            kind = sniff(head, info.st_size)
            if kind == "zip":
                try:
                    names = zipfile.ZipFile(f).namelist()
                    kind = "torch_zip" if any(n.endswith("/data.pkl") for n in names) else "zip"
                except zipfile.BadZipFile:
                    # No central directory at its end: the archive was cut.
                    kind = "torch_zip" if b"data.pkl" in head else "zip"
                    facts["cut"] = True
                    reach = zip_extent(f, info.st_size)
                    if reach is not None and reach > info.st_size:
                        facts["promised_size"] = reach
            answer["format"] = kind
            if kind == "git_lfs_pointer":
                facts["lfs_size"] = lfs_size(head)
            elif kind == "safetensors":
                f.seek(0)
                found = safetensors_facts(f, info.st_size, torch, facts)
                if found is not None and "unsupported_dtypes" not in facts:
                    answer.update(found)
                    answer["ok"] = safetensors_opens(path, facts)
        if answer["ok"] or kind not in ("torch_zip", "torch_legacy") or facts.get("cut"):
            return answer
        found = torch_load_facts(torch, path, kind, facts)
        if found is not None:
            answer.update(found)
            answer["ok"] = True
        return answer
    except OSError as error:
        facts["errno"] = errno_name(error.errno)
        facts["words"] = first_line(error)
        return answer
    finally:
        answer["seconds"] = round(time.monotonic() - start, 6)


def application(channel, torch, asked, gpu, index, device):
    """The application layer: the distributions that require torch, listed from their metadata
    alone, then each module asked, imported in turn until one fails; the memory the weights asked
    need against what this process may use, then each weights file opened; then the computation
    in each precision asked and of the weights (stopping at the first that fails)."""
    channel.stage("application")
    start = time.monotonic()
    installed = installed_once()
    listed = [d.facts() for d in installed if d.torch_requirement() is not None]
    channel.answer("extensions_listed", ms=ms_since(start), distributions=listed,
                   torch_cxx11_abi=bool(getattr(torch._C, "_GLIBCXX_USE_CXX11_ABI", True)))
    for module in asked.get("imports", []):
        channel.answer("importing", module=module)
        answer = import_extension(torch, module, installed)
        channel.answer("extension", **answer)
        if not answer["ok"]:
            return
    weights = asked.get("weights", [])
    if weights and not weights_memory(channel, torch, [w["path"] for w in weights], gpu, index):
        return
    verified = []
    for file in weights:
        channel.answer("opening", file=file["name"])
        answer = check_weights(torch, file["path"], file["name"])
        channel.answer("weights", **answer)
        if not answer["ok"]:
            return
        verified.append(answer)
    if precisions(channel, torch, precisions_asked(asked.get("dtypes", []), verified), device):
        stage_memory(channel, torch, "application", gpu, index)
