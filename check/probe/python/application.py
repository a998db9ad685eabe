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


