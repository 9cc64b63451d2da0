"""The profiles (experiments/configs/<profile>.yaml): which families a retest runs, with which params.

``reportgen retest`` reads one to run it; the history (pages.history) reads two to know whether a
record of one profile states the same claims as a record of the same case of another: a family
declares, per profile key, which claims the key changes (study.family.Family.claims_of).
"""
from pathlib import Path

import yaml

from study.family import PROFILES, declared as declared_families
from reportgen.data import plainfile, safeyaml
from reportgen.errors import ReportError


PROFILE_FIELDS = {
    "profile": "the profile's own name (quick, standard or full): the file it is in",
    "families": "family name -> its params, in the order the families run (a family runs after those it uses)",
}
"""The fields of a profile file, each with what it holds; nothing else is allowed."""


def read_profile(root, profile):
    """The profile's families in run order: each declared family (study.family) with its params.

    Every problem is collected and reported at once, one line each naming the file and field.
    """
    if profile not in PROFILES:
        raise ReportError(f"--profile: {profile!r} is not one of {', '.join(PROFILES)}")
    root = Path(root)
    path = root / "experiments" / "configs" / f"{profile}.yaml"
    rel = path.relative_to(root).as_posix()
    declared, problems = declared_families(root)
    try:
        # a plain file of bounded size: a committed link read a file outside (and echoed its
        # `profile:`), a FIFO hung the retest before its first line
        config = safeyaml.loads(plainfile.read_text(path, plainfile.MAX_ARCHIVE_FILE_BYTES))   # no alias, bounded depth
    except ReportError as exc:
        raise ReportError(f"{rel}: cannot read the profile ({exc.problems[0]})") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"{rel}: cannot read the profile ({getattr(exc, 'strerror', None) or exc})") from exc
    except yaml.YAMLError as exc:
        raise ReportError(f"{rel}: not valid YAML ({safeyaml.describe(exc)})") from exc
    if not isinstance(config, dict):
        raise ReportError(problems + [f"{rel}: expected a mapping with the fields {', '.join(PROFILE_FIELDS)}"])
    problems += [f"{rel}: {key}: unknown field (known: {', '.join(PROFILE_FIELDS)})"
                 for key in config if key not in PROFILE_FIELDS]
    if config.get("profile") != profile:
        problems.append(f"{rel}: profile: expected {profile!r}, got {config.get('profile')!r}")
    families = config.get("families")
    if not isinstance(families, dict) or not families:
        raise ReportError(problems + [f"{rel}: families: expected a mapping of family name -> params"])
    names = list(families)
    for name, params in families.items():
        fam = declared.get(name)
        if fam is None:
            problems.append(f"{rel}: families.{name}: no module in experiments/ declares it "
                            f"(FAMILY = Family(name={name!r}, ...))")
            continue
        if not isinstance(params, dict):
            problems.append(f"{rel}: families.{name}: expected a mapping of params, got {type(params).__name__}")
        elif fam.params:
            problems += [f"{rel}: families.{name}.{key}: unknown param (the family reads "
                         f"{', '.join(fam.params)}; declared in {fam.module})" for key in params if key not in fam.params]
        for used in fam.uses:
            if used not in families:
                problems.append(f"{rel}: families.{name}: it uses {used!r}, which this profile does not list")
            elif names.index(used) > names.index(name):
                problems.append(f"{rel}: families.{name}: it uses {used!r}, which must come before it "
                                f"(families run in file order)")
    problems += [f"{rel}: families.{name}: missing (declared in {fam.module}); every profile gives every family "
                 f"its params" for name, fam in declared.items() if name not in families]
    if problems:
        raise ReportError(problems)
    return {name: {"module": declared[name].module, "timeout_s": declared[name].timeout_s[profile],
                   "params": params, "uses": list(declared[name].uses), "depends": list(declared[name].depends),
                   "rpc": declared[name].rpc, "claims_of": dict(declared[name].claims_of)}
            for name, params in families.items()}


def claims_across(root):
    """(family, profile a, profile b) -> the claim keys to leave out when a record of one profile is
    compared with a record of the same case of the other (an empty set for one profile), or None when
    the two profiles give the family a different value of a key it does not declare harmless
    (Family.claims_of), or either profile cannot be read.  Profiles are read once per call of this."""
    read = {}

    def families(profile):
        if profile not in read:
            try:
                read[profile] = read_profile(root, profile) if profile in PROFILES else None
            except (ReportError, OSError, SyntaxError, ValueError):   # a family module git shows but Python cannot read
                read[profile] = None
        return read[profile]

    def across(family, a, b):
        if a == b:
            return frozenset()
        fa, fb = families(a), families(b)
        if not fa or not fb or family not in fa or family not in fb:
            return None
        pa, pb, claims_of = fa[family]["params"], fb[family]["params"], fa[family]["claims_of"]
        differ = [key for key in set(pa) | set(pb) if pa.get(key) != pb.get(key)]
        if any(key not in claims_of for key in differ):
            return None
        return frozenset(name for key in differ for name in claims_of[key])
    return across
