# ---- the backend's own libraries: cuDNN (MIOpen) and NCCL (RCCL) ----

def version_text(version):
    """(9, 26, 0) or 92600 -> "9.26.0"."""
    if isinstance(version, (tuple, list)):
        return ".".join(str(int(part)) for part in version[:3])
    if isinstance(version, int) and version > 0:
        if version >= 10000:  # cuDNN 9: major * 10000 + minor * 100 + patch
            return "%d.%d.%d" % (version // 10000, version // 100 % 100, version % 100)
        return "%d.%d.%d" % (version // 1000, version // 100 % 10, version % 100)
    return ""


def recorded_size(distribution, listed):
    """The size the distribution's RECORD gives the file it lists as `listed`; None where the
    line has none (or the distribution keeps no RECORD)."""
    if not distribution.dist_info:
        return None
    for line in lines_of(os.path.join(distribution.info, "RECORD")):
        parts = line.rsplit(",", 2)
        if len(parts) == 3 and parts[0] == listed:
            return int(parts[2]) if parts[2].isdigit() else None
    return None


def library_origin(prefix, installed):
    """Where the library this process loaded comes from, in fixed words, and the distribution
    whose files hold it: "wheel" (a distribution's, named), "ld_library_path" (a folder
    LD_LIBRARY_PATH names, "cuda_toolkit" for a CUDA toolkit's), or "system". For a wheel's file,
    "intact": its size is the one the wheel's RECORD gives (a file written over by another
    package, an image step or a copy is not the wheel's, whatever folder it is in)."""
    paths = [p for p in loaded_objects(prefix) if re.match(re.escape(prefix) + r"\.\d+$",
                                                             os.path.basename(p))]
    if not paths:
        return {"origin": "", "distribution": "", "version": ""}
    real = os.path.realpath(paths[0])
    # The distributions named after the library (nvidia-cudnn-cu13 for libcudnn): is the file
    # loaded one of theirs, wherever links lead? Other RECORDs are never read.
    key = prefix[3:].split(".")[0].lower()
    for d in installed:
        if key not in normalized(d.name):
            continue
        for f in d.files():
            if os.path.basename(f).startswith(prefix) and \
                    os.path.realpath(os.path.join(d.site, f)) == real:
                try:
                    size = os.path.getsize(real)
                except OSError:
                    size = -1
                return {"origin": "wheel", "distribution": d.name, "version": d.version,
                        "intact": recorded_size(d, f) == size}
    folder = os.path.dirname(real)
    for entry in os.environ.get("LD_LIBRARY_PATH", "").split(":"):
        if entry and os.path.realpath(entry) == folder:
            toolkit = re.search(r"/cuda(-[0-9.]+)?/(lib64|lib|targets/[^/]+/lib)$", folder)
            return {"origin": "cuda_toolkit" if toolkit else "ld_library_path",
                    "distribution": "", "version": ""}
    return {"origin": "system", "distribution": "", "version": ""}


def torch_pins(installed):
    """What torch's own metadata pins, by distribution: {"nvidia-cudnn-cu13": "==9.26.0.51"}."""
    pins = {}
    for d in installed:
        if normalized(d.name) != "torch":
            continue
        for line in d.requires:
            parsed = requirement_of(line)
            if parsed is not None:
                pins[normalized(parsed[0])] = parsed[1]
        break
    return pins


def pinned_of(pins, prefix):
    """torch's pin of the wheel whose name starts with `prefix` ("nvidia-cudnn-"), as a
    requirement: "nvidia-cudnn-cu13==9.26.0.51"; "" where it pins none."""
    for name, specifier in sorted(pins.items()):
        if name.startswith(prefix):
            return name + specifier
    return ""


def cudnn_refusal(compiled, runtime, is_cuda):
    """torch's own rule for the cuDNN (MIOpen) it loaded, as torch.backends.cudnn applies it
    (the same major; from cuDNN 7 a minor at least the one built with; MIOpen's exactly), in
    its words; "" where torch accepts it. torch.backends.cudnn.version() itself is not called:
    it asks torch.cuda.is_available(), which loads the GPU driver, in CPU mode too."""
    if os.environ.get("PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK", "0") == "1":
        return ""
    if runtime[0] != compiled[0]:
        accepted = False
    elif runtime[0] < 7 or not is_cuda:
        accepted = runtime[1] == compiled[1]
    else:
        accepted = runtime[1] >= compiled[1]
    if accepted:
        return ""
    return ("cuDNN version incompatibility: PyTorch was compiled against %s but found runtime "
            "version %s" % (tuple(compiled), tuple(runtime)))


def wheel_release(origin):
    """The (major, minor, patch) of a library loaded from a distribution's files, from that
    distribution's version (nvidia-cudnn-cu13 9.26.0.51: (9, 26, 0)), as NVIDIA numbers its
    wheels; None where it came from elsewhere, where the file is not the one that wheel installed
    ("intact"), or where the version says otherwise. Asking cuDNN itself
    (cudnnGetVersion) loads its graph library, about 9 ms, in every run."""
    if origin.get("origin") != "wheel" or not origin.get("intact"):
        return None
    parts = origin.get("version", "").split(".")
    if len(parts) < 3 or not all(p.isdigit() for p in parts[:3]):
        return None
    return tuple(int(p) for p in parts[:3])


def backend_libraries(torch, installed):
    """cuDNN (MIOpen on ROCm) and NCCL (RCCL): the version torch was built with, the one it
    loaded (its wheel's release, else asked of the library), whether torch refuses it (its own
    rule, cudnn_refusal), where the one loaded comes from and the wheel torch pins; read without
    a GPU or its driver."""
    pins = torch_pins(installed)
    hip = bool(getattr(torch.version, "hip", None))
    found = {}
    cudnn = getattr(torch._C, "_cudnn", None)
    if cudnn is not None:
        entry = {"compiled": "", "runtime": "", "refused": False, "words": ""}
        entry.update(library_origin("libMIOpen.so" if hip else "libcudnn.so", installed))
        try:
            compiled = cudnn.getCompileVersion()
            runtime = wheel_release(entry)
            entry["source"] = "wheel" if runtime else "library"
            runtime = runtime or cudnn.getRuntimeVersion()
            entry["compiled"], entry["runtime"] = version_text(compiled), version_text(runtime)
            entry["words"] = cudnn_refusal(compiled, runtime, not hip)
            entry["refused"] = bool(entry["words"])
        except Exception as error:
            entry["refused"] = True
            entry["words"] = first_line(error)
        entry["pinned"] = pinned_of(pins, "nvidia-cudnn-")
        found["miopen" if hip else "cudnn"] = entry
    nccl_version = getattr(getattr(torch.cuda, "nccl", None), "version", None)
    if nccl_version is not None and (getattr(torch.version, "cuda", None) or hip):
        entry = {"runtime": "", "words": ""}
        try:
            entry["runtime"] = version_text(nccl_version())
        except Exception as error:
            entry["words"] = first_line(error)
        entry.update(library_origin("librccl.so" if hip else "libnccl.so", installed))
        entry["pinned"] = pinned_of(pins, "nvidia-nccl-")
        found["rccl" if hip else "nccl"] = entry
    return found


