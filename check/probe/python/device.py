# ---- the GPU runtime torch loaded, asked through ctypes ----

RUNTIMES = (
    ("cuda", "libcudart.so", "cuda"),
    ("hip", "libamdhip64.so", "hip"),
)


def loaded_objects(prefix):
    """The paths of the objects loaded in this process whose file name starts with `prefix`, as
    the loader lists them (dl_iterate_phdr, as the compiled probes ask it): no /proc needed."""
    import ctypes

    class Info(ctypes.Structure):
        _fields_ = [("addr", ctypes.c_void_p), ("name", ctypes.c_char_p)]

    paths = []

    def each(info, size, data):
        name = (info.contents.name or b"").decode("utf-8", "replace")
        if name.startswith("/") and os.path.basename(name).startswith(prefix) and name not in paths:
            paths.append(name)
        return 0

    callback = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(Info), ctypes.c_size_t,
                                ctypes.c_void_p)(each)
    try:
        ctypes.CDLL(None).dl_iterate_phdr(callback, None)
    except (OSError, AttributeError):
        pass
    return paths


def loaded_library(prefix):
    import ctypes
    for path in loaded_objects(prefix):
        try:
            return ctypes.CDLL(path, mode=os.RTLD_NOW | getattr(os, "RTLD_NOLOAD", 4))
        except OSError:
            continue
    return None


def words_number(text_of, failure):
    """The error number whose words `failure` carries, the longest winning; 0 if none."""
    best, best_length = 0, 0
    for number in range(1, 1000):
        words = text_of(number)
        if not words:
            continue
        words = words.decode("utf-8", "replace")
        if len(words) > best_length and "unrecognized" not in words and words in failure:
            best, best_length = number, len(words)
    return best


def runtime_status(failure):
    """The GPU runtime's answer after a GPU call failed (probe_abi.h, runtime_status), and the
    file name behind the driver library this process loaded (evidence.hpp, driver_library)."""
    import ctypes
    status = {"api": 0, "error_number": 0, "driver_version": -1, "runtime_version": -1,
              "error_name": "", "error_text": "", "driver_library": ""}
    for path in loaded_objects("libcuda.so"):
        status["driver_library"] = os.path.basename(os.path.realpath(path))[:63]
        break
    for api_number, (api, library, prefix) in enumerate(RUNTIMES, start=1):
        lib = loaded_library(library)
        if lib is None or not hasattr(lib, prefix + "GetDeviceCount"):
            continue
        status["api"] = api_number
        count = ctypes.c_int(0)
        number = getattr(lib, prefix + "GetDeviceCount")(ctypes.byref(count))
        if number == 0 and hasattr(lib, prefix + "GetLastError"):
            number = getattr(lib, prefix + "GetLastError")()
        text_of = getattr(lib, prefix + "GetErrorString", None)
        name_of = getattr(lib, prefix + "GetErrorName", None)
        for fn in (text_of, name_of):
            if fn is not None:
                fn.restype = ctypes.c_char_p
                fn.argtypes = [ctypes.c_int]
        if number == 0 and text_of is not None and failure:
            number = words_number(text_of, failure)
        status["error_number"] = number
        if number != 0 and name_of is not None:
            status["error_name"] = (name_of(number) or b"").decode("utf-8", "replace")[:63]
        if number != 0 and text_of is not None:
            status["error_text"] = (text_of(number) or b"").decode("utf-8", "replace")[:255]
        for key, fn in (("driver_version", "DriverGetVersion"), ("runtime_version", "RuntimeGetVersion")):
            version = ctypes.c_int(-1)
            if hasattr(lib, prefix + fn) and getattr(lib, prefix + fn)(ctypes.byref(version)) == 0:
                status[key] = version.value
        break
    return status


def answer_failure(channel, call, error, gpu, **fields):
    """Answers `call` with the exception `error`; after a GPU call, the GPU runtime's status too
    (its error number, by which the check recognises the cause)."""
    failed = error_of(error)
    channel.answer(call, **fields, **failed)
    if gpu:
        channel.answer("runtime_status", status=runtime_status(failed["error"]["message"]))


def device_info(torch, index):
    name, capability = "", ""
    try:
        name = str(torch.cuda.get_device_name(index))[:255]
        if getattr(torch.version, "hip", None):
            props = torch.cuda.get_device_properties(index)
            capability = str(getattr(props, "gcnArchName", "")).split(":")[0][:63]
        else:
            major, minor = torch.cuda.get_device_capability(index)
            capability = "%d.%d" % (major, minor)
    except Exception:
        pass
    return {"name": name, "capability": capability}


