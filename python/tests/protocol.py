"""The batch protocol's ops answered through the Python API, as `linear-layout batch` answers
them: the same members in, the same members out, a rejection as {"ok": False, "error": ...}.

This is a client of the package, not part of it: it shows how each op reads in Python, and
lets the suite replay the protocol's recorded fixtures through the package.
"""

import linear_layout as ll
from linear_layout import LinearLayout

INT32 = range(-(2**31), 2**31)


def _layout(request, key):
    return LinearLayout.from_dict(request[key])


def _apply(request):
    layout = _layout(request, "layout")
    inputs = request["inputs"]
    if not isinstance(inputs, dict) or not all(
        isinstance(v, int) and not isinstance(v, bool) and v in INT32 for v in inputs.values()
    ):
        raise ll.LinearLayoutError("inputs must be an object of in-dim name -> 32-bit int")
    return {"outputs": layout.apply(inputs)}


OPS = {
    "compose": lambda r: {"layout": _layout(r, "layout").compose(_layout(r, "outer")).to_dict()},
    "invert_and_compose": lambda r: {
        "layout": _layout(r, "layout").invert_and_compose(_layout(r, "outer")).to_dict()
    },
    "invert": lambda r: {"layout": _layout(r, "layout").invert().to_dict()},
    "pseudoinvert": lambda r: {"layout": _layout(r, "layout").pseudoinvert().to_dict()},
    "product": lambda r: {"layout": (_layout(r, "layout") * _layout(r, "other")).to_dict()},
    "apply": _apply,
    "num_consecutive_in_out": lambda r: {"value": _layout(r, "layout").get_num_consecutive_in_out()},
    "is_injective": lambda r: {"value": _layout(r, "layout").is_injective()},
    "is_surjective": lambda r: {"value": _layout(r, "layout").is_surjective()},
    "is_invertible": lambda r: {"value": _layout(r, "layout").is_invertible()},
    "to_linear_layout": lambda r: {
        "layout": ll.to_linear_layout(r["encoding"], r["shape"]).to_dict()
    },
    "bank_conflicts": lambda r: ll.bank_conflicts(
        r["distributed"], r["shared"], r["shape"], r["element_bits"], r["target"]
    ).to_dict(),
    "convert_cost": lambda r: ll.convert_cost(
        r["src"], r["dst"], r["shape"], r["element_bits"], r["target"]
    ).to_dict(),
}


def answer(request):
    """The protocol's answer to one request (a parsed JSON value)."""
    out = {}
    if isinstance(request, dict) and "id" in request:
        out["id"] = request["id"]
    try:
        if not isinstance(request, dict):
            raise ll.LinearLayoutError("request must be a JSON object")
        op = OPS.get(request.get("op"))
        if op is None:
            raise ll.LinearLayoutError("unknown or missing op")
        result = op(request)
    except (ll.LinearLayoutError, KeyError, TypeError) as e:
        # KeyError: a member is missing; TypeError: a member has the wrong JSON type.
        out.update(ok=False, error=str(e))
        return out
    out["ok"] = True
    out.update(result)
    return out
