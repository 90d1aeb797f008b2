"""Validated entries as pydantic models: control data, pattern, action, rule.

The parser hands over ``KEYWORD -> Arg`` items; these models turn them into
typed, frozen values. Every field is always given (``None`` when the keyword
is absent), so every field validator runs and pydantic collects *all* problems
of an entry in one pass. Cross-keyword rules (FWD needs FWDQ, HEADER only
with FWD...) are checked in the later field's validator from the earlier
fields already validated (``info.data``), so a bad ACTION does not cascade.

Each error is a ``PydanticCustomError`` whose type is the diagnostic code and
whose context carries the finished :class:`Diagnostic`; warnings are appended
to the validation context. :func:`validate_entry` does the translation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, NoReturn, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError

from dlqhandler.rules.diagnostics import Diagnostic, make_diagnostic
from dlqhandler.rules.parser import Arg
from dlqhandler.rules.values import (
    FWDQ_TOKENS,
    FWDQM_TOKENS,
    Problem,
    Skip,
    Warn,
    choice,
    count,
    numeric_pattern,
    queue_name,
    string_pattern,
    wait_value,
)

__all__ = ["ActionModel", "ControlModel", "Env", "PatternModel", "RuleModel", "validate_entry"]

ActionKind = Literal["RETRY", "FWD", "DISCARD", "IGNORE"]
ACTIONS: tuple[str, ...] = ("RETRY", "FWD", "DISCARD", "IGNORE")
M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")


@dataclass(slots=True)
class Env:
    """Validation context for one entry: where it is and where warnings go."""

    path: str
    line: int
    column: int
    args: dict[str, Arg]
    missing_action_reported: bool = False  # an unknown keyword probably meant ACTION
    warnings: list[Diagnostic] = field(default_factory=list)

    def diagnostic(self, p: Problem) -> Diagnostic:
        return make_diagnostic(
            p.code, self.path, p.line, p.column, end_column=p.end_column, **p.fields
        )


def _env(info: ValidationInfo) -> Env:
    env = info.context
    assert isinstance(env, Env)
    return env


def _run(info: ValidationInfo, convert: Callable[[Warn], T]) -> T:
    """Run a converter; turn its Problem into a pydantic error carrying the diagnostic."""
    env = _env(info)
    try:
        return convert(lambda p: env.warnings.append(env.diagnostic(p)))
    except Skip:
        raise PydanticCustomError("skip", "already reported") from None
    except Problem as p:
        diag = env.diagnostic(p)
        raise PydanticCustomError(
            p.code, "{message}", {"message": diag.message, "diagnostic": diag}
        ) from None


def _fail(info: ValidationInfo, code: str, arg: Arg | None = None, **fields: Any) -> Problem:
    env = _env(info)
    if arg is None:
        return Problem(code, env.line, env.column, **fields)
    return Problem(code, arg.line, arg.column, arg.end_column, **fields)


def _error(info: ValidationInfo, problem: Problem) -> NoReturn:
    """Raise ``problem`` as the pydantic error :func:`_run` would."""
    _run(info, lambda _: _reraise(problem))
    raise AssertionError("unreachable")  # pragma: no cover


def _reraise(problem: Problem) -> NoReturn:
    raise problem


_CONFIG = ConfigDict(frozen=True, extra="forbid")


class PatternModel(BaseModel):
    """The pattern half of a rule: string patterns, numbers (None = any)."""

    model_config = _CONFIG

    applidat: str | None
    applname: str | None
    appltype: int | None
    destq: str | None
    destqm: str | None
    feedback: int | None
    format: str | None
    msgtype: int | None
    persist: int | None
    reason: int | None
    replyq: str | None
    replyqm: str | None
    userid: str | None

    @field_validator(
        "applidat",
        "applname",
        "destq",
        "destqm",
        "format",
        "replyq",
        "replyqm",
        "userid",
        mode="plain",
    )
    @classmethod
    def _string(cls, v: Arg | None, info: ValidationInfo) -> str | None:
        if v is None:
            return None
        return _run(info, lambda warn: string_pattern(v, warn))

    @field_validator("appltype", "feedback", "msgtype", "persist", "reason", mode="plain")
    @classmethod
    def _number(cls, v: Arg | None, info: ValidationInfo) -> int | None:
        if v is None:
            return None
        return _run(info, lambda warn: numeric_pattern(v, warn))


class ActionModel(BaseModel):
    """The action half of a rule, with the keyword-combination rules of spec §4."""

    model_config = _CONFIG

    kind: ActionKind
    retry: int
    fwdq: str | None
    fwdqm: str | None
    header: bool
    putaut: Literal["DEF", "CTX"]

    @field_validator("kind", mode="plain")
    @classmethod
    def _kind(cls, v: Arg | None, info: ValidationInfo) -> str:
        if v is None:
            if _env(info).missing_action_reported:
                raise PydanticCustomError("skip", "already reported")
            _error(info, _fail(info, "E204"))
        return _run(info, lambda _: choice(v, ACTIONS))

    @field_validator("retry", mode="plain")
    @classmethod
    def _retry(cls, v: Arg | None, info: ValidationInfo) -> int:
        if v is None:
            return 1
        kind = info.data.get("kind")
        if kind in ("IGNORE", "DISCARD"):
            _env(info).warnings.append(_env(info).diagnostic(_fail(info, "W402", v, action=kind)))
        return _run(info, lambda _: count(v, low=1))

    @field_validator("fwdq", mode="plain")
    @classmethod
    def _fwdq(cls, v: Arg | None, info: ValidationInfo) -> str | None:
        kind = info.data.get("kind")
        if v is None:
            if kind == "FWD":
                _error(info, _fail(info, "E401", _env(info).args["ACTION"]))
            return None
        if kind is not None and kind != "FWD":
            _error(info, _fail(info, "E402", v, action=kind))
        return _run(info, lambda warn: queue_name(v, warn, tokens=FWDQ_TOKENS))

    @field_validator("fwdqm", mode="plain")
    @classmethod
    def _fwdqm(cls, v: Arg | None, info: ValidationInfo) -> str | None:
        if v is None:
            return None
        kind = info.data.get("kind")
        if kind is not None and kind != "FWD":
            _error(info, _fail(info, "E403", v, action=kind))
        return _run(info, lambda warn: queue_name(v, warn, tokens=FWDQM_TOKENS, blank_ok=True))

    @field_validator("header", mode="plain")
    @classmethod
    def _header(cls, v: Arg | None, info: ValidationInfo) -> bool:
        if v is None:
            return True
        kind = info.data.get("kind")
        if kind is not None and kind != "FWD":
            _error(info, _fail(info, "E404", v, action=kind))
        return _run(info, lambda _: choice(v, ("YES", "NO"))) == "YES"

    @field_validator("putaut", mode="plain")
    @classmethod
    def _putaut(cls, v: Arg | None, info: ValidationInfo) -> str:
        if v is None:
            return "DEF"
        kind = info.data.get("kind")
        if kind in ("IGNORE", "DISCARD"):
            _env(info).warnings.append(_env(info).diagnostic(_fail(info, "W401", v, action=kind)))
        return _run(info, lambda _: choice(v, ("DEF", "CTX")))


class RuleModel(BaseModel):
    """A rule: a pattern and an action."""

    model_config = _CONFIG

    pattern: PatternModel
    action: ActionModel


class ControlModel(BaseModel):
    """The control-data entry (spec §2), with runmqdlq's defaults."""

    model_config = _CONFIG

    inputq: str | None
    inputqm: str | None
    retryint: int
    wait: Literal["YES", "NO"] | int

    @field_validator("inputq", "inputqm", mode="plain")
    @classmethod
    def _name(cls, v: Arg | None, info: ValidationInfo) -> str | None:
        if v is None:
            return None
        return _run(info, lambda warn: queue_name(v, warn, blank_ok=True))

    @field_validator("retryint", mode="plain")
    @classmethod
    def _retryint(cls, v: Arg | None, info: ValidationInfo) -> int:
        if v is None:
            return 60
        seconds = _run(info, lambda _: count(v, low=0))
        if seconds == 0:
            _env(info).warnings.append(_env(info).diagnostic(_fail(info, "W506", v)))
        return seconds

    @field_validator("wait", mode="plain")
    @classmethod
    def _wait(cls, v: Arg | None, info: ValidationInfo) -> str | int:
        if v is None:
            return "YES"
        return _run(info, lambda _: wait_value(v))


def validate_entry(
    model: type[M],
    data: dict[str, Any],
    env: Env,
) -> tuple[M | None, list[Diagnostic]]:
    """Validate ``data`` (field -> Arg or None) into ``model``; all diagnostics found."""
    try:
        result: M | None = model.model_validate(data, context=env)
        errors: list[Diagnostic] = []
    except ValidationError as exc:
        result = None
        errors = []
        for e in exc.errors(include_url=False):
            if e["type"] == "skip":
                continue
            diag = e.get("ctx", {}).get("diagnostic")
            if not isinstance(diag, Diagnostic):  # a bug in a validator, not in the table
                raise RuntimeError(f"rules validator failed: {e}") from exc
            errors.append(diag)
    return result, [*errors, *env.warnings]
