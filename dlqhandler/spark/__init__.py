"""The bulk work on Spark: the backlog drain and the backlog report.

* :mod:`.drain`: classify a backlog with a rules table and write one dmpmqmsg file per
  target (or carry the actions out on the queue manager, ``--apply``);
* :mod:`.report`: what is on a backlog, and what a table (or a change of table) would do;
* what both read and how they run: :mod:`.messages` (the ``dmpmqmsg`` data source,
  :mod:`.jar` and ``jvm/``), :mod:`.inputs` (one set of input files), :mod:`.classify`
  (the rules' Spark back end), :mod:`.units` (message groups and segmented messages in
  SQL), :mod:`.session` and :mod:`.lifecycle` (a session, its log
  file, Ctrl-C, a failure described), :mod:`.files` (local and Hadoop paths, the output
  directory), :mod:`.progress`.

This is the only package that imports pyspark, always inside the functions that need it:
importing a module here never starts a JVM. It may import outcomes, acting, rules, qmgr (the
port, the attempt counts, the snapshot: never an adapter), mq, formats, config, logs and
errors; never worker (what both need lives below them), report or cli.
"""
