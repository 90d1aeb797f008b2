"""The reliability suite (issue #9): nothing lost, duplicated or let in.

``make test`` runs the fast subset (tests without the ``reliability`` marker);
``make reliability`` runs the long tests (``pytest -m reliability tests/reliability``)
and writes their figures to ``benchmarks/reliability-results.json`` (or
``$DLQ_REL_RESULTS``). Sizes, with the defaults of ``make reliability``:

=========================  =======  ==============================================
knob                       default  what
=========================  =======  ==============================================
DLQ_REL_MESSAGES           20000    backlog of the handler crash test
DLQ_REL_KILLS              50       SIGKILLs of `dlqhandler run`
DLQ_REL_DRAIN_MESSAGES     2000     backlog of the drain crash test
DLQ_REL_DRAIN_KILLS        5        SIGKILLs of `dlqhandler drain --apply`
DLQ_REL_CONC_MESSAGES      5000     backlog shared by the handlers and a drain
DLQ_REL_HANDLERS           4        handlers running at once
DLQ_REL_FUZZ               100000   generated rules tables
DLQ_REL_CODEC_FUZZ         5000     cases per decoder and for the dmpmqmsg reader
DLQ_REL_BIG_MB             100      size of the big message
DLQ_REL_SOAK_S             120      soak duration in seconds (issue: 1800)
DLQ_REL_SOAK_RATE          40       soak inflow, messages a second
DLQ_REL_SOAK_RELOAD_S      5        seconds between rules rewrites in the soak
DLQ_REL_SEED               9        seed of the backlogs and kill moments
=========================  =======  ==============================================
"""
