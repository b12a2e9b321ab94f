"""What a store raises while its database server is out of reach for now (restarting, or the
network between is down), as opposed to a refusal: the service answers it 503 with Retry-After,
and ends a live stream for its client to reconnect. Only PostgreSQL has a server to lose, so it
is psycopg's OperationalError; a store of one machine never raises it. Importing this loads
psycopg: the service does, at start, and the CLI never needs to."""

from psycopg import OperationalError as OutOfReach

__all__ = ["OutOfReach"]
