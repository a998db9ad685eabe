# The python probe: the interpreter of the user's environment imports its own torch and runs
# the contract's computation in that torch, speaking the worker protocol to the check on
# descriptor 3 (check/facts/protocol.hpp). It is built into the check (check/CMakeLists.txt,
# kd_embed) and run as `python -c PROGRAM DEVICE INDEX [ASKED]`, ASKED a JSON object of the
# modules to import and the weights files to open ({"imports": [...], "weights": [...]}), so that
# it imports torch as any program of that environment started from the same folder does.
#
# It decides nothing. It answers the calls of the probe interface (check/probe/probe_abi.h) in the
# order the check's stages make them, stopping at the first that fails, and gives the facts
# of an import that failed (the exception's class, the module it names, the tags of torch's
# extension, whether the torch found is an installed package): the check's worker recognises
# the cause and verifies the numbers from these answers, as it does for every probe.
#
# After the computation it lists the environment's distributions that require torch, from their
# metadata alone, and imports the modules the check was asked to (--import), each in this same
# process and torch, loading every library of its distribution that links libtorch as torch
# loads an extension's ops library, then opens each weights file asked (--weights) as an
# application loads it, never running code from it (the application layer).
#
# Runs on Python 3.8 to 3.14 with torch 1.13 to 2.15; it writes no file, and in CPU mode it
# makes no torch.cuda call and lets no GPU driver start.
import errno
import json
import os
import re
import struct
import sys
import time

CAPACITY = 500  # the characters of a message kept (kd_error.message holds 512 bytes)


def first_line(text):
    # Terminal colours some libraries put in their messages (torch.load's) are no words.
    for line in re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", str(text)).splitlines():
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


def errno_name(number):
    return errno.errorcode.get(number, str(number))


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


def product_and_loss(a, b):
    """The contract's computation: the product, and the loss (sum p)^2."""
    p = a @ b
    return p, p.sum() ** 2


def run_computation(torch, device, step):
    """`step` (product_and_loss, or what torch.compile made of it) over the contract's tensors on
    `device`, the gradient by autograd; its numbers as the check reads them."""
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float32, device=device,
                     requires_grad=True)
    b = torch.tensor([[2.0, 0.0], [0.0, 1.0]], dtype=torch.float32, device=device)
    p, loss = step(a, b)
    loss.backward()
    synchronized = False
    if device != "cpu":
        torch.cuda.synchronize(device)
        synchronized = True
    return {"product": [float(v) for v in p.detach().cpu().reshape(-1).tolist()],
            "gradient": [float(v) for v in a.grad.detach().cpu().reshape(-1).tolist()],
            "loss": float(loss.detach().cpu().item()), "synchronized": synchronized}


def compute(torch, device):
    result = run_computation(torch, device, product_and_loss)
    result["gradient_source"] = "autograd"
    return result


# ---- the backend's own libraries: cuDNN (MIOpen) and NCCL (RCCL), and torch.compile ----

def compiled_compute(torch, device):
    """The same computation through torch.compile and its default backend: the product and the
    loss in the compiled graph, the gradient through the graph autograd compiled for it."""
    result = run_computation(torch, device, torch.compile(product_and_loss))
    del result["synchronized"]
    result["backend"] = "inductor"
    return result


def innermost_compile_error(error):
    """The error behind torch.compile's wrappers (BackendCompilerFailed and its cause)."""
    seen = set()
    while id(error) not in seen:
        seen.add(id(error))
        inner = getattr(error, "inner_exception", None) or error.__cause__
        if inner is None:
            break
        error = inner
    return error


def compile_words(error, inner):
    """The words of a failed compile: the compiler's first diagnostic where the exceptions carry
    its output ("fatal error: Python.h: No such file or directory", without the file it names;
    a CalledProcessError's output, or inductor's CppCompileError's text), else the innermost
    exception's first line."""
    for text in (getattr(inner, "output", None), getattr(inner, "stderr", None), str(error),
                 str(inner)):
        if isinstance(text, bytes):
            text = text.decode("utf-8", "replace")
        for line in (text or "").splitlines():
            found = re.search(r"\b(?:fatal )?error: .*", line)
            if found:
                return first_line(found.group(0))
    return first_line(inner)


def compile_facts(error, torch, installed):
    """What a failed torch.compile shows, and what its toolchain needs: a C++ compiler and the
    Python headers (inductor's C++ code, on the CPU), triton of the release torch pins and a C
    compiler for its launcher (on a GPU)."""
    import shutil
    import sysconfig
    import importlib.util
    inner = innermost_compile_error(error)
    cxx = ""
    try:
        configured = torch._inductor.config.cpp.cxx
        cxx = configured[-1] if isinstance(configured, (tuple, list)) else str(configured or "")
    except Exception:
        pass
    facts = {"exception": type(inner).__name__, "words": compile_words(error, inner),
             "in_torch": callable(getattr(torch, "compile", None)),
             "cxx_found": bool(shutil.which(cxx or "g++") or shutil.which("c++")),
             "python_headers": os.path.exists(os.path.join(
                 sysconfig.get_paths().get("include", ""), "Python.h")),
             "cc_found": any(shutil.which(c) for c in (os.environ.get("CC", ""), "gcc", "cc",
                                                       "clang") if c),
             "triton": "", "triton_pinned": ""}
    try:
        if importlib.util.find_spec("triton") is not None:
            for d in installed:
                if normalized(d.name) == "triton":
                    facts["triton"] = d.version
            facts["triton"] = facts["triton"] or "unknown"
    except Exception:
        pass
    pins = torch_pins(installed)
    facts["triton_pinned"] = pins.get("triton", "")
    return facts


def compile_stage(channel, torch, device):
    """--compile: the computation a second time through torch.compile, its caches in the
    check's private folder (TORCHINDUCTOR_CACHE_DIR, TRITON_CACHE_DIR, TMPDIR, set before torch
    came)."""
    channel.stage("compile")
    start = time.monotonic()
    try:
        result = compiled_compute(torch, device)
    except Exception as error:
        channel.answer("compile", status=2, ms=ms_since(start),
                       facts=compile_facts(error, torch, installed_once()))
        return False
    channel.answer("compile", status=0, ms=ms_since(start), **result)
    return True


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


# ---- the application layer: the distributions that require torch, and the modules asked ----

REQUIREMENT = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(.*)")


def normalized(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_of(line):
    """(name, specifier as written) of a requirement ("torch (==2.9.1)" -> ("torch", "==2.9.1"));
    None for one that applies only with an extra, or that does not parse."""
    text, _, marker = line.partition(";")
    if "extra" in marker:
        return None
    match = REQUIREMENT.match(text)
    if match is None:
        return None
    rest = match.group(2).strip()
    specifier = "" if rest.startswith("@") else rest.strip("() ").replace(" ", "")
    return match.group(1), specifier


def header_of(path):
    """The header fields of a METADATA or PKG-INFO file, up to its first empty line."""
    fields = []
    try:
        with open(path, encoding="utf-8", errors="replace") as text:
            for line in text:
                if not line.strip():
                    break
                name, colon, value = line.partition(":")
                if colon and not line[0].isspace():
                    fields.append((name.strip(), value.strip()))
    except OSError:
        pass
    return fields


def lines_of(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as text:
            return [line.strip() for line in text if line.strip()]
    except OSError:
        return []


class Distribution:
    """One installed distribution: a *.dist-info or *.egg-info folder of a folder of sys.path."""

    def __init__(self, site, info):
        self.site, self.info = site, os.path.join(site, info)
        self.dist_info = info.endswith(".dist-info")
        header = header_of(os.path.join(self.info, "METADATA" if self.dist_info else "PKG-INFO"))
        values = {}
        for name, value in header:
            values.setdefault(name, value)
        stem = info.rsplit(".", 1)[0]
        self.name = values.get("Name") or stem.split("-")[0]
        self.version = values.get("Version") or (stem.split("-") + [""])[1]
        if self.dist_info:
            self.requires = [v for n, v in header if n == "Requires-Dist"]
        else:
            self.requires = []
            for line in lines_of(os.path.join(self.info, "requires.txt")):
                if line.startswith("["):
                    break  # the sections of extras follow the unconditional requirements
                self.requires.append(line)

    def torch_requirement(self):
        """The specifier of its requirement on torch ("" for any release); None without one."""
        for line in self.requires:
            parsed = requirement_of(line)
            if parsed is not None and normalized(parsed[0]) == "torch":
                return parsed[1]
        return None

    def files(self):
        """The files it installed, relative to its site folder."""
        if self.dist_info:
            return [line.split(",", 1)[0] for line in lines_of(os.path.join(self.info, "RECORD"))]
        base = os.path.basename(self.info)
        return [os.path.normpath(os.path.join(base, line))
                for line in lines_of(os.path.join(self.info, "installed-files.txt"))]

    def modules(self):
        """Its top-level modules: top_level.txt, else the first part of the files it lists."""
        listed = [m for m in lines_of(os.path.join(self.info, "top_level.txt"))
                  if m and not m.startswith("_")]
        if listed:
            return listed
        found = []
        for path in self.files():
            first = path.split("/", 1)[0]
            if first.endswith((".dist-info", ".egg-info", ".libs", ".data")) or first in ("..", "bin"):
                continue
            name = first.split(".", 1)[0] if "/" not in path else first
            if name and not name.startswith("_") and name not in found and name.isidentifier():
                found.append(name)
        return found

    def facts(self):
        version = self.version
        local = version.split("+", 1)[1] if "+" in version else ""
        modules = self.modules()
        return {"distribution": self.name, "version": version,
                "requires_torch": self.torch_requirement(),
                "module": modules[0] if modules else "", "local_tag": local}


_INSTALLED = []


def installed_once():
    """distributions(), read once for the run (the backend layer and the application's)."""
    if not _INSTALLED:
        _INSTALLED.append(distributions())
    return _INSTALLED[0]


def distributions():
    """Every distribution on sys.path, the first of each name as importlib.metadata finds it."""
    found, names = [], set()
    for entry in sys.path:
        try:
            infos = sorted(n for n in os.listdir(entry or ".")
                           if n.endswith((".dist-info", ".egg-info")))
        except OSError:
            continue
        for info in infos:
            if not os.path.isdir(os.path.join(entry or ".", info)):
                continue
            d = Distribution(entry or ".", info)
            key = normalized(d.name)
            if key not in names:
                names.add(key)
                found.append(d)
    return found


def provider_of(module, installed):
    """The distribution whose files hold `module`'s top-level package, or None."""
    top = module.split(".", 1)[0]
    for d in installed:
        if top in d.modules():
            return d
    return None


def needed_of(path):
    """The DT_NEEDED names of a 64-bit little-endian ELF file, read, never loaded; [] otherwise."""
    try:
        with open(path, "rb") as f:
            head = f.read(64)
            if len(head) < 64 or head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
                return []
            phoff, = struct.unpack_from("<Q", head, 32)
            phentsize, phnum = struct.unpack_from("<HH", head, 54)
            f.seek(phoff)
            table = f.read(phentsize * phnum)
            loads, dynamic = [], None
            for i in range(phnum):
                kind, _, offset, vaddr, _, filesz, _, _ = struct.unpack_from("<IIQQQQQQ", table,
                                                                             i * phentsize)
                if kind == 1:
                    loads.append((vaddr, offset, filesz))
                elif kind == 2:
                    dynamic = (offset, filesz)
            if dynamic is None:
                return []
            f.seek(dynamic[0])
            data = f.read(dynamic[1])
            needed, strtab, strsz = [], None, 0
            for i in range(0, len(data) - 15, 16):
                tag, value = struct.unpack_from("<qQ", data, i)
                if tag == 0:
                    break
                if tag == 1:
                    needed.append(value)
                elif tag == 5:
                    strtab = value
                elif tag == 10:
                    strsz = value
            at = next((o + strtab - v for v, o, n in loads if v <= strtab < v + n), None)
            if at is None:
                return []
            f.seek(at)
            strings = f.read(strsz)
            return [strings[n:strings.index(b"\0", n)].decode("utf-8", "replace")
                    for n in needed if n < len(strings) and b"\0" in strings[n:]]
    except (OSError, struct.error, ValueError):
        return []


def links_torch(needed):
    return any(n.startswith(("libtorch", "libc10")) for n in needed)


def cuda_majors(needed):
    """The CUDA runtime majors a library needs: libcudart.so.12, libcudart.e8e8b82a.so.12."""
    return sorted({n.rsplit(".so.", 1)[1].split(".")[0] for n in needed
                   if n.startswith("libcudart") and ".so." in n})


def torch_libraries(d):
    """The files of distribution `d` that link libtorch or libc10, and the CUDA runtime majors
    they need."""
    libraries, majors = [], set()
    for path in d.files():
        name = os.path.basename(path)
        if not (name.endswith(".so") or ".so." in name) or path.startswith(".."):
            continue
        full = os.path.join(d.site, path)
        needed = needed_of(full)
        if links_torch(needed):
            libraries.append(full)
            majors.update(cuda_majors(needed))
    return libraries, sorted(majors)


def torch_exports(symbol):
    """Whether a library of torch's that this process loaded exports `symbol`."""
    import ctypes
    for path in loaded_objects("libc10") + loaded_objects("libtorch"):
        try:
            lib = ctypes.CDLL(path, mode=os.RTLD_NOW | getattr(os, "RTLD_NOLOAD", 4))
            getattr(lib, symbol)
            return True
        except (OSError, AttributeError):
            continue
    return False


def importer_of(error):
    """The module whose code raised `error` (the one importing what is missing): the innermost
    frame of its trace outside the import machinery."""
    tb, name = error.__traceback__, ""
    while tb is not None:
        frame = tb.tb_frame
        module = str(frame.f_globals.get("__name__", ""))
        if module and module != "importlib" and not module.startswith(("importlib.", "_frozen")):
            name = module
        tb = tb.tb_next
    return name if name != "__main__" else ""


def failure_facts(error, installed, d):
    """What an import or a library load that failed shows, as facts: names, never a path."""
    words = first_line(error) or type(error).__name__
    facts = {"exception": type(error).__name__, "words": words, "missing_module": "",
             "needed_by": "", "undefined_symbol": "", "symbol_in_torch": False,
             "requires_missing": []}
    if isinstance(error, ImportError) and isinstance(getattr(error, "name", None), str):
        if type(error).__name__ == "ModuleNotFoundError":
            facts["missing_module"] = error.name
            facts["needed_by"] = importer_of(error)
    symbol = re.search(r"undefined symbol: (\S+)", words)
    if symbol:
        facts["undefined_symbol"] = symbol.group(1)
        facts["symbol_in_torch"] = torch_exports(symbol.group(1))
    if d is not None:
        have = {normalized(x.name) for x in installed}
        for line in d.requires:
            parsed = requirement_of(line)
            if parsed is not None and normalized(parsed[0]) not in have:
                facts["requires_missing"].append(parsed[0])
    return facts


def import_extension(torch, module, installed):
    """Imports `module` as the application does, then loads every library of its distribution
    that links libtorch the way torch loads an extension's ops library: the answer's fields."""
    import importlib
    d = provider_of(module, installed)
    libraries, majors = torch_libraries(d) if d is not None else ([], [])
    answer = {"module": module, "ok": True, "distribution": d.facts() if d else None,
              "cuda_majors": majors, "phase": "import", "library": ""}
    start = time.monotonic()
    try:
        importlib.import_module(module)
        answer["phase"] = "library"
        for path in libraries:
            answer["library"] = os.path.basename(path)
            torch.ops.load_library(path)
        answer["library"] = ""
    except BaseException as error:  # an import may raise anything, SystemExit included
        answer["ok"] = False
        answer["facts"] = failure_facts(error, installed, d)
        path = getattr(error, "path", None) if isinstance(error, ImportError) else None
        if answer["phase"] == "import" and isinstance(path, str) and ".so" in os.path.basename(path):
            answer["library"] = os.path.basename(path)  # the extension module the loader refused
    answer["seconds"] = round(time.monotonic() - start, 6)
    return answer


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


def check_weights(torch, path):
    """One weights file asked (--weights), opened as an application does: its answer's fields."""
    import zipfile
    answer = {"file": os.path.basename(path.rstrip("/")) or path, "ok": False, "format": "",
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


def application(channel, torch, modules, weights):
    """The application layer: the distributions that require torch, listed from their metadata
    alone, then each module asked, imported in turn until one fails."""
    channel.stage("application")
    start = time.monotonic()
    installed = installed_once()
    listed = [d.facts() for d in installed if d.torch_requirement() is not None]
    channel.answer("extensions_listed", ms=ms_since(start), distributions=listed,
                   torch_cxx11_abi=bool(getattr(torch._C, "_GLIBCXX_USE_CXX11_ABI", True)))
    for module in modules:
        channel.answer("importing", module=module)
        answer = import_extension(torch, module, installed)
        channel.answer("extension", **answer)
        if not answer["ok"]:
            return
    for path in weights:
        channel.answer("opening", file=os.path.basename(path.rstrip("/")) or path)
        answer = check_weights(torch, path)
        channel.answer("weights", **answer)
        if not answer["ok"]:
            return


def run(channel, gpu, index, modules, weights, compile_asked=False):
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
    start = time.monotonic()
    channel.answer("backend_libraries", libraries=backend_libraries(torch, installed_once()),
                   ms=ms_since(start))
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
    if compile_asked and not compile_stage(channel, torch, device):
        return
    application(channel, torch, modules, weights)


def main():
    channel = Channel()
    gpu, index = sys.argv[1] == "cuda", int(sys.argv[2])
    asked = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
    folder = asked.get("private_folder", "")
    if folder:
        # Before torch comes: inductor's and triton's caches and any temporary file go to the
        # check's private folder, which the check removes, and nowhere else (torchvision's
        # import makes inductor's cache folder, for one).
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(folder, "inductor")
        os.environ["TRITON_CACHE_DIR"] = os.path.join(folder, "triton")
        os.environ["TMPDIR"] = folder
    try:
        run(channel, gpu, index, asked.get("imports", []), asked.get("weights", []),
            bool(asked.get("compile")))
    except BaseException as error:  # the probe's own defect: said, never a pass
        channel.answer("probe_failed", message=first_line(error) or type(error).__name__)
    channel.send(event="done")
    # Nothing of torch's shutdown: some GPU runtimes crash while unloading, and every answer
    # is with the check already.
    channel.out.flush()
    os._exit(0)


main()
