"""Triggering on the embedded queue manager: conditions, processes, the trigger monitor."""
