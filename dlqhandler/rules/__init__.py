"""The rules-table language: lexer -> parser -> validator -> compiler -> one IR.

:func:`compile_rules` turns runmqdlq rules-table text into a :class:`RuleSet`
(frozen, picklable, JSON round-trippable) plus every :class:`Diagnostic`.
Back ends run the IR: :class:`Matcher` / :func:`decide` here (Python), the
Spark column expressions in ``dlqhandler.spark``. This package is pure: it
reads no files and imports only ``dlqhandler.mq`` and ``dlqhandler.errors``.
"""

from dlqhandler.rules.compiler import (
    CompileResult,
    compile_rules,
    compile_rules_or_raise,
    pattern_keywords,
)
from dlqhandler.rules.diagnostics import CODES, Diagnostic, Severity
from dlqhandler.rules.explain import explain
from dlqhandler.rules.fields import PATTERN_FIELDS, FieldSpec, message_fields
from dlqhandler.rules.ir import (
    Action,
    ControlData,
    IntPredicate,
    Rule,
    RuleSet,
    StringPredicate,
)
from dlqhandler.rules.matcher import Decision, Matcher, decide
from dlqhandler.rules.targets import InvalidTargetError, ResolvedTarget, resolve_target

__all__ = [
    "CODES",
    "PATTERN_FIELDS",
    "Action",
    "CompileResult",
    "ControlData",
    "Decision",
    "Diagnostic",
    "FieldSpec",
    "IntPredicate",
    "InvalidTargetError",
    "Matcher",
    "ResolvedTarget",
    "Rule",
    "RuleSet",
    "Severity",
    "StringPredicate",
    "compile_rules",
    "compile_rules_or_raise",
    "decide",
    "explain",
    "message_fields",
    "pattern_keywords",
    "resolve_target",
]
