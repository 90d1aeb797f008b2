"""A stand-in for IBM MQ's C client library (``libmqm_r.so``) on the embedded queue manager.

IBM's ``ibmmq`` package (its compiled extension ``ibmmq.ibmmqc``, unmodified)
links against ``libmqm_r.so``. :mod:`.build` compiles ``libmqm_standin.c``
into a library of that soname whose MQI entry points hand every call to
:mod:`.standin`, which reads and writes the caller's MQI structures
(:mod:`.structs`, laid out as IBM's ``cmqc.h``/``cmqxc.h``) and carries the
call out on an embedded queue manager through the ``QueueManager`` port.
"""
