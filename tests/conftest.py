"""Settings for the whole suite.

Hypothesis's per-example deadline (200 ms by default) is a timed assertion: on a loaded
machine a correct codec can miss it and the test fails as "flaky". Speed is measured in
benchmarks/, never asserted in tests, so the deadline is off; the number of examples and
every other setting stay Hypothesis's defaults.
"""

from hypothesis import settings

settings.register_profile("dlqhandler", deadline=None)
settings.load_profile("dlqhandler")
