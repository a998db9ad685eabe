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


