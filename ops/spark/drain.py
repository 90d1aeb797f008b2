"""spark-submit entry point for the dlqhandler backlog drain.

    spark-submit --master local[*] ops/spark/drain.py \
        --rules rules/default.rul --input /data/dlq/*.dmp --output /data/drain-out

Takes the same arguments as ``dlqhandler drain`` (without ``--master``: the
launcher chooses it); relative paths are resolved on the driver, so
``--master 'local-cluster[2,1,1024]'`` or a cluster with a shared mount work.
dlqhandler must be installed on the driver and the executors
(``pip install dlqhandler[spark]``), or shipped with ``--py-files``.
"""

from __future__ import annotations

import sys

from dlqhandler.cli.drain import main

if __name__ == "__main__":
    sys.exit(main())
