# ---- the application layer: the contract's computation again in each precision asked ----

# Every floating dtype the check computes in (--dtype, and those of the weights asked).
PRECISIONS = ("float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float32", "float64")


def precisions_asked(asked, verified):
    """The dtypes of --dtype, then the floating dtypes of the weights files verified, each once."""
    found = []
    for name in list(asked) + [d for w in verified for d in w.get("dtypes", [])]:
        if name in PRECISIONS and name not in found:
            found.append(name)
    return found


def scaled_product(torch, dtype, device):
    """The contract's product in a float8 dtype as applications compute it: torch._scaled_mm,
    unit scales, its result in float32. Its operands padded with zeros to 16 by 16 (the sizes it
    needs on a GPU), the product read back from the top-left corner; the loss from it, no gradient
    (autograd has none for float8). float8_e5m2 is multiplied by float8_e4m3fn, as training
    multiplies a gradient in e5m2 by activations in e4m3fn: two e5m2 operands have no kernel on a
    GPU."""
    a = torch.zeros(16, 16, device=device)
    b = torch.zeros(16, 16, device=device)
    a[:2, :2] = torch.tensor([[1.0, 2.0], [3.0, 4.0]], device=device)
    b[:2, :2] = torch.tensor([[2.0, 0.0], [0.0, 1.0]], device=device)
    one = torch.tensor(1.0, device=device)
    # Its second operand column-major, as it requires.
    second = torch.float8_e4m3fn if dtype == torch.float8_e5m2 else dtype
    result = torch._scaled_mm(a.to(dtype), b.to(second).t().contiguous().t(), scale_a=one,
                              scale_b=one, out_dtype=torch.float32)
    if isinstance(result, tuple):  # torch 2.1 to 2.3 also return the maximum
        result = result[0]
    p = result[:2, :2]
    return p, p.sum() ** 2


def precision_run(torch, name, device):
    """The contract's computation in dtype `name` on `device`: its numbers, as the check verifies
    them, or what stopped it (the dtype missing from this torch, the exception and its words)."""
    answer = {"dtype": name, "device": device, "ok": False, "facts": {}}
    start = time.monotonic()
    try:
        dtype = getattr(torch, name, None)
        if not isinstance(dtype, torch.dtype):
            answer["facts"] = {"missing": True, "exception": "", "words": ""}
            return answer
        if name.startswith("float8"):
            p, loss = scaled_product(torch, dtype, device)
            gradient = None
        else:
            a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=dtype, device=device,
                             requires_grad=True)
            b = torch.tensor([[2.0, 0.0], [0.0, 1.0]], dtype=dtype, device=device)
            p, loss = product_and_loss(a, b)
            loss.backward()
            gradient = [float(v) for v in a.grad.detach().float().cpu().reshape(-1).tolist()]
        if device != "cpu":
            torch.cuda.synchronize(device)
        answer.update(ok=True, gradient=gradient, loss=float(loss.detach().float().cpu().item()),
                      product=[float(v) for v in p.detach().float().cpu().reshape(-1).tolist()])
    except Exception as error:
        answer["facts"] = {"missing": False, "exception": type(error).__name__,
                           "words": first_line(error)}
    finally:
        answer["seconds"] = round(time.monotonic() - start, 6)
    return answer


def precisions(channel, torch, names, device):
    """Each precision in turn, until one fails: an answer each."""
    for name in names:
        channel.answer("computing_in", dtype=name)
        answer = precision_run(torch, name, device)
        channel.answer("precision", **answer)
        if not answer["ok"]:
            return False
    return True
