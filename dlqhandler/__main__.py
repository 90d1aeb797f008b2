"""``python -m dlqhandler``: the same as the ``dlqhandler`` command."""

from dlqhandler.cli import main

raise SystemExit(main())
