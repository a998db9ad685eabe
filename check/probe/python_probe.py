# The python probe: the interpreter of the user's environment imports its own torch and runs
# the contract's computation in that torch, speaking the worker protocol to the check on
# descriptor 3 (check/protocol.hpp). It is built into the check (check/CMakeLists.txt,
# kd_embed) and run as `python -c PROGRAM DEVICE INDEX`, so it imports torch as any program
# of that environment started from the same folder does.
#
# It decides nothing. It answers the calls of the probe interface (check/probe_abi.h) in the
# order the check's stages make them, stopping at the first that fails, and gives the facts
# of an import that failed (the exception's class, the module it names, the tags of torch's
# extension, whether the torch found is an installed package): the check's worker recognises
# the cause and verifies the numbers from these answers, as it does for every probe.
#
# Runs on Python 3.8 to 3.14 with torch 1.13 to 2.15; it writes no file, and in CPU mode it
# makes no torch.cuda call and lets no GPU driver start.
import json
import os
import sys
import time

CAPACITY = 500  # the characters of a message kept (kd_error.message holds 512 bytes)


def first_line(text):
    for line in str(text).splitlines():
        if line.strip():
            return line.strip()[:CAPACITY]
    return ""


class Channel:
    def __init__(self):
        self.out = os.fdopen(3, "w", buffering=1)
        self.start = time.monotonic()

    def send(self, **event):
        self.out.write(json.dumps(event, separators=(",", ":")) + "\n")
        self.out.flush()

    def stage(self, name):
        self.send(event="stage", stage=name)

    def answer(self, call, **fields):
        self.send(event="answer", call=call, **fields)


def ms_since(start):
    return round((time.monotonic() - start) * 1000.0, 3)


def python_version():
    return "%d.%d.%d" % sys.version_info[:3]


def environment_kind():
    if os.path.exists(os.path.join(sys.prefix, "conda-meta")):
        return "conda"
    return "virtualenv" if sys.prefix != getattr(sys, "base_prefix", sys.prefix) else "system"


# ---- which torch: the package the import finds, and whether it is an installed one ----

def installed_torch_folders():
    """The torch package folders an installer put on sys.path: a folder whose site folder
    holds a torch *.dist-info or *.egg-info."""
    found = []
    for entry in sys.path:
        base = entry or os.getcwd()
        try:
            names = os.listdir(base)
        except OSError:
            continue
        if "torch" not in names:
            continue
        if any(n.startswith("torch-") and (n.endswith(".dist-info") or n.endswith(".egg-info"))
               for n in names):
            found.append(os.path.join(base, "torch"))
    return found


def place_of(folder):
    """Where a folder on sys.path comes from, in fixed words: the working folder, a folder
    PYTHONPATH names, or another folder of sys.path."""
    real = os.path.realpath(folder)
    if real == os.path.realpath(os.getcwd()):
        return "working_folder"
    for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        if entry and os.path.realpath(entry) == real:
            return "pythonpath"
    return "sys_path"


def torch_found():
    """What `import torch` finds first: its kind (`package`, `module_file`, `source_checkout`,
    `namespace`), its folder, whether an installer put it there, and where it comes from."""
    import importlib.util
    try:
        spec = importlib.util.find_spec("torch")
    except Exception:  # a torch already half in sys.modules, or a broken finder
        spec = None
    if spec is None:
        return None
    origin = spec.origin if spec.has_location else None
    if spec.submodule_search_locations is None:
        folder, kind = os.path.dirname(origin or ""), "module_file"
        package = ""
    else:
        locations = list(spec.submodule_search_locations)
        package = locations[0] if locations else ""
        folder = os.path.dirname(package)
        if origin is None:
            kind = "namespace"
        elif os.path.exists(os.path.join(folder, "setup.py")) or os.path.exists(
                os.path.join(folder, ".git")):
            kind = "source_checkout"
        else:
            kind = "package"
    installed = [os.path.realpath(p) for p in installed_torch_folders()]
    return {
        "kind": kind,
        "package": package,
        "installed": bool(package) and os.path.realpath(package) in installed,
        "installed_elsewhere": any(p != os.path.realpath(package or origin or "")
                                   for p in installed),
        "place": place_of(folder) if folder else "sys_path",
    }


# ---- an import that failed: its facts ----

def extension_tags(package):
    """The CPython tags torch's _C extension was built for ("cpython-312-x86_64-linux-gnu"),
    and the interpreter's own."""
    import importlib.machinery
    own = ""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        if suffix.startswith(".cpython-"):
            own = suffix[1:-3]
            break
    built = []
    try:
        for name in sorted(os.listdir(package)):
            if name.startswith("_C.") and name.endswith(".so") and name != "_C.so":
                built.append(name[3:-3])
    except OSError:
        pass
    return own, built


def tag_version(tag):
    """"cpython-312-x86_64-linux-gnu" -> "3.12"."""
    digits = tag.split("-")[1] if tag.startswith("cpython-") and "-" in tag else ""
    return digits[0] + "." + digits[1:] if len(digits) >= 2 and digits.isdigit() else ""


def innermost(error):
    """The exception behind an import error that wraps another (torch wraps the failure of
    its _C extension in its own ImportError)."""
    seen = set()
    while id(error) not in seen:
        seen.add(id(error))
        inner = error.__cause__ or error.__context__
        if not isinstance(inner, (ImportError, OSError, SyntaxError)):
            break
        error = inner
    return error


def inside(path, folder):
    if not path or not folder:
        return ""
    real, top = os.path.realpath(path), os.path.realpath(folder)
    if real.startswith(top + os.sep):
        return "torch/" + os.path.relpath(real, top)
    return ""


def import_facts(error, found):
    """What the failed import shows, as facts: never a path, only the names Python gives and
    the place of a file relative to the torch folder."""
    raised = innermost(error)
    package = found["package"] if found else ""
    facts = {
        "exception": type(raised).__name__,
        "words": first_line(raised) or type(raised).__name__,
        "module": "",
        "torch_file": "",
        "loader": False,
    }
    name = getattr(raised, "name", None) if isinstance(raised, ImportError) else None
    if isinstance(name, str):
        facts["module"] = name
    path = getattr(raised, "path", None) if isinstance(raised, ImportError) else None
    filename = getattr(raised, "filename", None)
    # The loader's refusal comes through the import as an ImportError of an extension module
    # (its path a shared object) or as ctypes' OSError: its words are the loader's.
    if isinstance(raised, ImportError) and isinstance(path, str) and ".so" in os.path.basename(path):
        facts["loader"] = True
    if isinstance(raised, OSError) and not isinstance(raised, ImportError) and ".so" in facts["words"]:
        facts["loader"] = True
    if isinstance(raised, SyntaxError) or isinstance(filename, str):
        facts["torch_file"] = inside(filename, package)
    elif facts["module"].startswith("torch.") and package:
        # A submodule of torch that is not there: is its file among those the package lists?
        facts["torch_file"] = listed_module_file(facts["module"], package)
    if not facts["torch_file"] and isinstance(raised, (ValueError, EOFError)):
        facts["torch_file"] = failing_torch_file(raised, package)
    own, built = extension_tags(package) if package else ("", [])
    facts["extension_tag_own"] = own
    facts["extension_tags"] = built
    facts["extension_python"] = sorted({tag_version(t) for t in built if tag_version(t)})
    return facts


def failing_torch_file(error, package):
    """The torch file whose code the import was reading when a ValueError (null bytes) or an
    EOFError rose: the last frame of its trace inside the torch folder that is a .py file."""
    tb = error.__traceback__
    last = ""
    while tb is not None:
        where = inside(tb.tb_frame.f_code.co_filename, package)
        if where:
            last = where
        tb = tb.tb_next
    return last


def listed_module_file(module, package):
    """torch/<module path>.py (or its package's __init__.py) when the wheel's RECORD lists it:
    a file the installation had and lost."""
    relative = module.split(".", 1)[1].replace(".", "/")
    candidates = ["torch/" + relative + ".py", "torch/" + relative + "/__init__.py"]
    site = os.path.dirname(package)
    try:
        infos = [n for n in os.listdir(site) if n.startswith("torch-") and n.endswith(".dist-info")]
    except OSError:
        infos = []
    for info in infos:
        try:
            with open(os.path.join(site, info, "RECORD"), encoding="utf-8") as record:
                for line in record:
                    listed = line.split(",", 1)[0]
                    if listed in candidates:
                        return listed
        except OSError:
            continue
    return ""


def shadow_facts(found):
    if found is None:
        return {"kind": "", "installed": False, "installed_elsewhere": False, "place": ""}
    return {k: found[k] for k in ("kind", "installed", "installed_elsewhere", "place")}


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


# ---- the calls ----

def error_of(error):
    """A failed call's kd_status and kd_error: an allocation the library refused, or any
    other error it raised, by the class it raised."""
    name = type(error).__name__
    out_of_memory = name == "OutOfMemoryError" or isinstance(error, MemoryError)
    return {"status": 1 if out_of_memory else 2,
            "error": {"type": "OutOfMemoryError" if out_of_memory else "torch." + name,
                      "message": first_line(error) or name}}


def withdraw_gpu_device_types():
    """CPU mode: the autograd engine counts the devices of every registered device type when
    it first runs a backward pass, starts a thread for each, and counting CUDA, HIP or Vulkan
    devices starts their driver. Every device type but the CPU is withdrawn from c10's registry
    (an exported array, unchanged since torch 1.x; the types up to IPU, 18, which every release
    has): the compiled probe withdraws CUDA and HIP, and Debian's torch also registers Vulkan,
    Meta and Lazy, whose threads a process limit of two refuses. False where the registry cannot
    be found: the CPU gradient is then not taken, rather than letting a driver start."""
    import ctypes
    symbol = "_ZN3c104impl26device_guard_impl_registryE"
    for path in loaded_objects("libc10.so"):
        try:
            lib = ctypes.CDLL(path, mode=os.RTLD_NOW | getattr(os, "RTLD_NOLOAD", 4))
            registry = (ctypes.c_void_p * 19).in_dll(lib, symbol)
        except (OSError, ValueError):
            continue
        for device_type in range(1, 19):  # c10::DeviceType::CUDA (1) to IPU (18)
            registry[device_type] = None
        return True
    return False


def compute(torch, device):
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float32, device=device,
                     requires_grad=True)
    b = torch.tensor([[2.0, 0.0], [0.0, 1.0]], dtype=torch.float32, device=device)
    p = a @ b
    loss = p.sum() ** 2
    loss.backward()
    synchronized = False
    if device != "cpu":
        torch.cuda.synchronize(device)
        synchronized = True
    return {"product": [float(v) for v in p.detach().cpu().reshape(-1).tolist()],
            "gradient": [float(v) for v in a.grad.detach().cpu().reshape(-1).tolist()],
            "loss": float(loss.detach().cpu().item()),
            "synchronized": synchronized, "gradient_source": "autograd"}


def run(channel, gpu, index):
    channel.stage("import")
    found = torch_found()
    channel.answer("interpreter", python_version=python_version(),
                   environment=environment_kind(),
                   torch_folder=found["package"] if found else "")
    start = time.monotonic()
    import warnings
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            import torch
    except BaseException as error:  # an import may raise anything, SystemExit included
        channel.answer("import", ok=False, ms=ms_since(start), facts=import_facts(error, found),
                       found=shadow_facts(found))
        return
    said = []
    for warning in caught:
        line = first_line(warning.message)
        if line and line not in said:
            said.append(line)
    channel.answer("import", ok=True, ms=ms_since(start), warnings=said[:3],
                   found=shadow_facts(torch_found()))
    if not hasattr(torch, "tensor") or not hasattr(torch, "__version__"):
        channel.answer("import_incomplete")
        return

    channel.stage("backend")
    try:
        version = torch.version
        cuda = getattr(version, "cuda", None) or ""
        hip = getattr(version, "hip", None) or ""
        channel.answer("library_info", status=0, version=str(torch.__version__)[:63],
                       cuda_version=str(cuda)[:31], hip_version=str(hip)[:63],
                       backend=2 if hip else 1 if cuda else 0)
    except Exception as error:
        channel.answer("library_info", **error_of(error))
        return
    if gpu and not (cuda or hip):
        return

    channel.stage("device")
    device = "cuda:%d" % index if gpu else "cpu"
    start = time.monotonic()
    if gpu:
        try:
            available = bool(torch.cuda.is_available())
            count = int(torch.cuda.device_count())
            words = ""
            if not available or count <= 0:
                # torch's own reason, where its lazy initialisation gives one.
                try:
                    torch.cuda.init()
                except Exception as reason:
                    words = first_line(reason)
            channel.answer("gpu_info", status=0, available=1 if available else 0,
                           device_count=count, error={"type": "", "message": words})
        except Exception as error:
            answer_failure(channel, "gpu_info", error, gpu)
            return
        if not available or count <= 0:
            channel.answer("runtime_status", status=runtime_status(words))
            return
        if index < 0 or index >= count:
            return
    elif not withdraw_gpu_device_types():
        channel.answer("init_device", status=2, ms=ms_since(start),
                       error={"type": "ProbeState",
                              "message": "torch's device registry was not found, so the CPU "
                                         "gradient cannot be taken without starting a GPU driver"})
        return
    try:
        torch.zeros(1, dtype=torch.float32, device=device)
        if gpu:
            torch.cuda.synchronize(device)
    except Exception as error:
        answer_failure(channel, "init_device", error, gpu, ms=ms_since(start))
        return
    channel.answer("init_device", status=0, ms=ms_since(start))
    if gpu:
        channel.answer("device_info", status=0, **device_info(torch, index))

    channel.stage("compute")
    start = time.monotonic()
    try:
        result = compute(torch, device)
    except Exception as error:
        answer_failure(channel, "compute", error, gpu, ms=ms_since(start))
        return
    channel.answer("compute", status=0, ms=ms_since(start), **result)
    if gpu:
        try:
            allocated = int(torch.cuda.memory_allocated(index))
            reserved = int(torch.cuda.memory_reserved(index))
            channel.answer("memory", status=0, allocated_bytes=allocated, reserved_bytes=reserved)
        except Exception as error:
            channel.answer("memory", **error_of(error))


def main():
    channel = Channel()
    gpu, index = sys.argv[1] == "cuda", int(sys.argv[2])
    try:
        run(channel, gpu, index)
    except BaseException as error:  # the probe's own defect: said, never a pass
        channel.answer("probe_failed", message=first_line(error) or type(error).__name__)
    channel.send(event="done")
    # Nothing of torch's shutdown: some GPU runtimes crash while unloading, and every answer
    # is with the check already.
    channel.out.flush()
    os._exit(0)


main()
