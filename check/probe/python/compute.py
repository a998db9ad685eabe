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


