"""One module per page topic. Each defines ``names(site)``: the placeholders its page templates
use, mapped to finished strings or to functions that return them (``site`` gives ``data``, the
merged records and archive, ``book``, the FigureBook every figure goes through, and ``threads``).
A new page module is found here by itself; two modules may not define the same placeholder."""
import importlib
import pkgutil


def modules():
    return [importlib.import_module(f"{__name__}.{info.name}") for info in pkgutil.iter_modules(__path__)
            if not info.name.startswith("_")]


def names(site):
    """Every page module's placeholders, merged; a name defined twice is an error naming both."""
    out, owner = {}, {}
    for module in modules():
        if not hasattr(module, "names"):
            continue
        for key, value in module.names(site).items():
            if key in out:
                raise ValueError(f"template name {key!r} is defined by {owner[key]} and {module.__name__}")
            out[key], owner[key] = value, module.__name__
    return out
