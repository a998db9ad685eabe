def run(channel, gpu, index, asked):
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
    stage_memory(channel, None, "import", False, index)
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
    stage_memory(channel, torch, "compute", gpu, index)
    if asked.get("compile") and not compile_stage(channel, torch, device):
        return
    application(channel, torch, asked, gpu, index, device)


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
        run(channel, gpu, index, asked)
    except BaseException as error:  # the probe's own defect: said, never a pass
        channel.answer("probe_failed", message=first_line(error) or type(error).__name__)
    channel.send(event="done")
    # Nothing of torch's shutdown: some GPU runtimes crash while unloading, and every answer
    # is with the check already.
    channel.out.flush()
    os._exit(0)


main()
