"""The QueueManager port and its adapters (embedded SQLite, IBM MQ)."""
