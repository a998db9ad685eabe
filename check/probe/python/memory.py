# ---- the application layer: the memory the weights asked need, against what this process may use ----

KIB = 1024


def resident_bytes():
    """This interpreter's resident memory (/proc/self/statm's second field, in pages); None
    where it cannot be read."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def stage_memory(channel, torch, stage, gpu, index):
    """The memory at a stage's end (the guide's section 7): the resident memory, and on a GPU the
    allocator's allocated and reserved bytes."""
    allocated = reserved = None
    if gpu:
        try:
            allocated = int(torch.cuda.memory_allocated(index))
            reserved = int(torch.cuda.memory_reserved(index))
        except Exception:
            pass
    channel.answer("stage_memory", stage=stage, rss_bytes=resident_bytes(),
                   allocated_bytes=allocated, reserved_bytes=reserved)


def number_in(path, key=None):
    """The number a cgroup file holds ("max" and unreadable: None), or the one after `key` in a
    file of "key value" lines (memory.stat, memory.events, memory.oom_control)."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return None
    if key is None:
        text = text.strip()
        return int(text) if text.isdigit() else None
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name == key and value.strip().isdigit():
            return int(value.strip())
    return None


def cgroup_room():
    """What this process's memory cgroups let it still use: each limit on the way up to the
    root less that cgroup's usage, the page cache it may reclaim (inactive files) not counted as
    used; the least of them, None without a limit. v2 memory.max / memory.current, v1
    memory.limit_in_bytes / memory.usage_in_bytes."""
    try:
        with open("/proc/self/cgroup") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    places = []
    for line in lines:
        _, controllers, path = (line.split(":", 2) + ["", ""])[:3]
        if controllers == "" and os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
            places.append(("/sys/fs/cgroup", path, "memory.max", "memory.current", "inactive_file"))
        elif "memory" in controllers.split(","):
            places.append(("/sys/fs/cgroup/memory", path, "memory.limit_in_bytes",
                           "memory.usage_in_bytes", "total_inactive_file"))
    least = None
    for root, path, limit_file, usage_file, inactive in places:
        parts = [p for p in path.split("/") if p]
        for depth in range(len(parts), -1, -1):
            folder = os.path.join(root, *parts[:depth])
            limit = number_in(os.path.join(folder, limit_file))
            if limit is None or limit >= 1 << 62:  # v1 writes "no limit" as a huge number
                continue
            usage = number_in(os.path.join(folder, usage_file)) or 0
            reclaimable = number_in(os.path.join(folder, "memory.stat"), inactive) or 0
            room = max(0, limit - max(0, usage - reclaimable))
            least = room if least is None else min(least, room)
    return least


def host_available():
    """MemAvailable of /proc/meminfo, in bytes."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * KIB
    except (OSError, ValueError, IndexError):
        pass
    return None


def address_space_room():
    """The address-space limit (ulimit -v) less what this process has mapped; None without one."""
    import resource
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    mapped = None
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    mapped = int(line.split()[1]) * KIB
    except (OSError, ValueError, IndexError):
        pass
    return max(0, soft - (mapped or 0))


def weights_bytes(path):
    """The bytes a weights file's tensors take, read from its header or its archive's directory,
    nothing loaded nor unpickled: safetensors' header (each tensor's offsets), torch.save's
    archive (the sizes of its data/ entries, one a storage); another file counts its size.
    None where it cannot be read (its check says why)."""
    import zipfile
    try:
        size = os.stat(path).st_size
        with open(path, "rb") as f:
            head = f.read(16)
            if len(head) >= 9 and head[8:9] == b"{":
                length = struct.unpack_from("<Q", head)[0]
                f.seek(8)
                header = json.loads(f.read(min(length, 1 << 28)).decode("utf-8"))
                header.pop("__metadata__", None)
                return sum(int(e["data_offsets"][1]) - int(e["data_offsets"][0])
                           for e in header.values())
            if head.startswith(b"PK\x03\x04"):
                f.seek(0)
                entries = zipfile.ZipFile(f).infolist()
                return sum(e.file_size for e in entries if "/data/" in e.filename)
        return size
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError,
            zipfile.BadZipFile, struct.error):
        return None


def device_room(torch, index, needed):
    """The GPU's free memory for this process, then a real allocation of the bytes needed (freed
    at once) where that much is free: (free bytes, whether the allocation was made)."""
    free, _ = torch.cuda.mem_get_info(index)
    if needed > free:
        return int(free), False
    try:
        block = torch.empty(int(needed), dtype=torch.uint8, device="cuda:%d" % index)
        del block
        return int(free), True
    except Exception:
        return int(free), False
    finally:
        torch.cuda.empty_cache()


def weights_memory(channel, torch, weights, gpu, index):
    """Before any weights file is loaded: the bytes they need against what this process may still
    use on the chosen device (never finding out by being killed). False where they do not fit."""
    start = time.monotonic()
    needed = sum(b for b in (weights_bytes(p) for p in weights) if b is not None)
    rooms = []
    if gpu:
        try:
            free, allocated = device_room(torch, index, needed)
            rooms.append(("device", free if allocated or needed > free else 0))
        except Exception as error:
            channel.answer("weights_memory", weights_bytes=needed, available_bytes=None,
                           limited_by=None, fits=None, words=first_line(error),
                           seconds=round(time.monotonic() - start, 6))
            return True
    else:
        for name, room in (("available", host_available()), ("cgroup", cgroup_room()),
                           ("address_space", address_space_room())):
            if room is not None:
                rooms.append((name, room))
    limited_by, available = min(rooms, key=lambda r: r[1]) if rooms else (None, None)
    fits = available is None or needed <= available
    channel.answer("weights_memory", weights_bytes=needed, available_bytes=available,
                   limited_by=limited_by, fits=fits, words="",
                   seconds=round(time.monotonic() - start, 6))
    return fits
