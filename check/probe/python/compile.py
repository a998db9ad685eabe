# ---- torch.compile: the computation a second time through it (--compile) ----

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


